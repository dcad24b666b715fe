// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/wafer/partition.hpp"
#include "stackscope/wafer/d2d_links.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "stackscope/hw/derived.hpp"
#include "stackscope/perf/iteration.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/serving/cluster.hpp"
#include "stackscope/serving/kv_reshard.hpp"

namespace stackscope::wafer {
namespace {

std::string plan_of(const perf::Design& design, const serving::PoolConfig& pool) {
  return parallel::short_text(serving::pool_design(design, pool).parallel);
}

void set_options(serving::SimOptions& o, const serving::ServingSpec& spec) {
  o.router = spec.router;
  o.concurrency = spec.concurrency;
  if (spec.slo.ttft_s > 0) o.slo_ttft_s = spec.slo.ttft_s;
  if (spec.slo.tpot_s > 0) o.slo_tpot_s = spec.slo.tpot_s;
}

}  // namespace

std::string partition_text(const Partition& p, const perf::Design& design) {
  std::string s = std::to_string(p.prefill) + " prefill (" + plan_of(design, p.prefill_pool) +
                  ") + " + std::to_string(p.decode) + " decode (" + plan_of(design, p.decode_pool) +
                  ")";
  if (design.wafer) s += std::string(", ") + to_string(p.order);
  return s;
}

serving::ServingSpec with_partition(serving::ServingSpec spec, const Partition& p) {
  spec.instances = 0;
  spec.instance_groups.clear();
  spec.disaggregate.prefill = p.prefill;
  spec.disaggregate.decode = p.decode;
  spec.disaggregate.prefill_pool.tp = p.prefill_pool.tp;
  spec.disaggregate.prefill_pool.pp = p.prefill_pool.pp;
  spec.disaggregate.decode_pool.tp = p.decode_pool.tp;
  spec.disaggregate.decode_pool.pp = p.decode_pool.pp;
  return spec;
}

WaferDeployment deploy(const perf::Design& design, const serving::ServingSpec& spec,
                       const Partition& part) {
  if (!design.wafer) throw std::invalid_argument("wafer::deploy: the design has no wafer");
  if (part.prefill < 1 || part.decode < 1)
    throw std::invalid_argument(
        "a wafer partition needs at least one prefill and one decode "
        "instance");
  const hw::Wafer& w = *design.wafer;
  WaferDeployment out;
  out.layout = hw::wafer_layout(w, design.hardware);
  if (!out.layout.issues.empty())
    throw std::invalid_argument(format_issue(out.layout.issues.front()));
  const int nx = out.layout.dies_x;

  // The pools' designs on the whole wafer (for the plans and the KV routes), then per region.
  const perf::Design pd = serving::pool_design(design, part.prefill_pool);
  const perf::Design dd = serving::pool_design(design, part.decode_pool);
  const int kp = parallel::devices_per_replica(pd.parallel);
  const int kd = parallel::devices_per_replica(dd.parallel);
  PlacementRequest q;
  q.prefill = part.prefill;
  q.prefill_dies = kp;
  q.decode = part.decode;
  q.decode_dies = kd;
  q.order = part.order;
  out.placement = place(out.layout, q);
  if (!out.placement.ok)
    throw std::invalid_argument("/serving/disaggregate: " + out.placement.reason);
  const auto& regions = out.placement.regions;
  const int np = part.prefill;

  const serving::SchedulerConfig sp = serving::pool_scheduler(spec.scheduler, part.prefill_pool);
  const serving::SchedulerConfig sd = serving::pool_scheduler(spec.scheduler, part.decode_pool);
  const double kv_prefill = perf::IterationModel(pd).kv_bytes_per_token();
  const double kv_decode = perf::IterationModel(dd).kv_bytes_per_token();

  // KV memory lent by idle dies to the first decode region beside them.
  out.lender_of.assign(out.placement.die_owner.size(), -1);
  std::vector<int> lenders(regions.size(), 0);
  if (part.kv_borrow) {
    const int ny = out.layout.dies_y;
    for (int d = 0; d < nx * ny; ++d) {
      if (out.placement.die_owner[static_cast<std::size_t>(d)] != -1) continue;
      int best = -1;
      const int x = d % nx, y = d / nx;
      const int nbr[4][2] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
      for (const auto& n : nbr) {
        if (n[0] < 0 || n[0] >= nx || n[1] < 0 || n[1] >= ny) continue;
        const int owner = out.placement.die_owner[static_cast<std::size_t>(n[1] * nx + n[0])];
        if (owner >= np && (best < 0 || owner < best)) best = owner;
      }
      if (best >= 0) {
        out.lender_of[static_cast<std::size_t>(d)] = best;
        ++lenders[static_cast<std::size_t>(best)];
      }
    }
  }
  // An idle die's memory: all of it but the runtime's reserve (it holds no weights).
  const double lend_bytes = std::max(0.0, hw::memory_capacity_bytes(design.hardware.memory) -
                                              design.runtime.memory_reserved_GiB * 1073741824.0 -
                                              design.hardware.runtime_reserved_GiB * 1073741824.0);
  const double link_Bps = w.d2d_GBps * 1e9 * w.d2d_efficiency;
  const double dram_Bps = w.dram_GBps * 1e9;
  const double d2d_J_per_byte = w.d2d_pJ_per_bit * 8e-12;

  auto& dep = out.deployment;
  out.borrowed_blocks.assign(regions.size(), 0);
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const bool prefill = static_cast<int>(i) < np;
    perf::Design d = prefill ? pd : dd;
    d.system = hw::region_system(w, regions[i].w, regions[i].h);
    d.system.hardware = design.hardware.id;
    if (auto issues = perf::validate(d); !issues.empty())
      throw std::invalid_argument(
          std::string("/serving/disaggregate/") + (prefill ? "prefill_pool" : "decode_pool") +
          ": the plan " + parallel::short_text(d.parallel) + " on a " +
          std::to_string(regions[i].w) + " x " + std::to_string(regions[i].h) +
          " region: " + format_issue(issues.front()));
    auto built = serving::colocated_instances(d, prefill ? sp : sd, 1);
    serving::InstanceConfig c = std::move(built.front());
    c.role = prefill ? serving::Role::prefill : serving::Role::decode;
    c.kv_bytes_per_token = prefill ? kv_prefill : kv_decode;
    c.name = (prefill ? "prefill " + std::to_string(i) : "decode " + std::to_string(i - np)) +
             " @(" + std::to_string(regions[i].x) + "," + std::to_string(regions[i].y) + ") " +
             std::to_string(regions[i].w) + "x" + std::to_string(regions[i].h);
    const int l = lenders[i];
    if (!prefill && l > 0 && c.kv_bytes_per_token > 0) {
      const double tokens = l * lend_bytes * c.scheduler.kv_cache_fraction / c.kv_bytes_per_token;
      const auto extra = static_cast<long long>(std::floor(tokens / c.scheduler.block_size));
      out.borrowed_blocks[i] = extra;
      const double local_tokens = static_cast<double>(c.kv_blocks) * c.scheduler.block_size;
      c.kv_blocks += extra;
      // Remote KV is read at the lenders' rate (their links into the region, each at most its
      // DRAM) instead of the instance's own DRAM rate.
      const double remote_Bps = l * std::min(link_Bps, dram_Bps);
      const double local_Bps = c.devices * dram_Bps;
      const double kvbpt = c.kv_bytes_per_token;
      c.cost = [base = std::move(c.cost), local_tokens, kvbpt, remote_Bps, local_Bps,
                d2d_J_per_byte](std::span<const perf::SequenceChunk> batch) {
        perf::IterationCost cost = base(batch);
        double context = 0;
        for (const auto& s : batch) context += s.context + s.new_tokens;
        const double excess = std::max(0.0, context - local_tokens) * kvbpt;
        if (excess > 0) {
          cost.time_s += std::max(0.0, excess / remote_Bps - excess / local_Bps);
          cost.energy_J += excess * d2d_J_per_byte;
        }
        return cost;
      };
    }
    dep.instances.push_back(std::move(c));
  }

