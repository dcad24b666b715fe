// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The search runner's parts shared by its files (engine.cpp: run(); regions.cpp: the exhaustive
// run's regions, boxes and first points; worker.cpp: exhaustive and random workers; nsga2.cpp:
// NSGA-II). Internal to core/search.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "stackscope/memory/dram.hpp"
#include "stackscope/network/topology.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/power_area/area.hpp"
#include "stackscope/power_area/energy.hpp"
#include "stackscope/search/archive.hpp"
#include "stackscope/search/bounds.hpp"
#include "stackscope/search/engine.hpp"
#include "stackscope/search/visit_order.hpp"

namespace stackscope::search::detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// SplitMix64 (Steele, Lea & Flood 2014): a counter-based generator, so sample k's point depends
// only on (seed, k), never on which thread draws it.
inline std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline Count sample_rank(std::uint64_t seed, std::uint64_t k, Count size) {
  const std::uint64_t a = splitmix(seed ^ splitmix(k));
  const std::uint64_t hi = splitmix(a);
  const std::uint64_t lo = splitmix(a ^ 0x5851f42d4c957f2dULL);
  return ((Count{hi} << 64) | lo) % size;
}

// Numbers x in [0, b) with x % n == k.
inline std::uint64_t count_below(std::uint64_t b, std::uint64_t k, std::uint64_t n) {
  return b / n + (b % n > k ? 1 : 0);
}

inline double metric_value(Metric m, const PointRecord& r) {
  const double area = r.die_mm2 * r.devices;
  switch (m) {
    case Metric::stps: return r.stps;
    case Metric::stps_per_device: return r.stps / r.devices;
    case Metric::stps_per_mm2: return area > 0 ? r.stps / area : 0.0;
    case Metric::stps_per_W:
      return r.power_w > 0 ? r.stps / (r.power_w * r.devices)
                           : std::numeric_limits<double>::infinity();
    case Metric::utps: return r.utps;
    case Metric::energy_per_token_j: return r.energy_per_token_j;
    case Metric::area_mm2: return area;
    case Metric::ttft_s: return r.ttft_s;
    case Metric::tpot_s: return r.tpot_s;
  }
  return 0.0;
}

// Optimistic objective vector of a subspace sharing hardware, plan and batch.
inline std::array<double, kMaxObjectives> bound_vector(const Space& s, const Optimistic& o, int devices,
                                                double die_mm2) {
  std::array<double, kMaxObjectives> v{};
  const double inf = std::numeric_limits<double>::infinity();
  const double area = die_mm2 * devices;
  for (std::size_t i = 0; i < s.objectives.size(); ++i) {
    double x = 0;
    switch (s.objectives[i].metric) {
      case Metric::stps: x = o.stps; break;
      case Metric::stps_per_device: x = o.stps / devices; break;
      case Metric::stps_per_mm2: x = area > 0 ? o.stps / area : inf; break;
      case Metric::stps_per_W: x = o.power_w > 0 ? o.stps / (o.power_w * devices) : inf; break;
      case Metric::utps: x = o.utps; break;
      case Metric::energy_per_token_j: x = o.energy_per_token_j; break;
      case Metric::area_mm2: x = area; break;
      case Metric::ttft_s: x = o.ttft_s; break;
      case Metric::tpot_s: x = o.tpot_s; break;
    }
    // A bound in the wrong direction for an objective is useless: make it the best possible.
    const bool max = s.objectives[i].direction == Direction::maximize;
    const bool upper = default_direction(s.objectives[i].metric) == Direction::maximize;
    if (s.objectives[i].metric == Metric::area_mm2) {
      v[i] = x;  // exact
    } else if (max != upper) {
      v[i] = max ? inf : -inf;
    } else {
      v[i] = x;
    }
  }
  return v;
}

