// SPDX-License-Identifier: GPL-3.0-or-later
// The discrete-event MoE-layer estimator on a 2D mesh (core/experts mesh_sim.hpp, placement.hpp;
// docs/model.md §12.2). Golden values are derived by hand in the comments from the model
// stated in mesh_sim.hpp: a chunk of b bytes takes τ = α + b/β per link (Hockney's α–β model),
// chunks store-and-forward hop by hop along XY routes, links serve FIFO.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "stackscope/experts/mesh_sim.hpp"
#include "stackscope/experts/placement.hpp"
#include "stackscope/moe/trace.hpp"

namespace stackscope::experts {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Copy whole(int node) {
  return Copy{{{node, 1.0}}};
}

Copy spread(int nodes) {
  Copy c;
  for (int n = 0; n < nodes; ++n) c.shares.push_back({n, 1.0 / nodes});
  return c;
}

Placement ep(int experts, int nodes) {  // expert e whole on node e mod N
  Placement p;
  for (int e = 0; e < experts; ++e) p.experts.push_back({{whole(e % nodes)}});
  return p;
}

Placement tp(int experts, int nodes) {
  Placement p;
  for (int e = 0; e < experts; ++e) p.experts.push_back({{spread(nodes)}});
  return p;
}

// A mesh with round numbers: β = 1 GB/s, α = 0.1 µs, FP32 activations.
MeshConfig mesh(int x, int y, double chunk = 1024) {
  MeshConfig m;
  m.x = x;
  m.y = y;
  m.node_flops = 1e12;
  m.mem_Bps = 625e9;
  m.link_Bps = 1e9;
  m.alpha_s = 1e-7;
  m.chunk_bytes = chunk;
  m.activation_bytes = 4;
  return m;
}

LayerBatch batch(int k, std::vector<int> ids, std::vector<int> home, int h = 1024,
                 int inter = 512) {
  LayerBatch b;
  b.top_k = k;
  b.expert_ids = std::move(ids);
  b.home = std::move(home);
  b.hidden = h;
  b.intermediate = inter;
  b.weight_bytes = 2;
  return b;
}

const LinkStats& link(const LayerResult& r, int from, int to) {
  for (const auto& l : r.links)
    if (l.from == from && l.to == to) return l;
  throw std::out_of_range("no link " + std::to_string(from) + "->" + std::to_string(to));
}

std::set<std::pair<int, int>> busy_links(const LayerResult& r) {
  std::set<std::pair<int, int>> s;
  for (const auto& l : r.links)
    if (l.chunks > 0) s.insert({l.from, l.to});
  return s;
}

// Conservation checked on every result: bytes injected = delivered = Σ messages; Σ link bytes =
// Σ message bytes × hops; per-node sent and received sum to the same; every message delivered.
void expect_conserved(const LayerResult& r) {
  double msg = 0, msg_hops = 0, sent = 0, recv = 0, links = 0, link_sum = 0;
  for (const auto& m : r.messages) {
    EXPECT_TRUE(m.delivered);
    EXPECT_LE(m.finish_s, r.time_s * (1 + 1e-12));
    msg += m.bytes;
    msg_hops += m.bytes * m.hops;
  }
  for (const auto& n : r.nodes) sent += n.bytes_sent, recv += n.bytes_received;
  for (const auto& l : r.links) links += l.bytes, link_sum += l.bytes;
  EXPECT_NEAR(r.bytes_injected, msg, 1e-9 * msg + 1e-9);
  EXPECT_NEAR(r.bytes_delivered, msg, 1e-9 * msg + 1e-9);
  EXPECT_NEAR(sent, msg, 1e-9 * msg + 1e-9);
  EXPECT_NEAR(recv, msg, 1e-9 * msg + 1e-9);
  EXPECT_NEAR(links, msg_hops, 1e-9 * msg_hops + 1e-9);
  EXPECT_NEAR(r.link_bytes, link_sum, 1e-9 * link_sum + 1e-9);
}

TEST(MeshSim, XyRouteGoesAlongXFirst) {
  const MeshConfig m = mesh(4, 4);
  EXPECT_EQ(xy_route(m, 0, 15), (std::vector<int>{0, 1, 2, 3, 7, 11, 15}));
  EXPECT_EQ(xy_route(m, 15, 0), (std::vector<int>{15, 14, 13, 12, 8, 4, 0}));
  EXPECT_EQ(xy_route(m, 6, 6), (std::vector<int>{6}));
  EXPECT_THROW((void)xy_route(m, 0, 16), std::invalid_argument);
}

TEST(MeshSim, SingleMessageOneHopIsTheChunkPipeline) {
  // 1×2 mesh, one token at node 0, its expert on node 1 (EP). B = h·4 = 4096 bytes in n = 4
  // chunks of 1024: one hop takes n·τ = n·(α + c/β) = 4·(1e-7 + 1.024e-6) = 4.496e-6 s; the
  // combine back is the same. Compute (T = 1, memory-bound): weights 3·h·I·2 = 3,145,728 B /
  // 625e9 = 5.0331648e-6 s (FLOPs 6·h·I = 3,145,728 / 1e12 = 3.1e-6 s is less).
  const auto r = simulate_layer(mesh(2, 1), ep(2, 2), batch(1, {1}, {0}));
  const double tau = 1e-7 + 1024 / 1e9;
  const double comp = 3.0 * 1024 * 512 * 2 / 625e9;
  EXPECT_NEAR(r.dispatch_end_s, 4 * tau, 1e-15);
  EXPECT_NEAR(r.nodes[1].compute_start_s, 4 * tau, 1e-15);
  EXPECT_NEAR(r.nodes[1].compute_s, comp, 1e-15);
  EXPECT_NEAR(r.compute_end_s, 4 * tau + comp, 1e-15);
  EXPECT_NEAR(r.time_s, 8 * tau + comp, 1e-15);
  EXPECT_NEAR(r.combine_end_s, r.time_s, 0);
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].chunks, 4);
  EXPECT_EQ(r.messages[0].phase, Phase::dispatch);
  EXPECT_EQ(r.messages[1].phase, Phase::combine);
  EXPECT_EQ(r.messages[1].src, 1);
  EXPECT_EQ(r.messages[1].dst, 0);
  EXPECT_NEAR(link(r, 0, 1).busy_s, 4 * tau, 1e-15);
  EXPECT_DOUBLE_EQ(link(r, 0, 1).bytes, 4096);
  EXPECT_DOUBLE_EQ(link(r, 1, 0).bytes, 4096);
  // 4 chunks × (1 hop + arrival) per message × 2 messages + 2 compute events = 18.
  EXPECT_EQ(r.events, 18);
  expect_conserved(r);
}

