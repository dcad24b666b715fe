// SPDX-License-Identifier: GPL-3.0-or-later
// The search runner. Threads: std::jthread workers pulling hardware points (or chunks of
// random samples) from an atomic counter. std threads rather than oneTBB: libtbb-dev is not
// installed on the target machines, and work units are coarse (a hardware point is thousands of
// ~20 us evaluations), so a shared counter balances load as well as work stealing would.
#include "stackscope/search/engine.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
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
#include "stackscope/search/bounds.hpp"

namespace stackscope::search {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// SplitMix64 (Steele, Lea & Flood 2014): a counter-based generator, so sample k's point depends
// only on (seed, k), never on which thread draws it.
std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Count sample_rank(std::uint64_t seed, std::uint64_t k, Count size) {
  const std::uint64_t a = splitmix(seed ^ splitmix(k));
  const std::uint64_t hi = splitmix(a);
  const std::uint64_t lo = splitmix(a ^ 0x5851f42d4c957f2dULL);
  return ((Count{hi} << 64) | lo) % size;
}

// Numbers x in [0, b) with x % n == k.
std::uint64_t count_below(std::uint64_t b, std::uint64_t k, std::uint64_t n) {
  return b / n + (b % n > k ? 1 : 0);
}

double metric_value(Metric m, const PointRecord& r) {
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
std::array<double, kMaxObjectives> bound_vector(const Space& s, const Optimistic& o, int devices,
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
void widen(const Space& s, std::array<double, kMaxObjectives>& acc,
           const std::array<double, kMaxObjectives>& v) {
  for (std::size_t i = 0; i < s.objectives.size(); ++i)
    acc[i] = s.objectives[i].direction == Direction::maximize ? std::max(acc[i], v[i])
                                                              : std::min(acc[i], v[i]);
}

std::array<double, kMaxObjectives> worst_vector(const Space& s) {
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

Plan make_plan(const CompiledSpace& cs, const RunOptions& opt, const std::stop_token& stop) {
  Plan plan;
  if (opt.strategy != Strategy::exhaustive) return plan;
  const Space& sp = cs.space();
  for (std::size_t a = 0; a < sp.hardware.size(); ++a) {
    const Knob* k = cs.knob(a);
    const auto& values = sp.hardware[a].values;
    if (!k || values.size() < 2) continue;
    if (k->effect == KnobEffect::system)
      plan.system.emplace_back(cs.hardware_stride(a), values.size());
  }
  // Claim runs of hardware points that differ only in trailing system axes.
  for (auto it = cs.axis_order().rbegin(); it != cs.axis_order().rend(); ++it) {
    const Knob* k = cs.knob(*it);
    if (!k || k->effect == KnobEffect::hardware) break;
    plan.block *= sp.hardware[*it].values.size();
  }
  plan.block = std::clamp<std::uint64_t>(plan.block, 1, 4096);
  // Regions need the batch of every unit to be known without the hardware (no batch_auto).
  bool fixed_batch = true;
  for (std::size_t b = 0; b < cs.batch_count(); ++b)
    if (cs.batch_value(b) == 0 && sp.base.workload.batch_auto) fixed_batch = false;
  plan.regions = opt.prune_bounds && fixed_batch && cs.hardware_points() > 0;
  if (!plan.regions) return plan;
  // The plan bounds every (group, batch) unit of every class up front (~10 us each; seconds for
  // 10^5 units): a stop or the time limit ends the building, and the run goes without regions
  // (it ends at once anyway).
  const auto t0 = Clock::now();
  auto late = [&] {
    return stop.stop_requested() || (opt.time_limit_s > 0 && seconds_since(t0) >= opt.time_limit_s);
  };
  const auto& in = sp.inner;
  const std::size_t nb = cs.batch_count();
  for (std::size_t c = 0; c < cs.device_classes(); ++c) {
    const std::uint64_t hw = cs.class_hardware(c);
    perf::Design d = cs.hardware_design(hw);
    std::vector<UnitWork> units;
    const auto groups = cs.groups(hw);
    units.reserve(groups.size() * nb);
    for (std::uint64_t g = 0; g < groups.size(); ++g) {
      if (late()) {
        plan.regions = false;
        plan.classes.clear();
        plan.pages.clear();
        return plan;
      }
      for (std::size_t b = 0; b < nb; ++b) {
        UnitWork u;
        u.group = g;
        u.batch_digit = b;
        cs.apply_inner(
            d, hw,
            (g * in.sequence_parallel.size()) * nb * in.overlap.size() + b * in.overlap.size());
        const int batch = d.workload.batch;
        optimistic(d, batch, nullptr, &u.work);
        u.footprint = perf::memory_footprint(d, batch);
        auto it = std::find(plan.pages.begin(), plan.pages.end(), u.work.kv_page_bytes);
        if (it == plan.pages.end()) it = plan.pages.insert(plan.pages.end(), u.work.kv_page_bytes);
        u.page = static_cast<std::uint32_t>(it - plan.pages.begin());
        units.push_back(std::move(u));
      }
    }
    plan.classes.push_back(std::move(units));
  }
  return plan;
}

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
                     const power_area::AreaBreakdown& a) {
  // Mean power >= static power; DRAM peak >= ambient + static power x resistance, checked
  // against the constraint and the evaluator's limit (bounds.hpp).
  const double t_min = dram_peak_floor_C(d.hardware);
  return a.fits_die() && a.fits_reticle() && !(a.die_mm2 > c.max_die_area_mm2) &&
         !(d.hardware.energy.static_power_W > c.max_power_W) && !(t_min > c.max_dram_C) &&
         !(t_min > memory::kDramLimitC);
}

// Bounds the units `candidates` (indices into the class's units; null: all) of hardware point
// hw's region against `archive` (null: none dominated).
void bound_region(const CompiledSpace& cs, const Plan& plan, std::uint64_t hw,
                  const Archive* archive, const std::vector<std::uint32_t>* candidates,
                  Region& region) {
  const Space& space = cs.space();
  region.infeasible = false;
  region.dominated = 0;
  region.alive.clear();
  region.design = cs.hardware_design(hw);
  const perf::Design& d = region.design;
  const auto a = power_area::area(d.hardware);
  const auto& c = space.constraints;
  if (!region_feasible(c, d, a)) {
    region.infeasible = true;
    return;
  }
  const auto& units = plan.classes[cs.device_class(hw)];
  if (units.empty()) return;
  if (candidates) region.dominated = units.size() - candidates->size();
  region.die_mm2 = a.die_mm2;
  const auto& nm = d.workload.numerics;
  region.static_w =
      power_area::energy_rates(d.hardware, wider(nm.weights, nm.activations)).idle_W * (1.0 - 1e-9);
  region.rates = decode_rates(d, plan.pages.front());
  region.kv.assign(plan.pages.size(), -1.0);
  region.kv[0] = region.rates.kv_bw_Bps;
  // Reserved bytes and capacity: the hardware's (memory_footprint's other terms are not).
  const perf::MemoryFootprint hwf = perf::memory_footprint(d, 1);
  const int devices = cs.devices(hw);
  const double sign = space.objectives[0].direction == Direction::maximize ? 1.0 : -1.0;
  const std::size_t n_obj = space.objectives.size();
  const std::size_t n = candidates ? candidates->size() : units.size();
  for (std::size_t i = 0; i < n; ++i) {
    const UnitWork& u = units[candidates ? (*candidates)[i] : i];
    perf::MemoryFootprint f = u.footprint;
    f.reserved = hwf.reserved;
    f.capacity = hwf.capacity;
    if (f.total() > f.capacity) continue;  // as Worker::fits()
    const Optimistic o = decode_optimistic(u.work, region.rates_for(plan, u.page));
    if (o.tpot_s > c.tpot_slo_s) continue;
    Unit x;
    x.index = static_cast<std::uint32_t>(candidates ? (*candidates)[i] : i);
    x.group = u.group;
    x.batch_digit = u.batch_digit;
    x.batch = u.work.batch;
    x.viable = true;
    x.bound = bound_vector(space, o, devices, region.die_mm2);
    if (archive && archive->dominates({x.bound.data(), n_obj})) {
      ++region.dominated;
      continue;
    }
    x.key = sign * x.bound[0];
    region.alive.push_back(x);
  }
  std::stable_sort(region.alive.begin(), region.alive.end(),
                   [](const Unit& l, const Unit& r) { return l.key > r.key; });
}

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

// Boxes of at most this many at the deepest level (memory: ~100 bytes each), built from at most
// this many regions (each costs a design and its rates, ~5 us: seconds up front at most).
constexpr std::uint64_t kMaxBoxes = std::uint64_t{1} << 18;
constexpr std::uint64_t kMaxBoxRegions = std::uint64_t{1} << 22;

// The aggregate of one region (hardware point `hw` with its system digits at 0).
BoxAgg region_agg(const CompiledSpace& cs, const Plan& plan, std::uint64_t hw) {
  BoxAgg g;
  const perf::Design d = cs.hardware_design(hw);
  const auto a = power_area::area(d.hardware);
  if (!region_feasible(cs.space().constraints, d, a)) return g;
  // A hardware point whose device count no parallel group of the space fills (devices 16 with
  // only tp 8 x pp 1) has no inner point: nothing below it can be evaluated, so it adds nothing
  // to the box (as Worker::hardware_ok), and it has no inner index 0 to probe with.
  if (cs.groups(hw).empty()) return g;
  // Hardware validation depends on the hardware alone (perf::validate check_hardware).
  {
    perf::Design probe = d;
    cs.apply_inner(probe, hw, 0);
    probe.workload.batch_auto = true;
    for (const Issue& i : perf::validate(probe))
      if (i.path.rfind("/hardware/", 0) == 0) return g;
  }
  g.feasible = true;
  g.rates = decode_rates(d, plan.pages.front());
  g.kv.resize(plan.pages.size());
  g.kv[0] = g.rates.kv_bw_Bps;
  for (std::size_t i = 1; i < plan.pages.size(); ++i) g.kv[i] = kv_page_bandwidth(d, plan.pages[i]);
  g.die_mm2 = a.die_mm2;
  const perf::MemoryFootprint f = perf::memory_footprint(d, 1);
  g.room = f.capacity - f.reserved;
  return g;
}

// Builds the box aggregates with `threads` threads; an empty result (enabled false) when the
// run has no regions, the space is too small to gain from boxes or has too many regions, or
// `stop` fires or `time_limit_s` (0 = none) passes while building.
Boxes make_boxes(const CompiledSpace& cs, const Plan& plan, int threads, std::stop_token stop,
                 double time_limit_s) {
  const auto t0 = Clock::now();
  Boxes b;
  if (!plan.regions || plan.pages.empty()) return b;
  const Space& sp = cs.space();
  const auto order = cs.axis_order();
  // Depth: as deep as kMaxBoxes allows, and above the last hardware axis (a box must hold
  // more than one region to save anything).
  std::size_t last_hw = 0;
  for (std::size_t l = 0; l < order.size(); ++l) {
    const Knob* k = cs.knob(order[l]);
    if (!k || k->effect == KnobEffect::hardware) last_hw = l + 1;
  }
  std::size_t depth = 0;
  while (depth + 1 < last_hw &&
         cs.hardware_points() / cs.hardware_stride(order[depth]) <= kMaxBoxes)
    ++depth;
  if (depth == 0) return b;
  std::uint64_t deep_aggs = 1;
  for (std::size_t l = 0; l < depth; ++l) {
    const Knob* k = cs.knob(order[l]);
    b.width.push_back(cs.hardware_stride(order[l]));
    b.radix.push_back(sp.hardware[order[l]].values.size());
    b.hardware_axis.push_back(!k || k->effect == KnobEffect::hardware);
    if (b.hardware_axis.back()) deep_aggs *= b.radix.back();
  }
  // Regions: every combination of the hardware axes' digits (index order, the last fastest),
  // system digits 0 (rates do not depend on them).
  std::vector<std::size_t> base(sp.hardware.size(), 0);
  std::vector<std::size_t> hw_axes;
  for (std::size_t a : order) {
    const Knob* k = cs.knob(a);
    if (!k || k->effect == KnobEffect::hardware) hw_axes.push_back(a);
  }
  std::uint64_t regions = 1;
  for (std::size_t a : hw_axes) regions *= sp.hardware[a].values.size();
  if (regions > kMaxBoxRegions) return Boxes{};
  // Regions of one deep aggregate are contiguous: `tail` of them each.
  const std::uint64_t tail = regions / deep_aggs;
  auto region_hw = [&](std::uint64_t r) {
    std::vector<std::size_t> digits = base;
    for (auto it = hw_axes.rbegin(); it != hw_axes.rend(); ++it) {
      const std::size_t radix = sp.hardware[*it].values.size();
      digits[*it] = static_cast<std::size_t>(r % radix);
      r /= radix;
    }
    return cs.hardware_index(digits);
  };
  std::vector<BoxAgg> deep(deep_aggs);
  const auto nt = static_cast<std::uint64_t>(std::max(1, threads));
  std::atomic<bool> stopped{false};
  {
    std::vector<std::jthread> pool;
    for (std::uint64_t t = 0; t < nt; ++t) {
      pool.emplace_back([&, t] {
        // Threads take contiguous runs of whole aggregates.
        for (std::uint64_t g = deep_aggs * t / nt; g < deep_aggs * (t + 1) / nt; ++g) {
          if (stop.stop_requested() || stopped ||
              (time_limit_s > 0 && seconds_since(t0) >= time_limit_s)) {
            stopped = true;
            return;
          }
          for (std::uint64_t r = g * tail; r < (g + 1) * tail; ++r)
            deep[g].widen(region_agg(cs, plan, region_hw(r)));
        }
      });
    }
  }
  if (stopped) return Boxes{};
  // Shallower levels from deeper ones.
  std::vector<std::vector<BoxAgg>> levels(depth);
  levels[depth - 1] = std::move(deep);
  for (std::size_t l = depth - 1; l-- > 0;) {
    const std::uint64_t ratio = b.hardware_axis[l + 1] ? b.radix[l + 1] : 1;
    levels[l].resize(levels[l + 1].size() / ratio);
    for (std::size_t i = 0; i < levels[l + 1].size(); ++i)
      levels[l][i / ratio].widen(levels[l + 1][i]);
  }
  b.level = std::move(levels);
  for (const auto& units : plan.classes) {
    auto& all = b.all_units.emplace_back(units.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::uint32_t>(i);
  }
  b.enabled = true;
  return b;
}

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
                                     std::stop_token stop, double time_limit_s) {
  const auto t0 = Clock::now();
  std::vector<std::uint64_t> out;
  if (!plan.regions) return out;
  constexpr std::uint64_t kSamples = 2048;
  constexpr std::size_t kPerObjective = 4;
  const Space& space = cs.space();
  const std::size_t n_obj = space.objectives.size();
  const std::uint64_t n = shard.count, k = shard.index;
  const std::uint64_t m = count_below(cs.hardware_points(), k, n);
  const std::uint64_t samples = std::min(m, kSamples);
  struct Scored {
    std::uint64_t key = 0;
    std::array<double, kMaxObjectives> best{};
  };
  std::vector<Scored> scored;
  Region r;
  for (std::uint64_t i = 0; i < samples; ++i) {
    if (stop.stop_requested() || (time_limit_s > 0 && seconds_since(t0) >= time_limit_s)) break;
    std::uint64_t hw = (i * m / samples) * n + k;
    bound_region(cs, plan, hw, nullptr, nullptr, r);
    if (r.infeasible || r.alive.empty()) continue;
    Scored x;
    x.key = plan.region_key(hw);
    x.best.fill(-std::numeric_limits<double>::infinity());
    for (const Unit& u : r.alive)
      for (std::size_t o = 0; o < n_obj; ++o) {
        const double sign = space.objectives[o].direction == Direction::maximize ? 1.0 : -1.0;
        x.best[o] = std::max(x.best[o], sign * u.bound[o]);
      }
    scored.push_back(x);
  }
  std::vector<std::uint64_t> keys;
  for (std::size_t o = 0; o < n_obj; ++o) {
    std::stable_sort(scored.begin(), scored.end(),
                     [o](const Scored& a, const Scored& b) { return a.best[o] > b.best[o]; });
    for (std::size_t i = 0; i < std::min(kPerObjective, scored.size()); ++i)
      if (std::find(keys.begin(), keys.end(), scored[i].key) == keys.end())
        keys.push_back(scored[i].key);
  }
  // Region members: every combination of the system axes' digits.
  std::uint64_t members = 1;
  for (const auto& ax : plan.system) members *= ax.second;
  for (std::uint64_t key : keys) {
    for (std::uint64_t c = 0; c < members; ++c) {
      std::uint64_t hw = key, rest = c;
      for (const auto& [stride, radix] : plan.system) {
        hw += rest % radix * stride;
        rest /= radix;
      }
      if (hw % n == k) out.push_back(hw);
    }
  }
  return out;
}

class Worker {
 public:
  explicit Worker(Shared& s)
      : s_(s), space_(s.space.space()), local_(space_.objectives), last_flush_(Clock::now()) {}

  void run_exhaustive() {
    const std::uint64_t n = s_.opt.shard.count, k = s_.opt.shard.index;
    const std::uint64_t hw_total = s_.space.hardware_points();
    const std::uint64_t block = s_.plan.block;
    for (;;) {
      if (s_.halted()) break;
      const std::uint64_t i = s_.next_first.fetch_add(1, std::memory_order_relaxed);
      if (i >= s_.first.size()) break;
      const std::uint64_t hw = s_.first[i];
      if ((hw - k) / n < s_.opt.resume_below) continue;  // counted as resumed by run()
      if (resumed(hw)) {
        s_.resumed.fetch_add(s_.space.inner_points(hw), std::memory_order_relaxed);
        continue;
      }
      sync();
      begin_unit(hw);
      hardware_point(hw);
      end_unit();
    }
    for (;;) {
      if (s_.halted()) break;
      const std::uint64_t j0 = s_.next.fetch_add(block, std::memory_order_relaxed);
      if (j0 * n + k >= hw_total) break;
      sync();
      for (std::uint64_t j = j0; j < j0 + block && !s_.halted(); ++j) {
        const std::uint64_t hw = j * n + k;
        if (hw >= hw_total) break;
        if (std::binary_search(s_.first_sorted.begin(), s_.first_sorted.end(), hw)) continue;
        if (resumed(hw)) {
          s_.resumed.fetch_add(s_.space.inner_points(hw), std::memory_order_relaxed);
          continue;
        }
        begin_unit(hw);
        hardware_point(hw);
        end_unit();
      }
    }
    finish();
  }

  // One point with feasibility pruning only; a pruned or unevaluated point comes back
  // infeasible (`evaluated` false).
  PointRecord point(PointId id, bool* evaluated) {
    *evaluated = false;
    PointRecord rec;
    rec.id = id;
    rec.n_objectives = static_cast<int>(space_.objectives.size());
    rec.reasons = kInvalidPoint;
    const perf::Design hwd = s_.space.hardware_design(id.hw);
    if (!hardware_ok(hwd, id.hw)) {
      prune(1, false);
      return rec;
    }
    perf::Design d = hwd;
    s_.space.apply_inner(d, id.hw, id.inner);
    if (!fits(d, batch_for(d))) {
      prune(1, false);
      rec.reasons = perf::kMemoryCapacity;
      return rec;
    }
    if (!reserve()) return rec;
    *evaluated = true;
    return evaluate(d, id);
  }

  void publish() { finish(); }

  void run_random(std::uint64_t samples) {
    constexpr std::uint64_t kChunk = kSampleChunk;
    const std::uint64_t n = s_.opt.shard.count, k = s_.opt.shard.index;
    const Count size = s_.space.size();
    for (;;) {
      if (s_.halted()) break;
      const std::uint64_t c = s_.next.fetch_add(1, std::memory_order_relaxed);
      if (c * kChunk >= samples) break;
      const std::uint64_t end = std::min(samples, (c + 1) * kChunk);
      if (resumed(c)) {
        s_.resumed.fetch_add(end - c * kChunk, std::memory_order_relaxed);
        continue;
      }
      sync();
      begin_unit(c);
      for (std::uint64_t i = c * kChunk; i < end && !s_.halted(); ++i) {
        const std::uint64_t sample = i * n + k;  // the shard's i-th sample number
        const PointId id = s_.space.point_at(sample_rank(s_.opt.seed, sample, size));
        sample_point(id);
      }
      end_unit();
    }
    finish();
  }

 private:
  Shared& s_;
  const Space& space_;
  perf::Evaluator ev_;
  Archive local_;
  // Network models of the last systems seen (a space has few: device count x link and latency
  // multipliers), for collective bounds; their memoised costs are reused.
  static constexpr std::size_t kNetworkModels = 64;
  // With each model, the decode collectives of the class's units on that system (CommWork
  // depends on the system, plan and batch only), filled as units are first bounded there.
  struct NetEntry {
    hw::System system;
    std::unique_ptr<network::NetworkModel> model;
    std::size_t cls = std::numeric_limits<std::size_t>::max();
    std::vector<CommWork> comm;
    std::vector<std::uint8_t> have;
  };
  std::deque<NetEntry> nets_;
  std::vector<NetEntry*> members_;  // the systems of the region narrow_region() bounds

  std::size_t victim_ = 0;  // next slot to reuse once kNetworkModels are held

  // The entry of `system`, built on first use. Entries never move (a deque, only appended to):
  // when full, a slot round-robin that the current region (members_) does not use is rebuilt
  // in place, so pointers held by narrow_region() stay valid.
  NetEntry* network_for(const hw::System& system) {
    if (system.levels.empty()) return nullptr;
    for (auto& e : nets_)
      if (network::same_network(e.system, system)) return &e;
    NetEntry* slot = nullptr;
    for (std::size_t i = 0; nets_.size() >= kNetworkModels && i < nets_.size() && !slot; ++i) {
      NetEntry& e = nets_[(victim_ + i) % nets_.size()];
      if (std::find(members_.begin(), members_.end(), &e) == members_.end()) {
        slot = &e;
        victim_ = (victim_ + i + 1) % nets_.size();
      }
    }
    if (!slot) slot = &nets_.emplace_back();
    slot->system = system;
    slot->model = std::make_unique<network::NetworkModel>(system);
    slot->cls = std::numeric_limits<std::size_t>::max();
    slot->comm.clear();
    slot->have.clear();
    return slot;
  }
  std::vector<PointRecord> buf_;
  std::vector<PointRecord> pending_;  // entered local_'s frontier since the last sync()
  // The current work unit and its counters (for ResultSink::on_unit_done).
  std::uint64_t unit_ = 0;
  UnitStats unit_stats_;

  bool resumed(std::uint64_t unit) const {
    const auto& d = s_.opt.done_units;
    return std::binary_search(d.begin(), d.end(), unit);
  }
  void begin_unit(std::uint64_t unit) {
    unit_ = unit;
    unit_stats_ = {};
  }
  // A unit cut short by a stop or budget is not reported: a resumed run redoes it.
  void end_unit() {
    if (s_.halted()) return;
    flush();
    std::lock_guard lock(s_.sink_mutex);
    s_.sink.on_unit_done(unit_, unit_stats_);
  }
  Clock::time_point last_flush_;

  // Publishes the points this worker added to the frontier since the last call and refreshes
  // its view of everybody's; also delivers a result batch that has waited too long.
  void sync() {
    if (!buf_.empty() && seconds_since(last_flush_) >= s_.opt.sink_interval_s) flush();
    std::lock_guard lock(s_.archive_mutex);
    for (const PointRecord& p : pending_) s_.archive.insert(p);
    pending_.clear();
    local_ = s_.archive;
    s_.frontier.store(s_.archive.size(), std::memory_order_relaxed);
  }

  void finish() {
    flush();
    sync();
  }

  void flush() {
    if (buf_.empty()) return;
    std::lock_guard lock(s_.sink_mutex);
    s_.sink.on_batch(buf_);
    buf_.clear();
    last_flush_ = Clock::now();
  }

  void deliver(const PointRecord& r) {
    buf_.push_back(r);
    if (buf_.size() >= s_.opt.sink_batch_points ||
        seconds_since(last_flush_) >= s_.opt.sink_interval_s)
      flush();
  }

  // Checks that hold for every point of a hardware point; false = the whole hardware point is
  // pruned (invalid, infeasible or violating a constraint whatever the schedule).
  bool hardware_ok(const perf::Design& hwd, std::uint64_t hw) const {
    const auto groups = s_.space.groups(hw);
    if (groups.empty()) return false;
    perf::Design probe = hwd;
    s_.space.apply_inner(probe, hw, 0);
    probe.workload.batch_auto = true;  // batch fit is checked per batch
    if (!perf::validate(probe).empty()) return false;
    return region_feasible(space_.constraints, hwd, power_area::area(hwd.hardware));
  }

  void prune(std::uint64_t n, bool by_bound) {
    s_.pruned.fetch_add(n, std::memory_order_relaxed);
    unit_stats_.pruned += n;
    if (by_bound) {
      s_.pruned_bound.fetch_add(n, std::memory_order_relaxed);
      unit_stats_.pruned_bound += n;
    }
  }

  // Reserves one evaluation against max_evals; false = budget spent.
  bool reserve() {
    if (s_.opt.max_evals == 0) return true;
    if (s_.reserved.fetch_add(1, std::memory_order_relaxed) < s_.opt.max_evals) return true;
    s_.eval_limited = true;
    s_.halt = true;
    return false;
  }

  PointRecord evaluate(const perf::Design& d, PointId id) {
    const auto t0 = Clock::now();
    const perf::Result r = ev_.evaluate(d);
    s_.evaluator_ns.fetch_add(
        static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()),
        std::memory_order_relaxed);
    PointRecord rec = make_record(s_.space, id, d, r);
    rec.unit = unit_;
    s_.evaluated.fetch_add(1, std::memory_order_relaxed);
    ++unit_stats_.evaluated;
    if (!rec.feasible) {
      s_.infeasible.fetch_add(1, std::memory_order_relaxed);
      ++unit_stats_.infeasible;
    }
    if (local_.insert(rec)) pending_.push_back(rec);
    deliver(rec);
    return rec;
  }

  int batch_for(const perf::Design& d) const {
    return d.workload.batch_auto ? perf::max_batch_that_fits(d) : d.workload.batch;
  }

  bool fits(const perf::Design& d, int batch) const {
    if (batch <= 0) return false;
    const auto f = perf::memory_footprint(d, batch);
    return !(f.total() > f.capacity);
  }

  bool slo_violated(const Optimistic& o) const {
    return o.ttft_s > space_.constraints.ttft_slo_s || o.tpot_s > space_.constraints.tpot_slo_s;
  }

  Region region_;
  // One point of a unit with the bound of its own schedule (schedules()).
  struct SchedulePoint {
    std::uint64_t inner = 0;
    double tpot = 0;
    std::array<double, kMaxObjectives> bound;
    bool viable = true;
  };
  std::vector<SchedulePoint> pts_;
  DecodeWork exact_work_;  // the current unit's decode work on this hardware point
  // The decode-only unit bound decides as much as the full one: no objective or constraint
  // reads its TTFT or energy bounds.
  const bool decode_only_ = [this] {
    if (std::isfinite(space_.constraints.ttft_slo_s)) return false;
    for (const auto& o : space_.objectives)
      if (o.metric == Metric::energy_per_token_j || o.metric == Metric::ttft_s) return false;
    return true;
  }();

  const Region& region(std::uint64_t hw, const std::vector<std::uint32_t>* candidates) {
    const std::uint64_t key = s_.plan.region_key(hw);
    if (key != region_.key) {
      bound_region(s_.space, s_.plan, hw, &local_, candidates, region_);
      if (decode_only_ && !region_.infeasible && !region_.alive.empty()) narrow_region(hw);
    }
    region_.key = key;
    return region_;
  }

  // Collective-aware region bound: each unit left with the component-wise least collectives
  // over the region's systems (every combination of the system axes' values; a layer's time is
  // monotone in every CommWork field), so units that no system can save are dropped before
  // any of the region's hardware points looks at them.
  perf::Design scratch_;
  void narrow_region(std::uint64_t hw) {
    const perf::Design& d = region_.design;  // hw's own design (bound_region just built it)
    if (d.system.levels.empty()) return;
    // The region's systems: its hardware points over every combination of system digits.
    members_.clear();
    std::uint64_t combos = 1;
    for (const auto& ax : s_.plan.system) combos *= ax.second;
    const std::uint64_t key = s_.plan.region_key(hw);
    for (std::uint64_t c = 0; c < combos; ++c) {
      std::uint64_t member = key, rest = c;
      for (const auto& [stride, radix] : s_.plan.system) {
        member += rest % radix * stride;
        rest /= radix;
      }
      NetEntry* e = network_for(member == hw ? d.system : s_.space.hardware_design(member).system);
      if (!e) return;
      if (std::find(members_.begin(), members_.end(), e) == members_.end()) members_.push_back(e);
    }
    scratch_ = d;
    const std::size_t cls = s_.space.device_class(hw);
    const auto& works = s_.plan.classes[cls];
    for (NetEntry* e : members_) {
      if (e->cls != cls) {
        e->cls = cls;
        e->comm.assign(works.size(), {});
        e->have.assign(works.size(), 0);
      }
    }
    const int devices = s_.space.devices(hw);
    const auto& in = space_.inner;
    const std::size_t nb = s_.space.batch_count();
    const std::size_t n_obj = space_.objectives.size();
    std::size_t kept = 0;
    for (const Unit& u : region_.alive) {
      CommWork least;
      bool first = true;
      for (std::size_t m = 0; m < members_.size(); ++m) {
        NetEntry* e = members_[m];
        if (!e->have[u.index]) {
          scratch_.system = e->system;
          s_.space.apply_inner(scratch_, hw,
                               (u.group * in.sequence_parallel.size()) * nb * in.overlap.size() +
                                   u.batch_digit * in.overlap.size());
          optimistic(scratch_, u.batch, e->model.get(), nullptr, &e->comm[u.index]);
          e->have[u.index] = 1;
        }
        const CommWork& c = e->comm[u.index];
        if (first) {
          least = c;
          first = false;
          continue;
        }
        for (std::size_t k = 0; k < least.layer.size(); ++k) {
          auto& l = least.layer[k];
          const auto& x = c.layer[k];
          if (l.ways != x.ways) l.ways = 0;  // no pairing: the producer alone, a lower bound
          for (int w = 0; w < l.ways; ++w) {
            const auto wi = static_cast<std::size_t>(w);
            l.pair[wi].time = std::min(l.pair[wi].time, x.pair[wi].time);
            l.pair[wi].calls = std::min(l.pair[wi].calls, x.pair[wi].calls);
          }
          l.exposed = std::min(l.exposed, x.exposed);
          l.exposed_calls = std::min(l.exposed_calls, x.exposed_calls);
        }
        least.hop_s = std::min(least.hop_s, c.hop_s);
        least.hop_calls = std::min(least.hop_calls, c.hop_calls);
      }
      const UnitWork& w = works[u.index];
      Optimistic o = decode_optimistic(w.work, region_.rates_for(s_.plan, w.page), &least);
      o.power_w = region_.static_w;
      if (o.tpot_s > space_.constraints.tpot_slo_s) {
        ++region_.dominated;
        continue;
      }
      const auto v = bound_vector(space_, o, devices, region_.die_mm2);
      if (local_.dominates({v.data(), n_obj})) {
        ++region_.dominated;
        continue;
      }
      region_.alive[kept++] = u;
    }
    region_.alive.resize(kept);
  }

  // The chain of boxes above the last hardware point (Boxes): per depth, the box index and the
  // units left in it.
  std::vector<std::uint64_t> chain_id_, chain_agg_;
  std::size_t chain_cls_ = 0;
  std::vector<std::vector<std::uint32_t>> chain_units_;

  // The units left in hw's deepest box, narrowed level by level from the class's units; empty
  // when a box above hw has none left (or no feasible region): hw is then pruned whole.
  const std::vector<std::uint32_t>& box_units(std::uint64_t hw) {
    const Boxes& b = s_.boxes;
    const std::size_t depth = b.width.size();
    const std::size_t cls = s_.space.device_class(hw);
    // Unit lists are per class (indices into its units): a new class starts a new chain.
    if (chain_id_.size() != depth || cls != chain_cls_) {
      chain_id_.assign(depth, std::numeric_limits<std::uint64_t>::max());
      chain_agg_.assign(depth, 0);
      chain_units_.assign(depth, {});
      chain_cls_ = cls;
    }
    std::size_t l = 0;
    while (l < depth && chain_id_[l] == hw / b.width[l]) ++l;
    if (l == depth) return chain_units_[depth - 1];
    const auto& units = s_.plan.classes[cls];
    const int devices = s_.space.devices(hw);
    const std::size_t n_obj = space_.objectives.size();
    for (; l < depth; ++l) {
      chain_id_[l] = hw / b.width[l];
      chain_agg_[l] = b.agg_index(l, l == 0 ? 0 : chain_agg_[l - 1], hw);
      const auto& parent = l == 0 ? b.all_units[cls] : chain_units_[l - 1];
      auto& out = chain_units_[l];
      out.clear();
      const BoxAgg& g = b.level[l][chain_agg_[l]];
      if (parent.empty() || !g.feasible) continue;
      if (!b.hardware_axis[l] && l > 0) {
        out = parent;
        continue;
      }
      DecodeRates rates = g.rates;
      for (const std::uint32_t i : parent) {
        const UnitWork& u = units[i];
        const perf::MemoryFootprint& f = u.footprint;
        // Over memory on every region: more than the most free memory (with rounding slack).
        if (f.weights + f.kv_cache + f.activations > g.room * (1 + 1e-12)) continue;
        rates.kv_bw_Bps = g.kv[u.page];
        const Optimistic o = decode_optimistic(u.work, rates);
        if (o.tpot_s > space_.constraints.tpot_slo_s) continue;
        auto v = bound_vector(space_, o, devices, g.die_mm2);
        // Area varies over the box: its best (smallest) value, or unbounded when maximised.
        for (std::size_t k = 0; k < n_obj; ++k)
          if (space_.objectives[k].metric == Metric::area_mm2 &&
              space_.objectives[k].direction == Direction::maximize)
            v[k] = std::numeric_limits<double>::infinity();
        if (local_.dominates({v.data(), n_obj})) continue;
        out.push_back(i);
      }
    }
    return chain_units_[depth - 1];
  }

  void hardware_point(std::uint64_t hw) {
    const std::uint64_t inner_n = s_.space.inner_points(hw);
    if (inner_n == 0) return;
    if (!s_.plan.regions) {
      schedules(hw, nullptr);
      return;
    }
    const std::uint64_t per_batch =
        space_.inner.sequence_parallel.size() * space_.inner.overlap.size();
    const std::vector<std::uint32_t>* candidates = nullptr;
    if (s_.boxes.enabled) {
      candidates = &box_units(hw);
      if (candidates->empty()) {
        prune(inner_n, true);
        return;
      }
    }
    const Region& r = region(hw, candidates);
    if (r.infeasible) {
      prune(inner_n, false);
      return;
    }
    const std::uint64_t dominated = r.dominated * per_batch;
    const std::uint64_t alive = r.alive.size() * per_batch;
    prune(dominated, true);
    prune(inner_n - dominated - alive, false);
    if (!r.alive.empty()) schedules(hw, &r.alive);
  }

  // The inner space of one hardware point: every (group, batch) unit, or the units a region
  // left (`alive`; the rest are already counted as pruned).
  void schedules(std::uint64_t hw, const std::vector<Unit>* alive) {
    const std::uint64_t inner_n = s_.space.inner_points(hw);
    const perf::Design hwd = s_.space.hardware_design(hw);
    const auto& in = space_.inner;
    const std::uint64_t per_batch = in.sequence_parallel.size() * in.overlap.size();
    if (!hardware_ok(hwd, hw)) {
      prune(alive ? alive->size() * per_batch : inner_n, false);
      return;
    }
    const auto groups = s_.space.groups(hw);
    const std::size_t nb = s_.space.batch_count();
    const int devices = s_.space.devices(hw);
    const double die = power_area::area(hwd.hardware).die_mm2;
    const bool bounds = s_.opt.prune_bounds;
    NetEntry* net = nullptr;  // built on first use: collective bounds are costly

    // Units of (group, batch): memory fit and optimistic bounds without collectives (cheap),
    // computed before evaluating; units that survive them get the collective-aware bound.
    std::vector<Unit> units;
    perf::Design d = hwd;
    if (!alive) {
      units.reserve(groups.size() * nb);
      auto hw_bound = worst_vector(space_);
      for (std::uint64_t g = 0; g < groups.size(); ++g) {
        if (s_.halted()) return;
        for (std::size_t b = 0; b < nb; ++b) {
          Unit u;
          u.group = g;
          u.batch_digit = b;
          s_.space.apply_inner(
              d, hw,
              (g * in.sequence_parallel.size()) * nb * in.overlap.size() + b * in.overlap.size());
          const int batch = batch_for(d);
          u.batch = batch;
          u.viable = fits(d, batch);
          if (u.viable && bounds) {
            const Optimistic o = optimistic(d, batch);
            u.bound = bound_vector(space_, o, devices, die);
            if (slo_violated(o)) u.viable = false;
            const double sign = space_.objectives[0].direction == Direction::maximize ? 1.0 : -1.0;
            u.key = sign * u.bound[0];
            if (u.viable) widen(space_, hw_bound, u.bound);
          }
          units.push_back(u);
        }
      }
      const std::span<const double> hwb(hw_bound.data(), space_.objectives.size());
      if (bounds && local_.dominates(hwb)) {
        std::uint64_t viable = 0;
        for (const Unit& u : units) viable += u.viable ? per_batch : 0;
        prune(viable, true);
        prune(inner_n - viable, false);
        return;
      }
      // Most promising units first: they fill the archive that prunes the rest.
      if (bounds)
        std::stable_sort(units.begin(), units.end(),
                         [](const Unit& a, const Unit& b) { return a.key > b.key; });
    }
    for (const Unit& u : alive ? *alive : units) {
      if (s_.halted()) return;
      if (!u.viable) {
        prune(per_batch, false);
        continue;
      }
      if (bounds && local_.dominates({u.bound.data(), space_.objectives.size()})) {
        prune(per_batch, true);
        continue;
      }
      const DecodeWork* unit_work = nullptr;  // with unit_comm: per-schedule bounds below
      const CommWork* unit_comm = nullptr;
      DecodeRates unit_rates{};
      if (bounds && !hwd.system.levels.empty()) {
        if (!net) net = network_for(hwd.system);
        s_.space.apply_inner(d, hw,
                             (u.group * in.sequence_parallel.size()) * nb * in.overlap.size() +
                                 u.batch_digit * in.overlap.size());
        Optimistic o;
        if (alive && decode_only_) {
          // The region's decode work with this system's collectives (cached per unit).
          const std::size_t cls = s_.space.device_class(hw);
          const auto& works = s_.plan.classes[cls];
          if (net->cls != cls) {
            net->cls = cls;
            net->comm.assign(works.size(), {});
            net->have.assign(works.size(), 0);
          }
          if (!net->have[u.index]) {
            optimistic(d, u.batch, net->model.get(), nullptr, &net->comm[u.index]);
            net->have[u.index] = 1;
          }
          // `alive` came from region_: its rates and static power are this hardware point's.
          const UnitWork& w = works[u.index];
          unit_rates = region_.rates_for(s_.plan, w.page);
          unit_comm = &net->comm[u.index];
          o = decode_optimistic(w.work, unit_rates, unit_comm);
          o.power_w = region_.static_w;
          // Survivors are bounded per schedule below with this die's own GEMM and attention
          // costs (bounds.hpp hardware_decode_work), several times tighter at small batches.
          if (!slo_violated(o) && !local_.dominates({bound_vector(space_, o, devices, die).data(),
                                                     space_.objectives.size()})) {
            exact_work_ = hardware_decode_work(d, u.batch);
            unit_work = &exact_work_;
          }
        } else {
          o = optimistic(d, u.batch, net->model.get());
        }
        if (slo_violated(o)) {
          prune(per_batch, false);
          continue;
        }
        const auto v = bound_vector(space_, o, devices, die);
        if (local_.dominates({v.data(), space_.objectives.size()})) {
          prune(per_batch, true);
          continue;
        }
      }
      // The unit's points (sequence parallelism x overlap). With this system's collectives at
      // hand each gets the bound of its own schedule, and they are evaluated fastest bound
      // first: for objectives of one batch and die, the point with the shortest TPOT dominates
      // the others, so the first evaluation usually prunes the rest.
      const bool own = unit_work && unit_comm;
      std::vector<SchedulePoint>& pts = pts_;
      pts.resize(own ? in.sequence_parallel.size() * in.overlap.size() : 1);
      std::size_t n_pts = 0;
      for (std::size_t sp = 0; sp < in.sequence_parallel.size(); ++sp) {
        for (std::size_t ov = 0; ov < in.overlap.size(); ++ov) {
          SchedulePoint& p = pts[own ? n_pts : 0];
          p.inner = ((u.group * in.sequence_parallel.size() + sp) * nb + u.batch_digit) *
                        in.overlap.size() +
                    ov;
          if (!own) {
            if (s_.halted() || !reserve()) return;
            s_.space.apply_inner(d, hw, p.inner);
            evaluate(d, {hw, p.inner});
            continue;
          }
          s_.space.apply_inner(d, hw, p.inner);
          Schedule sch;
          sch.sequence_parallel = d.parallel.sequence_parallel;
          sch.overlap = d.parallel.overlap;
          sch.tiles = d.parallel.overlap_tiles;
          Optimistic o = decode_optimistic(*unit_work, unit_rates, unit_comm, &sch);
          o.power_w = region_.static_w;
          p.tpot = o.tpot_s;
          p.viable = !slo_violated(o);
          p.bound = bound_vector(space_, o, devices, die);
          ++n_pts;
        }
      }
      std::stable_sort(
          pts.begin(), pts.begin() + static_cast<std::ptrdiff_t>(n_pts),
          [](const SchedulePoint& a, const SchedulePoint& b) { return a.tpot < b.tpot; });
      for (std::size_t i = 0; i < n_pts; ++i) {
        if (s_.halted()) return;
        const SchedulePoint& p = pts[i];
        if (!p.viable) {
          prune(1, false);
          continue;
        }
        if (local_.dominates({p.bound.data(), space_.objectives.size()})) {
          prune(1, true);
          continue;
        }
        if (!reserve()) return;
        s_.space.apply_inner(d, hw, p.inner);
        evaluate(d, {hw, p.inner});
      }
    }
  }

  void sample_point(PointId id) {
    const perf::Design hwd = s_.space.hardware_design(id.hw);
    if (!hardware_ok(hwd, id.hw)) {
      prune(1, false);
      return;
    }
    perf::Design d = hwd;
    s_.space.apply_inner(d, id.hw, id.inner);
    const int batch = batch_for(d);
    if (!fits(d, batch)) {
      prune(1, false);
      return;
    }
    if (s_.opt.prune_bounds) {
      // Without collectives: samples jump between systems, and rebuilding the network model
      // per sample would cost more than the bound saves.
      const Optimistic o = optimistic(d, batch);
      if (slo_violated(o)) {
        prune(1, false);
        return;
      }
      const auto v =
          bound_vector(space_, o, s_.space.devices(id.hw), power_area::area(hwd.hardware).die_mm2);
      if (local_.dominates({v.data(), space_.objectives.size()})) {
        prune(1, true);
        return;
      }
    }
    if (!reserve()) return;
    evaluate(d, id);
  }
};

// ---- NSGA-II ----

double u01(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  const std::uint64_t x = splitmix(seed ^ splitmix(a ^ splitmix(b ^ splitmix(c))));
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

struct Individual {
  std::vector<double> genes;
  PointRecord rec;
  int front = 0;
  double crowding = 0;
};

class Nsga2 {
 public:
  Nsga2(Shared& s, std::size_t threads)
      : s_(s), space_(s.space.space()), n_((s.opt.population + 1) / 2 * 2) {
    genes_ = space_.hardware.size() + 4;
    mutation_ = s.opt.mutation_probability > 0 ? s.opt.mutation_probability
                                               : 1.0 / static_cast<double>(genes_);
    for (std::size_t i = 0; i < threads; ++i) workers_.push_back(std::make_unique<Worker>(s));
    for (std::size_t k = 0; k < kMaxObjectives; ++k)
      sign_[k] =
          k < space_.objectives.size() && space_.objectives[k].direction == Direction::minimize
              ? -1.0
              : 1.0;
  }

  void run() {
    std::vector<Individual> pop(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      pop[i].genes.resize(genes_);
      for (std::size_t g = 0; g < genes_; ++g) pop[i].genes[g] = u01(s_.opt.seed, 0, i, g);
    }
    evaluate(pop);
    rank(pop);
    for (std::uint64_t gen = 1; gen < s_.opt.generations && !s_.halted(); ++gen) {
      std::vector<Individual> kids = offspring(pop, gen);
      evaluate(kids);
      if (s_.halted()) break;
      pop.insert(pop.end(), std::make_move_iterator(kids.begin()),
                 std::make_move_iterator(kids.end()));
      rank(pop);
      select(pop);
    }
    for (auto& w : workers_) w->publish();
  }

 private:
  Shared& s_;
  const Space& space_;
  std::size_t n_;
  std::size_t genes_ = 0;
  double mutation_ = 0;
  std::array<double, kMaxObjectives> sign_{};
  std::vector<std::unique_ptr<Worker>> workers_;

  static std::size_t digit(double gene, std::size_t radix) {
    return std::min(radix - 1, static_cast<std::size_t>(gene * static_cast<double>(radix)));
  }

  // Genes -> point; nullopt when the device count has no valid parallel group.
  std::optional<PointId> decode(const std::vector<double>& g) const {
    const auto& cs = s_.space;
    std::vector<std::size_t> d(space_.hardware.size());
    for (std::size_t a = 0; a < d.size(); ++a) d[a] = digit(g[a], space_.hardware[a].values.size());
    const std::uint64_t hw = cs.hardware_index(d);
    const auto groups = cs.groups(hw);
    if (groups.empty()) return std::nullopt;
    const std::size_t h = space_.hardware.size();
    InnerDigits in;
    in.group = digit(g[h], groups.size());
    in.sequence_parallel = digit(g[h + 1], space_.inner.sequence_parallel.size());
    in.batch = digit(g[h + 2], cs.batch_count());
    in.overlap = digit(g[h + 3], space_.inner.overlap.size());
    return PointId{hw, cs.inner_index(in)};
  }

  // Evaluates a generation on the worker threads; each result lands at its individual's slot,
  // so the outcome does not depend on which thread evaluated what.
  void evaluate(std::vector<Individual>& v) {
    std::atomic<std::size_t> next{0};
    auto body = [&](Worker& w) {
      for (;;) {
        const std::size_t i = next.fetch_add(1);
        if (i >= v.size()) return;
        auto& ind = v[i];
        ind.rec = PointRecord{};
        ind.rec.n_objectives = static_cast<int>(space_.objectives.size());
        if (s_.halted()) continue;
        const auto id = decode(ind.genes);
        if (!id) {
          s_.pruned.fetch_add(1);
          continue;
        }
        bool evaluated = false;
        ind.rec = w.point(*id, &evaluated);
      }
    };
    std::vector<std::jthread> pool;
    for (std::size_t t = 1; t < workers_.size(); ++t)
      pool.emplace_back(
          [this, &body](Worker& w) {
            try {
              body(w);
            } catch (...) {
              s_.fail(std::current_exception());
            }
          },
          std::ref(*workers_[t]));
    body(*workers_[0]);
  }

  bool dominates(const PointRecord& a, const PointRecord& b) const {
    bool strict = false;
    for (std::size_t k = 0; k < space_.objectives.size(); ++k) {
      const double x = sign_[k] * a.objectives[k], y = sign_[k] * b.objectives[k];
      if (x < y) return false;
      if (x > y) strict = true;
    }
    return strict;
  }

  static bool usable(const PointRecord& r) {
    if (!r.feasible) return false;
    for (int k = 0; k < r.n_objectives; ++k)
      if (!std::isfinite(r.objectives[k])) return false;
    return true;
  }

  // Fast non-dominated sort and crowding distance (Deb et al. 2002, §III-A/B); unusable
  // (infeasible, constraint-violating) individuals form the last front.
  void rank(std::vector<Individual>& v) const {
    const std::size_t n = v.size();
    std::vector<std::vector<std::size_t>> dominated(n);
    std::vector<int> count(n, 0);
    std::vector<std::size_t> current;
    for (std::size_t i = 0; i < n; ++i) {
      if (!usable(v[i].rec)) continue;
      for (std::size_t j = 0; j < n; ++j) {
        if (i == j || !usable(v[j].rec)) continue;
        if (dominates(v[i].rec, v[j].rec))
          dominated[i].push_back(j);
        else if (dominates(v[j].rec, v[i].rec))
          ++count[i];
      }
      if (count[i] == 0) current.push_back(i);
    }
    int front = 0;
    while (!current.empty()) {
      for (std::size_t i : current) v[i].front = front;
      crowding(v, current);
      std::vector<std::size_t> next;
      for (std::size_t i : current)
        for (std::size_t j : dominated[i])
          if (--count[j] == 0) next.push_back(j);
      std::sort(next.begin(), next.end());
      current = std::move(next);
      ++front;
    }
    std::vector<std::size_t> rest;
    for (std::size_t i = 0; i < n; ++i)
      if (!usable(v[i].rec)) rest.push_back(i);
    for (std::size_t i : rest) {
      v[i].front = front;
      v[i].crowding = 0;
    }
  }

  void crowding(std::vector<Individual>& v, std::vector<std::size_t> idx) const {
    for (std::size_t i : idx) v[i].crowding = 0;
    const double inf = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < space_.objectives.size(); ++k) {
      std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return v[a].rec.objectives[k] < v[b].rec.objectives[k];
      });
      const double lo = v[idx.front()].rec.objectives[k], hi = v[idx.back()].rec.objectives[k];
      v[idx.front()].crowding = inf;
      v[idx.back()].crowding = inf;
      if (!(hi > lo)) continue;
      for (std::size_t j = 1; j + 1 < idx.size(); ++j)
        v[idx[j]].crowding +=
            (v[idx[j + 1]].rec.objectives[k] - v[idx[j - 1]].rec.objectives[k]) / (hi - lo);
    }
  }

