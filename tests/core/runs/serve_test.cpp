// SPDX-License-Identifier: GPL-3.0-or-later
// The serve operation (runs/serve.hpp) against the steps it owns, each taken by hand: the
// shipped serving projects deployed and replayed, the trtllm-bench sizing under explicit
// overrides, the central scheduler's split on a wafer and on a GPU system, exact SLOs, a stop,
// and the refusals.
#include "stackscope/runs/serve.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/serving/trtllm_bench.hpp"

namespace stackscope {
namespace {

perf::Design project(const char* id) {
  perf::Design d = io::builtin_presets().project(id);
  d.workload.batch_auto = false;
  d.workload.batch = 1;
  return d;
}
serving::ServingSpec spec_of(const char* id, std::size_t requests) {
  auto s =
      *io::parse_serving_section(io::builtin_presets().json_text(io::PresetKind::project, id));
  s.requests = requests;
  return s;
}

// A GPU project's run is serving::deploy then serving::simulate on the spec's requests.
TEST(RunsServe, GpuProjectIsItsDeploymentReplayed) {
  const perf::Design d = project("llama-3-70b-h100-serving");
  const serving::ServingSpec s = spec_of("llama-3-70b-h100-serving", 300);
  const auto reqs = io::serving_requests(s);
  const runs::ServeRun run = runs::serve(d, s, reqs);
  ASSERT_FALSE(run.stopped);
  EXPECT_FALSE(run.wafer.has_value());
  EXPECT_FALSE(run.partition_chosen);
  EXPECT_EQ(run.partition_note, "given");
  EXPECT_EQ(run.partition_text, "");

  serving::Deployment dep = serving::deploy(d, s);
  const serving::SimResult want = serving::simulate(reqs, dep.instances, dep.options);
  EXPECT_EQ(run.requests, reqs.size());
  EXPECT_EQ(run.result.completed, want.completed);
  EXPECT_DOUBLE_EQ(run.result.makespan_s, want.makespan_s);
  EXPECT_DOUBLE_EQ(run.result.ttft.mean, want.ttft.mean);
  EXPECT_DOUBLE_EQ(run.result.tpot.p90, want.tpot.p90);
  EXPECT_EQ(run.layout, dep.layout);
  ASSERT_EQ(run.pools.size(), dep.pools.size());
  int instances = 0;
  for (std::size_t i = 0; i < run.pools.size(); ++i) {
    EXPECT_EQ(run.pools[i].count, dep.pools[i].count);
    EXPECT_EQ(run.pools[i].plan, dep.pools[i].plan);
    EXPECT_EQ(run.pools[i].kv_blocks, dep.instances[dep.pools[i].first].kv_blocks);
    instances += run.pools[i].count;
  }
  EXPECT_EQ(static_cast<std::size_t>(instances), dep.instances.size());
  EXPECT_EQ(run.slo_ttft_s, dep.options.slo_ttft_s);
  EXPECT_EQ(run.scheduler, s.scheduler);
}

// trtllm-bench sizes the limits from the requests' mean lengths for one replica; an explicit
// setting wins over the rule.
TEST(RunsServe, TrtllmBenchSizingThenOverrides) {
  const perf::Design d = project("llama-3-70b-h100-serving");
  serving::ServingSpec s = spec_of("llama-3-70b-h100-serving", 200);
  s.source = serving::SourceKind::benchmark;
  s.input = serving::ServingSpec::fixed_length(1000);
  s.output = serving::ServingSpec::fixed_length(300);
  s.concurrency = 16;
  s.sizing = serving::SchedulerSizing::trtllm_bench;
  runs::ServeOptions o;
  o.overrides.max_num_seqs = 24;
  const runs::ServeRun run = runs::serve(d, s, io::serving_requests(s), o);
  serving::SchedulerConfig want = serving::trtllm_bench_scheduler(serving::pool_design(d, {}),
                                                                  1000, 300);
  ASSERT_NE(want.max_num_seqs, 24);  // the override is what changed it
  want.max_num_seqs = 24;
  EXPECT_EQ(run.scheduler, want);
  for (const auto& p : run.pools) EXPECT_EQ(p.scheduler.max_num_seqs, 24);
  EXPECT_EQ(run.result.completed, 200u);
}

// A wafer without a split: the central scheduler chooses one, and the run is run_on_wafer of
// that choice.
TEST(RunsServe, WaferRunsTheCentralSchedulersChoice) {
  const perf::Design d = project("llama-3-70b-wafer-serving");
  serving::ServingSpec s = spec_of("llama-3-70b-wafer-serving", 400);
  runs::ServeOptions o;
  o.central.threads = 1;
  auto reqs = io::serving_requests(s);
  reqs.resize(250);
  const runs::ServeRun run = runs::serve(d, s, reqs, o);
  ASSERT_TRUE(run.wafer.has_value());
  EXPECT_TRUE(run.partition_chosen);
  EXPECT_EQ(run.requests, 250u);

  wafer::SchedulerOptions so;
  so.threads = 1;
  const auto choice = wafer::choose_partition(d, s, reqs, so);
  ASSERT_TRUE(choice.best.feasible);
  EXPECT_EQ(run.partition, choice.best.partition);
  EXPECT_EQ(run.partition_text, wafer::partition_text(choice.best.partition, d));
  EXPECT_NE(run.partition_note.find("central scheduler"), std::string::npos);
  const auto want = wafer::run_on_wafer(d, s, choice.best.partition, reqs);
  EXPECT_DOUBLE_EQ(run.result.goodput_rps, want.result.goodput_rps);
  EXPECT_DOUBLE_EQ(run.wafer->power_W, want.power_W);
  EXPECT_EQ(run.wafer->used_dies, want.used_dies);
  // The given split, clustered: as asked.
  s.partitioning = serving::Partitioning::given;
  o.wafer_order = wafer::PlacementOrder::clustered;
  s.disaggregate.prefill = choice.best.partition.prefill;
  s.disaggregate.decode = choice.best.partition.decode;
  s.disaggregate.prefill_pool = choice.best.partition.prefill_pool;
  s.disaggregate.decode_pool = choice.best.partition.decode_pool;
  const runs::ServeRun given = runs::serve(d, s, reqs, o);
  EXPECT_FALSE(given.partition_chosen);
  EXPECT_EQ(given.partition.order, wafer::PlacementOrder::clustered);
  EXPECT_EQ(given.partition.prefill, choice.best.partition.prefill);
}

// An exact SLO of 0 s is one nothing meets (in the settings 0 means none).
TEST(RunsServe, ExactSlosJudgeGoodput) {
  const perf::Design d = project("llama-3-70b-h100-serving");
  const serving::ServingSpec s = spec_of("llama-3-70b-h100-serving", 100);
  runs::ServeOptions o;
  o.slo_ttft_s = 0.0;
  const runs::ServeRun run = runs::serve(d, s, io::serving_requests(s), o);
  EXPECT_EQ(run.slo_ttft_s, 0.0);
  EXPECT_GT(run.result.completed, 0u);
  EXPECT_EQ(run.result.goodput_rps, 0.0);
  EXPECT_EQ(run.result.slo_attainment, 0.0);
}

TEST(RunsServe, StopsAndRefusals) {
  const perf::Design d = project("llama-3-70b-h100-serving");
  serving::ServingSpec s = spec_of("llama-3-70b-h100-serving", 100);
  std::stop_source stop;
  stop.request_stop();
  const auto reqs = io::serving_requests(s);
  EXPECT_TRUE(runs::serve(d, s, reqs, {}, {}, stop.get_token()).stopped);
  // Settings out of range: the issue at its path.
  serving::ServingSpec bad = s;
  bad.requests = 0;
  try {
    (void)runs::serve(d, bad, reqs);
    ADD_FAILURE() << "no ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_FALSE(e.issues().empty());
    EXPECT_EQ(e.issues().front().path, "/serving/requests");
  }
  // A wafer told to keep a split it was not given.
  const perf::Design w = project("llama-3-70b-wafer-serving");
  serving::ServingSpec ws = spec_of("llama-3-70b-wafer-serving", 50);
  ws.disaggregate = {};
  ws.partitioning = serving::Partitioning::given;
  try {
    runs::check(w, ws);
    ADD_FAILURE() << "no ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_FALSE(e.issues().empty());
    EXPECT_EQ(e.issues().front().path, "/serving/partition");
  }
  // The central scheduler on a GPU system: a split of the system's devices, chosen.
  serving::ServingSpec gs = spec_of("llama-3-70b-h100-serving", 150);
  gs.partitioning = serving::Partitioning::automatic;
  runs::ServeOptions o;
  o.central.threads = 1;
  const runs::ServeRun chosen = runs::serve(d, gs, io::serving_requests(gs), o);
  EXPECT_TRUE(chosen.partition_chosen);
  EXPECT_FALSE(chosen.wafer.has_value());
  EXPECT_GT(chosen.partitions_screened, 1);
  EXPECT_EQ(chosen.pools.size(), 2u);  // a prefill pool and a decode pool
}

}  // namespace
}  // namespace stackscope
