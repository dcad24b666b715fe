// SPDX-License-Identifier: GPL-3.0-or-later
// The search runner. Threads: std::jthread workers pulling hardware points (or chunks of
// random samples) from an atomic counter. std threads rather than oneTBB: libtbb-dev is not
// installed on the target machines, and work units are coarse (a hardware point is thousands of
// ~20 us evaluations), so a shared counter balances load as well as work stealing would.
#include "stackscope/search/engine.hpp"

#include "engine_detail.hpp"
#include "stackscope/search/eta.hpp"
#include "stackscope/search/visit_order.hpp"

namespace stackscope::search {

using namespace detail;

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

std::uint64_t shard_units(const CompiledSpace& space, const RunOptions& opt) {
  const std::uint64_t n = opt.shard.count, k = opt.shard.index;
  if (n == 0 || k >= n) return 0;
  if (opt.strategy == Strategy::exhaustive) return count_below(space.hardware_points(), k, n);
  if (opt.strategy == Strategy::random)
    return (count_below(opt.samples, k, n) + kSampleChunk - 1) / kSampleChunk;
  return 0;
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
    if (!opt.index_order)
      s.order = visit_order(count_below(space.hardware_points(), opt.shard.index, opt.shard.count));
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

  // Work units of this shard (hardware points, sample chunks); NSGA-II has none and counts points.
  const std::uint64_t units_total = shard_units(space, opt);
  // The ETA is measured over finished work units, not points: an exhaustive run prunes whole
  // hardware points for free (their points count at once), so points per second overstate the
  // pace of what remains. An exhaustive shard's ordered pass visits its units in strata of a
  // random order (search/visit_order.hpp), so the recent pace of units holds for the units left;
  // the window is 30 s or half the run, whichever is longer, so a few costly strata in a row
  // do not swing the ETA (search/eta.hpp).
  EtaEstimator eta({.window_s = 30,
                    .min_work = 1.0,
                    .min_samples = 3,
                    .window_fraction = s.order ? 0.5 : 0.0});
  std::uint64_t resumed_units = 0;  // below the resume watermark
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
    if (opt.strategy == Strategy::nsga2) {
      eta.update(p.elapsed_s, std::min(done, to_double(p.total)),
                 std::max(done, to_double(p.total)));
    } else if (s.first_finished.load() < s.first.size()) {
      // The promising hardware points come first and are evaluated in full to fill the archive
      // that prunes the rest: their pace (minutes per unit where the pruned rest takes
      // milliseconds) says nothing about the time left, so there is no ETA until they are done.
    } else {
      const auto units = static_cast<double>(s.units_done.load());
      const auto skipped = std::min(units_total, resumed_units + s.units_skipped.load());
      const double left = std::max(0.0, static_cast<double>(units_total - skipped) - units);
      eta.update(p.elapsed_s, units, units + left);
    }
    p.eta_s = eta.eta_s().value_or(0.0);
    p.frontier = s.frontier.load();
    return p;
  };

  // Units below the resume watermark are skipped outright: the work counter starts there.
  if (opt.resume_below > 0 && opt.strategy != Strategy::nsga2) {
    s.next = opt.resume_below;
    resumed_units = std::min(opt.resume_below, units_total);
    std::uint64_t skipped = 0;
    if (opt.strategy == Strategy::exhaustive) {
      for (std::uint64_t p = 0; p < resumed_units; ++p)
        skipped += space.inner_points(s.unit_at(p) * n + k);
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
          run_nsga2(s, static_cast<std::size_t>(threads));
        } catch (...) {
          s.fail(std::current_exception());
        }
        running.fetch_sub(1);
      });
    }
    for (int i = 0; has_work && opt.strategy != Strategy::nsga2 && i < threads; ++i) {
      pool.emplace_back([&s, &opt, &running, samples] {
        try {
          if (opt.strategy == Strategy::exhaustive)
            run_exhaustive(s);
          else
            run_random(s, samples);
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
