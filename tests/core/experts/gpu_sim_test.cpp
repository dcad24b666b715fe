// SPDX-License-Identifier: GPL-3.0-or-later
// The MoE-layer estimator on GPU systems (core/experts/gpu_sim.hpp): closed forms on a 2-GPU
// switch where the network charges alpha + path latency + bytes / bandwidth, the OR rule,
// conservation and the transposed combine on 8 GPUs, monotonicity in bandwidth, the barrier, and
// the errors for unusable input.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>

#include "stackscope/experts/gpu_sim.hpp"
#include "stackscope/experts/strategies.hpp"
#include "stackscope/moe/trace.hpp"

namespace stackscope::experts {
namespace {

// `devices` GPUs on one switch level: per-port bw_GBps (efficiency 1), hop 500 ns per link
// (GPU -> switch -> GPU: 2 hops), step alpha 3 us.
hw::System switch_system(int devices, double bw_GBps = 100) {
  hw::System s;
  s.id = "test-switch";
  s.devices = devices;
  hw::NetworkLevel l;
  l.name = "switch";
  l.topology = hw::Topology::switch_fabric;
  l.size = devices;
  l.link_GBps = bw_GBps;
  l.efficiency = 1;
  l.hop_latency_ns = 500;
  l.latency_us = 3;
  s.levels.push_back(l);
  return s;
}

GpuConfig config() {
  GpuConfig c;
  c.gpu_flops = 100e12;
  c.mem_Bps = 1e12;
  return c;
}

LayerBatch batch(int top_k, std::vector<int> ids, std::vector<int> home) {
  LayerBatch b;
  b.top_k = top_k;
  b.expert_ids = std::move(ids);
  b.home = std::move(home);
  b.hidden = 1024;
  b.intermediate = 512;
  b.weight_bytes = 2;
  return b;
}

bool throws_with(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).find(needle) != std::string::npos) return true;
    ADD_FAILURE() << "message: " << e.what();
    return false;
  }
  ADD_FAILURE() << "no exception";
  return false;
}

// One token on GPU 0, its one expert on GPU 1: the dispatch is one flow of h × 2 B = 2048 B
// over 2 hops: 3 us alpha + 2 × 0.5 us + 2048 B / 100 GB/s. Compute on GPU 1 alone:
// max(6 h I / 100 TFLOPS, 3 h I × 2 B / 1 TB/s) = max(31.5 ns, 3.15 us). Combine the same
// bytes back. Layer = the sum.
TEST(GpuSim, OneRemoteTokenMatchesTheClosedForm) {
  const network::Topology topo(switch_system(2));
  const auto r = simulate_gpu_layer(topo, config(), ep_placement(2, 2), batch(1, {1}, {0}));
  const double h = 1024, i = 512;
  const double wire = 3e-6 + 2 * 0.5e-6 + h * 2 / 100e9;
  EXPECT_NEAR(r.dispatch_s, wire, 1e-15);
  EXPECT_NEAR(r.dispatch_alpha_s, 3e-6, 1e-18);
  const double compute = std::max(6 * h * i / 100e12, 3 * h * i * 2 / 1e12);
  EXPECT_NEAR(r.gpus[1].compute_s, compute, 1e-18);
  EXPECT_EQ(r.gpus[0].compute_s, 0.0);
  EXPECT_NEAR(r.compute_s, compute, 1e-18);
  EXPECT_NEAR(r.combine_s, wire, 1e-15);
  EXPECT_NEAR(r.time_s, 2 * wire + compute, 1e-15);
  EXPECT_DOUBLE_EQ(r.dispatch_bytes[0 * 2 + 1], h * 2);
  EXPECT_DOUBLE_EQ(r.combine_bytes[1 * 2 + 0], h * 2);
  EXPECT_DOUBLE_EQ(r.bytes_injected, 4 * h);
  EXPECT_DOUBLE_EQ(r.bytes_delivered, 4 * h);
  EXPECT_DOUBLE_EQ(r.compute_imbalance, 2.0);  // all on one of two GPUs
  EXPECT_DOUBLE_EQ(r.token_imbalance, 2.0);
}