TEST(MeshSim, ChunksPipelineOverHops) {
  // 1×4 mesh (x = 4), token at node 0, expert on node 3: 3 hops. Store-and-forward with n equal
  // chunks: the last chunk leaves the first link at n·τ and needs H − 1 more τ: (n + H − 1)·τ
  // = 6τ. With one chunk the whole message pays H·τ' (τ' = α + B/β): 3·(1e-7 + 4.096e-6).
  const double tau = 1e-7 + 1024 / 1e9;
  const auto r = simulate_layer(mesh(4, 1), ep(4, 4), batch(1, {3}, {0}));
  EXPECT_NEAR(r.dispatch_end_s, 6 * tau, 1e-15);
  const auto r1 = simulate_layer(mesh(4, 1, 4096), ep(4, 4), batch(1, {3}, {0}));
  EXPECT_NEAR(r1.dispatch_end_s, 3 * (1e-7 + 4096 / 1e9), 1e-15);
  // A remainder chunk: chunk 1500 B → chunks 1500, 1500, 1096. One hop (1×2): 3α + 4096/β.
  const auto r2 = simulate_layer(mesh(2, 1, 1500), ep(2, 2), batch(1, {1}, {0}));
  EXPECT_EQ(r2.messages[0].chunks, 3);
  EXPECT_NEAR(r2.dispatch_end_s, 3e-7 + 4096 / 1e9, 1e-15);
  expect_conserved(r);
}

