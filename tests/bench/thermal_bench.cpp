// SPDX-License-Identifier: GPL-3.0-or-later
// Thermal grid solver: a 64x64 x 20-layer steady solve must take well under a second.
// Stacks: make_3d_stack with 9 DRAM dies (1 + 2x9 + TIM = 20 chip layers, plus spreader and
// sink) at 32/64/128 grids, and the sparse LDL^T path on 32x32 for comparison.
#include <benchmark/benchmark.h>

#include "stackscope/thermal/compact.hpp"

namespace {

using namespace stackscope::thermal;

void BM_Steady3dStack(benchmark::State& state) {
  StackParams p;
  p.dram_layers = 9;  // 20 chip layers
  const StackModel s = make_3d_stack(p);
  const PowerMap pm = make_3d_stack_power(p);
  GridOptions o;
  o.rows = o.cols = static_cast<int>(state.range(0));
  if (state.range(1) != 0) o.method = GridOptions::Method::kCholesky;
  int iterations = 0;
  for (auto _ : state) {
    const Solution sol = solve_steady(s, pm, o);
    iterations = sol.iterations;
    benchmark::DoNotOptimize(sol.layers.front().max_C);
  }
  state.counters["cg_iterations"] = iterations;
  state.counters["layers"] = static_cast<double>(s.layers.size());
}
BENCHMARK(BM_Steady3dStack)
    ->Args({32, 0})
    ->Args({64, 0})
    ->Args({128, 0})
    ->Args({32, 1})
    ->Unit(benchmark::kMillisecond);

void BM_CompactFit(benchmark::State& state) {
  // Inner-loop cost comparison: the compact model is a multiply-add.
  const CompactFit fit{0.2, 0.012, 0, 0, 0};
  double acc = 0;
  int L = 1;
  for (auto _ : state) {
    acc += fit.rise_C(300.0, L);
    L = L % 16 + 1;
    benchmark::DoNotOptimize(acc);
  }
}
BENCHMARK(BM_CompactFit);

}  // namespace

BENCHMARK_MAIN();
