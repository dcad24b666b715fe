// SPDX-License-Identifier: GPL-3.0-or-later
// Search engine: pruned frontiers equal brute force, determinism across thread
// counts, shard + merge, cancellation, sink delivery.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <thread>

#include "spaces.hpp"
#include "stackscope/search/bounds.hpp"

namespace stackscope::search {
namespace {

using namespace testing;

Summary run_space(const CompiledSpace& cs, RunOptions opt) {
  CountingSink sink;
  Summary s = run(cs, opt, sink);
  EXPECT_EQ(sink.records, s.progress.evaluated);
  EXPECT_EQ(sink.finished, 1u);
  EXPECT_EQ(sink.frontier, s.archive.size());
  return s;
}

void brute_force_equality(const Space& space) {
  const CompiledSpace cs(space);
  std::uint64_t brute_evals = 0;
  const Archive brute = brute_force(cs, &brute_evals);
  RunOptions opt;
  opt.threads = 2;
  const Summary s = run_space(cs, opt);
  EXPECT_TRUE(s.complete);
  EXPECT_EQ(Count{s.progress.evaluated + s.progress.pruned}, cs.size());
  expect_same_frontier(s.archive, brute);
  EXPECT_GT(brute.size(), 0u);
  const double size = to_double(cs.size());
  std::printf(
      "space %s points: brute force evaluated %llu; engine evaluated %llu, pruned %llu (%.1f%%; "
      "by bounds %.1f%%), frontier %zu\n",
      to_string(cs.size()).c_str(), static_cast<unsigned long long>(brute_evals),
      static_cast<unsigned long long>(s.progress.evaluated),
      static_cast<unsigned long long>(s.progress.pruned),
      100.0 * static_cast<double>(s.progress.pruned) / size,
      100.0 * static_cast<double>(s.progress.pruned_bound) / size, s.archive.size());
}

TEST(SearchEngine, DenseFrontierEqualsBruteForce) {
  brute_force_equality(dense_space());
}
TEST(SearchEngine, MoeFrontierEqualsBruteForce) {
  brute_force_equality(moe_space());
}
TEST(SearchEngine, MlaFrontierEqualsBruteForce) {
  brute_force_equality(mla_space());
}

// Model and workload axes define classes: each class has its own parallel groups (Mixtral's 8
// experts allow ep 8, Llama's dense FFN only ep 1) and decode work.
TEST(SearchEngine, ModelAndWorkloadAxesEqualBruteForce) {
  const Space space = workload_space();
  const CompiledSpace cs(space);
  EXPECT_EQ(cs.device_classes(), 8u);  // devices x model x input length
  // Classes lead the index: a class's hardware points are contiguous and share the model.
  for (std::size_t c = 0; c < cs.device_classes(); ++c) {
    const std::uint64_t first = cs.class_hardware(c);
    const std::uint64_t last = first + cs.hardware_points() / cs.device_classes() - 1;
    EXPECT_EQ(cs.hardware_design(first).model.id, cs.hardware_design(last).model.id);
    EXPECT_EQ(cs.hardware_design(first).workload.input_len,
              cs.hardware_design(last).workload.input_len);
  }
  EXPECT_NE(cs.groups(cs.class_hardware(0)).size(), cs.groups(cs.class_hardware(2)).size());
  brute_force_equality(space);
}

// More systems (device counts x link and latency multipliers) than a worker keeps network models
// for (64): models are rebuilt in place while regions hold theirs.
TEST(SearchEngine, ManySystemsEqualBruteForce) {
  Space s;
  s.base = base("deepstack-3d", "llama-3-8b", 4);
  s.hardware = {{"devices", {4, 8}},
                {"memory.layers_connected", {2, 8}},
                {"system.link_bw_scale", {0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6}},
                {"system.latency_scale", {0.25, 0.5, 1, 2, 4, 8, 16, 32}}};
  s.inner.tp = {1, 2, 4, 8};
  s.inner.dp = {1, 2, 4, 8};
  s.inner.batch = {1, 16, 128};
  s.inner.sequence_parallel = {0, 1};
  s.inner.overlap = {parallel::Overlap::off, parallel::Overlap::auto_tiles};
  s.objectives = {objective(Metric::stps_per_mm2), objective(Metric::utps)};
  brute_force_equality(s);
}

TEST(SearchEngine, DeepSeekV3FrontierEqualsBruteForce) {
  brute_force_equality(deepseek_space(false));
}

TEST(SearchEngine, ThrottledFrontierEqualsBruteForce) {
  brute_force_equality(hot_space());
}

// Hot ambient with DRAM-temperature and power constraints: tall stacks are cut at the hardware
// level (static power alone heats them past the limit), the rest per point. DRAM-bound decode
// draws the whole cap at the memory path's energy (docs/model.md §13.4), so the cap, 90 W, sets
// which stacks stay under 92 C.
TEST(SearchEngine, ConstrainedHotFrontierEqualsBruteForce) {
  Space s = hot_space();
  s.base.hardware.energy.tdp_W = 90;
  s.base.hardware.thermal.ambient_C = 70;
  s.base.hardware.thermal.r_base_K_per_W = 0.1;
  s.base.hardware.thermal.r_layer_K_per_W = 0.03;  // 16 layers: >= 93 C at static power
  s.constraints.max_dram_C = 92;
  s.constraints.max_power_W = 120;
  brute_force_equality(s);
}

// No batch axis and batch_auto: every point runs the largest batch that fits its memory.
TEST(SearchEngine, AutoBatchFrontierEqualsBruteForce) {
  Space s = moe_space();
  s.inner.batch.clear();
  s.base.workload.batch_auto = true;
  s.constraints.tpot_slo_s = std::numeric_limits<double>::infinity();
  brute_force_equality(s);
}

TEST(SearchEngine, DenseOtherObjectivesEqualBruteForce) {
  Space s = dense_space();
  s.objectives = {objective(Metric::stps), objective(Metric::energy_per_token_j),
                  objective(Metric::tpot_s)};
  s.constraints.ttft_slo_s = 2.0;
  brute_force_equality(s);
}

// DeepSeek-V3 preset shape (its 11 hardware axes and the mesh's two before the system
// multipliers): boxes, region bounds, infeasible dies and memory fit all act.
TEST(SearchEngine, DeepSeekPresetShapeFrontierEqualsBruteForce) {
  const Space s = deepseek_preset_space(false);
  EXPECT_GT(CompiledSpace(s).size(), Count{50000});
  brute_force_equality(s);
}

// Region bounds with three objectives (energy is bounded only per hardware point) and a TTFT
// SLO (checked only per hardware point).
TEST(SearchEngine, DeepSeekPresetShapeOtherObjectivesEqualBruteForce) {
  Space s = deepseek_preset_space(false);
  s.objectives = {objective(Metric::stps), objective(Metric::tpot_s),
                  objective(Metric::energy_per_token_j)};
  s.constraints.ttft_slo_s = 1.0;
  brute_force_equality(s);
}

// A hardware axis whose first value is invalid (link 0 GB/s): points with it are skipped, the
// others searched.
TEST(SearchEngine, AxisWithInvalidFirstValueEqualsBruteForce) {
  Space s = hot_space();
  s.hardware.insert(s.hardware.begin() + 1, {"noc.link_GBps", {0, 100, 200}});
  brute_force_equality(s);
}

// A device count that no parallel group of the space fills (16 devices with only tp 8 x pp 1 x
// dp 1) leaves its hardware points without inner points. The hardware boxes of bound pruning
// (which need a hardware axis after the devices axis) probed such a point with inner index 0
// and read past its empty group list; the pruned run must skip them and equal brute force,
// like the unpruned run does.
TEST(SearchEngine, DeviceCountWithoutParallelGroupEqualsBruteForce) {
  Space s = dense_space();
  s.hardware = {
      {"devices", {8, 16}}, {"memory.layers_total", {4, 8}}, {"compute.cores", {64, 128}}};
  s.inner.tp = {8};
  s.inner.pp = {1};
  s.inner.dp = {1};
  const CompiledSpace cs(s);
  EXPECT_EQ(cs.inner_points(cs.hardware_points() - 1), 0u);  // the 16-device points
  brute_force_equality(s);
  RunOptions unpruned;
  unpruned.threads = 2;
  unpruned.prune_bounds = false;
  RunOptions pruned = unpruned;
  pruned.prune_bounds = true;
  expect_same_frontier(run_space(cs, pruned).archive, run_space(cs, unpruned).archive);
}

// The on-die mesh knobs reach the evaluator (compute/noc.hpp): on a mesh a slower link or a
// slower router never makes a design at full clock faster and slows every one (each operator
// waits for the mesh fill).
TEST(SearchKnobs, MeshKnobsReachTheEvaluator) {
  int slower = 0, checked = 0;
  const CompiledSpace cs(deepseek_preset_space(false));
  perf::Evaluator ev;
  for (std::uint64_t k = 0; k < 2000 && checked < 60; ++k) {
    const PointId id = cs.point_at((Count{k} * 104729u) % cs.size());
    perf::Design d = cs.decode(id);
    if (!perf::validate(d).empty()) continue;
    ASSERT_GT(d.hardware.noc.mesh_x * d.hardware.noc.mesh_y, 1);
    const perf::Result a = ev.evaluate(d);
    if (!a.feasible) continue;
    perf::Design e = d;
    e.hardware.noc.hop_latency_ns *= 4.0;
    e.hardware.noc.link_GBps /= 4.0;
    const perf::Result b = ev.evaluate(e);
    ASSERT_TRUE(b.feasible);
    // A slower mesh draws less power, so a throttled or power-walled design may run its
    // clock faster, and a DRAM stack that cools below 85 C refreshes half as often: monotone
    // only at full clock and the same refresh rate.
    if (a.clock_scale < 1 || b.clock_scale < 1 || a.thermal.throttle < 1 ||
        b.thermal.throttle < 1 || a.thermal.refresh_doubled != b.thermal.refresh_doubled)
      continue;
    EXPECT_GE(b.metrics.tpot_s, a.metrics.tpot_s * (1 - 1e-12));
    EXPECT_GE(b.metrics.ttft_s, a.metrics.ttft_s * (1 - 1e-12));
    slower += b.metrics.tpot_s > a.metrics.tpot_s;
    ++checked;
  }
  EXPECT_GT(checked, 10);
  EXPECT_EQ(slower, checked);
}

TEST(SearchEngine, SameFrontierForAnyThreadCount) {
  const CompiledSpace cs(moe_space());
  RunOptions opt;
  opt.threads = 1;
  const Summary one = run_space(cs, opt);
  for (int t : {2, 4}) {
    opt.threads = t;
    const Summary many = run_space(cs, opt);
    expect_same_frontier(one.archive, many.archive);
  }
}

TEST(SearchEngine, RandomSamplingIsDeterministic) {
  const CompiledSpace cs(dense_space());
  RunOptions opt;
  opt.strategy = Strategy::random;
  opt.samples = 3000;
  opt.seed = 42;
  opt.threads = 1;
  const Summary one = run_space(cs, opt);
  EXPECT_EQ(one.progress.total, Count{3000});
  EXPECT_EQ(one.progress.evaluated + one.progress.pruned, 3000u);
  for (int t : {2, 4}) {
    opt.threads = t;
    expect_same_frontier(one.archive, run_space(cs, opt).archive);
  }
  // Pruning never changes the sampled frontier.
  opt.prune_bounds = false;
  expect_same_frontier(one.archive, run_space(cs, opt).archive);
  opt.seed = 43;
  const Summary other = run_space(cs, opt);
  EXPECT_FALSE(other.archive.sorted().size() == one.archive.sorted().size() &&
               other.archive.sorted()[0].id == one.archive.sorted()[0].id &&
               other.archive.sorted().back().id == one.archive.sorted().back().id);
}

TEST(SearchEngine, Nsga2IsDeterministicAndFindsGoodDesigns) {
  const CompiledSpace cs(dense_space());
  RunOptions opt;
  opt.strategy = Strategy::nsga2;
  opt.population = 48;
  opt.generations = 30;
  opt.seed = 7;
  opt.threads = 1;
  const Summary one = run_space(cs, opt);
  EXPECT_TRUE(one.complete);
  EXPECT_EQ(one.progress.total, Count{48 * 30});
  EXPECT_EQ(one.progress.evaluated + one.progress.pruned, 48u * 30u);
  for (int t : {2, 3}) {
    opt.threads = t;
    expect_same_frontier(one.archive, run_space(cs, opt).archive);
  }
  // Against the exact frontier: the best STPS per device found is close to the optimum, with
  // 3% of the space evaluated.
  opt.strategy = Strategy::exhaustive;
  const Summary exact = run_space(cs, opt);
  double best = 0, found = 0;
  for (const auto& p : exact.archive.points()) best = std::max(best, p.objectives[0]);
  for (const auto& p : one.archive.points()) found = std::max(found, p.objectives[0]);
  std::printf("NSGA-II best stps/device %.1f vs optimum %.1f after %llu evaluations\n", found, best,
              static_cast<unsigned long long>(one.progress.evaluated));
  EXPECT_GT(found, 0.7 * best);
  CountingSink sink;
  opt.strategy = Strategy::nsga2;
  opt.shard = {0, 2};
  EXPECT_THROW(run(cs, opt, sink), std::invalid_argument);
}

TEST(SearchEngine, ShardsMergeToSingleRun) {
  const CompiledSpace cs(mla_space());
  RunOptions opt;
  opt.threads = 2;
  const Summary single = run_space(cs, opt);
  Archive merged(cs.space().objectives);
  Count total = 0;
  for (std::uint64_t k = 0; k < 3; ++k) {
    opt.shard = {k, 3};
    const Summary part = run_space(cs, opt);
    EXPECT_TRUE(part.complete);
    total += part.progress.total;
    merged.merge(part.archive);
  }
  EXPECT_EQ(total, cs.size());
  expect_same_frontier(single.archive, merged);
  opt.shard = {3, 3};
  CountingSink sink;
  EXPECT_THROW(run(cs, opt, sink), std::invalid_argument);
}

// The shards' work units partition the space's hardware points (exhaustive) and the chunks of
// every shard's samples (random); NSGA-II has none; a bad shard has none.
TEST(SearchEngine, ShardUnitsPartitionTheWork) {
  const CompiledSpace cs(mla_space());
  RunOptions opt;
  EXPECT_EQ(shard_units(cs, opt), cs.hardware_points());
  std::uint64_t sum = 0;
  for (std::uint64_t k = 0; k < 3; ++k) {
    opt.shard = {k, 3};
    sum += shard_units(cs, opt);
  }
  EXPECT_EQ(sum, cs.hardware_points());
  opt.strategy = Strategy::random;
  opt.samples = 1000;
  opt.shard = {0, 1};
  EXPECT_EQ(shard_units(cs, opt), (1000 + kSampleChunk - 1) / kSampleChunk);
  opt.shard = {2, 3};  // samples 2, 5, ..., 998: 333 of them
  EXPECT_EQ(shard_units(cs, opt), (333 + kSampleChunk - 1) / kSampleChunk);
  opt.strategy = Strategy::nsga2;
  opt.shard = {0, 1};
  EXPECT_EQ(shard_units(cs, opt), 0u);
  opt.strategy = Strategy::exhaustive;
  opt.shard = {3, 3};
  EXPECT_EQ(shard_units(cs, opt), 0u);
}

// Units reported done by a stopped run are skipped by the resumed run, whose frontier (seeded
// with the first run's) equals an uninterrupted run's.
TEST(SearchEngine, ResumesFromFinishedUnits) {
  struct UnitSink : CountingSink {
    void on_unit_done(std::uint64_t unit, const UnitStats&) override { units.push_back(unit); }
    std::vector<std::uint64_t> units;
  };
  const CompiledSpace cs(moe_space());
  RunOptions opt;
  opt.threads = 2;
  const Summary full = run_space(cs, opt);
  for (Strategy strategy : {Strategy::exhaustive, Strategy::random}) {
    opt.strategy = strategy;
    opt.samples = 2000;
    const Summary ref = strategy == Strategy::exhaustive ? full : run_space(cs, opt);
    opt.max_evals = 700;
    UnitSink first;
    const Summary cut = run(cs, opt, first);
    EXPECT_TRUE(cut.eval_limited);
    ASSERT_FALSE(first.units.empty());
    opt.max_evals = 0;
    opt.done_units = first.units;
    std::sort(opt.done_units.begin(), opt.done_units.end());
    opt.seed_points.assign(cut.archive.points().begin(), cut.archive.points().end());
    const Summary resumed = run_space(cs, opt);
    EXPECT_TRUE(resumed.complete);
    EXPECT_GT(resumed.progress.resumed, 0u);
    EXPECT_EQ(
        Count{resumed.progress.evaluated + resumed.progress.pruned + resumed.progress.resumed},
        resumed.progress.total);
    expect_same_frontier(ref.archive, resumed.archive);
    opt.done_units.clear();
    opt.seed_points.clear();
  }
}

// An exhaustive shard with enough units visits its strata in search::visit_order. A run resumed
// from the finished prefix of that order as a watermark (as the search log keeps it) plus the
// finished units above it skips them all and ends on the uninterrupted run's frontier.
TEST(SearchEngine, ResumesFromAWatermarkInVisitOrder) {
  struct UnitSink : CountingSink {
    void on_unit_done(std::uint64_t unit, const UnitStats&) override { units.push_back(unit); }
    std::vector<std::uint64_t> units;
  };
  const CompiledSpace cs(dense_space());
  const auto order = visit_order(cs.hardware_points());
  ASSERT_TRUE(order) << "the space must have enough hardware points to be visited in strata";
  RunOptions opt;
  opt.threads = 2;
  const Summary full = run_space(cs, opt);
  opt.max_evals = full.progress.evaluated * 2 / 3;
  UnitSink first;
  const Summary cut = run(cs, opt, first);
  ASSERT_TRUE(cut.eval_limited);
  std::vector<std::uint64_t> pos;
  for (const std::uint64_t u : first.units) pos.push_back(order->position_of(u));
  std::sort(pos.begin(), pos.end());
  std::uint64_t watermark = 0;
  while (watermark < pos.size() && pos[watermark] == watermark) ++watermark;
  ASSERT_GT(watermark, 0u);
  ASSERT_LT(watermark, cs.hardware_points());
  opt.max_evals = 0;
  opt.resume_below = watermark;
  for (const std::uint64_t p : pos)
    if (p >= watermark) opt.done_units.push_back(order->unit_at(p));
  std::sort(opt.done_units.begin(), opt.done_units.end());
  opt.seed_points.assign(cut.archive.points().begin(), cut.archive.points().end());
  const Summary resumed = run_space(cs, opt);
  EXPECT_TRUE(resumed.complete);
  std::uint64_t finished_points = 0;
  for (const std::uint64_t u : first.units) finished_points += cs.inner_points(u);
  EXPECT_EQ(resumed.progress.resumed, finished_points);
  EXPECT_EQ(Count{resumed.progress.evaluated + resumed.progress.pruned + resumed.progress.resumed},
            resumed.progress.total);
  expect_same_frontier(full.archive, resumed.archive);
  // In index order (a log written before the strata order), the same watermark means the
  // index prefix: the run covers the rest and ends on the same frontier.
  opt.index_order = true;
  opt.resume_below = 0;
  opt.done_units = first.units;
  std::sort(opt.done_units.begin(), opt.done_units.end());
  const Summary by_index = run_space(cs, opt);
  EXPECT_EQ(by_index.progress.resumed, finished_points);
  expect_same_frontier(full.archive, by_index.archive);
}

TEST(SearchEngine, StopsPromptly) {
  Space s = dense_space();
  s.hardware.push_back({"compute.clock_GHz", linear_range(0.8, 1.6, 0.01)});
  const CompiledSpace cs(s);
  RunOptions opt;
  opt.threads = 2;
  opt.prune_bounds = false;
  CountingSink sink;
  std::stop_source stop;
  std::jthread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop.request_stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  const Summary sum = run(cs, opt, sink, stop.get_token());
  const double after_stop =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - 0.2;
  EXPECT_TRUE(sum.stopped);
  EXPECT_FALSE(sum.complete);
  EXPECT_LT(after_stop, 0.1);
  EXPECT_GT(sum.progress.evaluated, 0u);
  EXPECT_EQ(sink.records, sum.progress.evaluated);
  EXPECT_GT(sink.progress_calls, 0u);
}

TEST(SearchEngine, BudgetsEndTheRun) {
  const CompiledSpace cs(dense_space());
  RunOptions opt;
  opt.threads = 2;
  opt.max_evals = 500;
  CountingSink sink;
  const Summary s = run(cs, opt, sink);
  EXPECT_TRUE(s.eval_limited);
  EXPECT_FALSE(s.complete);
  EXPECT_EQ(s.progress.evaluated, 500u);
  EXPECT_EQ(sink.records, 500u);
  Space big = dense_space();
  big.hardware.push_back({"compute.clock_GHz", linear_range(0.8, 1.6, 0.01)});
  const CompiledSpace large(big);
  opt.max_evals = 0;
  opt.time_limit_s = 0.05;
  opt.prune_bounds = false;
  const Summary t = run(large, opt, sink);
  EXPECT_TRUE(t.time_limited);
  EXPECT_LT(t.progress.elapsed_s, 0.2);
}

// Every bound of bounds.hpp against the evaluator on points of all three spaces (including
// power-throttled and hot designs).
TEST(SearchBounds, NeverBeatenByTheEvaluator) {
  int checked = 0, walled = 0, throttled = 0, tight_spaces = 0;
  for (const Space& space : {dense_space(), moe_space(), mla_space(), hot_space()}) {
    const CompiledSpace cs(space);
    double log_tpot = 0, log_ttft = 0, log_energy = 0, log_own = 0, log_exact = 0;
    double log_tpot_slowed = 0;
    int n = 0, n_slowed = 0;
    perf::Evaluator ev;
    for (std::uint64_t k = 0; k < 600; ++k) {
      const PointId id = cs.point_at((Count{k} * 7919u) % cs.size());
      const perf::Design d = cs.decode(id);
      if (!perf::validate(d).empty()) continue;
      const perf::Result r = ev.evaluate(d);
      std::optional<network::NetworkModel> net;
      if (!d.system.levels.empty()) net.emplace(d.system);
      CommWork comm;
      const Optimistic o = optimistic(d, r.batch, net ? &*net : nullptr, nullptr, &comm);
      // The hardware-independent decode work gives exactly the collective-free TPOT bound.
      DecodeWork work;
      const Optimistic free = optimistic(d, r.batch, nullptr, &work);
      const Optimistic split = decode_optimistic(work, decode_rates(d, work.kv_page_bytes));
      EXPECT_EQ(split.tpot_s, free.tpot_s);
      EXPECT_EQ(split.stps, free.stps);
      EXPECT_EQ(split.utps, free.utps);
      // ... and with the collectives optimistic() reports, exactly the collective-aware one.
      const Optimistic joined = decode_optimistic(work, decode_rates(d, work.kv_page_bytes), &comm);
      EXPECT_EQ(joined.tpot_s, o.tpot_s);
      EXPECT_EQ(joined.stps, o.stps);
      // The bound of this point's own schedule: tighter, still never beaten.
      Schedule sch;
      sch.sequence_parallel = d.parallel.sequence_parallel;
      sch.overlap = d.parallel.overlap;
      sch.tiles = d.parallel.overlap_tiles;
      const Optimistic own =
          decode_optimistic(work, decode_rates(d, work.kv_page_bytes), &comm, &sch);
      EXPECT_GE(own.tpot_s, o.tpot_s);
      EXPECT_LE(own.tpot_s, r.metrics.tpot_s) << d.name;
      log_own += std::log(r.metrics.tpot_s / own.tpot_s);
      // ... and with this hardware's GEMM and attention costs: tighter again, never beaten.
      const DecodeWork hw_work = hardware_decode_work(d, r.batch);
      const Optimistic exact =
          decode_optimistic(hw_work, decode_rates(d, work.kv_page_bytes), &comm, &sch);
      EXPECT_GE(exact.tpot_s, own.tpot_s * (1 - 1e-12));
      EXPECT_LE(exact.tpot_s, r.metrics.tpot_s) << d.name;
      log_exact += std::log(r.metrics.tpot_s / exact.tpot_s);
      EXPECT_LE(free.tpot_s, o.tpot_s);
      const auto& m = r.metrics;
      EXPECT_LE(o.tpot_s, m.tpot_s) << d.name;
      EXPECT_LE(o.ttft_s, m.ttft_s);
      EXPECT_GE(o.stps, m.stps);
      EXPECT_GE(o.utps, m.utps);
      EXPECT_LE(o.energy_per_token_j, m.energy_per_token_j);
      EXPECT_LE(o.power_w, m.power_w);
      if (r.thermal.modelled) {
        EXPECT_LE(o.dram_peak_C, r.thermal.dram_peak_C);
      }
      const bool slowed = (r.reasons & (perf::kThermalThrottled | perf::kPowerOverTdp)) != 0;
      throttled += (r.reasons & perf::kThermalThrottled) != 0;
      walled += (r.reasons & perf::kPowerOverTdp) != 0;
      ++checked;
      EXPECT_GT(o.tpot_s, 0.0);
      // Tightness is measured where the bound's premise holds, at the nominal clock; a point
      // the power cap or the thermal throttle slowed is only checked to be never beaten.
      if (slowed) {
        log_tpot_slowed += std::log(m.tpot_s / o.tpot_s);
        ++n_slowed;
        continue;
      }
      log_tpot += std::log(m.tpot_s / o.tpot_s);
      log_ttft += std::log(m.ttft_s / o.ttft_s);
      log_energy += std::log(m.energy_per_token_j / o.energy_per_token_j);
      ++n;
    }
    std::printf(
        "%s: actual / bound, geometric mean over %d points at the nominal clock: tpot %.3f "
        "(own schedule %.3f, with this die's GEMM costs %.3f over all %d), ttft %.2f, energy "
        "%.2f; tpot %.3f over the %d points the cap or the throttle slowed\n",
        space.base.model.id.c_str(), n, n > 0 ? std::exp(log_tpot / n) : 0.0,
        std::exp(log_own / (n + n_slowed)), std::exp(log_exact / (n + n_slowed)), n + n_slowed,
        n > 0 ? std::exp(log_ttft / n) : 0.0, n > 0 ? std::exp(log_energy / n) : 0.0,
        n_slowed > 0 ? std::exp(log_tpot_slowed / n_slowed) : 0.0, n_slowed);
    if (n < 50) continue;  // hot_space: every point is slowed (only the validity checks apply)
    ++tight_spaces;
    // Tight, not just valid: the per-operator bound (bounds.hpp) is within 1.55x of the
    // evaluator's TPOT on average at the nominal clock (the bound's premise; the board-power
    // rule of docs/model.md §13.4 caps or throttles most deepstack-3d points, whose clocks it
    // does not follow). Measured 1.08-1.49 over these four spaces under the default
    // runtime profile (0.5 us GPU dispatch, 64 ns on the deepstack-3d mesh); 1.09-1.32 when
    // every operator paid a fixed 2-4 us launch, which the bound carries exactly and which
    // hid part of the gap (the mesh traffic the bound leaves out, hot_space's 1.49). The
    // max-of-sums bound the per-operator one replaced was 1.32-1.56 with those launches.
    EXPECT_LT(std::exp(log_tpot / n), 1.55) << space.base.model.id;
  }
  EXPECT_GT(checked, 500);
  EXPECT_EQ(tight_spaces, 3);
  std::printf("power-walled %d, thermally throttled %d of %d\n", walled, throttled, checked);
  EXPECT_GT(walled, 10);
  EXPECT_GT(throttled, 10);
}

// Sliding-window layers (gpt-oss-120b, 18 of 36 layers on a 128-token window) at prompts far
// past the window: every bound still under the evaluator, the hardware-exact one included.
TEST(SearchBounds, SlidingWindowModelNeverBeaten) {
  Space space = moe_space();
  space.base.model = presets().model("gpt-oss-120b");
  space.base.workload.input_len = 8192;
  space.base.workload.output_len = 1024;
  space.base.workload.numerics = {Precision::fp4, Precision::bf16, Precision::bf16};
  const CompiledSpace cs(space);
  perf::Evaluator ev;
  int checked = 0;
  for (std::uint64_t k = 0; k < 300; ++k) {
    const PointId id = cs.point_at((Count{k} * 7919u) % cs.size());
    const perf::Design d = cs.decode(id);
    if (!perf::validate(d).empty()) continue;
    const perf::Result r = ev.evaluate(d);
    if (r.batch <= 0) continue;
    std::optional<network::NetworkModel> net;
    if (!d.system.levels.empty()) net.emplace(d.system);
    CommWork comm;
    DecodeWork work;
    const Optimistic o = optimistic(d, r.batch, net ? &*net : nullptr, &work, &comm);
    EXPECT_LE(o.tpot_s, r.metrics.tpot_s) << d.name;
    EXPECT_LE(o.ttft_s, r.metrics.ttft_s) << d.name;
    EXPECT_GE(o.stps, r.metrics.stps) << d.name;
    Schedule sch;
    sch.sequence_parallel = d.parallel.sequence_parallel;
    sch.overlap = d.parallel.overlap;
    sch.tiles = d.parallel.overlap_tiles;
    const DecodeWork hw_work = hardware_decode_work(d, r.batch);
    const Optimistic exact =
        decode_optimistic(hw_work, decode_rates(d, work.kv_page_bytes), &comm, &sch);
    EXPECT_LE(exact.tpot_s, r.metrics.tpot_s) << d.name;
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

// Fixed tile counts on an MoE model with shared experts (DeepSeek-V2-Lite): the shared
// experts are independent work that may hide the all-to-alls' latency too
// (perf/overlap.hpp), so the MoE layer's own-schedule bound keeps only max(P, c); the
// attention layers keep max(P, c) + min(P, c) / T. Both against the evaluator, at tile counts
// from 1 to past where the per-tile issue costs dominate.
TEST(SearchBounds, FixedTilesWithSharedExpertsNeverBeaten) {
  const CompiledSpace cs(mla_space());
  perf::Evaluator ev;
  int checked = 0, hidden = 0;
  for (std::uint64_t k = 0; k < 200; ++k) {
    perf::Design d = cs.decode(cs.point_at((Count{k} * 7919u) % cs.size()));
    if (!perf::validate(d).empty() || d.system.levels.empty()) continue;
    network::NetworkModel net(d.system);
    d.parallel.overlap = parallel::Overlap::off;
    const double off = ev.evaluate(d).metrics.tpot_s;
    for (int tiles : {1, 2, 8, 64, 4096}) {
      d.parallel.overlap = parallel::Overlap::fixed;
      d.parallel.overlap_tiles = tiles;
      const perf::Result r = ev.evaluate(d);
      DecodeWork work;
      CommWork comm;
      const Optimistic o = optimistic(d, r.batch, &net, &work, &comm);
      Schedule sch;
      sch.sequence_parallel = d.parallel.sequence_parallel;
      sch.overlap = d.parallel.overlap;
      sch.tiles = tiles;
      const Optimistic own =
          decode_optimistic(work, decode_rates(d, work.kv_page_bytes), &comm, &sch);
      EXPECT_LE(o.tpot_s, r.metrics.tpot_s) << d.name << " tiles " << tiles;
      EXPECT_LE(own.tpot_s, r.metrics.tpot_s) << d.name << " tiles " << tiles;
      const DecodeWork hw_work = hardware_decode_work(d, r.batch);
      const Optimistic exact =
          decode_optimistic(hw_work, decode_rates(d, work.kv_page_bytes), &comm, &sch);
      EXPECT_LE(exact.tpot_s, r.metrics.tpot_s) << d.name << " tiles " << tiles;
      hidden += r.metrics.tpot_s < off * (1 - 1e-9);
      ++checked;
    }
  }
  EXPECT_GT(checked, 300);
  EXPECT_GT(hidden, checked / 4);  // not vacuous: overlap saves time on many of these points
}

}  // namespace
}  // namespace stackscope::search
