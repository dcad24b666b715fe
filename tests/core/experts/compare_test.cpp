// SPDX-License-Identifier: GPL-3.0-or-later
// The placement comparison (core/experts/compare.hpp): every strategy is scored by
// simulate_layer() and nothing else, the ordering properties expected of the strategies on skewed
// traces, the attention time by hand, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "stackscope/experts/compare.hpp"
#include "stackscope/experts/dynamic.hpp"
#include "stackscope/moe/predictor.hpp"
#include "stackscope/moe/trace.hpp"

namespace stackscope::experts {
namespace {

workload::Model small_moe(int experts, int top_k) {
  workload::Model m;
  m.id = "test-moe";
  m.layers = 4;
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 2;
  m.head_dim = 128;
  m.moe.experts = experts;
  m.moe.top_k = top_k;
  m.moe.expert_ffn_dim = 2048;
  return m;
}

moe::RoutingTrace skewed(int experts, int top_k, std::uint64_t seed, double s = 1.2) {
  workload::Routing r;
  r.kind = workload::RoutingKind::zipf;
  r.zipf_s = s;
  return moe::synthetic_trace(r, experts, top_k, 2, 2048, seed);
}

CompareConfig four_by_four() {
  CompareConfig c;
  c.mesh.x = 4;
  c.mesh.y = 4;
  c.mesh.node_flops = 10e12;  // HD-MoE's third point: communication matters
  c.mesh.link_Bps = 25e9;
  c.batch = 128;
  c.batches = 2;
  c.hd_time_limit_s = 0.5;
  c.link_iterations = 30;
  return c;
}

// The one-estimator rule: every strategy's layer time is what simulate_layer() gives for its
// placement on the eval batches, recomputed here independently.
TEST(Compare, EveryStrategyIsScoredBySimulateLayer) {
  const auto model = small_moe(16, 2);
  auto cfg = four_by_four();
  cfg.non_moe_s = 50e-6;  // room for a pre-broadcast chunk
  const std::vector<moe::RoutingTrace> fit = {skewed(16, 2, 1)}, eval = {skewed(16, 2, 2)};
  const auto r = compare(model, cfg, fit, eval);
  ASSERT_EQ(r.strategies.size(), all_strategies().size());
  EXPECT_EQ(r.eplb_redundant, 16);  // 16 + 16 is the first multiple of 16 above 16
  for (const auto& o : r.strategies) {
    ASSERT_EQ(o.layers.size(), 2u) << to_string(o.strategy);
    for (std::size_t l = 0; l < o.layers.size(); ++l) {
      double t = 0;
      for (int b = 0; b < cfg.batches; ++b) {
        LayerBatch batch;
        batch.top_k = 2;
        batch.hidden = model.hidden;
        batch.intermediate = model.moe.expert_ffn_dim;
        const auto& ids = eval[0].layers[l];
        batch.expert_ids.assign(ids.begin() + b * cfg.batch * 2, ids.begin() + (b + 1) * cfg.batch * 2);
        for (int tok = 0; tok < cfg.batch; ++tok) batch.home.push_back(tok % 16);
        if (o.strategy == Strategy::shadow) {
          ShadowInput in;
          in.mesh = cfg.mesh;
          in.placement = o.placements[l];
          in.batch = batch;
          t += shadow(in).total_s;  // simulate_layer of the shadowed layer + exposed broadcast
        } else if (o.strategy == Strategy::hd_dynamic && l == 1) {
          // The predictor fitted on the fit trace, the batch's layer-0 routing summed.
          const moe::NextLayerPredictor predictor(fit);
          std::vector<double> load(16, 0.0), sc(16);
          for (int tok = 0; tok < cfg.batch; ++tok) {
            predictor.scores(0, eval[0].token(0, static_cast<std::size_t>(b * cfg.batch + tok)),
                             sc.data());
            for (int e = 0; e < 16; ++e) load[e] += sc[e];
          }
          PreBroadcastInput in;
          in.mesh = cfg.mesh;
          in.placement = o.placements[l];
          in.batch = batch;
          in.predicted = {static_cast<int>(std::max_element(load.begin(), load.end()) - load.begin())};
          in.overlap_s = r.non_moe_s;
          t += pre_broadcast(in).total_s;
        } else {
          t += simulate_layer(cfg.mesh, o.placements[l], batch,
                              o.strategy == Strategy::eplb ? cfg.eplb_choice : CopyChoice::round_robin)
                   .time_s;
        }
      }
      EXPECT_NEAR(o.layers[l].time_s, t / cfg.batches, 1e-15) << to_string(o.strategy);
    }
    EXPECT_NEAR(o.moe_s, (o.layers[0].time_s + o.layers[1].time_s) / 2 * 4, 1e-15);
    EXPECT_NEAR(o.end_to_end_s, o.moe_s + 4 * r.non_moe_s, 1e-15);
    EXPECT_GT(o.first.time_s, 0);
  }
  // Pre-broadcast happens at layer 1 (layer 0 has no predecessor) and never slows a layer.
  const auto* dyn = r.find(Strategy::hd_dynamic);
  const auto* hd = r.find(Strategy::hd);
  EXPECT_EQ(dyn->layers[0].broadcast_bytes, 0);
  EXPECT_GT(dyn->layers[1].broadcast_bytes, 0);
  EXPECT_LE(dyn->layers[1].time_s, hd->layers[1].time_s * (1 + 1e-12));
  EXPECT_NEAR(dyn->layers[0].time_s, hd->layers[0].time_s, 1e-15);
  ASSERT_EQ(r.hd.size(), 2u);  // one node balance per layer, shared by hd, hd-dynamic, shadow
  for (const auto& s : r.hd) {
    EXPECT_FALSE(s.chosen.empty());
    EXPECT_LE(s.chosen_fit_s, s.milp_fit_s);
    EXPECT_LE(s.linked_fit_s, s.chosen_fit_s);  // annealing keeps the best, the identity first
    EXPECT_GT(s.set_coverage, 0.99);  // 16 choose 2 = 120 sets, all in the MILP
  }
}

// The strategies' ordering properties on skewed (Zipf 1.2) traces, fitted on one seed and scored
// on another: HD-MoE at least as fast as EP and the balanced hybrid, EPLB at least as fast as
// EP, within 3 % (the eval batches are not the fit batches).
TEST(Compare, OrderingOnSkewedTraces) {
  const auto model = small_moe(16, 2);
  const auto r = compare(model, four_by_four(), {skewed(16, 2, 3)}, {skewed(16, 2, 4)});
  for (const auto& s : r.hd)
    std::printf("layer %d: GLPK %s gap %.3g in %.2f s from %s (%.3g s), chosen %s\n", s.layer,
                std::string(lp::to_string(s.status)).c_str(), s.gap, s.seconds,
                s.warm_start.c_str(), s.warm_start_objective_s, s.chosen.c_str());
  for (const auto& o : r.strategies)
    std::printf("%-8s %.4g s  imbalance %.3g\n", std::string(to_string(o.strategy)).c_str(), o.moe_s,
                o.imbalance);
  const auto hd_ep = r.speedup(Strategy::hd, Strategy::ep).value();
  const auto hd_bal = r.speedup(Strategy::hd, Strategy::balanced).value();
  const auto eplb_ep = r.speedup(Strategy::eplb, Strategy::ep).value();
  EXPECT_GE(hd_ep, 0.97);
  EXPECT_GE(hd_bal, 0.97);
  EXPECT_GE(eplb_ep, 0.97);
  // EP on a skewed trace is imbalanced; EPLB's copies even it out.
  EXPECT_GT(r.find(Strategy::ep)->imbalance, 1.5);
  EXPECT_LT(r.find(Strategy::eplb)->imbalance, r.find(Strategy::ep)->imbalance);
  EXPECT_NEAR(r.speedup(Strategy::tp, Strategy::tp).value(), 1.0, 1e-15);
}

// A long fit shows what it is doing: `activity` names the layer and strategy being fitted and,
// during the link balance, the moves made so far, every 1024 of them; `progress` counts the
// layer x strategy steps.
TEST(Compare, ActivityNamesTheLayerStrategyAndLinkBalanceMoves) {
  const auto model = small_moe(16, 2);
  auto cfg = four_by_four();
  cfg.strategies = {Strategy::hd};  // HD-MoE's fit ends in the link balance
  cfg.link_iterations = 2500;
  const std::vector<moe::RoutingTrace> fit = {skewed(16, 2, 5)}, eval = {skewed(16, 2, 6)};
  std::vector<std::string> said;
  std::vector<std::size_t> steps;
  cfg.activity = [&](std::string_view what) { said.emplace_back(what); };
  cfg.progress = [&](std::size_t done, std::size_t total) {
    EXPECT_EQ(total, 2u);
    steps.push_back(done);
  };
  const auto r = compare(model, cfg, fit, eval);
  const std::vector<std::string> want = {
      "layer 0, hd: fitting",
      "layer 0, hd: link balance, 0 of 2500 moves",
      "layer 0, hd: link balance, 1024 of 2500 moves",
      "layer 0, hd: link balance, 2048 of 2500 moves",
      "layer 1, hd: fitting",
      "layer 1, hd: link balance, 0 of 2500 moves",
      "layer 1, hd: link balance, 1024 of 2500 moves",
      "layer 1, hd: link balance, 2048 of 2500 moves"};
  EXPECT_EQ(said, want);
  EXPECT_EQ(steps, (std::vector<std::size_t>{1, 2}));
  ASSERT_EQ(r.strategies.size(), 1u);
  EXPECT_EQ(r.strategies[0].layers.size(), 2u);
}

// Attention by hand for the test model (h 1024, 8 heads x 128, 2 KV heads x 128): weights
// 1024 x 1024 x 2 + 2 x 1024 x 256 = 2,621,440; B = 64, context 1024: FLOPs = 2 x 2,621,440 x 64
// + 4 x 64 x 1024 x 1024 = 603,979,776; bytes = (2,621,440 + 64 x 2 x 256 x 1024) x 2 =
// 72,351,744. On 16 nodes of 10 TFLOPS and 625 GB/s: max(3.775e-6, 7.235e-6) s, memory-bound.
// A shared expert adds 3 x 1024 x 2048 = 6,291,456 weights: FLOPs 1,409,286,144 (8.808e-6 s)
// against bytes 84,934,656 (8.493e-6 s): compute-bound.
TEST(Compare, NonMoeTimeByHand) {
  const auto model = small_moe(16, 2);
  auto cfg = four_by_four();
  EXPECT_NEAR(non_moe_time(model, cfg.mesh, 64, 1024), 72'351'744.0 / (16 * 625e9), 1e-15);
  auto shared = model;
  shared.moe.shared_experts = 1;
  EXPECT_NEAR(non_moe_time(shared, cfg.mesh, 64, 1024), 1'409'286'144.0 / (16 * 10e12), 1e-15);
  EXPECT_THROW((void)non_moe_time(model, cfg.mesh, 0, 1024), std::invalid_argument);
}

TEST(Compare, StrategyNamesRoundTrip) {
  for (const auto s : all_strategies()) EXPECT_EQ(parse_strategy(to_string(s)), s);
  EXPECT_FALSE(parse_strategy("hd-moe").has_value());
  EXPECT_EQ(parse_strategy("hd-dynamic"), Strategy::hd_dynamic);
  EXPECT_EQ(all_strategies().size(), 7u);
}

TEST(Compare, TokenRangeAndBadInput) {
  const auto t = skewed(16, 2, 5);
  const auto half = token_range(t, 1024, 2048);
  EXPECT_EQ(half.tokens(0), 1024u);
  EXPECT_EQ(half.layers[1][0], t.layers[1][2048]);
  EXPECT_THROW((void)token_range(t, 5, 5), std::invalid_argument);
  EXPECT_THROW((void)token_range(t, 0, 4096), std::invalid_argument);

  const auto model = small_moe(16, 2);
  auto cfg = four_by_four();
  const auto expect_error = [&](const CompareConfig& c, const std::vector<moe::RoutingTrace>& fit,
                                const std::string& needle) {
    try {
      (void)compare(model, c, fit, {t});
      ADD_FAILURE() << "no error for " << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  auto bad = cfg;
  bad.batch = 0;
  expect_error(bad, {t}, "batch 0");
  bad = cfg;
  bad.layers = {7};
  expect_error(bad, {t}, "layer 7 out of range (allowed: 0..1");
  bad = cfg;
  bad.batch = 4096;
  expect_error(bad, {t}, "fewer than one batch of 4096");
  expect_error(cfg, {skewed(8, 2, 1)}, "has 8 experts, top-2; the model test-moe has 16");
  expect_error(cfg, {}, "no fit traces");
  bad = cfg;
  bad.capacity_bytes = 1;  // no strategy's weights fit 1 byte a node
  EXPECT_THROW((void)compare(model, bad, {t}, {t}), std::invalid_argument);
}

}  // namespace
}  // namespace stackscope::experts
