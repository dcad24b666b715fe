// SPDX-License-Identifier: GPL-3.0-or-later
// perf::IterationModel::cost() per call after warm-up (the serving simulator calls it
// 1e5-1e7 times per run; goal < 2 us for typical batches). Decode contexts grow between calls,
// as in a simulation, so the attention part is recomputed every call and only the token-keyed
// parts hit the memo.
#include <benchmark/benchmark.h>

#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/perf/iteration.hpp"

namespace {

using namespace stackscope;

perf::Design llama70b_h100_tp8() {
  return io::parse_project(R"({"schema_version": 2, "id": "bench", "hardware": "h100-sxm",
    "system": "h100-sxm-x8", "model": "llama-3-70b", "runtime": "modern-gpu-2025",
    "workload": {"numerics": {"weights": "fp8", "activations": "fp8", "kv_cache": "fp8"}},
    "parallel": {"tp": 8}})",
                           io::builtin_presets());
}

// `decodes` decode sequences at contexts from 2000 up, plus `chunks` prefill chunks of 512.
void iteration_cost(benchmark::State& state, const perf::Design& d) {
  perf::IterationModel m(d);
  const int decodes = static_cast<int>(state.range(0));
  const int chunks = static_cast<int>(state.range(1));
  std::vector<perf::SequenceChunk> batch;
  for (int i = 0; i < decodes; ++i) batch.push_back({1, 2000 + 7 * i, true});
  for (int i = 0; i < chunks; ++i) batch.push_back({512, 1024 * i, false});
  (void)m.cost(batch);
  std::size_t next = 0;
  for (auto _ : state) {
    if (decodes > 0) {
      batch[next].context += 1;
      next = next + 1 == static_cast<std::size_t>(decodes) ? 0 : next + 1;
    }
    perf::IterationCost c = m.cost(batch);
    benchmark::DoNotOptimize(c);
  }
  state.counters["calls_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_Iteration_Llama70B_H100_TP8(benchmark::State& s) {
  static const perf::Design d = llama70b_h100_tp8();
  iteration_cost(s, d);
}
void BM_Iteration_DeepSeekV3_256(benchmark::State& s) {
  static const perf::Design d = io::builtin_presets().project("deepseek-v3-deepstack-256");
  iteration_cost(s, d);
}
BENCHMARK(BM_Iteration_Llama70B_H100_TP8)
    ->Args({1, 0})
    ->Args({64, 0})
    ->Args({256, 0})
    ->Args({128, 1})
    ->Args({0, 4});
BENCHMARK(BM_Iteration_DeepSeekV3_256)
    ->Args({64, 0})
    ->Args({256, 0})
    ->Args({1024, 0})
    ->Args({128, 1})
    ->Args({0, 4});

}  // namespace

BENCHMARK_MAIN();