  static bool better(const std::vector<Individual>& v, std::size_t a, std::size_t b) {
    if (v[a].front != v[b].front) return v[a].front < v[b].front;
    if (v[a].crowding != v[b].crowding) return v[a].crowding > v[b].crowding;
    return a < b;
  }

  // Elitist reduction of parents + children to the population size.
  void select(std::vector<Individual>& v) const {
    std::vector<std::size_t> order(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return better(v, a, b); });
    std::vector<Individual> keep;
    keep.reserve(n_);
    for (std::size_t i = 0; i < n_; ++i) keep.push_back(std::move(v[order[i]]));
    v = std::move(keep);
  }

  std::vector<Individual> offspring(const std::vector<Individual>& pop, std::uint64_t gen) const {
    const std::uint64_t seed = s_.opt.seed;
    auto pick = [&](std::uint64_t i, std::uint64_t which) {
      const auto a = static_cast<std::size_t>(u01(seed, gen, i, 1000 + 2 * which) *
                                              static_cast<double>(pop.size()));
      const auto b = static_cast<std::size_t>(u01(seed, gen, i, 1001 + 2 * which) *
                                              static_cast<double>(pop.size()));
      return better(pop, a, b) ? a : b;
    };
    std::vector<Individual> kids(n_);
    for (std::size_t i = 0; i < n_; i += 2) {
      const auto& p1 = pop[pick(i, 0)].genes;
      const auto& p2 = pop[pick(i, 1)].genes;
      auto& c1 = kids[i].genes;
      auto& c2 = kids[i + 1].genes;
      c1 = p1;
      c2 = p2;
      if (u01(seed, gen, i, 2000) < s_.opt.crossover_probability) {
        for (std::size_t g = 0; g < genes_; ++g)
          if (u01(seed, gen, i, 3000 + g) < 0.5) std::swap(c1[g], c2[g]);
      }
      for (std::size_t g = 0; g < genes_; ++g) {
        if (u01(seed, gen, i, 4000 + g) < mutation_) c1[g] = u01(seed, gen, i, 5000 + g);
        if (u01(seed, gen, i + 1, 4000 + g) < mutation_) c2[g] = u01(seed, gen, i + 1, 5000 + g);
      }
    }
    return kids;
  }
};

}  // namespace

