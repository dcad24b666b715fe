// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/validate/run.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "items.hpp"
#include "stackscope/validate/explain.hpp"
#include "stackscope/serving/cluster.hpp"
#include "stackscope/serving/request.hpp"

namespace stackscope::validate {
namespace {

constexpr std::string_view kKeys = "system, backend, version, model, mode, precision, id";

using detail::trim;

const std::string* field_of(const SiliconRow& r, const std::string& key) {
  if (key == "system") return &r.system;
  if (key == "backend") return &r.backend;
  if (key == "version") return &r.backend_version;
  if (key == "model") return &r.model;
  if (key == "mode") return &r.mode;
  if (key == "precision") return &r.precision;
  if (key == "id") return &r.id;
  return nullptr;
}

bool value_matches(const std::string& pattern, const std::string& value) {
  if (!pattern.empty() && pattern.back() == '*')
    return value.starts_with(std::string_view(pattern).substr(0, pattern.size() - 1));
  return pattern == value;
}

// The benchmark's requests, all sent at t = 0 (the closed loop releases them): identical ones
// (serving::benchmark) or lengths drawn uniformly by the serving generator, whose draws are the
// same on every platform (serving::generate); its arrival times are not used.
std::vector<serving::Request> bench_requests(const Benchmark& b) {
  if (b.isl_min == b.isl_max && b.osl_min == b.osl_max)
    return serving::benchmark(b.requests, b.isl_max, b.osl_max);
  serving::GeneratorSpec g;
  g.requests = b.requests;
  g.seed = b.seed;
  g.arrivals.rate_per_s = 1e6;
  const auto uniform = [](int lo, int hi) {
    serving::LengthDist d;
    d.kind = serving::LengthDist::Kind::uniform;
    d.a = lo;
    d.b = hi;
    return d;
  };
  g.input = uniform(b.isl_min, b.isl_max);
  g.output = uniform(b.osl_min, b.osl_max);
  auto out = serving::generate(g);
  for (auto& r : out) r.arrival_s = 0;
  return out;
}

void run_one(const Case& c, CaseResult& r, const std::stop_token& stop) {
  std::vector<serving::InstanceConfig> instances;
  serving::SimOptions opt;
  opt.concurrency = c.bench.concurrency;
  // Every row was measured through its backend's HTTP front end.
  if (!c.workers.empty())
    opt.request_latency_s = c.workers.front().design.runtime.request_latency_us * 1e-6;
  opt.stop = stop;
  try {
    if (c.workers.size() == 1) {
      instances = serving::colocated_instances(c.workers[0].design, c.workers[0].scheduler,
                                               c.workers[0].count);
    } else if (c.workers.size() == 2) {
      const Worker& p = c.workers[0];
      const Worker& d = c.workers[1];
      auto built = serving::disaggregated_instances({p.design, p.scheduler, p.count},
                                                    {d.design, d.scheduler, d.count});
      instances = std::move(built.instances);
      opt.kv_transfer = std::move(built.transfer);
    } else {
      r.failure = "no workers";
      return;
    }
  } catch (const std::invalid_argument& e) {
    r.failure = e.what();
    return;
  }
  std::vector<serving::Request> reqs;
  try {
    reqs = bench_requests(c.bench);
  } catch (const std::invalid_argument& e) {
    r.failure = e.what();
    return;
  }
  const serving::SimResult sim = serving::simulate(reqs, std::move(instances), opt);
  if (sim.stopped) {
    r.failure = "stopped";
    return;
  }
  if (sim.rejected > 0) {
    r.failure = std::to_string(sim.rejected) + " of " + std::to_string(reqs.size()) +
                " requests rejected: " + serving::rejection_text(sim);
    return;
  }
  r.ran = true;
  r.requests = reqs.size();
  r.sim_seconds = sim.makespan_s;
  r.ttft_ms = sim.ttft.mean * 1e3;
  r.tpot_ms = sim.tpot.mean * 1e3;
  r.ttft_err = (r.ttft_ms - c.row.ttft_ms) / c.row.ttft_ms;
  r.tpot_err = (r.tpot_ms - c.row.tpot_ms) / c.row.tpot_ms;
}

}  // namespace

CaseResult run_case(const Case& c, const std::stop_token& stop) {
  CaseResult r;
  run_one(c, r, stop);
  return r;
}

Selector parse_selector(std::string_view text, std::string_view what) {
  Selector sel;
  for (const std::string_view item : detail::items(text, ',')) {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument(std::string(what) + ": '" + std::string(item) +
                                  "' is not KEY=VALUE[|VALUE...] (keys: " + std::string(kKeys) +
                                  ")");
    Selector::Term t;
    t.key = std::string(trim(item.substr(0, eq)));
    SiliconRow probe;
    if (!field_of(probe, t.key))
      throw std::invalid_argument(std::string(what) + ": unknown key '" + t.key +
                                  "' (allowed: " + std::string(kKeys) + ")");
    std::string_view vals = item.substr(eq + 1);
    while (true) {
      const std::size_t bar = vals.find('|');
      const std::string_view v = trim(vals.substr(0, bar));
      if (v.empty())
        throw std::invalid_argument(std::string(what) + ": empty value for key '" + t.key + "'");
      t.values.emplace_back(v);
      if (bar == std::string_view::npos) break;
      vals = vals.substr(bar + 1);
    }
    sel.terms.push_back(std::move(t));
  }
  return sel;
}

bool matches(const Selector& s, const SiliconRow& row) {
  for (const auto& t : s.terms) {
    const std::string* v = field_of(row, t.key);
    if (!v) return false;
    if (std::none_of(t.values.begin(), t.values.end(),
                     [&](const std::string& p) { return value_matches(p, *v); }))
      return false;
  }
  return true;
}

const char* to_string(Group g) {
  switch (g) {
    case Group::fitted: return "fitted";
    case Group::held_out: return "held out";
    case Group::reported: return "reported";
  }
  return "?";
}

std::vector<CaseResult> run_cases(const std::vector<Case>& cases,
                                  const std::vector<std::size_t>& selected,
                                  const std::vector<Group>& groups, const RunOptions& options) {
  if (groups.size() != selected.size())
    throw std::invalid_argument("run_cases: one group per selected case");
  std::vector<CaseResult> results(selected.size());
  for (std::size_t k = 0; k < selected.size(); ++k) {
    if (selected[k] >= cases.size()) throw std::invalid_argument("run_cases: index out of range");
    results[k].index = selected[k];
    results[k].group = groups[k];
    results[k].failure = "stopped";
  }
  // Longest cases first (requests x output length), so the last thread is not left with one.
  std::vector<std::size_t> order(selected.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  const auto work = [&](std::size_t k) {
    const Case& c = cases[selected[k]];
    return static_cast<double>(c.bench.requests) * c.bench.osl_max;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return work(a) > work(b); });
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex progress_mutex;
  const auto worker = [&] {
    while (!options.stop.stop_requested()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= order.size()) return;
      const std::size_t k = order[i];
      CaseResult& r = results[k];
      r.failure.clear();
      const Case& c = cases[selected[k]];
      if (!c.unmapped.empty())
        r.failure = "unmapped: " + c.unmapped;
      else
        run_one(c, r, options.stop);
      std::lock_guard lock(progress_mutex);
      ++done;
      if (options.progress) options.progress(done, order.size());
    }
  };
  const int threads = std::clamp(options.threads, 1, 256);
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::jthread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  }
  return results;
}

