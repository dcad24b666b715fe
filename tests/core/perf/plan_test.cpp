// SPDX-License-Identifier: GPL-3.0-or-later
// The parallelism space: SP, CP, per-module plans, placement, redundant experts,
// tile-level overlap and the network report.
#include <gtest/gtest.h>

#include <numeric>

#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/overlap.hpp"
#include "stackscope/thermal/compact.hpp"
#include "test_designs.hpp"

namespace stackscope::perf {
namespace {

double op(const PhaseBreakdown& p, OpClass c) {
  return p.op_s[static_cast<std::size_t>(c)];
}

Design llama70_tp8() {
  auto d = testing::small_dense();
  d.model.layers = 80;
  d.model.hidden = 8192;
  d.model.heads = 64;
  d.model.kv_heads = 8;
  d.model.ffn_dim = 28672;
  d.model.attention = workload::AttentionKind::gqa;
  d.system = testing::nvswitch(8);
  d.parallel.tp = 8;
  d.workload.batch = 64;
  d.workload.input_len = 2048;
  d.workload.numerics = {Precision::fp8, Precision::fp8, Precision::fp8};
  return d;
}

TEST(Overlap, AutoIsNeverSlowerAndFixedOneTileIsOff) {
  for (auto d : {llama70_tp8(), testing::deepseek_v3_32(), testing::moe_ep8()}) {
    for (int batch : {1, 4, 64}) {
      d.workload.batch = batch;
      d.parallel.overlap = parallel::Overlap::off;
      const auto off = evaluate(d);
      d.parallel.overlap = parallel::Overlap::auto_tiles;
      const auto aut = evaluate(d);
      EXPECT_LE(aut.metrics.ttft_s, off.metrics.ttft_s * (1 + 1e-12)) << d.name << batch;
      EXPECT_LE(aut.metrics.tpot_s, off.metrics.tpot_s * (1 + 1e-12)) << d.name << batch;
      d.parallel.overlap = parallel::Overlap::fixed;
      d.parallel.overlap_tiles = 1;
      const auto one = evaluate(d);
      if (d.model.moe.shared_experts > 0) {
        // One tile: no pipelining, but the shared experts still run beside the all-to-alls.
        EXPECT_LE(one.metrics.tpot_s, off.metrics.tpot_s * (1 + 1e-12)) << d.name << batch;
      } else {
        EXPECT_DOUBLE_EQ(one.metrics.ttft_s, off.metrics.ttft_s) << d.name << batch;
        EXPECT_DOUBLE_EQ(one.metrics.tpot_s, off.metrics.tpot_s) << d.name << batch;
      }
    }
  }
}

// One producer and one latency-bound collective (perf/overlap.hpp), in microseconds: a
// compute-bound producer of 10, a collective of lat 9 + bw 1, one call per tile at an issue
// cost of 0.02 (20 ns, deepstack-3d's op_dispatch_ns).
OverlapInputs latency_bound() {
  OverlapInputs in;
  in.producer.t_compute = 10;
  in.lat = 9;
  in.bw = 1;
  in.calls = 1;
  in.issue_s = 0.02;
  return in;
}

TEST(Overlap, LatencyIsPaidOncePerCollectiveNotPerTile) {
  const OverlapInputs in = latency_bound();
  // Off: tc + lat + bw.
  EXPECT_DOUBLE_EQ(overlap_sequential(in), 20.0);
  EXPECT_DOUBLE_EQ(overlap_tiled(in, 1), 20.0);
  // T tiles: the link carries bw plus T - 1 extra issues, m = 1 + (T - 1) 0.02; compute
  // dominates, so t = tc + m / T + lat (a per-tile latency, as before, would give
  // max(10, 1 + 9 T) + ... > 20 for every T > 1, and overlap would never pay).
  EXPECT_DOUBLE_EQ(overlap_tiled(in, 4), 10.0 + 1.06 / 4 + 9.0);
  EXPECT_DOUBLE_EQ(overlap_tiled(in, 64), 10.0 + 2.26 / 64 + 9.0);
  // The last tile's latency is on the critical path: no tile count hides any of lat.
  for (int t : {2, 8, 64, 1024}) EXPECT_GE(overlap_tiled(in, t), 10.0 + 9.0) << t;
  // Many tiles: the issue costs take over (m = 1 + 1023 x 0.02 = 21.46 > tc).
  EXPECT_DOUBLE_EQ(overlap_tiled(in, 1024), 21.46 + 10.0 / 1024 + 9.0);
}

TEST(Overlap, IndependentWorkHidesTheLatency) {
  OverlapInputs in = latency_bound();
  in.producer.t_compute = 2;
  in.independent.t_compute = 10;  // shared experts: neither feed nor need the all-to-all
  EXPECT_DOUBLE_EQ(overlap_sequential(in), 22.0);
  // One tile: chain 2 + 1 + 9 = 12 beside 2 + 10 of compute: 12.
  EXPECT_DOUBLE_EQ(overlap_tiled(in, 1), 12.0);
  // Four tiles: chain max(2, 1.06) + 1.06 / 4 + 9 = 11.265, compute 12 bounds it.
  EXPECT_DOUBLE_EQ(overlap_tiled(in, 4), 12.0);
  // A latency longer than all compute stays exposed: chain 2 + 1 + 30.
  in.lat = 30;
  EXPECT_DOUBLE_EQ(overlap_tiled(in, 1), 33.0);
}

TEST(Overlap, CollectiveDramTrafficCompetesWithAMemoryBoundProducer) {
  OverlapInputs in;
  in.producer.t_memory = 10;
  in.lat = 1;
  in.bw = 5;
  in.dram_s = 2;  // the collective's bytes read and written at the producer's DRAM rate
  EXPECT_DOUBLE_EQ(overlap_sequential(in), 16.0);
  // tc' = 10 + 2: t = 12 + 5 / 2 + 1.
  EXPECT_DOUBLE_EQ(overlap_tiled(in, 2), 15.5);
}

TEST(Overlap, SharedExpertsHideDecodeAllToAllLatency) {
  auto d = testing::deepseek_v3_32();
  d.workload.batch = 4;
  const auto off = evaluate(d);
  d.parallel.overlap = parallel::Overlap::auto_tiles;
  const auto aut = evaluate(d);
  const double saved = op(off.decode, OpClass::ep_comm) - op(aut.decode, OpClass::ep_comm);
  // At batch 4 the all-to-alls move 4 tokens x top-8 x 7168 x 2 B per device: their bandwidth
  // part is a few ns, so tiling alone hides next to nothing; what is saved is the shared
  // experts running beside the latency (most of them: the all-to-alls' latency, IB alpha 5 us
  // per step, covers most of one layer's shared expert).
  EXPECT_GT(saved, 0.5 * op(aut.decode, OpClass::shared_experts));
  // Never more than the compute that runs beside the all-to-alls.
  EXPECT_LE(saved, op(aut.decode, OpClass::shared_experts) + op(aut.decode, OpClass::moe_experts));
  EXPECT_NEAR(aut.decode.time_s,
              off.decode.time_s - saved -
                  (op(off.decode, OpClass::tp_comm) - op(aut.decode, OpClass::tp_comm)),
              1e-12);
}

TEST(Overlap, HidesCommunicationBehindCompute) {
  auto d = llama70_tp8();
  const auto off = evaluate(d);
  d.parallel.overlap = parallel::Overlap::auto_tiles;
  const auto on = evaluate(d);
  // Prefill all-reduces (2 per layer, 64 x 2048 tokens) overlap with large GEMMs.
  EXPECT_LT(op(on.prefill, OpClass::tp_comm), 0.8 * op(off.prefill, OpClass::tp_comm));
  const double sum = std::accumulate(on.prefill.op_s.begin(), on.prefill.op_s.end(), 0.0);
  EXPECT_NEAR(sum / on.prefill.time_s, 1.0, 1e-9);  // breakdown still adds up
}

TEST(Plan, SequenceParallelShardsNormsKeepsTraffic) {
  auto d = llama70_tp8();
  const auto base = evaluate(d);
  d.parallel.sequence_parallel = true;
  const auto sp = evaluate(d);
  EXPECT_LT(op(sp.prefill, OpClass::norm), op(base.prefill, OpClass::norm) / 4);
  EXPECT_NEAR(sp.prefill.comm_bytes / base.prefill.comm_bytes, 1.0, 0.05);
}

TEST(Plan, ContextParallelCutsLongPromptTtft) {
  auto d = llama70_tp8();
  d.workload.batch = 1;
  d.workload.input_len = 32768;
  d.system = testing::nvswitch(16);
  d.system.levels[0].size = 16;
  d.parallel.dp = 2;
  const auto dp2 = evaluate(d);
  d.parallel.dp = 1;
  d.parallel.cp = 2;
  const auto cp2 = evaluate(d);
  EXPECT_LT(cp2.metrics.ttft_s, 0.7 * dp2.metrics.ttft_s);
  EXPECT_LT(cp2.memory.kv_cache, dp2.memory.kv_cache * 1.01);
}

TEST(Plan, RedundantExpertsRelieveSkewedRouting) {
  auto d = testing::deepseek_v3_32();
  d.workload.routing.kind = workload::RoutingKind::zipf;
  d.workload.routing.zipf_s = 1.2;
  const auto base = evaluate(d);
  d.parallel.redundant_experts_per_rank = 2;
  const auto red = evaluate(d);
  // Prefill is compute-bound: spreading the hot experts' tokens shortens the busiest rank.
  EXPECT_LT(op(red.prefill, OpClass::moe_experts), 0.9 * op(base.prefill, OpClass::moe_experts));
  // Decode reads weights: a replica is one more expert to read, so it never helps there.
  EXPECT_GE(op(red.decode, OpClass::moe_experts), op(base.decode, OpClass::moe_experts) * 0.999);
  EXPECT_GT(red.memory.weights, base.memory.weights);
}

TEST(Plan, PerModuleMoePlanChangesExpertSharding) {
  auto d = testing::deepseek_v3_32();  // tp 2 x ep 16: 32 stage devices
  const auto base = evaluate(d);
  d.parallel.moe.tp = 1;  // experts whole, EP 32
  const auto ep32 = evaluate(d);
  EXPECT_TRUE(ep32.feasible);
  EXPECT_NE(op(ep32.decode, OpClass::ep_comm), op(base.decode, OpClass::ep_comm));
  // Same expert bytes per device: 256/16 experts split 2 ways vs 256/32 whole.
  EXPECT_NEAR(ep32.memory.weights / base.memory.weights, 1.0, 0.05);
}

// Experts split tensor-parallel over the attention TP group (SGLang's and vLLM's TP MoE): the
// tokens are on every device after the attention all-reduce, and a shard sums each token's
// experts before the one reduction, so the MoE traffic does not grow with top_k.
TEST(Plan, TensorParallelExpertsMoveEachTokenOnce) {
  auto d = testing::moe_ep8();
  d.parallel.ep = 1;
  d.parallel.tp = 8;
  d.parallel.moe.tp = 8;
  d.parallel.moe.ep = 1;
  d.model.moe.top_k = 1;
  const auto k1 = evaluate(d);
  d.model.moe.top_k = 2;
  const auto k2 = evaluate(d);
  ASSERT_TRUE(k1.feasible && k2.feasible);
  EXPECT_GT(op(k1.prefill, OpClass::ep_comm), 0.0);
  EXPECT_DOUBLE_EQ(op(k2.prefill, OpClass::ep_comm), op(k1.prefill, OpClass::ep_comm));
  EXPECT_DOUBLE_EQ(op(k2.decode, OpClass::ep_comm), op(k1.decode, OpClass::ep_comm));
}

TEST(Plan, PlacementOrderMovesTrafficAcrossLevels) {
  auto d = llama70_tp8();
  d.system = testing::deepseek_v3_32().system;  // 8 per node, IB between nodes
  d.system.devices = 16;
  d.parallel.dp = 2;
  const auto inner = evaluate(d);
  d.parallel.placement = "dp,tp,ep,cp,pp";  // TP groups now straddle nodes
  const auto outer = evaluate(d);
  // Prefill all-reduces are bandwidth-bound; half of each TP group is now across InfiniBand
  // (50 GB/s per NIC, four NICs of a node in parallel in the hierarchical all-reduce).
  EXPECT_GT(op(outer.prefill, OpClass::tp_comm), 1.5 * op(inner.prefill, OpClass::tp_comm));
  EXPECT_GT(op(outer.decode, OpClass::tp_comm), op(inner.decode, OpClass::tp_comm));
}

TEST(Evaluator, ReusableEvaluatorMatchesFreeFunction) {
  Evaluator ev;
  for (const auto& d : {llama70_tp8(), testing::deepseek_v3_32(), testing::small_dense()}) {
    const auto a = evaluate(d);
    const auto b = ev.evaluate(d);
    const auto c = ev.evaluate(d);
    EXPECT_EQ(a.metrics.tpot_s, b.metrics.tpot_s);
    EXPECT_EQ(b.metrics.ttft_s, c.metrics.ttft_s);
    EXPECT_EQ(a.decode.op_s, c.decode.op_s);
  }
}

TEST(NetworkReport, LinksCarryTheCollectivesTraffic) {
  const auto d = testing::deepseek_v3_32();
  const auto rep = network_report(d, false);
  ASSERT_FALSE(rep.links.empty());
  double total = 0;
  for (const auto& l : rep.links) {
    EXPECT_GE(l.decode_bytes, 0.0);
    EXPECT_LE(l.decode_utilisation, 1.0);
    total += l.decode_bytes;
  }
  EXPECT_GT(total, 0.0);
  EXPECT_GT(rep.decode_comm_analytic_s, 0.0);
  // Single device: no network, no links.
  EXPECT_TRUE(network_report(testing::small_dense(), false).links.empty());
}

TEST(NetworkReport, ReferenceSimulatorAgreesOnADecodeStep) {
  const auto rep = network_report(llama70_tp8(), true);
  ASSERT_GT(rep.decode_comm_reference_s, 0.0);
  EXPECT_NEAR(rep.decode_comm_reference_s / rep.decode_comm_analytic_s, 1.0, 0.15);
  EXPECT_GT(rep.tpot_reference_s, 0.0);
}

}  // namespace
}  // namespace stackscope::perf