// A local expert costs no transfer: the layer is the compute alone.
TEST(GpuSim, LocalTokensNeedNoNetwork) {
  const network::Topology topo(switch_system(2));
  const auto r = simulate_gpu_layer(topo, config(), ep_placement(2, 2), batch(1, {0, 1}, {0, 1}));
  EXPECT_EQ(r.dispatch_s, 0.0);
  EXPECT_EQ(r.combine_s, 0.0);
  EXPECT_EQ(r.dispatch_alpha_s, 0.0);
  EXPECT_EQ(r.bytes_injected, 0.0);
  EXPECT_DOUBLE_EQ(r.time_s, r.compute_s);
  EXPECT_DOUBLE_EQ(r.compute_imbalance, 1.0);
}

// The OR: experts 1 and 3 of a token both on GPU 1 (EP, e mod 2) → one hidden state sent, two
// assignments and twice the FLOPs, one token.
TEST(GpuSim, OrRuleSendsATokenOncePerGpu) {
  const network::Topology topo(switch_system(2));
  const auto r = simulate_gpu_layer(topo, config(), ep_placement(4, 2), batch(2, {1, 3}, {0}));
  EXPECT_DOUBLE_EQ(r.dispatch_bytes[1], 1024 * 2.0);
  EXPECT_EQ(r.gpus[1].tokens, 1);
  EXPECT_EQ(r.gpus[1].assignments, 2);
  EXPECT_DOUBLE_EQ(r.gpus[1].flops, 2 * 6.0 * 1024 * 512);
  EXPECT_DOUBLE_EQ(r.gpus[1].weight_bytes, 2 * 3.0 * 1024 * 512 * 2);
  // Experts 0 and 1 (one per GPU) from GPU 0: one flow to GPU 1, nothing to itself.
  const auto s = simulate_gpu_layer(topo, config(), ep_placement(4, 2), batch(2, {0, 1}, {0}));
  EXPECT_DOUBLE_EQ(s.dispatch_bytes[0], 0.0);
  EXPECT_DOUBLE_EQ(s.dispatch_bytes[1], 1024 * 2.0);
  EXPECT_EQ(s.gpus[0].tokens, 1);
  EXPECT_EQ(s.gpus[1].tokens, 1);
}

// A skewed trace on 8 GPUs under EPLB: bytes sent = bytes received per phase and GPU,
// combine = dispatch transposed (same units here), Σ assignments = tokens × k, the barrier.
TEST(GpuSim, ConservesBytesAndTransposesTheCombine) {
  const network::Topology topo(switch_system(8));
  workload::Routing zipf;
  zipf.kind = workload::RoutingKind::zipf;
  zipf.zipf_s = 1.0;
  const auto trace = moe::synthetic_trace(zipf, 64, 4, 1, 512, 7);
  const auto b = batch_from_trace(trace, 0, 8, 1024, 512);
  std::vector<double> loads(64, 0.0);
  for (const auto e : trace.layers[0]) loads[e] += 1;
  const auto p = eplb_placement(loads, 8, 16);
  const auto r = simulate_gpu_layer(topo, config(), p, b);
  double sent = 0, received = 0;
  int assignments = 0;
  for (int g = 0; g < 8; ++g) {
    double row = 0, col = 0;
    for (int d = 0; d < 8; ++d) {
      row += r.dispatch_bytes[g * 8 + d];
      col += r.dispatch_bytes[d * 8 + g];
      EXPECT_DOUBLE_EQ(r.combine_bytes[d * 8 + g], r.dispatch_bytes[g * 8 + d]);
    }
    EXPECT_DOUBLE_EQ(r.gpus[g].dispatch_sent_bytes, row) << g;
    EXPECT_NEAR(r.gpus[g].dispatch_received_bytes, col, 1e-6) << g;
    EXPECT_NEAR(r.gpus[g].combine_received_bytes, row, 1e-6) << g;
    sent += r.gpus[g].dispatch_sent_bytes + r.gpus[g].combine_sent_bytes;
    received += r.gpus[g].dispatch_received_bytes + r.gpus[g].combine_received_bytes;
    assignments += r.gpus[g].assignments;
  }
  EXPECT_GT(sent, 0.0);
  EXPECT_NEAR(sent, received, 1e-6);
  EXPECT_NEAR(r.bytes_injected, r.bytes_delivered, 1e-6);
  EXPECT_EQ(assignments, 512 * 4);
  EXPECT_DOUBLE_EQ(r.time_s, r.dispatch_s + r.compute_s + r.combine_s);
  EXPECT_GE(r.compute_imbalance, 1.0);
  EXPECT_GE(r.assignment_imbalance, 1.0);
  // Deterministic.
  const auto again = simulate_gpu_layer(topo, config(), p, b);
  EXPECT_EQ(again.time_s, r.time_s);
  // More link bandwidth is never slower; compute is untouched by it.
  const network::Topology fast(switch_system(8, 400));
  const auto f = simulate_gpu_layer(fast, config(), p, b);
  EXPECT_LT(f.dispatch_s, r.dispatch_s);
  EXPECT_LE(f.time_s, r.time_s);
  EXPECT_EQ(f.compute_s, r.compute_s);
}

