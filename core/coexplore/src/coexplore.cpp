// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/coexplore/coexplore.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "stackscope/common/issue.hpp"
#include "stackscope/hw/wafer.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/runs/serve.hpp"
#include "stackscope/search/eta.hpp"
#include "stackscope/wafer/run.hpp"

namespace stackscope::coexplore {
namespace {

hw::Wafer& wafer_of(PointConfig& p) {
  return *p.design.wafer;
}

// Ranges: wide sanity bounds; hw::wafer_layout() judges what is physical. Grid sides: a 300 mm
// wafer holds at most 300 / 1 mm dies per side for a 1 mm die; 64 per side is far above any
// reticle-sized die grid (WSE-3: 7 x 12). DRAM capacity per die: up to 1 TB (eight 128 GB HBM4
// stacks). Scheduler limits as the serve CLI's flags (1..2^20 sequences, 1..2^26 tokens).
constexpr Knob kKnobs[] = {
    {"dram_GB", "DRAM capacity per die (edge DRAM takes wafer area per GB)", "GB",
     KnobTarget::wafer, false, 0, 1024, [](PointConfig& p, double v) { wafer_of(p).dram_GB = v; }},
    {"dram_GBps", "DRAM bandwidth per die (its PHY takes die area per TB/s)", "GB/s",
     KnobTarget::wafer, false, 1, 1e5, [](PointConfig& p, double v) { wafer_of(p).dram_GBps = v; }},
    {"d2d_GBps", "die-to-die link bandwidth per direction (its PHYs take die shoreline)", "GB/s",
     KnobTarget::wafer, false, 1, 1e5, [](PointConfig& p, double v) { wafer_of(p).d2d_GBps = v; }},
    {"compute_fraction", "share of the die area for compute cores", "fraction", KnobTarget::wafer,
     false, 0, 1, [](PointConfig& p, double v) { wafer_of(p).compute_fraction = v; }},
    {"sram_fraction", "share of the die area for shared SRAM", "fraction", KnobTarget::wafer, false,
     0, 1, [](PointConfig& p, double v) { wafer_of(p).sram_fraction = v; }},
    {"die_width_mm", "die width (reticle: 26 mm)", "mm", KnobTarget::wafer, false, 1, 26,
     [](PointConfig& p, double v) { wafer_of(p).die_width_mm = v; }},
    {"die_height_mm", "die height (reticle: 33 mm)", "mm", KnobTarget::wafer, false, 1, 33,
     [](PointConfig& p, double v) { wafer_of(p).die_height_mm = v; }},
    {"dies_x", "die grid columns (0 = as many as fit)", "dies", KnobTarget::wafer, true, 0, 64,
     [](PointConfig& p, double v) { wafer_of(p).dies_x = static_cast<int>(v); }},
    {"dies_y", "die grid rows (0 = as many as fit)", "dies", KnobTarget::wafer, true, 0, 64,
     [](PointConfig& p, double v) { wafer_of(p).dies_y = static_cast<int>(v); }},
    {"spare_dies", "spare dies held back for yield", "dies", KnobTarget::wafer, true, 0, 4096,
     [](PointConfig& p, double v) { wafer_of(p).spare_dies = static_cast<int>(v); }},
    {"power_limit_W_per_die", "power delivery limit per die", "W", KnobTarget::wafer, false, 1, 1e4,
     [](PointConfig& p, double v) { wafer_of(p).power_limit_W_per_die = v; }},
    {"usable_area_mm2", "wafer area the die grid may cover", "mm2", KnobTarget::wafer, false, 1,
     70686, [](PointConfig& p, double v) { wafer_of(p).usable_area_mm2 = v; }},
    {"max_num_seqs", "running sequences per instance (vLLM max_num_seqs)", "sequences",
     KnobTarget::serving, true, 1, 1 << 20,
     [](PointConfig& p, double v) { p.spec.scheduler.max_num_seqs = static_cast<int>(v); }},
    {"max_num_batched_tokens", "tokens per iteration (vLLM max_num_batched_tokens)", "tokens",
     KnobTarget::serving, true, 1, 1 << 26,
     [](PointConfig& p, double v) {
       p.spec.scheduler.max_num_batched_tokens = static_cast<int>(v);
     }},
    {"load", "request rate multiplier of the stream (2 = arrivals twice as fast)", "x",
     KnobTarget::serving, false, 1e-3, 1e3, [](PointConfig& p, double v) { p.load = v; }},
};

constexpr std::pair<Metric, std::string_view> kMetricNames[] = {
    {Metric::goodput_rps, "goodput_rps"},
    {Metric::goodput_per_kW, "goodput_per_kW"},
    {Metric::goodput_per_die, "goodput_per_die"},
    {Metric::slo_attainment, "slo_attainment"},
    {Metric::output_tokens_per_s, "output_tokens_per_s"},
    {Metric::ttft_p90_s, "ttft_p90_s"},
    {Metric::tpot_p90_s, "tpot_p90_s"},
    {Metric::energy_per_token_J, "energy_per_token_J"},
    {Metric::power_W, "power_W"},
    {Metric::usable_dies, "usable_dies"},
};

std::string num(double v) {
  return number_text(v);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::span<const Knob> knobs() {
  return kKnobs;
}

const Knob* find_knob(std::string_view name) {
  for (const Knob& k : kKnobs)
    if (k.name == name) return &k;
  return nullptr;
}

std::string knob_names() {
  std::string s;
  for (const Knob& k : kKnobs) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

std::string_view to_string(Metric m) {
  for (const auto& [k, n] : kMetricNames)
    if (k == m) return n;
  return "?";
}

std::optional<Metric> metric_from_string(std::string_view s) {
  for (const auto& [k, n] : kMetricNames)
    if (n == s) return k;
  return std::nullopt;
}

std::string metric_names() {
  std::string s;
  for (const auto& [k, n] : kMetricNames) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

search::Direction default_direction(Metric m) {
  switch (m) {
    case Metric::goodput_rps:
    case Metric::goodput_per_kW:
    case Metric::goodput_per_die:
    case Metric::slo_attainment:
    case Metric::output_tokens_per_s: return search::Direction::maximize;
    default: return search::Direction::minimize;
  }
}

std::vector<Issue> validate(const CompiledSpace& space) {
  const PointConfig& base = space.space().base;
  std::vector<Issue> issues = perf::validate_base(base.design);
  for (Issue& i : serving::validate(base.spec)) issues.push_back(std::move(i));
  return issues;
}

CompiledSpace::CompiledSpace(Space space) : space_(std::move(space)) {
  std::vector<Issue> issues;
  if (!space_.base.design.wafer)
    issues.push_back({"/wafer", "a co-exploration needs a wafer in the base design", "none",
                      "a wafer preset id or an inline wafer section"});
  std::set<std::string> seen;
  for (std::size_t a = 0; a < space_.axes.size(); ++a) {
    const Axis& ax = space_.axes[a];
    const std::string at = "/coexplore/axes/" + std::to_string(a);
    const Knob* k = find_knob(ax.knob);
    knobs_.push_back(k);
    if (!k) {
      issues.push_back({at + "/knob", "unknown knob", ax.knob, "one of " + knob_names()});
      continue;
    }
    if (!seen.insert(ax.knob).second)
      issues.push_back({at + "/knob", "knob given twice", ax.knob, "each knob on one axis"});
    if (ax.values.empty())
      issues.push_back({at + "/values", "no values", "[]", "at least one value"});
    for (std::size_t i = 0; i < ax.values.size(); ++i) {
      const double v = ax.values[i];
      const std::string vp = at + "/values/" + std::to_string(i);
      if (!std::isfinite(v) || v < k->min || v > k->max)
        issues.push_back({vp, std::string(k->name) + " out of range", num(v),
                          num(k->min) + " .. " + num(k->max) + " " + std::string(k->unit)});
      else if (k->integer && v != std::floor(v))
        issues.push_back(
            {vp, std::string(k->name) + " must be a whole number", num(v), "an integer"});
    }
  }
  if (space_.objectives.empty() || space_.objectives.size() > search::kMaxObjectives)
    issues.push_back({"/coexplore/objectives", "wrong number of objectives",
                      std::to_string(space_.objectives.size()),
                      "1 .. " + std::to_string(search::kMaxObjectives)});
  const auto& c = space_.constraints;
  if (!(c.min_slo_attainment >= 0 && c.min_slo_attainment <= 1))
    issues.push_back({"/coexplore/constraints/min_slo_attainment", "out of range",
                      num(c.min_slo_attainment), "0 .. 1"});
  if (!(c.max_power_W > 0))
    issues.push_back(
        {"/coexplore/constraints/max_power_W", "out of range", num(c.max_power_W), "> 0 W"});
  if (!issues.empty()) throw ConfigError(std::move(issues));
  // 2^40 points is far beyond any run (each point is a scheduler run of seconds); counted
  // before the strides, so their product cannot overflow.
  constexpr std::uint64_t kMaxPoints = std::uint64_t{1} << 40;
  std::vector<std::uint64_t> sizes;
  std::string product;
  for (const Axis& ax : space_.axes) {
    sizes.push_back(ax.values.size());
    product += (product.empty() ? "" : " x ") + ax.knob + " " + std::to_string(ax.values.size());
  }
  if (const search::Count n = search::count_points(sizes); n > kMaxPoints)
    throw ConfigError(
        {{"/coexplore/axes", "the axes give " + search::to_string(n) + " points (" + product + ")",
          search::to_string(n), "at most 2^40 = " + std::to_string(kMaxPoints) + " points"}});
  // Mixed radix, the last axis fastest.
  stride_.assign(space_.axes.size(), 1);
  for (std::size_t a = space_.axes.size(); a-- > 0;) {
    stride_[a] = size_;
    size_ *= space_.axes[a].values.size();
  }
}

std::vector<std::size_t> CompiledSpace::digits(std::uint64_t index) const {
  std::vector<std::size_t> d(space_.axes.size());
  for (std::size_t a = 0; a < d.size(); ++a)
    d[a] = static_cast<std::size_t>(index / stride_[a] % space_.axes[a].values.size());
  return d;
}

std::vector<double> CompiledSpace::values(std::uint64_t index) const {
  const auto d = digits(index);
  std::vector<double> v(d.size());
  for (std::size_t a = 0; a < d.size(); ++a) v[a] = space_.axes[a].values[d[a]];
  return v;
}

PointConfig CompiledSpace::decode(std::uint64_t index) const {
  PointConfig p = space_.base;
  const auto v = values(index);
  for (std::size_t a = 0; a < v.size(); ++a) knobs_[a]->apply(p, v[a]);
  // As `serve`: the static batch is not used (the simulator checks memory per iteration), and
  // a batch the project sized for a static evaluation must not shrink the plans the central
  // scheduler may use (wafer/partition.cpp validates each pool plan with the design's batch).
  p.design.workload.batch_auto = false;
  p.design.workload.batch = 1;
  // The die and D2D mesh of the point's wafer (die_hardware is idempotent, hw/wafer.hpp).
  hw::apply_wafer(*p.design.wafer, p.design.hardware, p.design.system);
  return p;
}

double metric(const Record& r, Metric m) {
  switch (m) {
    case Metric::goodput_rps: return r.goodput_rps;
    case Metric::goodput_per_kW: return r.goodput_per_kW;
    case Metric::goodput_per_die: return r.usable_dies > 0 ? r.goodput_rps / r.usable_dies : 0;
    case Metric::slo_attainment: return r.slo_attainment;
    case Metric::output_tokens_per_s: return r.output_tokens_per_s;
    case Metric::ttft_p90_s: return r.ttft_p90_s;
    case Metric::tpot_p90_s: return r.tpot_p90_s;
    case Metric::energy_per_token_J: return r.energy_per_token_J;
    case Metric::power_W: return r.power_W;
    case Metric::usable_dies: return r.usable_dies;
  }
  return 0;
}

search::PointRecord archive_record(const Record& r) {
  search::PointRecord p;
  p.id = {r.index, 0};
  p.unit = r.index;
  p.feasible = r.feasible;
  p.n_objectives = static_cast<int>(std::min(r.objectives.size(), search::kMaxObjectives));
  for (int i = 0; i < p.n_objectives; ++i)
    p.objectives[static_cast<std::size_t>(i)] = r.objectives[static_cast<std::size_t>(i)];
  p.devices = r.usable_dies;
  p.ttft_s = r.ttft_p90_s;
  p.tpot_s = r.tpot_p90_s;
  p.energy_per_token_j = r.energy_per_token_J;
  p.power_w = r.power_W;
  p.die_mm2 = r.die_mm2;
  return p;
}

std::vector<serving::Request> scale_load(std::span<const serving::Request> requests, double load) {
  std::vector<serving::Request> out(requests.begin(), requests.end());
  for (auto& r : out) r.arrival_s /= load;
  return out;
}

Record evaluate(const CompiledSpace& space, std::uint64_t index,
                std::span<const serving::Request> requests, int threads, std::stop_token stop) {
  Record rec;
  rec.index = index;
  rec.values = space.values(index);
  const PointConfig p = space.decode(index);
  const perf::Design& d = p.design;
  const hw::WaferLayout l = hw::wafer_layout(*d.wafer, d.hardware);
  rec.dies_x = l.dies_x;
  rec.dies_y = l.dies_y;
  rec.usable_dies = l.usable_dies;
  rec.die_mm2 = l.die_mm2;
  rec.wafer_yield = l.wafer_yield;
  rec.dram_GB_per_die = d.wafer->dram == hw::WaferDram::none ? 0 : d.wafer->dram_GB;
  rec.dram_TB = l.dram_TB;
  rec.sram_GB = l.sram_GB;
  rec.peak_PFLOPS = l.peak_fp16_PFLOPS;
  const auto finish = [&] {
    rec.objectives.clear();
    for (const auto& o : space.space().objectives) rec.objectives.push_back(metric(rec, o.metric));
    return rec;
  };
  if (!l.issues.empty()) {
    rec.reason = "wafer not physical: " + format_issue(l.issues.front());
    return finish();
  }
  const std::vector<serving::Request> reqs =
      p.load == 1 ? std::vector<serving::Request>(requests.begin(), requests.end())
                  : scale_load(requests, p.load);
  // The serve operation (runs/serve.hpp): the central scheduler's split on this wafer.
  runs::ServeOptions so;
  so.central = space.space().scheduler;
  so.central.threads = threads;
  serving::ServingSpec spec = p.spec;
  spec.partitioning = serving::Partitioning::automatic;
  runs::ServeRun served;
  try {
    served = runs::serve(d, spec, reqs, so, {}, stop);
  } catch (const ConfigError& e) {
    rec.reason = e.issues().empty() ? e.what() : format_issue(e.issues().front());
    return finish();
  } catch (const std::invalid_argument& e) {
    rec.reason = e.what();
    return finish();
  }
  rec.candidates = served.partitions_screened;
  if (served.stopped || !served.wafer) {
    rec.reason = "stopped";
    return finish();
  }
  const wafer::WaferRun& run = *served.wafer;
  const serving::SimResult& r = run.result;
  rec.partition = served.partition_text;
  rec.prefill = served.partition.prefill;
  rec.decode = served.partition.decode;
  rec.used_dies = run.used_dies;
  rec.requests = reqs.size();
  rec.goodput_rps = r.goodput_rps;
  rec.slo_attainment = r.slo_attainment;
  rec.output_tokens_per_s = r.output_tokens_per_s;
  rec.ttft_p50_s = r.ttft.p50;
  rec.ttft_p90_s = r.ttft.p90;
  rec.ttft_p99_s = r.ttft.p99;
  rec.tpot_p50_s = r.tpot.p50;
  rec.tpot_p90_s = r.tpot.p90;
  rec.tpot_p99_s = r.tpot.p99;
  rec.kv_transfer_p90_s = r.kv_transfer_s.p90;
  rec.energy_per_token_J = r.energy_per_output_token_J;
  rec.power_W = run.power_W;
  rec.goodput_per_kW = run.goodput_per_kW;
  rec.feasible = r.completed > 0;
  if (!rec.feasible) rec.reason = "no request completed";
  const auto& c = space.space().constraints;
  if (rec.feasible && rec.slo_attainment < c.min_slo_attainment) {
    rec.feasible = false;
    rec.reason = "SLO attainment " + num(rec.slo_attainment) + " below the constraint " +
                 num(c.min_slo_attainment);
  }
  if (rec.feasible && rec.power_W > c.max_power_W) {
    rec.feasible = false;
    rec.reason =
        "wafer power " + num(rec.power_W) + " W over the constraint " + num(c.max_power_W) + " W";
  }
  return finish();
}

Summary run(const CompiledSpace& space, std::span<const serving::Request> requests,
            const RunOptions& options, Sink& sink, std::stop_token stop) {
  const search::Shard sh = options.shard;
  if (sh.count == 0 || sh.index >= sh.count)
    throw std::invalid_argument("coexplore: shard " + std::to_string(sh.index) + "/" +
                                std::to_string(sh.count) + " (allowed: 0 <= K < N)");
  std::vector<search::Objective> objs;
  for (const auto& o : space.space().objectives)
    objs.push_back({search::Metric::stps, o.direction});
  Summary s;
  s.archive = search::Archive(objs);
  std::map<std::uint64_t, Record> by_index;
  for (const Record& r : options.done)
    if (r.index < space.size() && r.index % sh.count == sh.index) by_index[r.index] = r;
  const auto t0 = std::chrono::steady_clock::now();
  Progress& pr = s.progress;
  pr.total = space.size() > sh.index ? (space.size() - sh.index + sh.count - 1) / sh.count : 0;
  pr.resumed = by_index.size();
  for (const auto& [i, r] : by_index) {
    s.archive.insert(archive_record(r));
    pr.feasible += r.feasible;
  }
  pr.done = pr.resumed;
  pr.frontier = s.archive.size();
  // Points cost seconds to minutes and differ (a larger wafer has more partitions to screen):
  // the ETA follows the rate of the last two minutes or two points, whichever is longer
  // (search/eta.hpp), not the mean since the start. Resumed points are in the first sample, so
  // they do not count as progress.
  search::EtaEstimator eta({.window_s = 120, .min_work = 2, .min_samples = 3});
  eta.update(0.0, static_cast<double>(pr.done), static_cast<double>(std::max(pr.total, pr.done)));
  sink.on_progress(pr);
  std::uint64_t fresh = 0;
  s.complete = true;
  for (std::uint64_t i = sh.index; i < space.size(); i += sh.count) {
    if (by_index.count(i)) continue;
    if (stop.stop_requested() || (options.max_points && fresh >= options.max_points)) {
      s.complete = false;
      s.stopped = stop.stop_requested();
      break;
    }
    Record r = evaluate(space, i, requests, options.threads, stop);
    if (stop.stop_requested()) {  // cut short: not a result
      s.complete = false;
      s.stopped = true;
      break;
    }
    ++fresh;
    s.archive.insert(archive_record(r));
    pr.feasible += r.feasible;
    ++pr.done;
    pr.frontier = s.archive.size();
    pr.elapsed_s = seconds_since(t0);
    eta.update(pr.elapsed_s, static_cast<double>(pr.done),
               static_cast<double>(std::max(pr.total, pr.done)));
    pr.eta_s = eta.eta_s().value_or(0.0);
    sink.on_point(r);
    sink.on_progress(pr);
    by_index[i] = std::move(r);
  }
  pr.elapsed_s = seconds_since(t0);
  pr.eta_s = 0;
  for (auto& [i, r] : by_index) s.records.push_back(std::move(r));
  std::set<std::uint64_t> on;
  for (const auto& p : s.archive.points()) on.insert(p.id.hw);
  for (const Record& r : s.records)
    if (on.count(r.index)) s.frontier.push_back(r);
  return s;
}

std::vector<OptimumAlongAxis> optimum_along_axis(const CompiledSpace& space,
                                                 std::span<const Record> records, std::size_t axis,
                                                 Metric m) {
  std::vector<OptimumAlongAxis> out;
  if (axis >= space.space().axes.size()) return out;
  const double sign = default_direction(m) == search::Direction::maximize ? 1 : -1;
  // Lines: records grouped by the other axes' digits, each line's points by this axis' digit.
  std::map<std::vector<std::size_t>, std::map<std::size_t, const Record*>> lines;
  for (const Record& r : records) {
    auto d = space.digits(r.index);
    const std::size_t k = d[axis];
    d.erase(d.begin() + static_cast<std::ptrdiff_t>(axis));
    lines[d][k] = &r;
  }
  const std::size_t n = space.space().axes[axis].values.size();
  for (const auto& entry : lines) {
    const auto& line = entry.second;  // a named reference: lambdas below capture it
    OptimumAlongAxis o;
    const Record* any = line.begin()->second;
    for (std::size_t a = 0; a < any->values.size(); ++a)
      if (a != axis) o.others.push_back(any->values[a]);
    for (const auto& [k, r] : line) {
      if (!r->feasible) continue;
      const double v = metric(*r, m);
      if (!o.found || sign * v > sign * o.best_metric) {
        o.found = true;
        o.best_metric = v;
        o.best_value = r->values[axis];
      }
    }
    // Interior: both ends of the axis were evaluated and each is worse than the best by more
    // than 1 % of it (differences below that are within the scheduler's screening noise; a
    // plateau of equal best values inside the axis counts; its first value is named).
    constexpr double kTolerance = 0.01;
    const auto end_worse = [&](std::size_t k) {
      const auto it = line.find(k);
      if (it == line.end()) return false;
      const Record* r = it->second;
      const double v = metric(*r, m);
      return !r->feasible || sign * v < sign * o.best_metric - kTolerance * std::abs(o.best_metric);
    };
    o.interior = o.found && n >= 3 && end_worse(0) && end_worse(n - 1);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace stackscope::coexplore
