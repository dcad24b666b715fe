// SPDX-License-Identifier: GPL-3.0-or-later
// HD-MoE node balance (core/experts/node_balance.hpp): optima worked out by hand on two-node
// cases, including the one where the OR over a top-k set (not Eq. 8's sum) decides, memory
// capacity, and the surrogate at the solution.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "stackscope/experts/node_balance.hpp"
#include "stackscope/experts/strategies.hpp"

namespace stackscope::experts {
namespace {

moe::TopKSet set(std::vector<std::uint16_t> experts, std::size_t tokens) {
  moe::TopKSet s;
  s.experts = std::move(experts);
  s.tokens = tokens;
  return s;
}

NodeBalanceInput two_nodes(std::vector<double> loads, std::vector<moe::TopKSet> sets,
                           double compute_s, double comm_s) {
  NodeBalanceInput in;
  in.loads = std::move(loads);
  in.sets = std::move(sets);
  in.nodes = 2;
  in.tokens = 10;
  in.compute_s = compute_s;
  in.comm_s = {comm_s, comm_s};
  in.solver.time_limit_s = 30;
  return in;
}

// One hot expert (every token, k = 1) and a cold one. Whole on one node: T_comp = 10 x 1 x 1 =
// 10, T_comm = 10 x 0.1 x (1 - 1/2) = 0.5: 11. Split in halves: T_comp = 5, both nodes take the
// traffic but each only its own 0.5: 5 + 2 x 0.5 = 6, the optimum.
TEST(NodeBalance, SplitsAHotExpertWhenComputeDominates) {
  const auto in = two_nodes({1, 0}, {set({0}, 100)}, 1, 0.1);
  const auto r = node_balance(in);
  EXPECT_EQ(r.solution.status, lp::Status::optimal);
  EXPECT_NEAR(r.objective_s, 6, 1e-6);
  EXPECT_NEAR(r.t_comp_s, 5, 1e-6);
  EXPECT_NEAR(r.t_comm_s, 0.5, 1e-6);
  ASSERT_EQ(r.placement.experts[0].copies.at(0).shares.size(), 2u);
  EXPECT_NEAR(r.placement.experts[0].copies[0].shares[0].fraction, 0.5, 1e-6);
  EXPECT_GE(r.split_experts, 1);
  EXPECT_TRUE(r.solution.warm_start_used);  // EP (11) was the first incumbent
  EXPECT_NEAR(surrogate(r.placement, in), 6, 1e-6);
  EXPECT_NEAR(surrogate(ep_placement(2, 2), in), 11, 1e-9);
  EXPECT_TRUE(validate(r.placement, 2, 2, 1, lp::kInf).empty());
}

// Four experts, sets {0, 1} and {2, 3} with half the tokens each, loads 0.5 each. Every
// placement with two experts per node has T_comp = 10 x 0.1 x 1 = 1. EP (0, 2 | 1, 3) puts each
// node in both sets: T_comm = 10 x 1 x 1/2 x 1 = 5, total 11. Co-locating each set (0, 1 | 2, 3)
// puts each node in one set: T_comm = 2.5, total 6. Eq. 8's sum over a set's experts would
// charge both layouts alike (2 presences per node); the OR tells them apart.
TEST(NodeBalance, CoLocatesTheExpertsOfASetUnderTheOr) {
  const auto in = two_nodes({0.5, 0.5, 0.5, 0.5}, {set({0, 1}, 50), set({2, 3}, 50)}, 0.1, 1);
  const auto r = node_balance(in);
  EXPECT_EQ(r.solution.status, lp::Status::optimal);
  EXPECT_NEAR(r.objective_s, 6, 1e-6);
  EXPECT_NEAR(surrogate(ep_placement(4, 2), in), 11, 1e-9);
  const auto node = [&](int e) { return r.placement.experts[e].copies.at(0).shares.at(0).node; };
  for (int e = 0; e < 4; ++e) EXPECT_EQ(r.placement.experts[e].copies[0].shares.size(), 1u);
  EXPECT_EQ(node(0), node(1));
  EXPECT_EQ(node(2), node(3));
  EXPECT_NE(node(0), node(2));
  EXPECT_EQ(r.split_experts, 0);
}

// Memory: with room for one expert per node, the hot expert of the first case can still be
// split (each node holds half of each); three experts on one node of room two cannot fit.
TEST(NodeBalance, HonoursMemoryCapacity) {
  auto in = two_nodes({1, 0}, {set({0}, 100)}, 1, 0.1);
  in.expert_bytes = 100;
  in.capacity_bytes = 100;
  const auto r = node_balance(in);
  EXPECT_NEAR(r.objective_s, 6, 1e-6);
  EXPECT_TRUE(validate(r.placement, 2, 2, 100, 100 + 1e-6).empty());
  NodeBalanceInput one = in;
  one.loads = {1, 1, 1};
  one.sets = {set({0}, 1), set({1}, 1), set({2}, 1)};
  one.nodes = 1;
  one.comm_s = {0.1};
  one.capacity_bytes = 200;
  try {
    (void)node_balance(one);
    ADD_FAILURE() << "3 experts fitted in room for 2";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no placement fits the nodes' memory"), std::string::npos)
        << e.what();
  }
}

// The roofline's memory side: two experts always selected together (k = 2), each one second to
// read whole (weight_read_s = 1), compute negligible (10 tokens x 0.001 s x 0.5). Whatever the
// placement, the two nodes read two experts' weights, so the busier reads >= 1 s: T_comp = 1
// at best, reached by EP (0 | 1) and TP alike, with T_comm = 10 x 0.1 x 1/2 = 0.5 (each node is
// in the one set): 2. Both on node 0 reads 2 s: 2 + 2 x 0.5 = 3. Without the memory side the
// optimum would be 0.005 + 1 = 1.005.
TEST(NodeBalance, ChargesTheWeightReadsOfTheRoofline) {
  auto in = two_nodes({1, 1}, {set({0, 1}, 100)}, 0.001, 0.1);
  in.loads = {0.5, 0.5};  // f_i as selections per token over k = 2 (Σ = 1 here, scaled alike)
  in.weight_read_s = 1;
  const auto r = node_balance(in);
  EXPECT_EQ(r.solution.status, lp::Status::optimal);
  EXPECT_NEAR(r.objective_s, 2, 1e-6);
  EXPECT_NEAR(r.t_comp_s, 1, 1e-6);
  EXPECT_NEAR(surrogate(ep_placement(2, 2), in), 2, 1e-9);
  EXPECT_NEAR(surrogate(tp_placement(2, 2), in), 2, 1e-9);
  Placement together;
  together.experts = {ExpertPlacement{{Copy{{{0, 1.0}}}}}, ExpertPlacement{{Copy{{{0, 1.0}}}}}};
  EXPECT_NEAR(surrogate(together, in), 3, 1e-9);
  EXPECT_EQ(r.warm_start, "ep");  // EP and TP tie at 2; the first best is kept
  EXPECT_NEAR(r.warm_start_objective_s, 2, 1e-9);
  in.weight_read_s = 0;
  EXPECT_NEAR(node_balance(in).objective_s, 1.005, 1e-6);
}

// The interval split (worked by hand): loads 3 : 1 on 4 nodes put expert 0 on [0, 3) (a third
// on each of nodes 0..2) and expert 1 on [3, 4) (whole on node 3); loads 1 : 1 : 1 on 2 nodes
// give [0, 2/3) whole on node 0, [2/3, 4/3) half on each, [4/3, 2) whole on node 1. Every node
// carries the mean load.
TEST(NodeBalance, IntervalSplitBalancesLoadByHand) {
  const auto a = interval_placement({3, 1}, 4);
  ASSERT_EQ(a.experts[0].copies.at(0).shares.size(), 3u);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(a.experts[0].copies[0].shares[c].node, c);
    EXPECT_NEAR(a.experts[0].copies[0].shares[c].fraction, 1.0 / 3, 1e-12);
  }
  ASSERT_EQ(a.experts[1].copies.at(0).shares.size(), 1u);
  EXPECT_EQ(a.experts[1].copies[0].shares[0].node, 3);
  const std::vector<double> three = {1, 1, 1};
  const auto b = interval_placement(three, 2);
  ASSERT_EQ(b.experts[1].copies.at(0).shares.size(), 2u);
  EXPECT_NEAR(b.experts[1].copies[0].shares[0].fraction, 0.5, 1e-12);
  EXPECT_EQ(b.experts[0].copies[0].shares.at(0).node, 0);
  EXPECT_EQ(b.experts[2].copies[0].shares.at(0).node, 1);
  for (const double l : expected_node_load(b, three, 2)) EXPECT_NEAR(l, 1.5, 1e-12);
  EXPECT_TRUE(validate(b, 3, 2, 1, lp::kInf).empty());
  const auto z = interval_placement({0, 2, 0}, 2);  // zero loads sit whole where they start
  EXPECT_EQ(z.experts[0].copies[0].shares.at(0).node, 0);
  EXPECT_EQ(z.experts[2].copies[0].shares.at(0).node, 1);
  EXPECT_THROW((void)interval_placement({}, 2), std::invalid_argument);
  EXPECT_THROW((void)interval_placement({1, -1}, 2), std::invalid_argument);
  EXPECT_THROW((void)interval_placement({1}, 0), std::invalid_argument);
}

TEST(NodeBalance, BadInputNamesTheField) {
  auto in = two_nodes({1, 0}, {set({0}, 100)}, 1, 0.1);
  in.comm_s = {0.1};
  EXPECT_THROW((void)node_balance(in), std::invalid_argument);
  in = two_nodes({1, 0}, {set({5}, 100)}, 1, 0.1);
  try {
    (void)node_balance(in);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("set 0 names expert 5"), std::string::npos) << e.what();
  }
  in = two_nodes({1, 0}, {}, 1, 0.1);
  EXPECT_THROW((void)node_balance(in), std::invalid_argument);
  in = two_nodes({1, 0}, {set({0}, 100)}, 0, 0.1);
  EXPECT_THROW((void)node_balance(in), std::invalid_argument);
  in = two_nodes({1, 0}, {set({0}, 100)}, 1, 0.1);
  in.weight_read_s = -1;
  EXPECT_THROW((void)node_balance(in), std::invalid_argument);
}

}  // namespace
}  // namespace stackscope::experts