PointRecord make_record(const CompiledSpace& space, PointId id, const perf::Design& d,
                        const perf::Result& r) {
  PointRecord p;
  p.id = id;
  p.reasons = r.reasons;
  p.devices = parallel::devices(d.parallel);
  p.batch = r.batch;
  const auto& m = r.metrics;
  p.stps = m.stps;
  p.utps = m.utps;
  p.ttft_s = m.ttft_s;
  p.tpot_s = m.tpot_s;
  p.energy_per_token_j = m.energy_per_token_j;
  p.power_w = m.power_w;
  p.die_mm2 = r.area.die;
  p.dram_peak_C = r.thermal.modelled ? r.thermal.dram_peak_C : 0.0;
  const auto& c = space.space().constraints;
  if (m.power_w > c.max_power_W) p.reasons |= kViolatesPower;
  if (r.area.die > c.max_die_area_mm2) p.reasons |= kViolatesArea;
  if (r.thermal.modelled && r.thermal.dram_peak_C > c.max_dram_C) p.reasons |= kViolatesDramTemp;
  if (m.ttft_s > c.ttft_slo_s) p.reasons |= kViolatesTtft;
  if (m.tpot_s > c.tpot_slo_s) p.reasons |= kViolatesTpot;
  constexpr std::uint32_t kConstraints =
      kViolatesPower | kViolatesArea | kViolatesDramTemp | kViolatesTtft | kViolatesTpot;
  p.feasible = r.feasible && (p.reasons & kConstraints) == 0;
  const auto& objs = space.space().objectives;
  p.n_objectives = static_cast<int>(objs.size());
  for (std::size_t i = 0; i < objs.size(); ++i) p.objectives[i] = metric_value(objs[i].metric, p);
  return p;
}