TEST(MeshSim, UniformTensorParallelAllToAllOn2x2) {
  // 2×2 mesh (0 = (0,0), 1 = (1,0), 2 = (0,1), 3 = (1,1)); 4 tokens, token t at home t, all on
  // expert 0, which TP splits 1/4 over the 4 nodes. Each node sends its token (B = 1024 B here,
  // h = 256, n = 4 chunks of 256, τ = α + 256/β) to the 3 others: 12 messages, 4 of them 2 hops,
  // Σ bytes × hops = 16B, 2B on each of the 8 directed links (XY: e.g. 0→1 carries 0→1 and
  // 0→3; 0→2 carries 0→2 and 1→2). Every link is busy 2n·τ.
  // Dispatch end by hand: node 0 queues 0→1 then 0→3 on link 0→1 (ends 2nτ); 0→3's chunks reach
  // node 1 at (n+1)τ..2nτ, link 1→3 is free after 1→3 (nτ), so the last arrives at (2n+1)τ.
  // Node 1 symmetric (1→2 via 0). Nodes 2, 3 send their 2-hop message first and finish at 2nτ.
  // Compute starts: nodes 0, 1 at 2nτ, nodes 2, 3 at (2n+1)τ. Each node: 4 tokens × 1/4 × 6hI
  // FLOPs = 6·256·512 = 786,432 → 7.86432e-7 s at 1 TFLOP/s (weights 196,608 B / 625 GB/s =
  // 3.1e-7 s: compute-bound). Combine is the same traffic with nodes 2, 3 starting τ later;
  // their 2-hop messages then queue behind the other node's own message on the second link,
  // and every 2-hop combine ends at S0 + (2n+1)τ, S0 = 2nτ + t_c: layer = (4n+1)τ + t_c.
  const int n = 4;
  const double tau = 1e-7 + 256 / 1e9;
  const double tc = 6.0 * 256 * 512 / 1e12;
  const auto r =
      simulate_layer(mesh(2, 2, 256), tp(1, 4), batch(1, {0, 0, 0, 0}, {0, 1, 2, 3}, 256, 512));
  EXPECT_EQ(r.messages.size(), 24u);
  EXPECT_EQ(r.links.size(), 8u);
  for (const auto& l : r.links) {
    EXPECT_DOUBLE_EQ(l.bytes, 2 * 2048) << l.from << "->" << l.to;            // 2B per phase
    EXPECT_NEAR(l.busy_s, 2 * 2 * n * tau, 1e-15) << l.from << "->" << l.to;  // both phases
  }
  EXPECT_NEAR(r.dispatch_end_s, (2 * n + 1) * tau, 1e-15);
  EXPECT_NEAR(r.nodes[0].compute_start_s, 2 * n * tau, 1e-15);
  EXPECT_NEAR(r.nodes[1].compute_start_s, 2 * n * tau, 1e-15);
  EXPECT_NEAR(r.nodes[2].compute_start_s, (2 * n + 1) * tau, 1e-15);
  EXPECT_NEAR(r.nodes[3].compute_start_s, (2 * n + 1) * tau, 1e-15);
  for (const auto& nd : r.nodes) {
    EXPECT_DOUBLE_EQ(nd.flops, 786432);
    EXPECT_NEAR(nd.compute_s, tc, 1e-18);
    EXPECT_EQ(nd.tokens, 4);
    EXPECT_DOUBLE_EQ(nd.bytes_sent, 2 * 3 * 1024);
  }
  EXPECT_NEAR(r.compute_end_s, (2 * n + 1) * tau + tc, 1e-15);
  EXPECT_NEAR(r.time_s, (4 * n + 1) * tau + tc, 1e-15);
  EXPECT_DOUBLE_EQ(r.load_imbalance, 1.0);
  EXPECT_DOUBLE_EQ(r.bytes_injected, 24 * 1024);
  EXPECT_DOUBLE_EQ(r.link_bytes, 2 * 16 * 1024);
  expect_conserved(r);
}