  // The KV transfer: re-sharding routes between the two regions' dies, reserved on the mesh.
  const auto routes = serving::kv_reshard_routes(pd, dd);
  out.links = std::make_shared<D2dLinks>(design.system);
  set_options(dep.options, spec);
  dep.options.kv_transfer = [links = out.links, routes, regions, nx, kv_prefill](
                                int from, int to, double bytes, double now) {
    const double tokens = kv_prefill > 0 ? bytes / kv_prefill : 0.0;
    std::vector<network::Flow> flows;
    flows.reserve(routes.size());
    const Region& src = regions[static_cast<std::size_t>(from)];
    const Region& dst = regions[static_cast<std::size_t>(to)];
    for (const auto& r : routes)
      flows.push_back({die_of(src, r.from, nx), die_of(dst, r.to, nx), r.bytes_per_token * tokens});
    const TransferTiming t = links->transfer(flows, now);
    serving::KvTransfer k;
    k.time_s = t.time_s;
    k.energy_J = t.energy_J;
    k.bytes = t.bytes;
    k.start_s = t.start_s;
    return k;
  };
  dep.pools = {{serving::Role::prefill, 0, part.prefill, parallel::short_text(pd.parallel)},
               {serving::Role::decode, static_cast<std::size_t>(np), part.decode,
                parallel::short_text(dd.parallel)}};
  dep.layout = partition_text(part, design);
  return out;
}

