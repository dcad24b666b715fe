// SPDX-License-Identifier: GPL-3.0-or-later
// The exhaustive and random workers of the search runner (engine_detail.hpp).
#include "engine_detail.hpp"

namespace stackscope::search::detail {

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
      if (s_.position_of((hw - k) / n) < s_.opt.resume_below) {  // counted as resumed by run()
        s_.first_finished.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      if (resumed(hw)) {
        s_.resumed.fetch_add(s_.space.inner_points(hw), std::memory_order_relaxed);
        s_.units_skipped.fetch_add(1, std::memory_order_relaxed);
        s_.first_finished.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      sync();
      begin_unit(hw);
      hardware_point(hw);
      if (!end_unit()) break;
      s_.first_finished.fetch_add(1, std::memory_order_relaxed);
    }
    // The ordered pass claims runs of positions (search/visit_order.hpp).
    const std::uint64_t units = count_below(hw_total, k, n);
    for (;;) {
      if (s_.halted()) break;
      const std::uint64_t p0 = s_.next.fetch_add(block, std::memory_order_relaxed);
      if (p0 >= units) break;
      sync();
      for (std::uint64_t p = p0; p < p0 + block && p < units && !s_.halted(); ++p) {
        const std::uint64_t j = s_.unit_at(p);
        const std::uint64_t hw = j * n + k;
        if (std::binary_search(s_.first_sorted.begin(), s_.first_sorted.end(), hw)) continue;
        if (resumed(hw)) {
          s_.resumed.fetch_add(s_.space.inner_points(hw), std::memory_order_relaxed);
          s_.units_skipped.fetch_add(1, std::memory_order_relaxed);
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
        s_.units_skipped.fetch_add(1, std::memory_order_relaxed);
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
  // A unit cut short by a stop or budget is not reported (false): a resumed run redoes it.
  bool end_unit() {
    if (s_.halted()) return false;
    s_.units_done.fetch_add(1, std::memory_order_relaxed);
    flush();
    std::lock_guard lock(s_.sink_mutex);
    s_.sink.on_unit_done(unit_, unit_stats_);
    return true;
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

void WorkerDeleter::operator()(Worker* w) const {
  delete w;
}

WorkerPtr make_worker(Shared& s) {
  return WorkerPtr(new Worker(s));
}

PointRecord evaluate_point(Worker& w, PointId id, bool* evaluated) {
  return w.point(id, evaluated);
}

void publish(Worker& w) {
  w.publish();
}

void run_exhaustive(Shared& s) {
  Worker w(s);
  w.run_exhaustive();
}

void run_random(Shared& s, std::uint64_t samples) {
  Worker w(s);
  w.run_random(samples);
}

}  // namespace stackscope::search::detail