// Component-wise best of two bound vectors.
inline void widen(const Space& s, std::array<double, kMaxObjectives>& acc,
           const std::array<double, kMaxObjectives>& v) {
  for (std::size_t i = 0; i < s.objectives.size(); ++i)
    acc[i] = s.objectives[i].direction == Direction::maximize ? std::max(acc[i], v[i])
                                                              : std::min(acc[i], v[i]);
}

inline std::array<double, kMaxObjectives> worst_vector(const Space& s) {
  std::array<double, kMaxObjectives> v{};
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < s.objectives.size(); ++i)
    v[i] = s.objectives[i].direction == Direction::maximize ? -inf : inf;
  return v;
}

// Hardware-level pruning of an exhaustive run, prepared once before the workers start.
//  - Regions: hardware points that differ only in system axes share their hardware, device
//    count and parallel groups, so the collective-free bound of every (group, batch) unit
//    (DecodeWork x DecodeRates) and the memory fit are the same for all of them. A region is
//    bounded once; units it proves dominated, over memory or over the TPOT SLO are skipped on
//    all of its points, and a region with no unit left is skipped whole.
struct UnitWork {
  std::uint64_t group = 0;
  std::size_t batch_digit = 0;
  DecodeWork work;
  perf::MemoryFootprint footprint;  // weights, KV, activations (hardware-independent)
  std::uint32_t page = 0;           // index of work.kv_page_bytes in Plan::pages
};

struct Plan {
  std::vector<std::pair<std::uint64_t, std::size_t>> system;  // (stride, radix) of system axes
  bool regions = false;
  std::vector<std::vector<UnitWork>> classes;  // per device class, group-major
  std::vector<double> pages;                   // distinct KV page sizes of all units
  std::uint64_t block = 1;                     // hardware points claimed at once

  std::uint64_t region_key(std::uint64_t hw) const {
    std::uint64_t key = hw;
    for (const auto& [stride, radix] : system) key -= hw / stride % radix * stride;
    return key;
  }
};

// The exhaustive run's regions (system digits cleared) and page sizes; an empty plan for the
// other strategies.
Plan make_plan(const CompiledSpace& cs, const RunOptions& opt, const std::stop_token& stop);

// A (parallel group, batch) unit of a hardware point's inner space.
struct Unit {
  std::uint32_t index = 0;  // in Plan::classes[class] (units built from a region)
  std::uint64_t group = 0;
  std::size_t batch_digit = 0;
  int batch = 0;        // the batch the evaluator will use
  bool viable = false;  // fits memory and may meet the SLOs
  std::array<double, kMaxObjectives> bound{};
  double key = 0;  // visiting priority: bound utility of the first objective
};

// The units of a region (Plan) left after its collective-free bounds.
struct Region {
  std::uint64_t key = std::numeric_limits<std::uint64_t>::max();
  bool infeasible = false;      // the hardware alone fails a check of hardware_ok()
  std::uint64_t dominated = 0;  // units whose bound `archive` dominated (or a box removed)
  std::vector<Unit> alive;      // the others that fit memory and may meet the TPOT SLO
  // The design of the hardware point the region was bounded from, and what every point of the
  // region shares with it (system axes change none of it): unit-bound rates, die area, static
  // power (relaxed like bounds.hpp's), KV-page bandwidth per Plan::pages entry (< 0: not yet).
  perf::Design design;
  DecodeRates rates{};
  double die_mm2 = 0, static_w = 0;
  std::vector<double> kv;

  // The unit-bound rates for KV pages of Plan::pages[page].
  const DecodeRates& rates_for(const Plan& plan, std::uint32_t page) {
    if (kv[page] < 0) kv[page] = kv_page_bandwidth(design, plan.pages[page]);
    rates.kv_bw_Bps = kv[page];
    return rates;
  }
};

// The hardware-only checks of hardware_ok() that hold for every point of a region.
// The hardware-only checks of Worker::hardware_ok(): they hold for every point of a region.
bool region_feasible(const Constraints& c, const perf::Design& d,
                     const power_area::AreaBreakdown& a);