namespace stackscope::perf {
namespace {

TEST(ThermalCoupling, HotDramRefreshesMoreAndTooHotIsInfeasible) {
  auto d = testing::stacked_design();
  const auto cool = evaluate(d);
  ASSERT_TRUE(cool.thermal.modelled);
  EXPECT_LT(cool.thermal.dram_peak_C, 85.0);
  EXPECT_FALSE(cool.thermal.refresh_doubled);
  // A worse heat sink: DRAM between 85 and 95 C -> doubled refresh, slower decode, feasible.
  const double p = cool.metrics.power_w;
  d.hardware.thermal.r_base_K_per_W = (90.0 - 45.0) / p - 8 * 0.004;
  const auto warm = evaluate(d);
  EXPECT_TRUE(warm.thermal.refresh_doubled);
  EXPECT_GT(warm.metrics.tpot_s, cool.metrics.tpot_s);
  EXPECT_TRUE(warm.feasible);
  d.hardware.thermal.r_base_K_per_W = (120.0 - 45.0) / p;
  d.hardware.thermal.throttle = false;
  const auto hot = evaluate(d);
  EXPECT_FALSE(hot.feasible);
  EXPECT_TRUE(hot.reasons & kDramTooHot);
  EXPECT_GT(hot.thermal.dram_peak_C, 95.0);
  // With the thermal throttle (the default) the same design runs slower but holds DRAM in
  // [94.5, 95] C.
  d.hardware.thermal.throttle = true;
  const auto held = evaluate(d);
  EXPECT_TRUE(held.feasible);
  EXPECT_TRUE(held.reasons & kThermalThrottled);
  EXPECT_FALSE(held.reasons & kDramTooHot);
  EXPECT_LE(held.thermal.dram_peak_C, 95.0);
  EXPECT_GE(held.thermal.dram_peak_C, 94.5);
  EXPECT_LT(held.thermal.throttle, 1.0);
  EXPECT_TRUE(held.thermal.refresh_doubled);
  EXPECT_GT(held.metrics.tpot_s, hot.metrics.tpot_s);
  EXPECT_LT(held.metrics.power_w, hot.metrics.power_w);
  // A package so poor that static power alone passes 95 C cannot be throttled into the limit.
  d.hardware.thermal.r_base_K_per_W = 100.0;
  const auto cooked = evaluate(d);
  EXPECT_FALSE(cooked.feasible);
  EXPECT_TRUE(cooked.reasons & kDramTooHot);
  EXPECT_FALSE(cooked.reasons & kThermalThrottled);
}

TEST(ThermalCoupling, GeometryCompactModelFollowsTheDieArea) {
  auto d = testing::stacked_design();
  d.hardware.thermal.compact = hw::CompactSource::geometry;
  const auto r = evaluate(d);
  const auto g = thermal::geometry_compact_model(r.area.die);
  EXPECT_DOUBLE_EQ(r.thermal.r_base_K_per_W, g.r_base_K_per_W);
  EXPECT_DOUBLE_EQ(r.thermal.r_layer_K_per_W, g.r_layer_K_per_W);
  // A bigger die spreads the same power over more area: cooler.
  d.hardware.compute.die_area_mm2 *= 1.2;
  const auto big = evaluate(d);
  EXPECT_LT(big.thermal.r_base_K_per_W, r.thermal.r_base_K_per_W);
  EXPECT_LT(big.thermal.r_layer_K_per_W, r.thermal.r_layer_K_per_W);
}

TEST(ThermalCoupling, HbmDesignsAreNotCoupled) {
  const auto r = evaluate(testing::small_dense());
  EXPECT_FALSE(r.thermal.modelled);
  EXPECT_FALSE(r.reasons & kDramTooHot);
}

TEST(AreaCheck, OversizedDieIsInfeasible) {
  auto d = testing::stacked_design();
  d.hardware.compute.die_area_mm2 = 1000;
  d.hardware.compute.cores = 300;
  const auto r = evaluate(d);
  EXPECT_FALSE(r.feasible);
  EXPECT_TRUE(r.reasons & kDieOverReticle);
  EXPECT_GT(r.area.used, 0.0);
}

}  // namespace
}  // namespace stackscope::perf