Summary run(const CompiledSpace& space, const RunOptions& opt, ResultSink& sink,
            std::stop_token stop) {
  if (opt.shard.count == 0 || opt.shard.index >= opt.shard.count)
    throw std::invalid_argument("shard index must be below the shard count (got " +
                                std::to_string(opt.shard.index) + "/" +
                                std::to_string(opt.shard.count) + ")");
  if (opt.strategy == Strategy::nsga2 &&
      (!opt.done_units.empty() || !opt.seed_points.empty() || opt.resume_below > 0))
    throw std::invalid_argument("NSGA-II runs cannot be resumed (exhaustive and random can)");
  if (!std::is_sorted(opt.done_units.begin(), opt.done_units.end()))
    throw std::invalid_argument("RunOptions::done_units must be sorted");
  const auto t0 = Clock::now();
  Shared s(space, opt, sink, stop);
  if (opt.strategy == Strategy::exhaustive) {
    const int box_threads =
        opt.threads > 0 ? opt.threads
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    s.boxes = make_boxes(space, s.plan, box_threads, stop, opt.time_limit_s);
    // Boxes that the time limit cut short are off; the run ends at the limit anyway.
    const double left =
        opt.time_limit_s > 0 ? std::max(1e-3, opt.time_limit_s - seconds_since(t0)) : 0.0;
    s.first = promising(space, s.plan, opt.shard, stop, left);
    s.first_sorted = s.first;
    std::sort(s.first_sorted.begin(), s.first_sorted.end());
  }
  for (const PointRecord& p : opt.seed_points) s.archive.insert(p);
  s.frontier = s.archive.size();

  Summary sum;
  sum.space_size = space.size();
  const std::uint64_t n = opt.shard.count, k = opt.shard.index;
  std::uint64_t samples = 0;
  if (opt.strategy == Strategy::exhaustive) {
    sum.progress.total = space.points_in_shard(k, n);
  } else if (opt.strategy == Strategy::nsga2) {
    if (n != 1) throw std::invalid_argument("NSGA-II runs do not support shards");
    const std::uint64_t pop = (opt.population + 1) / 2 * 2;
    sum.progress.total = space.size() == 0 || pop == 0
                             ? 0
                             : Count{pop} * std::max<std::uint64_t>(1, opt.generations);
  } else {
    samples = count_below(opt.samples, k, n);
    sum.progress.total = space.size() == 0 ? 0 : samples;
  }

  auto progress = [&] {
    Progress p;
    p.evaluated = s.evaluated.load();
    p.pruned = s.pruned.load();
    p.pruned_bound = s.pruned_bound.load();
    p.infeasible = s.infeasible.load();
    p.resumed = s.resumed.load();
    p.total = sum.progress.total;
    p.elapsed_s = seconds_since(t0);
    p.evaluator_s = static_cast<double>(s.evaluator_ns.load()) * 1e-9;
    const double done = static_cast<double>(p.evaluated + p.pruned);
    p.rate_per_s = p.elapsed_s > 0 ? done / p.elapsed_s : 0.0;
    const double left = to_double(p.total) - done - static_cast<double>(p.resumed);
    p.eta_s = p.rate_per_s > 0 && left > 0 ? left / p.rate_per_s : 0.0;
    p.frontier = s.frontier.load();
    return p;
  };

  // Units below the resume watermark are skipped outright: the work counter starts there.
  if (opt.resume_below > 0 && opt.strategy != Strategy::nsga2) {
    s.next = opt.resume_below;
    std::uint64_t skipped = 0;
    if (opt.strategy == Strategy::exhaustive) {
      for (std::uint64_t j = 0; j < opt.resume_below && j * n + k < space.hardware_points(); ++j)
        skipped += space.inner_points(j * n + k);
    } else {
      skipped = std::min<std::uint64_t>(samples, opt.resume_below * kSampleChunk);
    }
    s.resumed = skipped;
  }

  const bool has_work = sum.progress.total > 0;
  const int threads = opt.threads > 0
                          ? opt.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<int> running{has_work ? threads : 0};
  {
    std::vector<std::jthread> pool;
    if (has_work && opt.strategy == Strategy::nsga2) {
      running = 1;
      pool.emplace_back([&s, &running, threads] {
        try {
          Nsga2(s, static_cast<std::size_t>(threads)).run();
        } catch (...) {
          s.fail(std::current_exception());
        }
        running.fetch_sub(1);
      });
    }
    for (int i = 0; has_work && opt.strategy != Strategy::nsga2 && i < threads; ++i) {
      pool.emplace_back([&s, &opt, &running, samples] {
        try {
          Worker w(s);
          if (opt.strategy == Strategy::exhaustive)
            w.run_exhaustive();
          else
            w.run_random(samples);
        } catch (...) {
          s.fail(std::current_exception());
        }
        running.fetch_sub(1);
      });
    }
    // This thread watches the clock and the stop token and reports progress; workers poll the
    // halt flag and the stop token between evaluations (~20 us apart).
    auto last = Clock::now();
    while (running.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      if (opt.time_limit_s > 0 && seconds_since(t0) >= opt.time_limit_s && !s.halt) {
        sum.time_limited = true;
        s.halt = true;
      }
      if (stop.stop_requested()) s.halt = true;
      if (seconds_since(last) >= opt.progress_interval_s) {
        last = Clock::now();
        const Progress p = progress();
        std::lock_guard lock(s.sink_mutex);
        try {
          sink.on_progress(p);
        } catch (...) {
          s.fail(std::current_exception());
        }
      }
    }
  }  // joins the workers
  if (s.error) std::rethrow_exception(s.error);
  sum.stopped = stop.stop_requested();
  sum.eval_limited = s.eval_limited.load();
  sum.archive = std::move(s.archive);
  sum.progress = progress();
  sum.progress.frontier = sum.archive.size();
  sum.complete = !sum.stopped && !sum.time_limited && !sum.eval_limited;
  {
    std::lock_guard lock(s.sink_mutex);
    sink.on_progress(sum.progress);
    sink.on_finished(sum);
  }
  return sum;
}

}  // namespace stackscope::search