// Bounds the units `candidates` (indices into the class's units; null: all) of hardware point
// hw's region against `archive` (null: none dominated).
void bound_region(const CompiledSpace& cs, const Plan& plan, std::uint64_t hw,
                  const Archive* archive, const std::vector<std::uint32_t>* candidates,
                  Region& region);

// Hardware boxes (exhaustive runs with regions): the hardware points sharing the first l axes'
// digits (index order) form a box, a contiguous range of hardware indices. A box's aggregate
// is the best any region below it could offer a unit - the largest compute and bandwidth
// rates, the shortest launch, the smallest die, the most free memory - over the regions that
// pass the hardware-only checks. Every quantity in the unit bound (decode_optimistic) is
// monotone in these (time falls as a rate rises; STPS per mm2 rises as the die shrinks), so a
// unit whose bound at the box aggregate is dominated, over memory or over the TPOT SLO is so on
// every region of the box; a box with no unit left (or no feasible region) is skipped whole.
// Workers walk the chain of boxes above each hardware point, narrowing the unit list level by
// level; the region bound then starts from the deepest box's list.
struct BoxAgg {
  bool feasible = false;   // some region below passes the hardware-only checks
  DecodeRates rates{};     // max rates, min launch
  std::vector<double> kv;  // max KV-page bandwidth per Plan::pages entry
  double die_mm2 = std::numeric_limits<double>::infinity();  // min
  double room = -std::numeric_limits<double>::infinity();    // max capacity - reserved

  void widen(const BoxAgg& o) {
    if (!o.feasible) return;
    if (!feasible) {
      *this = o;
      return;
    }
    rates.mm_flops_per_s = std::max(rates.mm_flops_per_s, o.rates.mm_flops_per_s);
    rates.attn_flops_per_s = std::max(rates.attn_flops_per_s, o.rates.attn_flops_per_s);
    rates.vec_flops_per_s = std::max(rates.vec_flops_per_s, o.rates.vec_flops_per_s);
    rates.bw_Bps = std::max(rates.bw_Bps, o.rates.bw_Bps);
    rates.launch_s = std::min(rates.launch_s, o.rates.launch_s);
    rates.comm_launch_s = std::min(rates.comm_launch_s, o.rates.comm_launch_s);
    for (std::size_t i = 0; i < kv.size(); ++i) kv[i] = std::max(kv[i], o.kv[i]);
    die_mm2 = std::min(die_mm2, o.die_mm2);
    room = std::max(room, o.room);
  }
};

struct Boxes {
  bool enabled = false;
  // Per depth l = 1..depth (index l - 1): hardware points per box (a box's index is hw / width;
  // also the l-th axis's stride in the hardware index), the l-th axis's radix, whether it is a
  // hardware axis (system and workload axes leave the aggregate unchanged), and the
  // aggregates, indexed by the digits of the hardware axes among the first l axes (boxes that
  // differ only in other digits share one).
  std::vector<std::uint64_t> width, radix;
  std::vector<bool> hardware_axis;
  std::vector<std::vector<BoxAgg>> level;
  std::vector<std::vector<std::uint32_t>> all_units;  // per class: 0..n-1

  // Index of hw's aggregate at depth `l` (0-based) given the one at depth l - 1.
  std::uint64_t agg_index(std::size_t l, std::uint64_t parent, std::uint64_t hw) const {
    if (!hardware_axis[l]) return parent;
    return parent * radix[l] + hw / width[l] % radix[l];
  }
};

// Builds the box aggregates with `threads` threads; an empty result (enabled false) when the
// run has no regions, the space is too small to gain from boxes or has too many regions, or
// `stop` fires or `time_limit_s` (0 = none) passes while building.
Boxes make_boxes(const CompiledSpace& cs, const Plan& plan, int threads, std::stop_token stop,
                 double time_limit_s);

