// SPDX-License-Identifier: GPL-3.0-or-later
// HD-MoE link balance (core/experts/link_balance.hpp): on meshes small enough to try every
// permutation, the annealer finds the optimum that simulate_layer() itself ranks first; the
// result is a permutation, never worse than the identity, and reproducible from its seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "stackscope/experts/link_balance.hpp"
#include "stackscope/experts/mesh_sim.hpp"
#include "stackscope/experts/strategies.hpp"

namespace stackscope::experts {
namespace {

// Round numbers: β = 1 GB/s, α = 0.1 µs, FP32 activations (as mesh_sim_test).
MeshConfig mesh(int x, int y) {
  MeshConfig m;
  m.x = x;
  m.y = y;
  m.node_flops = 1e12;
  m.mem_Bps = 625e9;
  m.link_Bps = 1e9;
  m.alpha_s = 1e-7;
  m.chunk_bytes = 1024;
  m.activation_bytes = 4;
  return m;
}

Placement whole(std::vector<int> node_of_expert) {
  Placement p;
  for (const int n : node_of_expert) p.experts.push_back({{Copy{{{n, 1.0}}}}});
  return p;
}

// `tokens` tokens, all homed on `home`, each selecting `experts`.
LayerBatch batch(int tokens, int home, std::vector<int> experts) {
  LayerBatch b;
  b.top_k = static_cast<int>(experts.size());
  for (int t = 0; t < tokens; ++t) {
    b.home.push_back(home);
    b.expert_ids.insert(b.expert_ids.end(), experts.begin(), experts.end());
  }
  b.hidden = 256;
  b.intermediate = 512;
  return b;
}

double objective(const LinkBalanceInput& in, const Placement& p) {
  double s = 0;
  for (const auto& b : in.batches) s += simulate_layer(in.mesh, p, b, in.choice).time_s;
  return s;
}

// The best Σ layer time over all permutations, by simulate_layer().
double brute_force_min(const LinkBalanceInput& in) {
  std::vector<int> perm(static_cast<std::size_t>(in.mesh.nodes()));
  std::iota(perm.begin(), perm.end(), 0);
  double best = objective(in, in.placement);
  do best = std::min(best, objective(in, apply_permutation(in.placement, perm)));
  while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

bool is_permutation_of_nodes(const std::vector<int>& perm, int n) {
  if (static_cast<int>(perm.size()) != n) return false;
  std::vector<int> s = perm;
  std::sort(s.begin(), s.end());
  for (int i = 0; i < n; ++i)
    if (s[static_cast<std::size_t>(i)] != i) return false;
  return true;
}

// 1×3 line, every token homed on node 0 selects experts 0 and 1, placed on logical nodes 1 and
// 2: the identity sends each token's hidden state one hop (to 1) and two hops (to 2, over the
// same first link). Best: one expert on the home (no message) and the other next to it, i.e.
// logical nodes {1, 2} on physical {0, 1}: one one-hop message each way instead of two, one of
// them two hops long.
TEST(LinkBalance, MovesCoActivatedExpertsNextToTheTokensOnALine) {
  LinkBalanceInput in;
  in.mesh = mesh(3, 1);
  in.placement = whole({1, 2});
  in.batches = {batch(16, 0, {0, 1})};
  in.iterations = 60;
  const auto r = link_balance(in);
  ASSERT_TRUE(is_permutation_of_nodes(r.permutation, 3));
  const std::set<int> held = {r.placement.experts[0].copies[0].shares[0].node,
                              r.placement.experts[1].copies[0].shares[0].node};
  EXPECT_EQ(held, (std::set<int>{0, 1}));
  EXPECT_LT(r.objective_s, r.start_objective_s);
  EXPECT_DOUBLE_EQ(r.start_objective_s, objective(in, in.placement));
  EXPECT_DOUBLE_EQ(r.objective_s, objective(in, r.placement));
  EXPECT_DOUBLE_EQ(r.objective_s, brute_force_min(in));
  EXPECT_EQ(r.iterations, 60);
}

// 2×2 mesh, two batches (tokens homed on 0 selecting {0, 1}; tokens homed on 3 selecting
// {2, 3}), EP placement with each co-activated pair diagonal from its tokens. All 24
// permutations are tried by brute force; annealing reaches the same minimum from every seed.
TEST(LinkBalance, FindsTheBruteForceOptimumOn2x2) {
  LinkBalanceInput in;
  in.mesh = mesh(2, 2);
  in.placement = whole({3, 2, 0, 1});
  in.batches = {batch(12, 0, {0, 1}), batch(20, 3, {2, 3})};
  in.iterations = 200;
  const double best = brute_force_min(in);
  const double identity = objective(in, in.placement);
  ASSERT_LT(best, identity);
  for (const std::uint64_t seed : {1u, 2u, 3u, 42u}) {
    in.seed = seed;
    const auto r = link_balance(in);
    EXPECT_TRUE(is_permutation_of_nodes(r.permutation, 4)) << seed;
    EXPECT_DOUBLE_EQ(r.start_objective_s, identity) << seed;
    EXPECT_DOUBLE_EQ(r.objective_s, best) << seed;
    EXPECT_DOUBLE_EQ(r.objective_s, objective(in, r.placement)) << seed;  // Σ over both batches
    EXPECT_GE(r.accepted, r.improvements);
  }
}

// Same seed → the same permutation; other seeds valid and never worse than the identity, also
// on a placement with split experts and a greedy T0 = 0.
TEST(LinkBalance, SeededReproducibleAndNeverWorseThanIdentity) {
  LinkBalanceInput in;
  in.mesh = mesh(3, 2);
  in.placement = whole({0, 2, 2, 3, 3, 5});  // experts 0 and 5 split over two nodes each
  in.placement.experts[0].copies[0] = Copy{{{0, 0.5}, {1, 0.5}}};
  in.placement.experts[5].copies[0] = Copy{{{4, 0.25}, {5, 0.75}}};
  LayerBatch b;
  b.top_k = 2;
  for (int t = 0; t < 24; ++t) {  // distinct pairs: the offset 1 + t / 6 is 1..4 mod 6
    b.home.push_back(t % 6);
    b.expert_ids.push_back(t % 6);
    b.expert_ids.push_back((t % 6 + 1 + t / 6) % 6);
  }
  b.hidden = 256;
  b.intermediate = 512;
  in.batches = {b};
  in.iterations = 80;
  in.seed = 7;
  const auto a1 = link_balance(in);
  const auto a2 = link_balance(in);
  EXPECT_EQ(a1.permutation, a2.permutation);
  EXPECT_EQ(a1.accepted, a2.accepted);
  EXPECT_DOUBLE_EQ(a1.objective_s, a2.objective_s);
  // Recorded with GCC/libstdc++ on x86-64; mt19937_64's output is fixed by the standard and
  // the integers and reals are derived from it here, so another standard library must agree.
  EXPECT_EQ(a1.permutation, (std::vector<int>{0, 3, 1, 4, 2, 5}));
  for (const std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    in.seed = seed;
    const auto r = link_balance(in);
    EXPECT_TRUE(is_permutation_of_nodes(r.permutation, 6)) << seed;
    EXPECT_LE(r.objective_s, r.start_objective_s) << seed;
  }
  in.initial_temperature = 0;  // greedy: every accepted move is an improvement or a tie
  const auto g = link_balance(in);
  EXPECT_LE(g.objective_s, g.start_objective_s);
  EXPECT_TRUE(is_permutation_of_nodes(g.permutation, 6));
}

// Zero iterations, or a single node, return the identity.
TEST(LinkBalance, NothingToSearchGivesTheIdentity) {
  LinkBalanceInput in;
  in.mesh = mesh(1, 1);
  in.placement = whole({0, 0});
  in.batches = {batch(4, 0, {0, 1})};
  auto r = link_balance(in);
  EXPECT_EQ(r.permutation, std::vector<int>{0});
  EXPECT_EQ(r.iterations, 0);
  EXPECT_DOUBLE_EQ(r.objective_s, r.start_objective_s);
  in.mesh = mesh(2, 2);
  in.placement = whole({3, 2});
  in.iterations = 0;
  r = link_balance(in);
  EXPECT_EQ(r.permutation, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(r.objective_s, r.start_objective_s);
}

TEST(LinkBalance, ApplyPermutationRelabelsEveryShare) {
  Placement p;
  p.experts.push_back({{Copy{{{0, 0.5}, {2, 0.5}}}, Copy{{{1, 1.0}}}}});
  const std::vector<int> perm = {2, 0, 1};
  const auto q = apply_permutation(p, perm);
  EXPECT_EQ(q.experts[0].copies[0].shares[0].node, 2);
  EXPECT_EQ(q.experts[0].copies[0].shares[1].node, 1);
  EXPECT_EQ(q.experts[0].copies[1].shares[0].node, 0);
  EXPECT_DOUBLE_EQ(q.experts[0].copies[0].shares[1].fraction, 0.5);
  const std::vector<int> dup = {0, 0, 1}, out = {0, 1, 3}, short_perm = {1, 0};
  EXPECT_THROW((void)apply_permutation(p, dup), std::invalid_argument);
  EXPECT_THROW((void)apply_permutation(p, out), std::invalid_argument);
  EXPECT_THROW((void)apply_permutation(p, short_perm), std::invalid_argument);  // node 2 unmapped
}

TEST(LinkBalance, BadInputNamesTheField) {
  LinkBalanceInput good;
  good.mesh = mesh(2, 2);
  good.placement = whole({3, 2});
  good.batches = {batch(4, 0, {0, 1})};
  good.iterations = 5;
  const auto message = [](const LinkBalanceInput& in) {
    try {
      (void)link_balance(in);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto in = good;
  in.batches.clear();
  EXPECT_NE(message(in).find("batches"), std::string::npos);
  in = good;
  in.iterations = -1;
  EXPECT_NE(message(in).find("iterations"), std::string::npos);
  in = good;
  in.initial_temperature = -0.1;
  EXPECT_NE(message(in).find("initial_temperature"), std::string::npos);
  in.initial_temperature = std::numeric_limits<double>::infinity();
  EXPECT_NE(message(in).find("initial_temperature"), std::string::npos);
  in = good;
  in.placement = whole({3, 4});  // node 4 is off the 2×2 mesh
  EXPECT_NE(message(in).find("placement"), std::string::npos);
  in = good;
  in.batches.push_back(batch(4, 0, {0, 2}));  // expert 2 does not exist
  const auto m = message(in);
  EXPECT_NE(m.find("batch 1"), std::string::npos) << m;
  EXPECT_NE(m.find("expert_ids"), std::string::npos) << m;
  in = good;
  in.mesh.link_Bps = 0;
  EXPECT_NE(message(in).find("link_Bps"), std::string::npos);
}

}  // namespace
}  // namespace stackscope::experts