ErrorStats error_stats(std::vector<double> e) {
  ErrorStats s;
  s.rows = e.size();
  if (e.empty()) return s;
  std::sort(e.begin(), e.end());
  double sum = 0;
  for (double v : e) sum += v;
  s.mape = sum / static_cast<double>(e.size());
  // Nearest-rank p90: the smallest error at least 90 % of the rows are within.
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(e.size())));
  s.p90 = e[std::max<std::size_t>(rank, 1) - 1];
  s.max = e.back();
  return s;
}

std::vector<PartitionStats> summarise(const std::vector<Case>& cases,
                                      const std::vector<CaseResult>& results) {
  struct Acc {
    std::vector<double> ttft, tpot;
  };
  std::vector<std::pair<std::pair<Group, std::string>, Acc>> parts;
  std::map<std::pair<Group, std::string>, std::size_t> where;
  std::map<Group, std::array<Acc, 3>> totals;  // dense, MoE, all
  for (const auto& r : results) {
    if (!r.ran) continue;
    const Case& c = cases.at(r.index);
    const auto key = std::make_pair(r.group, c.partition);
    auto it = where.find(key);
    if (it == where.end()) {
      it = where.emplace(key, parts.size()).first;
      parts.push_back({key, {}});
    }
    for (Acc* a :
         {&parts[it->second].second, &totals[r.group][c.moe ? 1 : 0], &totals[r.group][2]}) {
      a->ttft.push_back(std::abs(r.ttft_err));
      a->tpot.push_back(std::abs(r.tpot_err));
    }
  }
  std::vector<PartitionStats> out;
  for (auto& [key, acc] : parts)
    out.push_back({key.second, key.first, error_stats(acc.ttft), error_stats(acc.tpot)});
  for (auto& [group, accs] : totals) {
    const char* names[3] = {"all dense", "all MoE", "all"};
    for (int i = 0; i < 3; ++i)
      if (!accs[i].ttft.empty())
        out.push_back({names[i], group, error_stats(accs[i].ttft), error_stats(accs[i].tpot)});
  }
  return out;
}

}  // namespace stackscope::validate