TEST(MeshSim, XyRoutingUsesTheExpectedLinks) {
  // 3×3 mesh, token at node 0 (0,0), its expert on node 8 (2,2): dispatch 0→1→2→5→8, combine
  // 8→7→6→3→0 (x first both ways). Exactly these 8 directed links carry traffic.
  const auto r = simulate_layer(mesh(3, 3), ep(9, 9), batch(1, {8}, {0}));
  const std::set<std::pair<int, int>> want{{0, 1}, {1, 2}, {2, 5}, {5, 8},
                                           {8, 7}, {7, 6}, {6, 3}, {3, 0}};
  EXPECT_EQ(busy_links(r), want);
  EXPECT_EQ(r.links.size(), 24u);  // 2·(X−1)·Y + 2·X·(Y−1) directed links
  EXPECT_EQ(r.messages[0].hops, 4);
  expect_conserved(r);
}

TEST(MeshSim, HomeHoldingTheExpertSendsNothing) {
  // Token at node 2 of a 2×2 mesh, its expert whole on node 2: no message, time = compute.
  const auto r = simulate_layer(mesh(2, 2), ep(4, 4), batch(1, {2}, {2}));
  EXPECT_TRUE(r.messages.empty());
  EXPECT_DOUBLE_EQ(r.bytes_injected, 0);
  EXPECT_TRUE(busy_links(r).empty());
  EXPECT_DOUBLE_EQ(r.dispatch_end_s, 0);
  EXPECT_NEAR(r.time_s, 3.0 * 1024 * 512 * 2 / 625e9, 1e-18);
  EXPECT_DOUBLE_EQ(r.combine_end_s, r.compute_end_s);
  EXPECT_EQ(r.events, 4);                   // one compute event per node
  EXPECT_DOUBLE_EQ(r.load_imbalance, 4.0);  // one busy node of four
}

TEST(MeshSim, OrRuleSendsAHiddenStateOncePerNode) {
  // Token at node 0 of a 1×2 mesh selects experts 1 and 3, both whole on node 1: node 1
  // receives the hidden state once (4096 B, not 8192) and returns one partial output; its
  // FLOPs count both experts (2·6hI), its weights both experts.
  const auto r = simulate_layer(mesh(2, 1), ep(4, 2), batch(2, {1, 3}, {0}));
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_DOUBLE_EQ(r.messages[0].bytes, 4096);
  EXPECT_EQ(r.messages[0].tokens, 1);
  EXPECT_DOUBLE_EQ(r.nodes[1].bytes_received, 4096);
  EXPECT_DOUBLE_EQ(r.nodes[0].bytes_received, 4096);
  EXPECT_DOUBLE_EQ(r.nodes[1].flops, 2 * 6.0 * 1024 * 512);
  EXPECT_DOUBLE_EQ(r.nodes[1].weight_bytes, 2 * 3.0 * 1024 * 512 * 2);
  EXPECT_EQ(r.nodes[1].tokens, 1);
  // Experts 0 and 1 on different nodes of a 1×3 mesh (home 2): two messages of 4096 B.
  const auto r2 = simulate_layer(mesh(3, 1), ep(3, 3), batch(2, {0, 1}, {2}));
  EXPECT_DOUBLE_EQ(r2.bytes_injected, 4 * 4096);
  expect_conserved(r);
  expect_conserved(r2);
}

