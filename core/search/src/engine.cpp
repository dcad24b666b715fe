// SPDX-License-Identifier: GPL-3.0-or-later
// The search runner. Threads: std::jthread workers pulling hardware points (or chunks of
// random samples) from an atomic counter. std threads rather than oneTBB: libtbb-dev is not
// installed on the target machines, and work units are coarse (a hardware point is thousands of
// ~20 us evaluations), so a shared counter balances load as well as work stealing would.
#include "stackscope/search/engine.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/power_area/area.hpp"
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

struct Shared {
  Shared(const CompiledSpace& sp, const RunOptions& o, ResultSink& sk, std::stop_token st)
      : space(sp), opt(o), sink(sk), stop(std::move(st)), archive(sp.space().objectives) {}
  const CompiledSpace& space;
  const RunOptions& opt;
  ResultSink& sink;
  std::stop_token stop;
  std::atomic<std::uint64_t> next{0};
  std::atomic<std::uint64_t> evaluated{0}, reserved{0}, pruned{0}, pruned_bound{0}, infeasible{0};
  std::atomic<bool> halt{false};
  std::atomic<bool> eval_limited{false};
  std::mutex archive_mutex;
  Archive archive;
  std::atomic<std::size_t> frontier{0};
  std::mutex sink_mutex;

  bool halted() const { return halt.load(std::memory_order_relaxed) || stop.stop_requested(); }
};

class Worker {
 public:
  explicit Worker(Shared& s)
      : s_(s), space_(s.space.space()), local_(space_.objectives), last_flush_(Clock::now()) {}

  void run_exhaustive() {
    const std::uint64_t n = s_.opt.shard.count, k = s_.opt.shard.index;
    const std::uint64_t hw_total = s_.space.hardware_points();
    for (;;) {
      if (s_.halted()) break;
      const std::uint64_t j = s_.next.fetch_add(1, std::memory_order_relaxed);
      const std::uint64_t hw = j * n + k;
      if (hw >= hw_total) break;
      sync();
      hardware_point(hw);
    }
    finish();
  }

  void run_random(std::uint64_t samples) {
    constexpr std::uint64_t kChunk = 64;
    const std::uint64_t n = s_.opt.shard.count, k = s_.opt.shard.index;
    const Count size = s_.space.size();
    for (;;) {
      if (s_.halted()) break;
      const std::uint64_t c = s_.next.fetch_add(1, std::memory_order_relaxed);
      if (c * kChunk >= samples) break;
      sync();
      const std::uint64_t end = std::min(samples, (c + 1) * kChunk);
      for (std::uint64_t i = c * kChunk; i < end && !s_.halted(); ++i) {
        const std::uint64_t sample = i * n + k;  // the shard's i-th sample number
        const PointId id = s_.space.point_at(sample_rank(s_.opt.seed, sample, size));
        sample_point(id);
      }
    }
    finish();
  }

 private:
  Shared& s_;
  const Space& space_;
  perf::Evaluator ev_;
  Archive local_;
  std::vector<PointRecord> buf_;
  Clock::time_point last_flush_;

  // Publishes this worker's frontier and refreshes its view of everybody's.
  void sync() {
    std::lock_guard lock(s_.archive_mutex);
    s_.archive.merge(local_);
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
    const auto a = power_area::area(hwd.hardware);
    if (!a.fits_die() || !a.fits_reticle()) return false;
    const auto& c = space_.constraints;
    if (a.die_mm2 > c.max_die_area_mm2) return false;
    // Mean power >= static power (bounds.hpp).
    const double p_min = hwd.hardware.energy.static_power_W;
    if (p_min > c.max_power_W) return false;
    // DRAM peak >= ambient + static power x resistance (bounds.hpp); 95 C: the evaluator's limit.
    const double t_min = dram_peak_floor_C(hwd.hardware);
    if (t_min > c.max_dram_C || t_min > 95.0) return false;
    return true;
  }

  void prune(std::uint64_t n, bool by_bound) {
    s_.pruned.fetch_add(n, std::memory_order_relaxed);
    if (by_bound) s_.pruned_bound.fetch_add(n, std::memory_order_relaxed);
  }

  // Reserves one evaluation against max_evals; false = budget spent.
  bool reserve() {
    if (s_.opt.max_evals == 0) return true;
    if (s_.reserved.fetch_add(1, std::memory_order_relaxed) < s_.opt.max_evals) return true;
    s_.eval_limited = true;
    s_.halt = true;
    return false;
  }