struct Shared {
  Shared(const CompiledSpace& sp, const RunOptions& o, ResultSink& sk, std::stop_token st)
      : space(sp),
        opt(o),
        sink(sk),
        stop(std::move(st)),
        archive(sp.space().objectives),
        plan(make_plan(sp, o, stop)) {}
  const CompiledSpace& space;
  const RunOptions& opt;
  ResultSink& sink;
  std::stop_token stop;
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> evaluated{0}, reserved{0}, pruned{0}, pruned_bound{0}, infeasible{0},
      resumed{0};
  std::atomic<std::uint64_t> evaluator_ns{0};  // thread time inside the evaluator
  // Work units (hardware points, sample chunks) this run finished, and those it skipped as
  // finished by an earlier run: the ETA's measure of progress (search/eta.hpp).
  std::atomic<std::uint64_t> units_done{0}, units_skipped{0};
  std::atomic<bool> halt{false};
  std::atomic<bool> eval_limited{false};
  std::mutex archive_mutex;
  Archive archive;
  std::atomic<std::size_t> frontier{0};
  std::mutex sink_mutex;
  const Plan plan;
  Boxes boxes;  // built by run() before the workers start
  // Promising hardware points visited before the others (they fill the archive that prunes
  // the rest), in visiting order and sorted.
  std::vector<std::uint64_t> first, first_sorted;
  std::atomic<std::uint64_t> next_first{0};
  std::atomic<std::uint64_t> first_finished{0};  // of `first`: done, resumed or skipped
  // The ordered pass's order (search/visit_order.hpp), set by run() for exhaustive shards with
  // enough units unless RunOptions::index_order; index order without it. Unit j is hardware
  // point j * n + k of shard {k, n}.
  std::optional<VisitOrder> order;
  // The ordered pass's unit at a position, and the position of a unit.
  std::uint64_t unit_at(std::uint64_t position) const {
    return order ? order->unit_at(position) : position;
  }
  std::uint64_t position_of(std::uint64_t unit) const {
    return order ? order->position_of(unit) : unit;
  }

  // The first exception of any thread (a sink that cannot write, an evaluator bug): the run
  // halts and run() rethrows it on the caller's thread instead of terminating the process.
  std::mutex error_mutex;
  std::exception_ptr error;
  void fail(std::exception_ptr e) {
    {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::move(e);
    }
    halt = true;
  }

  bool halted() const { return halt.load(std::memory_order_relaxed) || stop.stop_requested(); }
};

// Hardware points to visit first: of up to kSamples regions spread evenly over the shard, the
// kPerObjective with the best collective-free bound in each objective; all their points that
// are in the shard. Deterministic (a stop or the time limit cuts the
// sampling short: the run is then incomplete anyway).
std::vector<std::uint64_t> promising(const CompiledSpace& cs, const Plan& plan, const Shard& shard,
                                     std::stop_token stop, double time_limit_s);

// The workers (worker.cpp): exhaustive over the hardware points of the shard, or `samples`
// random points; they pull units from Shared::next until the work or the run ends.
void run_exhaustive(Shared& s);
void run_random(Shared& s, std::uint64_t samples);

// One evaluating thread's state (worker.cpp: its evaluator, network models, local archive and
// record buffer), for a strategy that proposes the points itself (NSGA-II).
class Worker;
struct WorkerDeleter {
  void operator()(Worker* w) const;
};
using WorkerPtr = std::unique_ptr<Worker, WorkerDeleter>;
WorkerPtr make_worker(Shared& s);
// Point `id` with feasibility pruning only: its record, or an infeasible one when a check
// refused it before the evaluator ran (*evaluated false).
PointRecord evaluate_point(Worker& w, PointId id, bool* evaluated);
// Hands the worker's buffered records and local frontier to the shared archive and the sink.
void publish(Worker& w);
// NSGA-II (nsga2.cpp) on one thread, evaluating each generation with `threads` threads.
void run_nsga2(Shared& s, std::size_t threads);

}  // namespace stackscope::search::detail