TEST(MeshSim, LeastLoadedBalancesTwoCopies) {
  // 1×2 mesh. Expert 0 has copies on nodes 0 and 1; expert 1 lives on node 0 only. Tokens (all
  // at home 0): e1, e1, e0, e0. Round robin sends the e0 tokens to copies 0, 1: node 0 gets 3
  // tokens, node 1 one. Least loaded sees node 0 at 2 tokens, node 1 at 0 → node 1, then 2 vs 1
  // → node 1: 2 and 2.
  Placement p;
  p.experts.push_back({{whole(0), whole(1)}});
  p.experts.push_back({{whole(0)}});
  const LayerBatch b = batch(1, {1, 1, 0, 0}, {0, 0, 0, 0});
  const double f = 6.0 * 1024 * 512;
  MeshConfig m = mesh(2, 1);
  m.mem_Bps = 1e18;  // compute-bound, so compute time follows FLOPs
  const auto rr = simulate_layer(m, p, b, CopyChoice::round_robin);
  EXPECT_DOUBLE_EQ(rr.nodes[0].flops, 3 * f);
  EXPECT_DOUBLE_EQ(rr.nodes[1].flops, 1 * f);
  EXPECT_DOUBLE_EQ(rr.load_imbalance, 1.5);  // 3 / mean(3, 1)
  const auto ll = simulate_layer(m, p, b, CopyChoice::least_loaded);
  EXPECT_DOUBLE_EQ(ll.nodes[0].flops, 2 * f);
  EXPECT_DOUBLE_EQ(ll.nodes[1].flops, 2 * f);
  EXPECT_DOUBLE_EQ(ll.load_imbalance, 1.0);
  EXPECT_EQ(ll.messages[0].tokens, 2);  // node 1 receives two hidden states in one message
  expect_conserved(rr);
  expect_conserved(ll);
}

TEST(MeshSim, RooflineMemoryBoundAtOneTokenComputeBoundAtMany) {
  // Mixtral-shaped expert (h = 4096, I = 14336, BF16) on one node at HD-MoE's first point
  // (2.5 TFLOP/s, 625 GB/s): 6hI = 352,321,536 FLOPs per token, 3hI·2 = 352,321,536 weight
  // bytes. T = 1: memory-bound, 352,321,536 / 625e9 = 5.63714458e-4 s. T = 64: compute-bound,
  // 64 · 352,321,536 / 2.5e12 = 9.01943132e-3 s (weights still read once).
  MeshConfig m;
  m.x = 1;
  m.y = 1;
  const double w = 3.0 * 4096 * 14336 * 2;
  const auto r1 = simulate_layer(m, ep(1, 1), batch(1, {0}, {0}, 4096, 14336));
  EXPECT_NEAR(r1.time_s, w / 625e9, 1e-15);
  EXPECT_NEAR(r1.time_s, 5.63714458e-4, 1e-12);
  EXPECT_DOUBLE_EQ(r1.nodes[0].weight_bytes, w);
  const auto r64 = simulate_layer(
      m, ep(1, 1), batch(1, std::vector<int>(64, 0), std::vector<int>(64, 0), 4096, 14336));
  EXPECT_NEAR(r64.time_s, 9.01943132e-3, 1e-11);
  EXPECT_DOUBLE_EQ(r64.nodes[0].weight_bytes, w);
  EXPECT_DOUBLE_EQ(r64.nodes[0].flops, 64 * 6.0 * 4096 * 14336);
}

TEST(MeshSim, ConservationOnASyntheticTraceWithMixedPlacement) {
  // 4×4 mesh, 16 experts top-2, 64 tokens from a seeded Zipf trace, home t mod 16. Placement
  // mixes EP, TP, two-copy replicas and a 3-node HD-style split. Beside the conservation
  // checks, the total injected bytes must equal 2 · B · Σ_t |nodes(t) \ {home}| counted here
  // independently (single-copy experts only, so the set does not depend on the copy choice).
  workload::Routing zipf;
  zipf.kind = workload::RoutingKind::zipf;
  zipf.zipf_s = 1.1;
  zipf.seed = 5;
  const auto trace = moe::synthetic_trace(zipf, 16, 2, 1, 64, 11);
  Placement p = ep(16, 16);
  p.experts[0] = {{spread(16)}};
  p.experts[1] = {{Copy{{{3, 0.5}, {4, 0.25}, {9, 0.25}}}}};
  const auto b = batch_from_trace(trace, 0, 16, 512, 256);
  std::size_t remote = 0;
  for (std::size_t t = 0; t < b.tokens(); ++t) {
    std::set<int> nodes;
    for (int j = 0; j < 2; ++j)
      for (const auto& s :
           p.experts[static_cast<std::size_t>(b.expert_ids[t * 2 + j])].copies[0].shares)
        nodes.insert(s.node);
    nodes.erase(b.home[t]);
    remote += nodes.size();
  }
  const auto r = simulate_layer(mesh(4, 4, 700), p, b);
  EXPECT_DOUBLE_EQ(r.bytes_injected, 2.0 * 512 * 4 * static_cast<double>(remote));
  expect_conserved(r);
  // Replicas: expert 2 on nodes 2 and 13 under both policies, conservation still holds.
  p.experts[2] = {{whole(2), whole(13)}};
  expect_conserved(simulate_layer(mesh(4, 4, 700), p, b, CopyChoice::round_robin));
  expect_conserved(simulate_layer(mesh(4, 4, 700), p, b, CopyChoice::least_loaded));
  // Deterministic: the same input gives the same result.
  const auto again = simulate_layer(mesh(4, 4, 700), ep(16, 16), b);
  const auto again2 = simulate_layer(mesh(4, 4, 700), ep(16, 16), b);
  EXPECT_EQ(again.time_s, again2.time_s);
  EXPECT_EQ(again.events, again2.events);
}