// Efficiencies divide the rates: half the FLOP rate doubles a compute-bound GPU's time.
TEST(GpuSim, EfficienciesScaleTheRoofline) {
  const network::Topology topo(switch_system(2));
  GpuConfig c = config();
  c.mem_Bps = 1e15;  // compute-bound
  const auto b = batch(1, {0}, {0});
  const auto full = simulate_gpu_layer(topo, c, ep_placement(2, 2), b);
  c.flops_efficiency = 0.5;
  const auto half = simulate_gpu_layer(topo, c, ep_placement(2, 2), b);
  EXPECT_NEAR(half.compute_s, 2 * full.compute_s, 1e-18);
  EXPECT_NEAR(full.compute_s, 6.0 * 1024 * 512 / 100e12, 1e-18);
}

TEST(GpuSim, RejectsUnusableInput) {
  const network::Topology topo(switch_system(2));
  const auto ep = ep_placement(2, 2);
  EXPECT_TRUE(throws_with([&] { (void)simulate_gpu_layer(topo, config(), ep, batch(1, {0}, {2})); },
                          "batch.home[0] = 2 out of range (allowed: GPU 0..1)"));
  EXPECT_TRUE(throws_with(
      [&] { (void)simulate_gpu_layer(topo, config(), ep_placement(4, 4), batch(1, {0}, {0})); },
      "placement rejected for 2 GPUs"));
  EXPECT_TRUE(throws_with([&] { (void)simulate_gpu_layer(topo, config(), ep, batch(1, {2}, {0})); },
                          "batch.expert_ids[0] (token 0) = 2 out of range (allowed: 0..1)"));
  EXPECT_TRUE(throws_with(
      [&] {
        (void)simulate_gpu_layer(topo, config(), ep, batch(2, {1, 1}, {0}));
      },
      "selects expert 1 twice"));
  EXPECT_TRUE(throws_with([&] { (void)simulate_gpu_layer(topo, config(), ep, batch(2, {1}, {0})); },
                          "batch.expert_ids holds 1 ids"));
  EXPECT_TRUE(throws_with(
      [&] {
        (void)simulate_gpu_layer(topo, config(), ep, batch(3, {0, 1, 0}, {0}));
      },
      "batch.top_k = 3 out of range"));
  GpuConfig c = config();
  c.flops_efficiency = 1.5;
  EXPECT_TRUE(throws_with([&] { (void)simulate_gpu_layer(topo, c, ep, batch(1, {0}, {0})); },
                          "config.flops_efficiency = 1.5 out of range (allowed: (0, 1])"));
  c = config();
  c.mem_Bps = 0;
  EXPECT_TRUE(throws_with([&] { (void)simulate_gpu_layer(topo, c, ep, batch(1, {0}, {0})); },
                          "config.mem_Bps = 0 out of range"));
  auto b = batch(1, {0}, {0});
  b.hidden = 0;
  EXPECT_TRUE(throws_with([&] { (void)simulate_gpu_layer(topo, config(), ep, b); },
                          "batch.hidden = 0 out of range"));
}

}  // namespace
}  // namespace stackscope::experts
