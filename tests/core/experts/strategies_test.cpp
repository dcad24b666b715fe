// SPDX-License-Identifier: GPL-3.0-or-later
// The baseline placement strategies (core/experts/strategies.hpp): TP, EP, DeepSeek's EPLB
// (global and hierarchical) and the compute-balanced hybrid on loads small enough to place by
// hand, and score(): every strategy judged by simulate_layer() alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "stackscope/experts/strategies.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/moe/stats.hpp"
#include "stackscope/moe/trace.hpp"

namespace stackscope::experts {
namespace {

// Node of a single-node copy.
int node_of(const Copy& c) {
  return c.shares.at(0).node;
}

TEST(Strategies, TpSplitsEveryExpertAndEpDealsThemRoundRobin) {
  const auto tp = tp_placement(3, 4);
  ASSERT_EQ(tp.experts.size(), 3u);
  for (const auto& e : tp.experts) {
    ASSERT_EQ(e.copies.size(), 1u);
    ASSERT_EQ(e.copies[0].shares.size(), 4u);
    for (const auto& s : e.copies[0].shares) EXPECT_DOUBLE_EQ(s.fraction, 0.25);
  }
  const auto ep = ep_placement(6, 4);
  for (int e = 0; e < 6; ++e) EXPECT_EQ(node_of(ep.experts[e].copies.at(0)), e % 4);
  EXPECT_TRUE(validate(tp, 3, 4, 1, 1e9).empty());
  EXPECT_TRUE(validate(ep, 6, 4, 1, 1e9).empty());
}

// Loads 8, 1, 1, 1, 1, 1, 1, 2 (Σ 16) on 4 nodes with 4 redundant slots (3 slots per node).
// Replication: the hottest load per copy is expert 0's every time (8 > 2, 4 > 2, 2.67 > 2, and
// at 2 = expert 7's 2 the lower id wins), so expert 0 gets 5 copies of 1.6. Packing, heaviest
// first onto the lightest node with a free slot: e7 (2) -> n0; the five 1.6 copies -> n1, n2, n3,
// n1, n2; the ones e1..e6 -> n3, n0, n3, n0, n1, n2. Node loads 4, 4.2, 4.2, 3.6 against EP's
// 9 (e0 + e4), 2, 2, 3.
TEST(Strategies, EplbReplicatesTheHottestAndPacksBalanced) {
  const std::vector<double> loads = {8, 1, 1, 1, 1, 1, 1, 2};
  const auto p = eplb_placement(loads, 4, 4);
  ASSERT_EQ(p.experts[0].copies.size(), 5u);
  for (std::size_t e = 1; e < 8; ++e) EXPECT_EQ(p.experts[e].copies.size(), 1u) << e;
  EXPECT_EQ(node_of(p.experts[7].copies[0]), 0);
  std::vector<int> e0;
  for (const auto& c : p.experts[0].copies) e0.push_back(node_of(c));
  EXPECT_EQ(e0, (std::vector<int>{1, 2, 3, 1, 2}));
  const int want[8] = {-1, 3, 0, 3, 0, 1, 2, 0};
  for (int e = 1; e < 8; ++e) EXPECT_EQ(node_of(p.experts[e].copies[0]), want[e]) << e;
  const auto load = expected_node_load(p, loads, 4);
  EXPECT_NEAR(load[0], 4.0, 1e-12);
  EXPECT_NEAR(load[1], 4.2, 1e-12);
  EXPECT_NEAR(load[2], 4.2, 1e-12);
  EXPECT_NEAR(load[3], 3.6, 1e-12);
  const auto ep = expected_node_load(ep_placement(8, 4), loads, 4);
  EXPECT_NEAR(*std::max_element(ep.begin(), ep.end()), 9.0, 1e-12);
  EXPECT_TRUE(validate(p, 8, 4, 1, 3).empty());  // 3 slots of 1 B per node
  EXPECT_THROW((void)eplb_placement(loads, 4, 3), std::invalid_argument);  // 11 slots on 4
  EXPECT_THROW((void)eplb_placement(loads, 4, 4, 3), std::invalid_argument);
  const std::vector<double> bad = {1, -1};
  EXPECT_THROW((void)eplb_placement(bad, 2, 0), std::invalid_argument);
}

// Hierarchical EPLB with 2 groups: expert groups {0..3} (load 11) and {4..7} (load 5) go to
// node groups {0, 1} and {2, 3} by balanced packing; each replicates with 2 slots within itself.
// Group 0: loads 8, 1, 1, 1 -> expert 0 gets both slots (8 and then 4 beat 1): 3 copies of 8/3.
// Its 6 copies on 2 nodes, 3 each, heaviest first: 8/3 -> n0, 8/3 -> n1, 8/3 -> n0 (tie),
// 1 -> n1, 1 -> n1 (now full), 1 -> n0: n0 holds 2 x 8/3 + 1 = 6.33, n1 8/3 + 2 = 4.67.
TEST(Strategies, HierarchicalEplbKeepsEachGroupOnItsNodes) {
  const std::vector<double> loads = {8, 1, 1, 1, 1, 1, 1, 2};
  const auto p = eplb_placement(loads, 4, 4, 2);
  for (int e = 0; e < 4; ++e)
    for (const auto& c : p.experts[e].copies) EXPECT_LT(node_of(c), 2) << e;
  for (int e = 4; e < 8; ++e)
    for (const auto& c : p.experts[e].copies) EXPECT_GE(node_of(c), 2) << e;
  EXPECT_EQ(p.experts[0].copies.size(), 3u);
  const auto load = expected_node_load(p, loads, 4);
  EXPECT_NEAR(load[0] + load[1], 11.0, 1e-12);
  EXPECT_NEAR(load[2] + load[3], 5.0, 1e-12);
  EXPECT_NEAR(std::max(load[0], load[1]), 8.0 / 3 * 2 + 1, 1e-12);
  EXPECT_TRUE(validate(p, 8, 4, 1, 3).empty());
}

// Balanced hybrid, loads as above on 4 nodes: mean node load 4, so expert 0 (8) is split, 2 per
// node; then e7 (2) -> n0 (4), e1..e3 -> n1, n2, n3 (3 each), e4..e6 -> n1, n2, n3 (4 each).
TEST(Strategies, BalancedHybridSplitsTheHotAndPacksTheRest) {
  const std::vector<double> loads = {8, 1, 1, 1, 1, 1, 1, 2};
  const auto p = balanced_placement(loads, 4);
  ASSERT_EQ(p.experts[0].copies.at(0).shares.size(), 4u);
  EXPECT_EQ(node_of(p.experts[7].copies[0]), 0);
  const int want[8] = {-1, 1, 2, 3, 1, 2, 3, 0};
  for (int e = 1; e < 8; ++e) EXPECT_EQ(node_of(p.experts[e].copies[0]), want[e]) << e;
  for (double l : expected_node_load(p, loads, 4)) EXPECT_NEAR(l, 4.0, 1e-12);
}

// Fewer experts than nodes: loads 3 : 1 on 4 nodes. Each expert a node, then D'Hondt: expert 0
// (3 per node) takes node 2 (1.5 per node), then again (1.5 > 1): blocks {0, 1, 2} and {3};
// equal loads 1 : 1 on 4 nodes give two blocks of two (the tp 2 x ep 2 hybrid).
TEST(Strategies, BalancedHybridGroupsExpertsWhenFewerThanNodes) {
  const std::vector<double> loads = {3, 1};
  const auto p = balanced_placement(loads, 4);
  ASSERT_EQ(p.experts[0].copies.at(0).shares.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(p.experts[0].copies[0].shares[k].node, k);
    EXPECT_NEAR(p.experts[0].copies[0].shares[k].fraction, 1.0 / 3, 1e-15);
  }
  ASSERT_EQ(p.experts[1].copies.at(0).shares.size(), 1u);
  EXPECT_EQ(p.experts[1].copies[0].shares[0].node, 3);
  for (const double l : expected_node_load(p, loads, 4)) EXPECT_NEAR(l, 1.0, 1e-15);
  const std::vector<double> even = {1, 1};
  const auto q = balanced_placement(even, 4);
  EXPECT_EQ(q.experts[0].copies[0].shares.size(), 2u);
  EXPECT_EQ(q.experts[1].copies[0].shares.at(0).node, 2);
  EXPECT_TRUE(validate(q, 2, 4, 1, 1e30).empty());
}

// score(): each strategy's result is exactly simulate_layer()'s on the same batch, and on a
// skewed layer (Zipf 1.2 over 16 experts, 128 tokens, a 4 x 2 mesh) the placements that balance
// compute (EPLB with 8 redundant slots, the balanced hybrid) beat EP's busiest node.
TEST(Strategies, EveryStrategyIsScoredBySimulateLayer) {
  workload::Routing zipf;
  zipf.kind = workload::RoutingKind::zipf;
  zipf.zipf_s = 1.2;
  zipf.seed = 5;
  const auto trace = moe::synthetic_trace(zipf, 16, 2, 1, 128, 9);
  const auto stats = moe::layer_stats(trace, 0);
  MeshConfig mesh;
  mesh.x = 4;
  mesh.y = 2;
  const LayerBatch batch = batch_from_trace(trace, 0, mesh.nodes(), 4096, 14336);
  std::vector<std::pair<std::string, Placement>> ps = {
      {"tp", tp_placement(16, 8)},
      {"ep", ep_placement(16, 8)},
      {"eplb", eplb_placement(stats.frequency, 8, 8)},
      {"balanced", balanced_placement(stats.frequency, 8)},
  };
  const auto copy = ps;
  const auto scored = score(mesh, batch, std::move(ps), 1e15);
  ASSERT_EQ(scored.size(), 4u);
  for (std::size_t i = 0; i < scored.size(); ++i) {
    const auto direct = simulate_layer(mesh, copy[i].second, batch);
    EXPECT_EQ(scored[i].strategy, copy[i].first);
    EXPECT_DOUBLE_EQ(scored[i].result.time_s, direct.time_s) << copy[i].first;
    EXPECT_EQ(scored[i].result.events, direct.events) << copy[i].first;
  }
  const auto& ep = scored[1].result;
  EXPECT_LT(scored[2].result.load_imbalance, ep.load_imbalance);
  EXPECT_LT(scored[3].result.load_imbalance, ep.load_imbalance);
  // Memory capacity binds every strategy: one expert is 3 x 4096 x 14336 x 2 B = 352 MB, EP
  // holds 2 per node, so 600 MB refuses it, naming the strategy.
  try {
    (void)score(mesh, batch, {{"ep", ep_placement(16, 8)}}, 600e6);
    ADD_FAILURE() << "EP fitted in 600 MB per node";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("strategy ep: /nodes/"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace stackscope::experts