TEST(MeshSim, DeepSeekLikeLayerOn8x8) {
  // The speed case of the brief: 8×8 mesh, 512 tokens, top-8 of 64 experts (Qwen2-57B shapes,
  // h = 3584, I = 2560), EP. Timed by the test runner only; checks conservation.
  workload::Routing uni;
  const auto trace = moe::synthetic_trace(uni, 64, 8, 1, 512, 3);
  MeshConfig m;
  m.x = 8;
  m.y = 8;
  const auto r = simulate_layer(m, ep(64, 64), batch_from_trace(trace, 0, 64, 3584, 2560));
  EXPECT_GT(r.time_s, 0);
  EXPECT_GE(r.time_s, r.compute_end_s);
  EXPECT_GE(r.compute_end_s, r.dispatch_end_s);
  expect_conserved(r);
}

void expect_issue(const std::vector<Issue>& issues, const std::string& path,
                  const std::string& message_part) {
  for (const auto& i : issues)
    if (i.path == path && i.message.find(message_part) != std::string::npos) {
      EXPECT_FALSE(i.allowed.empty());
      EXPECT_FALSE(i.value.empty());
      return;
    }
  ADD_FAILURE() << "no issue at " << path << " containing '" << message_part
                << "'; got: " << format_issues(issues);
}

TEST(Placement, ValidateCatchesEachBadPlacement) {
  EXPECT_TRUE(validate(ep(4, 2), 4, 2, 100, kInf).empty());
  EXPECT_TRUE(validate(tp(4, 3), 4, 3, 100, kInf).empty());  // 1/3 · 3 within 1e-9
  Placement missing = ep(3, 2);
  expect_issue(validate(missing, 4, 2, 100, kInf), "/experts/3", "not placed");
  Placement no_copy = ep(4, 2);
  no_copy.experts[1].copies.clear();
  expect_issue(validate(no_copy, 4, 2, 100, kInf), "/experts/1/copies", "no copy");
  Placement frac = ep(4, 2);
  frac.experts[2].copies[0] = Copy{{{0, 1.5}}};
  expect_issue(validate(frac, 4, 2, 100, kInf), "/experts/2/copies/0/shares/0/fraction",
               "out of range");
  Placement zero = ep(4, 2);
  zero.experts[2].copies[0] = Copy{{{0, 1.0}, {1, 0.0}}};
  expect_issue(validate(zero, 4, 2, 100, kInf), "/experts/2/copies/0/shares/1/fraction",
               "out of range");
  Placement sum = ep(4, 2);
  sum.experts[0].copies.push_back(Copy{{{0, 0.5}, {1, 0.4}}});
  expect_issue(validate(sum, 4, 2, 100, kInf), "/experts/0/copies/1/shares", "sum to 1");
  Placement node = ep(4, 2);
  node.experts[3].copies[0] = whole(2);
  expect_issue(validate(node, 4, 2, 100, kInf), "/experts/3/copies/0/shares/0/node",
               "out of range");
  Placement twice = ep(4, 2);
  twice.experts[3].copies[0] = Copy{{{1, 0.5}, {1, 0.5}}};
  expect_issue(validate(twice, 4, 2, 100, kInf), "/experts/3/copies/0/shares/1/node", "twice");
  // Capacity: EP of 4 experts × 100 B on 2 nodes puts 200 B on each node.
  EXPECT_TRUE(validate(ep(4, 2), 4, 2, 100, 200).empty());
  expect_issue(validate(ep(4, 2), 4, 2, 100, 199), "/nodes/0", "capacity");
  // TP spreads the same 400 B as 200 B per node; a replica of expert 0 adds 100 B on node 1.
  Placement rep = tp(4, 2);
  rep.experts[0].copies.push_back(whole(1));
  const auto issues = validate(rep, 4, 2, 100, 250);
  ASSERT_EQ(issues.size(), 1u) << format_issues(issues);
  EXPECT_EQ(issues[0].path, "/nodes/1");
  EXPECT_EQ(issues[0].value, "300");
  expect_issue(validate(ep(5, 2), 4, 2, 100, kInf), "/experts", "more experts");
  EXPECT_THROW((void)validate(ep(4, 2), 4, 0, 100, kInf), std::invalid_argument);
}

