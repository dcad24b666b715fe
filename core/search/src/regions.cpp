// SPDX-License-Identifier: GPL-3.0-or-later
// The exhaustive run's regions, hardware boxes and first points (engine_detail.hpp).
#include "engine_detail.hpp"

namespace stackscope::search::detail {

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

bool region_feasible(const Constraints& c, const perf::Design& d,
                     const power_area::AreaBreakdown& a) {
  // Mean power >= static power; DRAM peak >= ambient + static power x resistance, checked
  // against the constraint and the evaluator's limit (bounds.hpp).
  const double t_min = dram_peak_floor_C(d.hardware);
  return a.fits_die() && a.fits_reticle() && !(a.die_mm2 > c.max_die_area_mm2) &&
         !(d.hardware.energy.static_power_W > c.max_power_W) && !(t_min > c.max_dram_C) &&
         !(t_min > memory::kDramLimitC);
}

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

}  // namespace stackscope::search::detail
