// SPDX-License-Identifier: GPL-3.0-or-later
// Dynamic scheduling (core/experts/dynamic.hpp): the pipelined XY-tree broadcast against its
// closed form, HD-MoE pre-broadcast (chunk sized to the overlap time and memory, its work
// water-filled by hand) and FasterMoE shadowing (taken only when simulate_layer's saving beats
// the broadcast, which is always charged).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "stackscope/experts/dynamic.hpp"
#include "stackscope/experts/mesh_sim.hpp"

namespace stackscope::experts {
namespace {

constexpr double kAlpha = 1e-7;

// β = 1 GB/s, α = 0.1 µs, 1 KiB chunks, FP32 activations (as mesh_sim_test).
MeshConfig mesh(int x, int y) {
  MeshConfig m;
  m.x = x;
  m.y = y;
  m.node_flops = 1e12;
  m.mem_Bps = 625e9;
  m.link_Bps = 1e9;
  m.alpha_s = kAlpha;
  m.chunk_bytes = 1024;
  m.activation_bytes = 4;
  return m;
}

Placement ep(int experts, int nodes) {
  Placement p;
  for (int e = 0; e < experts; ++e) p.experts.push_back({{Copy{{{e % nodes, 1.0}}}}});
  return p;
}

// Top-1 batch: token t selects experts[t], home t mod nodes.
LayerBatch top1(const std::vector<int>& experts, int nodes, int hidden, int intermediate) {
  LayerBatch b;
  b.top_k = 1;
  b.expert_ids = experts;
  for (std::size_t t = 0; t < experts.size(); ++t) b.home.push_back(static_cast<int>(t) % nodes);
  b.hidden = hidden;
  b.intermediate = intermediate;
  return b;
}

// `hot` tokens of expert 0, then `cold` tokens dealt over experts 1..3.
std::vector<int> skewed(int hot, int cold) {
  std::vector<int> ids(static_cast<std::size_t>(hot), 0);
  for (int t = 0; t < cold; ++t) ids.push_back(1 + t % 3);
  return ids;
}

double expert_bytes(const LayerBatch& b) {
  return 3.0 * b.hidden * b.intermediate * b.weight_bytes;
}

double share_on(const Copy& c, int node) {
  for (const auto& s : c.shares)
    if (s.node == node) return s.fraction;
  return 0;
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

// t = (D + m - 1)(α + b/(mβ)). 2×2 from node 0: D = 2. 1 KiB = one chunk: 2 (0.1 + 1.024) µs;
// 4 KiB = 4 chunks: 5 (0.1 + 1.024) µs. Traffic (N-1) b, links busy (N-1)(mα + b/β).
TEST(Broadcast, PipelinedXyTreeClosedForm) {
  const auto m = mesh(2, 2);
  auto c = xy_tree_broadcast(m, 0, 1024);
  EXPECT_EQ(c.depth, 2);
  EXPECT_EQ(c.chunks, 1);
  EXPECT_NEAR(c.time_s, 2 * (1e-7 + 1.024e-6), 1e-18);
  c = xy_tree_broadcast(m, 0, 4096);
  EXPECT_EQ(c.chunks, 4);
  EXPECT_NEAR(c.time_s, 5 * (1e-7 + 1.024e-6), 1e-18);
  EXPECT_DOUBLE_EQ(c.delivered_bytes, 3 * 4096.0);
  EXPECT_NEAR(c.link_busy_s, 3 * (4e-7 + 4.096e-6), 1e-18);
  // 1500 B: 2 equal chunks of 750 B, 3 (0.1 + 0.75) µs.
  EXPECT_NEAR(xy_tree_broadcast(m, 3, 1500).time_s, 3 * (1e-7 + 0.75e-6), 1e-18);
  // A line from its middle reaches both ends in one hop; from an end in two.
  EXPECT_EQ(xy_tree_broadcast(mesh(3, 1), 1, 10).depth, 1);
  EXPECT_EQ(xy_tree_broadcast(mesh(3, 1), 0, 10).depth, 2);
  // 4×8: corner 3 + 7 hops; node 13 = (1, 3): max(1, 2) + max(3, 4) = 6.
  EXPECT_EQ(xy_tree_broadcast(mesh(4, 8), 0, 10).depth, 10);
  EXPECT_EQ(xy_tree_broadcast(mesh(4, 8), 13, 10).depth, 6);
  EXPECT_EQ(xy_tree_broadcast(m, 0, 0).time_s, 0);
  EXPECT_EQ(xy_tree_broadcast(mesh(1, 1), 0, 1e6).time_s, 0);
  EXPECT_THROW((void)xy_tree_broadcast(m, 4, 1), std::invalid_argument);
  EXPECT_THROW((void)xy_tree_broadcast(m, 0, -1), std::invalid_argument);
  auto bad = m;
  bad.link_Bps = 0;
  EXPECT_NE(error_of([&] { (void)xy_tree_broadcast(bad, 0, 1); }).find("link_Bps"),
            std::string::npos);
}

// Budget B = 5.62 µs on 2×2 from node 0 (D = 2): 4 chunks carry 4 KiB exactly
// (4β(B/5 - α) = 4096), but 5 chunks carry more, 5β(B/6 - α) = 4183.3 B in (4096, 5120]:
// t_bc is not monotone at chunk steps, and the largest b is the 5-chunk one.
TEST(Broadcast, LargestChunkWithinABudget) {
  const auto m = mesh(2, 2);
  const double budget = 5 * (1e-7 + 1.024e-6);
  const double b = largest_broadcast_within(m, 0, 1e9, budget);
  EXPECT_NEAR(b, 5e9 * (budget / 6 - 1e-7), 1e-6);
  EXPECT_LE(xy_tree_broadcast(m, 0, b).time_s, budget);
  EXPECT_DOUBLE_EQ(largest_broadcast_within(m, 0, 2000, budget), 2000);  // capped by size
  double last = b;
  for (double f : {0.8, 0.5, 0.2, 0.05}) {  // a smaller budget never carries more
    const double s = largest_broadcast_within(m, 0, 1e9, budget * f);
    EXPECT_LE(s, last);
    EXPECT_LE(xy_tree_broadcast(m, 0, s).time_s, budget * f);
    last = s;
  }
  EXPECT_EQ(largest_broadcast_within(m, 0, 1e9, 0.99 * kAlpha), 0);  // below one α: nothing
  EXPECT_EQ(largest_broadcast_within(m, 0, 1e9, 2 * kAlpha), 0);     // D α = 2α needs b = 0
}

// 2×2 EP, 40 tokens top-1: 28 on expert 0 (node 0), 4 on each of 1..3. max_fraction 0.5 with a
// generous overlap: node 0 keeps 0.5 of expert 0 (work 14 of 28 tokens), the other 14 are
// water-filled over loads 14, 4, 4, 4: level (14 + 12) / 3 = 26/3, nodes 1..3 get 14/3 each,
// i.e. 1/6 of the expert's columns, node 0 none.
TEST(PreBroadcast, ChunkWorkIsWaterFilledToTheLeastLoaded) {
  PreBroadcastInput in;
  in.mesh = mesh(2, 2);
  in.placement = ep(4, 4);
  in.batch = top1(skewed(28, 12), 4, 256, 512);
  in.predicted = {0};
  in.overlap_s = 1e-2;
  in.max_fraction = 0.5;
  const auto r = pre_broadcast(in);
  ASSERT_EQ(r.experts.size(), 1u);
  EXPECT_DOUBLE_EQ(r.experts[0].fraction, 0.5);
  EXPECT_EQ(r.experts[0].spread_nodes, 4);  // simulate_layer prefers all four to k = 0, 1, 2
  const Copy& c = r.placement.experts[0].copies.at(0);
  EXPECT_NEAR(share_on(c, 0), 0.5, 1e-12);
  for (int v = 1; v < 4; ++v) EXPECT_NEAR(share_on(c, v), 1.0 / 6, 1e-12) << v;
  const double eb = expert_bytes(in.batch);
  const auto bc = xy_tree_broadcast(in.mesh, 0, 0.5 * eb);
  EXPECT_DOUBLE_EQ(r.broadcast_time_s, bc.time_s);
  EXPECT_DOUBLE_EQ(r.broadcast_bytes, 3 * 0.5 * eb);  // every other node receives the chunk
  EXPECT_DOUBLE_EQ(r.broadcast_link_busy_s, bc.link_busy_s);
  EXPECT_DOUBLE_EQ(r.hidden_s, r.broadcast_time_s);
  EXPECT_EQ(r.exposed_s, 0);
  EXPECT_DOUBLE_EQ(r.total_s, r.layer.time_s);
  // The layer is simulate_layer's on the new placement; node 0 now computes half of expert 0.
  const auto again = simulate_layer(in.mesh, r.placement, in.batch);
  EXPECT_DOUBLE_EQ(again.time_s, r.layer.time_s);
  EXPECT_DOUBLE_EQ(r.layer.bytes_injected, r.layer.bytes_delivered);
  EXPECT_LT(r.layer.nodes[0].flops, 28 * 6.0 * 256 * 512);
  EXPECT_LT(r.layer.time_s, r.static_time_s);
}

// The chunk follows the overlap time: smaller budgets, smaller chunks, none below one α;
// chunks always broadcast within overlap_s (nothing exposed).
TEST(PreBroadcast, ChunkShrinksWithTheOverlapTime) {
  PreBroadcastInput in;
  in.mesh = mesh(2, 2);
  in.placement = ep(4, 4);
  in.batch = top1(skewed(28, 12), 4, 256, 512);
  in.predicted = {0};
  double last = 2;
  for (double overlap : {1e-2, 2e-4, 5e-5, 1e-5, 1e-6, 0.5 * kAlpha, 0.0}) {
    in.overlap_s = overlap;
    const auto r = pre_broadcast(in);
    const double f = r.experts.at(0).fraction;
    EXPECT_LE(f, last) << overlap;
    EXPECT_LE(r.broadcast_time_s, overlap) << overlap;
    EXPECT_EQ(r.exposed_s, 0) << overlap;
    EXPECT_DOUBLE_EQ(r.total_s, r.layer.time_s) << overlap;
    EXPECT_LE(r.layer.time_s, r.static_time_s) << overlap;  // the chunk is used only if it helps
    if (overlap < kAlpha) {
      EXPECT_EQ(f, 0) << overlap;
      EXPECT_DOUBLE_EQ(r.layer.time_s, r.static_time_s);
    }
    last = f;
  }
  in.overlap_s = 1e-2;
  EXPECT_DOUBLE_EQ(pre_broadcast(in).experts[0].fraction, 1.0);  // all of it fits
}

// fit_under_overlap = false: the whole expert goes, and what exceeds overlap_s is exposed.
TEST(PreBroadcast, ExcessBroadcastIsExposedNotHidden) {
  PreBroadcastInput in;
  in.mesh = mesh(2, 2);
  in.placement = ep(4, 4);
  in.batch = top1(skewed(28, 12), 4, 256, 512);
  in.predicted = {0};
  in.overlap_s = 1e-5;
  in.fit_under_overlap = false;
  const auto r = pre_broadcast(in);
  const double t = xy_tree_broadcast(in.mesh, 0, expert_bytes(in.batch)).time_s;
  EXPECT_DOUBLE_EQ(r.experts[0].fraction, 1.0);
  EXPECT_DOUBLE_EQ(r.broadcast_time_s, t);
  EXPECT_DOUBLE_EQ(r.hidden_s, 1e-5);
  EXPECT_NEAR(r.exposed_s, t - 1e-5, 1e-18);
  EXPECT_DOUBLE_EQ(r.total_s, r.layer.time_s + r.exposed_s);
}

// Each node holds one expert (capacity 1.25 experts): only a quarter of expert 0 fits on the
// other nodes, so the chunk shrinks to 0.25 and says so.
TEST(PreBroadcast, ChunkShrinksToFitMemory) {
  PreBroadcastInput in;
  in.mesh = mesh(2, 2);
  in.placement = ep(4, 4);
  in.batch = top1(skewed(28, 12), 4, 256, 512);
  in.predicted = {0};
  in.overlap_s = 1e-2;
  in.capacity_bytes_per_node = 1.25 * expert_bytes(in.batch);
  const auto r = pre_broadcast(in);
  EXPECT_NEAR(r.experts[0].fraction, 0.25, 1e-12);
  EXPECT_TRUE(r.experts[0].shrunk_by_memory);
  in.capacity_bytes_per_node = 0.5 * expert_bytes(in.batch);  // the static placement overflows
  EXPECT_NE(error_of([&] { (void)pre_broadcast(in); }).find("capacity"), std::string::npos);
}

// A predicted expert the batch never selects pays its broadcast and changes nothing else; the
// second of two predictions gets only the time the first left.
TEST(PreBroadcast, MispredictionCostsTheBroadcastAndBudgetIsShared) {
  PreBroadcastInput in;
  in.mesh = mesh(2, 2);
  in.placement = ep(5, 4);  // expert 4 (node 0) is never selected
  in.batch = top1(skewed(28, 12), 4, 256, 512);
  in.predicted = {4};
  in.overlap_s = 1e-2;
  auto r = pre_broadcast(in);
  EXPECT_DOUBLE_EQ(r.experts[0].fraction, 1.0);
  EXPECT_GT(r.broadcast_bytes, 0);
  EXPECT_DOUBLE_EQ(r.layer.time_s, r.static_time_s);
  in.predicted = {0, 1};
  const double eb = expert_bytes(in.batch);
  in.overlap_s = 1.5 * xy_tree_broadcast(in.mesh, 0, eb).time_s;
  r = pre_broadcast(in);
  ASSERT_EQ(r.experts.size(), 2u);
  EXPECT_DOUBLE_EQ(r.experts[0].fraction, 1.0);
  EXPECT_GT(r.experts[1].fraction, 0);
  EXPECT_LT(r.experts[1].fraction, 1.0);
  EXPECT_LE(r.broadcast_time_s, in.overlap_s);
  EXPECT_EQ(r.exposed_s, 0);
}

TEST(PreBroadcast, BadInputNamesTheField) {
  PreBroadcastInput good;
  good.mesh = mesh(2, 2);
  good.placement = ep(4, 4);
  good.batch = top1(skewed(8, 4), 4, 64, 128);
  good.predicted = {0};
  good.overlap_s = 1e-3;
  auto in = good;
  in.predicted = {4};
  EXPECT_NE(error_of([&] { (void)pre_broadcast(in); }).find("predicted[0]"), std::string::npos);
  in.predicted = {1, 1};
  EXPECT_NE(error_of([&] { (void)pre_broadcast(in); }).find("repeated"), std::string::npos);
  in = good;
  in.placement.experts[0].copies.push_back(Copy{{{1, 1.0}}});
  EXPECT_NE(error_of([&] { (void)pre_broadcast(in); }).find("copies"), std::string::npos);
  in = good;
  in.overlap_s = -1;
  EXPECT_NE(error_of([&] { (void)pre_broadcast(in); }).find("overlap_s"), std::string::npos);
  in = good;
  in.max_fraction = 0;
  EXPECT_NE(error_of([&] { (void)pre_broadcast(in); }).find("max_fraction"), std::string::npos);
  in.max_fraction = 1.5;
  EXPECT_NE(error_of([&] { (void)pre_broadcast(in); }).find("max_fraction"), std::string::npos);
  in = good;
  in.batch.home[0] = 9;
  const auto m = error_of([&] { (void)pre_broadcast(in); });
  EXPECT_NE(m.find("pre_broadcast"), std::string::npos) << m;
  EXPECT_NE(m.find("home"), std::string::npos) << m;
}

// Compute-heavy 2×2 (10 GFLOP/s nodes, 10 GB/s links), EP, 200 tokens top-1, expert 0 takes 180
// (90%). Shadowing expert 0 costs one broadcast of its 48 KiB (≈ 5 µs) and spreads its 180
// tokens over the four homes (45 each, computed locally): far less than the ≈ 0.9 ms node 0 needs
// under EP. The result is simulate_layer's plus the whole broadcast, exposed.
TEST(Shadow, HotExpertShadowedOnASkewedBatch) {
  ShadowInput in;
  in.mesh = mesh(2, 2);
  in.mesh.node_flops = 1e10;
  in.mesh.link_Bps = 1e10;
  in.placement = ep(4, 4);
  in.batch = top1(skewed(180, 20), 4, 64, 128);
  const auto r = shadow(in);
  ASSERT_EQ(r.experts.size(), 1u);
  EXPECT_EQ(r.experts[0].expert, 0);
  EXPECT_DOUBLE_EQ(r.experts[0].fraction, 1.0);
  const double eb = expert_bytes(in.batch);
  const auto bc = xy_tree_broadcast(in.mesh, 0, eb);
  EXPECT_DOUBLE_EQ(r.broadcast_time_s, bc.time_s);
  EXPECT_DOUBLE_EQ(r.broadcast_bytes, 3 * eb);
  EXPECT_DOUBLE_EQ(r.exposed_s, r.broadcast_time_s);  // never hidden
  EXPECT_EQ(r.hidden_s, 0);
  EXPECT_DOUBLE_EQ(r.total_s, r.layer.time_s + bc.time_s);
  EXPECT_LT(r.total_s, r.static_time_s);
  // Every node computes its own 45 tokens of expert 0 and reads its whole weights.
  for (int v = 0; v < 4; ++v) {
    EXPECT_GE(r.layer.nodes[v].flops, 45 * 6.0 * 64 * 128) << v;
    EXPECT_GE(r.layer.nodes[v].weight_bytes, eb) << v;
  }
  // No message carries a token of expert 0: only the 20 cold tokens not already at home move.
  int dispatched = 0;
  for (const auto& m : r.layer.messages)
    if (m.phase == Phase::dispatch) dispatched += m.tokens;
  // Cold token i = t - 180 (home i mod 4) goes to node 1 + i mod 3; only i = 9, 10, 11 are home.
  EXPECT_EQ(dispatched, 17);
  EXPECT_DOUBLE_EQ(r.layer.bytes_injected, r.layer.bytes_delivered);
  EXPECT_DOUBLE_EQ(simulate_layer(in.mesh, r.placement, r.batch).time_s, r.layer.time_s);
}

// Few tokens on slow links: broadcasting the expert costs more than it saves, so nothing is
// shadowed — checked against simulate_layer on the shadowed placement built by hand.
TEST(Shadow, NotTakenWhenTheBroadcastCostsMoreThanItSaves) {
  ShadowInput in;
  in.mesh = mesh(2, 2);
  in.mesh.node_flops = 1e10;
  in.placement = ep(4, 4);
  in.batch = top1(skewed(9, 1), 4, 64, 128);
  const auto r = shadow(in);
  EXPECT_TRUE(r.experts.empty());
  EXPECT_EQ(r.broadcast_bytes, 0);
  EXPECT_DOUBLE_EQ(r.total_s, r.static_time_s);
  // By hand: expert 0's tokens to virtual experts 4 + home, whole on their home.
  Placement p = in.placement;
  for (int v = 0; v < 4; ++v) p.experts.push_back({{Copy{{{v, 1.0}}}}});
  LayerBatch b = in.batch;
  for (std::size_t t = 0; t < b.expert_ids.size(); ++t)
    if (b.expert_ids[t] == 0) b.expert_ids[t] = 4 + b.home[t];
  const double with = simulate_layer(in.mesh, p, b).time_s +
                      xy_tree_broadcast(in.mesh, 0, expert_bytes(in.batch)).time_s;
  EXPECT_GE(with, r.static_time_s);
}

TEST(Shadow, LimitsThresholdAndMemory) {
  ShadowInput in;
  in.mesh = mesh(2, 2);
  in.mesh.node_flops = 1e10;
  in.mesh.link_Bps = 1e10;
  in.placement = ep(4, 4);
  in.batch = top1(skewed(180, 20), 4, 64, 128);
  in.max_shadowed = 0;
  EXPECT_TRUE(shadow(in).experts.empty());
  in.max_shadowed = 2;
  in.threshold = 4;  // 180 tokens = 3.6 × the mean 50: not a candidate
  EXPECT_TRUE(shadow(in).experts.empty());
  in.threshold = 2;
  in.capacity_bytes_per_node = 1.5 * expert_bytes(in.batch);  // no room for a second expert
  const auto r = shadow(in);
  EXPECT_TRUE(r.experts.empty());
  EXPECT_EQ(r.skipped, std::vector<int>{0});
  EXPECT_DOUBLE_EQ(r.total_s, r.static_time_s);
}

TEST(Shadow, BadInputNamesTheField) {
  ShadowInput good;
  good.mesh = mesh(2, 2);
  good.placement = ep(4, 4);
  good.batch = top1(skewed(8, 4), 4, 64, 128);
  auto in = good;
  in.max_shadowed = -1;
  EXPECT_NE(error_of([&] { (void)shadow(in); }).find("max_shadowed"), std::string::npos);
  in = good;
  in.threshold = std::nan("");
  EXPECT_NE(error_of([&] { (void)shadow(in); }).find("threshold"), std::string::npos);
  in = good;
  in.capacity_bytes_per_node = 0;
  EXPECT_NE(error_of([&] { (void)shadow(in); }).find("capacity"), std::string::npos);
  in = good;
  in.batch.expert_ids[0] = 7;
  const auto m = error_of([&] { (void)shadow(in); });
  EXPECT_NE(m.find("shadow"), std::string::npos) << m;
  EXPECT_NE(m.find("expert_ids"), std::string::npos) << m;
}

}  // namespace
}  // namespace stackscope::experts
