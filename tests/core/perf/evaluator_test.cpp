// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <thread>

#include "stackscope/perf/evaluator.hpp"
#include "stackscope/power_area/energy.hpp"
#include "test_designs.hpp"

namespace stackscope::perf {
namespace {

double sum(const auto& a) {
  return std::accumulate(a.begin(), a.end(), 0.0);
}

TEST(Evaluator, MetricsFollowTheirDefinitions) {
  const auto d = testing::small_dense();
  const auto r = evaluate(d);
  ASSERT_TRUE(r.feasible);
  const auto& m = r.metrics;
  EXPECT_NEAR(m.utps, 1.0 / m.tpot_s, 1e-9);
  EXPECT_NEAR(m.stps, d.workload.batch / m.tpot_s, 1e-6);
  const double total = m.ttft_s + (d.workload.output_len - 1) * m.tpot_s;
  EXPECT_NEAR(m.e2e_output_tokens_per_s, d.workload.batch * d.workload.output_len / total, 1e-6);
  EXPECT_GT(m.energy_per_token_j, 0.0);
  EXPECT_GT(m.power_w, d.hardware.energy.static_power_W);
}

TEST(Evaluator, BreakdownsAddUpToPhaseTime) {
  for (const auto& d : {testing::small_dense(), testing::moe_ep8(), testing::deepseek_v3_32()}) {
    const auto r = evaluate(d);
    for (const auto* p : {&r.prefill, &r.decode}) {
      EXPECT_NEAR(sum(p->op_s) / p->time_s, 1.0, 1e-9) << d.name;
      EXPECT_NEAR(sum(p->resource_s) / p->time_s, 1.0, 1e-9) << d.name;
    }
  }
}

TEST(Evaluator, Batch1DecodeIsMemoryBound) {
  auto d = testing::small_dense();
  d.workload.batch = 1;
  const auto r = evaluate(d);
  const auto& res = r.decode.resource_s;
  EXPECT_GT(res[static_cast<int>(Resource::dram)], res[static_cast<int>(Resource::compute)]);
  // Every weight byte is read once per step: DRAM bytes >= model bytes (bf16).
  EXPECT_GT(r.decode.dram_bytes, 6.7e9 * 2 * 0.99);
}

TEST(Evaluator, LongPromptPrefillIsComputeBound) {
  auto d = testing::small_dense();
  d.workload.input_len = 4096;
  const auto r = evaluate(d);
  const auto& res = r.prefill.resource_s;
  EXPECT_GT(res[static_cast<int>(Resource::compute)], res[static_cast<int>(Resource::dram)]);
}

TEST(Evaluator, BatchAutoIsTheLargestThatFits) {
  auto d = testing::small_dense();
  d.workload.batch_auto = true;
  const auto r = evaluate(d);
  ASSERT_GT(r.batch, 1);
  EXPECT_LE(memory_footprint(d, r.batch).total(), memory_footprint(d, r.batch).capacity);
  EXPECT_GT(memory_footprint(d, r.batch + 1).total(), memory_footprint(d, r.batch).capacity);
  EXPECT_EQ(max_batch_that_fits(d), r.batch);
}

TEST(Evaluator, OversizedBatchIsInfeasibleWithReason) {
  auto d = testing::small_dense();
  d.workload.batch = 100000;
  const auto r = evaluate(d);
  EXPECT_FALSE(r.feasible);
  EXPECT_TRUE(r.reasons & kMemoryCapacity);
}

TEST(Evaluator, PowerWallThrottlesClocks) {
  auto d = testing::small_dense();
  d.workload.batch = 64;
  const auto free = evaluate(d);
  EXPECT_EQ(free.prefill.clock_scale, 1.0);
  EXPECT_EQ(free.clock_scale, 1.0);
  // A cap between the two phases' powers: the hotter phase runs at the clock that meets it,
  // the other stays at the top clock (docs/model.md §13.2: each phase meets the cap alone).
  const auto& hot = free.prefill.power_W > free.decode.power_W ? free.prefill : free.decode;
  const auto& cool = free.prefill.power_W > free.decode.power_W ? free.decode : free.prefill;
  ASSERT_GT(hot.power_W, 1.1 * cool.power_W);
  d.hardware.energy.tdp_W = 0.5 * (hot.power_W + cool.power_W);
  const auto capped = evaluate(d);
  const bool prefill_hot = &hot == &free.prefill;
  const auto& hot_c = prefill_hot ? capped.prefill : capped.decode;
  const auto& cool_c = prefill_hot ? capped.decode : capped.prefill;
  EXPECT_LT(hot_c.clock_scale, 1.0);
  EXPECT_GT(hot_c.clock_scale, d.hardware.energy.dvfs_min_clock);
  EXPECT_NEAR(hot_c.power_W, d.hardware.energy.tdp_W, 0.005 * d.hardware.energy.tdp_W);
  EXPECT_EQ(cool_c.clock_scale, 1.0);
  EXPECT_NEAR(cool_c.time_s, cool.time_s, 1e-12 * cool.time_s);
  EXPECT_EQ(capped.clock_scale, capped.decode.clock_scale);
  EXPECT_TRUE(capped.reasons & kPowerOverTdp);
  EXPECT_GT(hot_c.time_s, hot.time_s);
  // DVFS (V ~ f on the struct's default curve): the logic die's switching energy per
  // operation falls by clock^2, so the capped phase draws less energy than at the top clock.
  EXPECT_LT(hot_c.energy_J, hot.energy_J);
  // A cap below even the lowest clock's power: the phase stays there, reported over the TDP.
  d.hardware.energy.tdp_W = 1.01 * d.hardware.energy.static_power_W;
  const auto floor = evaluate(d);
  EXPECT_NEAR(floor.prefill.clock_scale, d.hardware.energy.dvfs_min_clock, 1e-9);
  EXPECT_TRUE(floor.reasons & kPowerOverTdp);
}

TEST(Evaluator, DvfsVoltageCurveAndBusyFloor) {
  hw::Energy e;
  e.dvfs_min_clock = 0.2;
  e.dvfs_min_voltage = 0.8;
  EXPECT_DOUBLE_EQ(power_area::dvfs_voltage(e, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(power_area::dvfs_voltage(e, 0.2), 0.8);
  EXPECT_DOUBLE_EQ(power_area::dvfs_voltage(e, 0.1), 0.8);  // held below the range
  EXPECT_NEAR(power_area::dvfs_voltage(e, 0.6), 0.9, 1e-12);
  // The busy floor scales as s v^2 and the idle power not at all; the DRAM side keeps its
  // energy, the memory path follows v^2.
  hw::Hardware h;
  h.energy = e;
  h.energy.busy_power_W = 40;
  h.energy.memory_path_pJ_per_bit = 10;
  const auto top = power_area::energy_rates(h, Precision::bf16, 1.0);
  const auto low = power_area::energy_rates(h, Precision::bf16, 0.6);
  EXPECT_DOUBLE_EQ(top.static_W, h.energy.static_power_W + 40);
  EXPECT_NEAR(low.static_W, h.energy.static_power_W + 40 * 0.6 * 0.81, 1e-9);
  EXPECT_DOUBLE_EQ(low.idle_W, h.energy.static_power_W);
  EXPECT_DOUBLE_EQ(low.dram_J_per_byte, top.dram_J_per_byte);
  EXPECT_NEAR(low.path_J_per_byte, top.path_J_per_byte * 0.81, 1e-18);
  EXPECT_NEAR(top.path_J_per_byte, 10e-12 * 8, 1e-18);
  EXPECT_NEAR(low.matrix_J_per_flop, top.matrix_J_per_flop * 0.81, 1e-24);
}

TEST(Evaluator, PowerBreakdownAddsUpToTheDecodePower) {
  for (const auto& d : {testing::small_dense(), testing::stacked_design()}) {
    const auto r = evaluate(d);
    const auto& p = r.power;
    EXPECT_NEAR(p.total_W, r.decode.energy_J / r.decode.time_s, 1e-9 * p.total_W);
    const double parts = p.logic_dynamic_W + p.logic_static_W + p.noc_W + p.vertical_W +
                         p.dram_access_W + p.dram_background_W;
    EXPECT_NEAR(parts, p.total_W, 1e-9 * p.total_W);
    double layers = p.logic_die_W();
    for (int k = 1; k <= p.dram_layers; ++k) layers += p.bond_W(k) + p.dram_die_W(k);
    // HBM beside the die: its DRAM power is not in a stack layer.
    const double off_stack = p.dram_layers > 0 ? 0.0 : p.dram_access_W;
    EXPECT_NEAR(layers + off_stack, p.total_W, 1e-9 * p.total_W);
    EXPECT_GT(p.logic_dynamic_W, 0.0);
    EXPECT_GT(p.dram_access_W, 0.0);
  }
}

TEST(Evaluator, SkewedRoutingSlowsExpertParallelDecode) {
  auto d = testing::moe_ep8();
  const auto uniform = evaluate(d);
  d.workload.routing.kind = workload::RoutingKind::zipf;
  d.workload.routing.zipf_s = 1.5;
  const auto skewed = evaluate(d);
  EXPECT_GT(skewed.decode.op_s[static_cast<int>(OpClass::moe_experts)],
            uniform.decode.op_s[static_cast<int>(OpClass::moe_experts)]);
}

TEST(Evaluator, TensorParallelismCutsLatency) {
  auto d = testing::small_dense();
  d.workload.batch = 1;
  const auto one = evaluate(d);
  d.system = testing::nvswitch(4);
  d.parallel.tp = 4;
  const auto four = evaluate(d);
  EXPECT_LT(four.metrics.tpot_s, one.metrics.tpot_s);
  EXPECT_GT(four.decode.op_s[static_cast<int>(OpClass::tp_comm)], 0.0);
  EXPECT_LT(four.memory.weights, one.memory.weights / 3.5);
}

TEST(Evaluator, PipelineParallelismSplitsWeightsAndAddsHops) {
  auto d = testing::small_dense();
  d.system = testing::nvswitch(2);
  d.parallel.pp = 2;
  d.workload.batch = 8;
  const auto r = evaluate(d);
  const auto base = evaluate(testing::small_dense());
  EXPECT_GT(r.decode.op_s[static_cast<int>(OpClass::pp_comm)], 0.0);
  EXPECT_LT(r.memory.weights, base.memory.weights * 0.6);
}

TEST(Evaluator, DeepSeekV3DesignIsFeasibleAndMlaCacheIsSmall) {
  const auto d = testing::deepseek_v3_32();
  const auto r = evaluate(d);
  EXPECT_TRUE(r.feasible) << r.memory.total() / 1e9 << " GB of " << r.memory.capacity / 1e9;
  // 671B FP8 weights over 16 EP ranks x 2 TP: experts dominate, ~21-25 GB per device.
  EXPECT_GT(r.memory.weights, 15e9);
  EXPECT_LT(r.memory.weights, 30e9);
  EXPECT_GT(r.decode.op_s[static_cast<int>(OpClass::ep_comm)], 0.0);
}

TEST(Evaluator, DeterministicAndThreadSafe) {
  const auto d = testing::deepseek_v3_32();
  const auto a = evaluate(d);
  Result b, c;
  std::thread t1([&] { b = evaluate(d); });
  std::thread t2([&] { c = evaluate(d); });
  t1.join();
  t2.join();
  EXPECT_EQ(a.metrics.tpot_s, b.metrics.tpot_s);
  EXPECT_EQ(a.metrics.ttft_s, c.metrics.ttft_s);
  EXPECT_EQ(a.decode.op_s, c.decode.op_s);
}

}  // namespace
}  // namespace stackscope::perf
