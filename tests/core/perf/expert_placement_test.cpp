// SPDX-License-Identifier: GPL-3.0-or-later
// The evaluator costs MoE layers by the design's expert placement (perf/expert_placement.hpp):
// on a mesh system through the one mesh simulator, on GPU systems
// through EPLB-style ranks; the default `plan` placement is what the evaluator always did.
#include "stackscope/perf/expert_placement.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "stackscope/experts/mesh_sim.hpp"
#include "stackscope/experts/strategies.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/moe/trace.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"

namespace stackscope::perf {
namespace {

using parallel::ExpertStrategy;

Design mixtral_mesh() {
  return io::builtin_presets().project("mixtral-hdmoe");
}

double op(const Result& r, OpClass c) {
  return r.decode.op_s[static_cast<std::size_t>(c)];
}

// The mesh path is the simulator: mesh_moe_layer's TP time is simulate_layer's on the same
// draws (moe::synthetic_trace, seed + 1, token t's home t mod N), by construction of neither.
TEST(ExpertPlacement, MeshLayerIsTheSimulator) {
  Design d = mixtral_mesh();
  d.parallel.experts.strategy = ExpertStrategy::tp;
  ASSERT_TRUE(simulated_on_mesh(d));
  const auto mesh = expert_mesh(d.system, 7e12, 500e9, 2);
  EXPECT_EQ(mesh.x * mesh.y, 32);
  EXPECT_EQ(mesh.x, 8);                   // the preset's dims_x
  EXPECT_DOUBLE_EQ(mesh.link_Bps, 25e9);  // 25 GB/s x efficiency 1.0
  EXPECT_DOUBLE_EQ(mesh.alpha_s, 1e-7);
  const int T = 1024;  // 4096 / 1024 = 4 draws
  const auto got = mesh_moe_layer(d, mesh, 0, T, 2);
  const auto& m = d.model;
  const auto trace = moe::synthetic_trace(d.workload.routing, m.moe.experts, m.moe.top_k, 1, 4 * T,
                                          d.parallel.experts.seed + 1);
  const auto tp = experts::tp_placement(m.moe.experts, 32);
  double sum = 0;
  for (int b = 0; b < 4; ++b) {
    experts::LayerBatch batch;
    batch.top_k = m.moe.top_k;
    batch.hidden = m.hidden;
    batch.intermediate = m.moe.expert_ffn_dim;
    batch.weight_bytes = 2;
    const auto k = static_cast<std::size_t>(m.moe.top_k);
    batch.expert_ids.assign(trace.layers[0].begin() + b * T * static_cast<long>(k),
                            trace.layers[0].begin() + (b + 1) * T * static_cast<long>(k));
    for (int t = 0; t < T; ++t) batch.home.push_back(t % 32);
    sum += experts::simulate_layer(mesh, tp, batch).time_s;
  }
  EXPECT_NEAR(got.time_s, sum / 4, 1e-12 * sum);
  // TP: every node computes 1/32 of every token's experts.
  EXPECT_NEAR(got.flops, 4.0 * T * 2 * 2 * 3 * m.hidden * m.moe.expert_ffn_dim / 32 / 4, 1e3);
  EXPECT_GT(got.time_s, got.compute_s);  // dispatch and combine cross the mesh
}

// Every strategy is scored; `plan` keeps the evaluator's own layout; the mesh-only strategies
// need the mesh; memory is checked per strategy (whole Mixtral experts do not fit 32 8-GiB
// nodes: 32 layers x 352 MB = 11.3 GB).
TEST(ExpertPlacement, StrategiesOnTheMixtralMesh) {
  const Design base = mixtral_mesh();
  const Result plan = evaluate(base);
  ASSERT_TRUE(plan.feasible);
  double tpot[8] = {};
  for (const auto s :
       {ExpertStrategy::tp, ExpertStrategy::balanced, ExpertStrategy::hd, ExpertStrategy::shadow}) {
    Design d = base;
    d.parallel.experts.strategy = s;
    d.parallel.experts.hd_time_limit_s = 0.2;
    d.parallel.experts.link_iterations = 20;
    ASSERT_TRUE(validate(d).empty()) << to_string(s);
    const Result r = evaluate(d);
    ASSERT_TRUE(r.feasible) << to_string(s);
    tpot[static_cast<int>(s)] = r.metrics.tpot_s;
    EXPECT_NE(r.metrics.tpot_s, plan.metrics.tpot_s) << to_string(s);
    EXPECT_GT(op(r, OpClass::ep_comm), 0) << to_string(s);
    EXPECT_GT(op(r, OpClass::moe_experts), 0) << to_string(s);
  }
  // HD-MoE's placement is polished against TP and the balanced hybrid on its fit batches:
  // at the fit batch (the decode batch) it is never slower than either by more than the
  // draws' noise.
  const double hd = tpot[static_cast<int>(ExpertStrategy::hd)];
  EXPECT_LE(hd, tpot[static_cast<int>(ExpertStrategy::tp)] * 1.02);
  EXPECT_LE(hd, tpot[static_cast<int>(ExpertStrategy::balanced)] * 1.02);
  for (const auto s : {ExpertStrategy::ep, ExpertStrategy::eplb}) {
    Design d = base;
    d.parallel.experts.strategy = s;
    const auto issues = validate(d);
    ASSERT_FALSE(issues.empty()) << to_string(s);
    EXPECT_EQ(issues.front().path, "/workload/batch") << issues.front().message;
  }
  EXPECT_DOUBLE_EQ(experts_per_device(base), 8.0 / 8 / 4);
  Design ep = base;
  ep.parallel.experts.strategy = ExpertStrategy::ep;
  EXPECT_DOUBLE_EQ(experts_per_device(ep), 1.0);
}

// Serving iterations cost the placement at their own token count (iteration.hpp goes through
// the same MoE block): a 512-token iteration differs from the plan's and from a 64-token one.
TEST(ExpertPlacement, ServingIterationsUseThePlacement) {
  Design d = mixtral_mesh();
  d.parallel.experts.strategy = ExpertStrategy::balanced;
  const auto mesh = expert_mesh(d.system, 7e12, 500e9, 2);
  const auto a = mesh_moe_layer(d, mesh, 0, 64, 2), b = mesh_moe_layer(d, mesh, 0, 512, 2);
  EXPECT_GT(b.time_s, a.time_s);
  EXPECT_GT(b.flops, 4 * a.flops);
  // Above 4096 tokens one slice is simulated and scaled: 8192 tokens are two 4096-token slices
  // (the same draw as a 4096-token pass), 6000 are two of 3000.
  const auto c4 = mesh_moe_layer(d, mesh, 0, 4096, 2), c8 = mesh_moe_layer(d, mesh, 0, 8192, 2);
  EXPECT_DOUBLE_EQ(c8.time_s, 2 * c4.time_s);
  EXPECT_DOUBLE_EQ(c8.flops, 2 * c4.flops);
  const auto c6 = mesh_moe_layer(d, mesh, 0, 6000, 2);
  EXPECT_GT(c6.time_s, c4.time_s);
  EXPECT_LT(c6.time_s, c8.time_s);
}

// GPU systems: EPLB's balanced packing with redundant slots evens the ranks' loads of a
// skewed routing below the plan's contiguous layout (the hottest rank carries fewer tokens),
// and the busiest rank never carries less than the mean.
TEST(ExpertPlacement, EplbOnGpuRanks) {
  Design d;
  d.model.layers = 4;
  d.model.hidden = 1024;
  d.model.moe.experts = 64;
  d.model.moe.top_k = 4;
  d.model.moe.expert_ffn_dim = 512;
  d.workload.routing.kind = workload::RoutingKind::zipf;
  d.workload.routing.zipf_s = 1.0;
  double freq[moe::kMaxExperts];
  moe::expert_frequency(d.workload.routing, 64, 4, 0, freq);
  const double T = 256;
  const auto contiguous = moe::ep_load(freq, 64, 8, T, 0);
  d.parallel.experts.strategy = ExpertStrategy::eplb;
  d.parallel.redundant_experts_per_rank = 1;
  const auto eplb = placed_ep_load(d, freq, 8, T);
  const double mean = T * 4 / 8;
  EXPECT_GE(eplb.most_tokens.tokens, mean * (1 - 1e-9));
  EXPECT_LT(eplb.most_tokens.tokens, contiguous.most_tokens.tokens * 0.8);
  EXPECT_LT(eplb.most_tokens.tokens, mean * 1.15);
  d.parallel.experts.strategy = ExpertStrategy::balanced;
  const auto bal = placed_ep_load(d, freq, 8, T);
  EXPECT_GE(bal.most_tokens.tokens, mean * (1 - 1e-9));
  EXPECT_LE(bal.most_tokens.tokens, contiguous.most_tokens.tokens);
  // Slots: 64 + 8 = 72 on 8 ranks; rounded up to fill every rank equally.
  EXPECT_EQ(eplb_redundant_slots(64, 8, 1), 8);
  EXPECT_EQ(eplb_redundant_slots(8, 32, 0), 24);
  EXPECT_EQ(eplb_redundant_slots(8, 32, 1), 56);
}

// DeepSeek-V3 on 8 H100s (the project preset's model on a GPU system): eplb with redundant
// experts is evaluated through the ranks (no mesh), and the mesh strategies are refused with
// the reason.
TEST(ExpertPlacement, MeshStrategiesNeedAMesh) {
  Design d = io::builtin_presets().project("llama-2-70b-h100-tp4");
  d.model = io::builtin_presets().model("mixtral-8x7b");
  d.parallel.tp = 1;
  d.parallel.ep = 4;
  d.parallel.experts.strategy = ExpertStrategy::hd;
  const auto issues = validate(d);
  bool found = false;
  for (const auto& i : issues)
    if (i.path == "/parallel/experts/strategy") {
      found = true;
      EXPECT_NE(i.message.find("mesh"), std::string::npos) << i.message;
    }
  EXPECT_TRUE(found);
  d.parallel.experts.strategy = ExpertStrategy::eplb;
  d.parallel.experts.eplb_groups = 3;
  bool groups = false;
  for (const auto& i : validate(d)) groups |= i.path == "/parallel/experts/eplb_groups";
  EXPECT_TRUE(groups);
  d.parallel.experts.eplb_groups = 1;
  d.parallel.redundant_experts_per_rank = 1;
  EXPECT_FALSE(simulated_on_mesh(d));
  // The solver limits are checked at their paths with their ranges.
  Design limits = d;
  limits.parallel.experts.hd_time_limit_s = 0;
  limits.parallel.experts.link_iterations = -1;
  limits.parallel.experts.fit_tokens = 70000;
  limits.parallel.experts.hd_max_sets = 0;
  int bad_limits = 0;
  for (const auto& i : validate(limits))
    bad_limits += i.path == "/parallel/experts/hd_time_limit_s" ||
                  i.path == "/parallel/experts/link_iterations" ||
                  i.path == "/parallel/experts/fit_tokens" ||
                  i.path == "/parallel/experts/hd_max_sets";
  EXPECT_EQ(bad_limits, 4);
  // A strategy name the file format does not know is a parse error at its path.
  try {
    (void)io::parse_project(R"({"schema_version": 1, "hardware": "h100-sxm",
      "system": "h100-sxm-x8", "model": "mixtral-8x7b",
      "parallel": {"tp": 1, "ep": 8, "experts": {"strategy": "hdmoe"}}})",
                            io::builtin_presets());
    ADD_FAILURE() << "an unknown strategy was accepted";
  } catch (const ConfigError& e) {
    bool at_strategy = false;
    for (const auto& i : e.issues()) at_strategy |= i.path == "/parallel/experts/strategy";
    EXPECT_TRUE(at_strategy) << e.what();
  }
  Design dense = io::builtin_presets().project("llama-2-70b-h100-tp4");
  dense.parallel.experts.strategy = ExpertStrategy::eplb;
  bool dense_issue = false;
  for (const auto& i : validate(dense)) dense_issue |= i.path == "/parallel/experts/strategy";
  EXPECT_TRUE(dense_issue);
}

}  // namespace
}  // namespace stackscope::perf