  void evaluate(const perf::Design& d, PointId id) {
    const perf::Result r = ev_.evaluate(d);
    const PointRecord rec = make_record(s_.space, id, d, r);
    s_.evaluated.fetch_add(1, std::memory_order_relaxed);
    if (!rec.feasible) s_.infeasible.fetch_add(1, std::memory_order_relaxed);
    local_.insert(rec);
    deliver(rec);
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

  struct Unit {
    std::uint64_t group = 0;
    std::size_t batch_digit = 0;
    bool viable = false;  // fits memory and may meet the SLOs
    std::array<double, kMaxObjectives> bound{};
    double key = 0;  // visiting priority: bound utility of the first objective
  };

  void hardware_point(std::uint64_t hw) {
    const std::uint64_t inner_n = s_.space.inner_points(hw);
    if (inner_n == 0) return;
    const perf::Design hwd = s_.space.hardware_design(hw);
    if (!hardware_ok(hwd, hw)) {
      prune(inner_n, false);
      return;
    }
    const auto groups = s_.space.groups(hw);
    const auto& in = space_.inner;
    const std::size_t nb = s_.space.batch_count();
    const std::uint64_t per_batch = in.sequence_parallel.size() * in.overlap.size();
    const int devices = s_.space.devices(hw);
    const double die = power_area::area(hwd.hardware).die_mm2;
    const bool bounds = s_.opt.prune_bounds;

    // Units of (group, batch): memory fit and optimistic bounds, computed before evaluating.
    std::vector<Unit> units;
    units.reserve(groups.size() * nb);
    auto hw_bound = worst_vector(space_);
    perf::Design d = hwd;
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
    for (const Unit& u : units) {
      if (s_.halted()) return;
      if (!u.viable) {
        prune(per_batch, false);
        continue;
      }
      if (bounds && local_.dominates({u.bound.data(), space_.objectives.size()})) {
        prune(per_batch, true);
        continue;
      }
      for (std::size_t sp = 0; sp < in.sequence_parallel.size(); ++sp) {
        for (std::size_t ov = 0; ov < in.overlap.size(); ++ov) {
          if (s_.halted() || !reserve()) return;
          const std::uint64_t inner =
              ((u.group * in.sequence_parallel.size() + sp) * nb + u.batch_digit) *
                  in.overlap.size() +
              ov;
          s_.space.apply_inner(d, hw, inner);
          evaluate(d, {hw, inner});
        }
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
  const auto t0 = Clock::now();
  Shared s(space, opt, sink, stop);

  Summary sum;
  sum.space_size = space.size();
  const std::uint64_t n = opt.shard.count, k = opt.shard.index;
  std::uint64_t samples = 0;
  if (opt.strategy == Strategy::exhaustive) {
    sum.progress.total = space.points_in_shard(k, n);
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
    p.total = sum.progress.total;
    p.elapsed_s = seconds_since(t0);
    const double done = static_cast<double>(p.evaluated + p.pruned);
    p.rate_per_s = p.elapsed_s > 0 ? done / p.elapsed_s : 0.0;
    const double left = to_double(p.total) - done;
    p.eta_s = p.rate_per_s > 0 && left > 0 ? left / p.rate_per_s : 0.0;
    p.frontier = s.frontier.load();
    return p;
  };

  const bool has_work = sum.progress.total > 0;
  const int threads = opt.threads > 0
                          ? opt.threads
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<int> running{has_work ? threads : 0};
  {
    std::vector<std::jthread> pool;
    for (int i = 0; has_work && i < threads; ++i) {
      pool.emplace_back([&s, &opt, &running, samples] {
        {
          Worker w(s);
          if (opt.strategy == Strategy::exhaustive)
            w.run_exhaustive();
          else
            w.run_random(samples);
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
        sink.on_progress(p);
      }
    }
  }  // joins the workers
  sum.stopped = stop.stop_requested();
  sum.eval_limited = s.eval_limited.load();
  sum.archive = std::move(s.archive);
  sum.progress = progress();
  sum.progress.frontier = sum.archive.size();
  sum.complete = !sum.stopped && !sum.time_limited && !sum.eval_limited;
  {
    std::lock_guard lock(s.sink_mutex);
    sink.on_progress(sum.progress);
  }
  return sum;
}

}  // namespace stackscope::search