void expect_throw(const MeshConfig& m, const Placement& p, const LayerBatch& b,
                  const std::string& part) {
  try {
    (void)simulate_layer(m, p, b);
    ADD_FAILURE() << "accepted; expected an error containing " << part;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(MeshSim, BadInputsNameTheField) {
  const MeshConfig m = mesh(2, 1);
  const Placement p = ep(4, 2);
  const LayerBatch good = batch(2, {0, 1, 2, 3}, {0, 1});
  EXPECT_NO_THROW((void)simulate_layer(m, p, good));
  expect_throw(m, p, batch(2, {0, 1, 2}, {0, 1}), "batch.expert_ids holds 3 ids");
  expect_throw(m, p, batch(5, {0, 1, 2, 3, 0}, {0}), "batch.top_k = 5 out of range (allowed: 1..4");
  expect_throw(m, p, batch(2, {0, 1, 2, 4}, {0, 1}),
               "batch.expert_ids[3] (token 1) = 4 out of range (allowed: 0..3)");
  expect_throw(m, p, batch(2, {0, 1, 2, 2}, {0, 1}), "token 1 selects expert 2 twice");
  expect_throw(m, p, batch(2, {0, 1, 2, 3}, {0, 2}),
               "batch.home[1] = 2 out of range (allowed: 0..1)");
  expect_throw(m, p, batch(2, {0, 1, 2, 3}, {0, 1}, 0), "batch.hidden = 0");
  expect_throw(m, p, batch(2, {0, 1, 2, 3}, {0, 1}, 8, -1), "batch.intermediate = -1");
  LayerBatch wb = good;
  wb.weight_bytes = 0;
  expect_throw(m, p, wb, "batch.weight_bytes = 0");
  expect_throw(mesh(0, 3), p, good, "mesh.x × mesh.y = 0 × 3 out of range");
  MeshConfig bad = m;
  bad.link_Bps = 0;
  expect_throw(bad, p, good, "mesh.link_Bps = 0 out of range");
  bad = m;
  bad.node_flops = -1;
  expect_throw(bad, p, good, "mesh.node_flops = -1");
  bad = m;
  bad.mem_Bps = std::numeric_limits<double>::quiet_NaN();
  expect_throw(bad, p, good, "mesh.mem_Bps = nan");
  bad = m;
  bad.chunk_bytes = 0;
  expect_throw(bad, p, good, "mesh.chunk_bytes = 0");
  bad = m;
  bad.activation_bytes = 0;
  expect_throw(bad, p, good, "mesh.activation_bytes = 0");
  bad = m;
  bad.alpha_s = -1e-9;
  expect_throw(bad, p, good, "mesh.alpha_s = -1e-09");
  Placement off = p;
  off.experts[1].copies[0] = whole(5);
  expect_throw(m, off, good, "/experts/1/copies/0/shares/0/node");
  expect_throw(m, Placement{}, good, "placement.experts is empty");
}

}  // namespace
}  // namespace stackscope::experts