bool better(const Candidate& a, const Candidate& b) {
  if (a.feasible != b.feasible) return a.feasible;
  if (a.goodput_rps != b.goodput_rps) return a.goodput_rps > b.goodput_rps;
  if (a.slo_attainment != b.slo_attainment) return a.slo_attainment > b.slo_attainment;
  if (a.ttft_p90_s != b.ttft_p90_s) return a.ttft_p90_s < b.ttft_p90_s;
  if (a.dies != b.dies) return a.dies < b.dies;
  return a.text < b.text;
}

Candidate evaluate_partition(const perf::Design& design, const serving::ServingSpec& spec,
                             const Partition& part, std::span<const serving::Request> requests,
                             std::stop_token stop) {
  Candidate c;
  c.partition = part;
  c.text = partition_text(part, design);
  c.requests = requests.size();
  try {
    serving::Deployment dep;
    if (design.wafer) {
      dep = deploy(design, spec, part).deployment;
    } else {
      dep = serving::deploy(design, with_partition(spec, part));
    }
    for (const auto& i : dep.instances) c.dies += i.devices;
    dep.options.stop = stop;
    const serving::SimResult r = serving::simulate(requests, std::move(dep.instances), dep.options);
    c.feasible = r.completed > 0 && !r.stopped;
    if (r.stopped)
      c.reason = "stopped";
    else if (!c.feasible)
      c.reason = "no request completed";
    c.goodput_rps = r.goodput_rps;
    c.slo_attainment = r.slo_attainment;
    c.ttft_p90_s = r.ttft.p90;
    c.tpot_p90_s = r.tpot.p90;
  } catch (const std::exception& e) {
    c.feasible = false;
    c.reason = e.what();
  }
  return c;
}

