// SPDX-License-Identifier: GPL-3.0-or-later
// NetworkModel::cost, cold (a new model, so topology build + stage 1 + routing every
// iteration) and memoised (the evaluator's case: the same collective shapes at other sizes).
// A 256-device DeepSeek-V3 evaluation (~6-10 collectives) must stay well under 1 ms.
#include <benchmark/benchmark.h>

#include <numeric>
#include <vector>

#include "stackscope/network/model.hpp"

namespace {

using namespace stackscope;

hw::System torus_16x16() {
  hw::NetworkLevel l;
  l.name = "torus";
  l.topology = hw::Topology::torus2d;
  l.size = 256;
  l.dims_x = 16;
  l.dims_y = 16;
  l.link_GBps = 200;
  l.latency_us = 1.5;
  l.hop_latency_ns = 200;
  l.efficiency = 0.9;
  hw::System s;
  s.id = "torus-16x16";
  s.devices = 256;
  s.levels = {l};
  return s;
}

hw::System nvswitch_x8() {
  hw::NetworkLevel l;
  l.name = "NVSwitch";
  l.topology = hw::Topology::switch_fabric;
  l.size = 8;
  l.link_GBps = 450;
  l.hop_latency_ns = 250;
  l.in_network_reduction = true;
  hw::System s;
  s.id = "h100-x8";
  s.devices = 8;
  s.levels = {l};
  return s;
}

std::vector<int> ranks(int n) {
  std::vector<int> r(static_cast<std::size_t>(n));
  std::iota(r.begin(), r.end(), 0);
  return r;
}

network::CollectiveRequest request(network::Collective op, const std::vector<int>& r) {
  network::CollectiveRequest q;
  q.op = op;
  q.ranks = r;
  q.bytes = 64e6;
  return q;
}

void cold(benchmark::State& state, const hw::System& sys, network::Collective op, int n) {
  const auto r = ranks(n);
  auto q = request(op, r);
  for (auto _ : state) {
    network::NetworkModel m(sys);
    benchmark::DoNotOptimize(m.cost(q));
  }
}

void memoised(benchmark::State& state, const hw::System& sys, network::Collective op, int n,
              bool with_links = false) {
  const auto r = ranks(n);
  auto q = request(op, r);
  network::NetworkModel m(sys);
  network::LinkLoads loads;
  m.cost(q, &loads);
  double bytes = 1e3;
  for (auto _ : state) {
    q.bytes = bytes;
    benchmark::DoNotOptimize(m.cost(q, with_links ? &loads : nullptr));
    bytes = bytes < 1e9 ? bytes * 2 : 1e3;  // other sizes hit the same memo entry
  }
}

void BM_AllToAll256_Torus16x16_Cold(benchmark::State& s) {
  cold(s, torus_16x16(), network::Collective::all_to_all, 256);
}
void BM_AllToAll256_Torus16x16_Memoised(benchmark::State& s) {
  memoised(s, torus_16x16(), network::Collective::all_to_all, 256);
}
void BM_AllToAll256_Torus16x16_MemoisedWithLinks(benchmark::State& s) {
  memoised(s, torus_16x16(), network::Collective::all_to_all, 256, true);
}
void BM_AllReduce8_NVSwitch_Cold(benchmark::State& s) {
  cold(s, nvswitch_x8(), network::Collective::all_reduce, 8);
}
void BM_AllReduce8_NVSwitch_Memoised(benchmark::State& s) {
  memoised(s, nvswitch_x8(), network::Collective::all_reduce, 8);
}
void BM_AllReduce256_Torus16x16_Cold(benchmark::State& s) {
  cold(s, torus_16x16(), network::Collective::all_reduce, 256);
}
BENCHMARK(BM_AllToAll256_Torus16x16_Cold)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AllToAll256_Torus16x16_Memoised);
BENCHMARK(BM_AllToAll256_Torus16x16_MemoisedWithLinks);
BENCHMARK(BM_AllReduce8_NVSwitch_Cold)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AllReduce8_NVSwitch_Memoised);
BENCHMARK(BM_AllReduce256_Torus16x16_Cold)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