namespace {

// The first plan of `dies` devices that fits the design: tp = dies, else tp x pp = dies with
// the largest tp. 0 when none fits.
serving::PoolConfig plan_for(const perf::Design& design, int dies, bool* ok) {
  *ok = false;
  for (int pp = 1; pp <= dies; ++pp) {
    if (dies % pp != 0) continue;
    serving::PoolConfig c;
    c.tp = dies / pp;
    c.pp = pp;
    perf::Design d = serving::pool_design(design, c);
    d.parallel.ep = 1;
    d.parallel.cp = 1;
    // One replica on its own devices (a wafer region's mesh; the shape does not matter to the
    // plan and memory checks).
    if (design.wafer)
      d.system = hw::region_system(*design.wafer, dies, 1);
    else
      d.system.devices = dies;
    if (perf::validate(d).empty()) {
      *ok = true;
      return c;
    }
  }
  return {};
}

}  // namespace

PartitionChoice choose_partition(const perf::Design& design, const serving::ServingSpec& spec,
                                 std::span<const serving::Request> requests,
                                 const SchedulerOptions& opt) {
  int usable = design.system.devices;
  if (design.wafer) {
    const auto layout = hw::wafer_layout(*design.wafer, design.hardware);
    if (!layout.issues.empty()) throw std::invalid_argument(format_issue(layout.issues.front()));
    usable = layout.usable_dies;
  }
  std::vector<int> sizes = opt.sizes;
  if (sizes.empty())
    for (int k = 1; k <= usable; k *= 2) sizes.push_back(k);
  // Plans per size (sizes whose plan does not fit the design are dropped).
  std::vector<std::pair<int, serving::PoolConfig>> plans;
  for (const int k : sizes) {
    if (k < 1 || k > usable) continue;
    bool ok = false;
    const auto c = plan_for(design, k, &ok);
    if (ok) plans.push_back({k, c});
  }
  std::vector<Partition> parts;
  const std::vector<PlacementOrder> orders =
      design.wafer
          ? std::vector<PlacementOrder>{PlacementOrder::interleaved, PlacementOrder::clustered}
          : std::vector<PlacementOrder>{PlacementOrder::clustered};
  // On a wafer, whether the instances' rectangles fit the grid (place() is first-fit and
  // cheap); a partition is maximal when one more instance of either role does not fit: by die
  // count alone a 7 x 6 grid "has room" for five 8-die instances, but only four 2 x 4
  // rectangles fit it.
  std::optional<hw::WaferLayout> layout;
  if (design.wafer) layout = hw::wafer_layout(*design.wafer, design.hardware);
  const auto fits = [&](int p, int kp, int d, int kd, PlacementOrder order) {
    if (p * kp + d * kd > usable) return false;
    if (!layout) return true;
    return place(*layout, {p, kp, d, kd, order}).ok;
  };
  for (const auto& [kp, cp] : plans)
    for (const auto& [kd, cd] : plans)
      for (int p = 1; p * kp + kd <= usable; ++p)
        for (int d = 1; p * kp + d * kd <= usable; ++d) {
          for (const auto order : orders) {
            if (!fits(p, kp, d, kd, order)) continue;
            if (opt.maximal_only &&
                (fits(p + 1, kp, d, kd, order) || fits(p, kp, d + 1, kd, order)))
              continue;
            Partition part;
            part.prefill = p;
            part.decode = d;
            part.prefill_pool = cp;
            part.decode_pool = cd;
            part.order = order;
            parts.push_back(part);
          }
        }
  if (parts.empty())
    throw std::invalid_argument("no partition of " + std::to_string(usable) +
                                " devices into prefill and decode instances fits the design "
                                "(each pool's plan must hold the model)");

  // Each candidate's goodput over `windows` (means; one window = the whole stream).
  const auto score = [&](const Partition& part,
                         std::span<const std::span<const serving::Request>> windows) {
    if (windows.size() == 1)
      return evaluate_partition(design, spec, part, windows.front(), opt.stop);
    Candidate sum;
    for (const auto& w : windows) {
      const Candidate c = evaluate_partition(design, spec, part, w, opt.stop);
      if (!c.feasible) return c;
      sum.partition = c.partition;
      sum.text = c.text;
      sum.feasible = true;
      sum.dies = c.dies;
      sum.goodput_rps += c.goodput_rps / static_cast<double>(windows.size());
      sum.slo_attainment += c.slo_attainment / static_cast<double>(windows.size());
      sum.ttft_p90_s += c.ttft_p90_s / static_cast<double>(windows.size());
      sum.tpot_p90_s += c.tpot_p90_s / static_cast<double>(windows.size());
      sum.requests += c.requests;
    }
    return sum;
  };
  // Progress over every run of both phases: the finals' count is known once screening ends.
  std::mutex progress_mutex;
  std::size_t runs_done = 0, runs_total = 0;
  const auto run = [&](std::span<const Partition> todo,
                       std::span<const std::span<const serving::Request>> windows) {
    std::vector<Candidate> out(todo.size());
    std::atomic<std::size_t> next{0};
    runs_total += todo.size();
    const int threads = std::max(
        1, std::min<int>(opt.threads > 0 ? opt.threads
                                         : static_cast<int>(std::thread::hardware_concurrency()),
                         static_cast<int>(todo.size())));
    auto work = [&] {
      for (std::size_t i; (i = next++) < todo.size();) {
        if (opt.stop.stop_requested()) {
          out[i].partition = todo[i];
          out[i].reason = "stopped";
          continue;
        }
        out[i] = score(todo[i], windows);
        if (opt.progress) {
          const std::lock_guard lock(progress_mutex);
          opt.progress(++runs_done, runs_total);
        }
      }
    };
    std::vector<std::jthread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    pool.clear();
    std::sort(out.begin(), out.end(), better);
    return out;
  };

  PartitionChoice choice;
  const std::span<const serving::Request> whole[] = {requests};
  const double work = static_cast<double>(parts.size()) * static_cast<double>(requests.size());
  const int nw = std::max(1, opt.screen_windows);
  const std::size_t per =
      std::max<std::size_t>(1, opt.screen_requests / static_cast<std::size_t>(nw));
  if (work <= opt.exhaustive_budget || per * static_cast<std::size_t>(nw) >= requests.size()) {
    choice.exhaustive = true;
    choice.screened = run(parts, whole);
    choice.best = choice.screened.front();
    for (const auto& c : choice.screened)
      if (c.feasible && static_cast<int>(choice.finals.size()) < std::max(1, opt.finalists))
        choice.finals.push_back(c);
    return choice;
  }
  // Windows of `per` requests starting at evenly spaced positions, first and last included.
  std::vector<std::span<const serving::Request>> windows;
  for (int w = 0; w < nw; ++w) {
    const std::size_t start = nw == 1 ? 0
                                      : (requests.size() - per) * static_cast<std::size_t>(w) /
                                            static_cast<std::size_t>(nw - 1);
    windows.push_back(requests.subspan(start, per));
  }
  choice.screened = run(parts, windows);
  std::vector<Partition> finals;
  for (const auto& c : choice.screened)
    if (c.feasible && static_cast<int>(finals.size()) < std::max(1, opt.finalists))
      finals.push_back(c.partition);
  if (finals.empty()) {
    choice.best = choice.screened.front();
    return choice;
  }
  choice.finals = run(finals, whole);
  choice.best = choice.finals.front();
  return choice;
}

perf::Design design_to_validate(const perf::Design& design, bool auto_partition) {
  if (!design.wafer || !auto_partition ||
      design.system.devices % std::max(1, parallel::devices_per_replica(design.parallel)) == 0)
    return design;
  for (int k = 1; k <= design.system.devices; k *= 2) {
    perf::Design d = serving::pool_design(design, serving::PoolConfig{k, 1, 1, 1});
    d.system = hw::region_system(*design.wafer, k, 1);
    if (perf::validate(d).empty() || 2 * k > design.system.devices) return d;
  }
  return design;
}

}  // namespace stackscope::wafer
