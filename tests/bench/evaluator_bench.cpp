// SPDX-License-Identifier: GPL-3.0-or-later
// Evaluations per second of full design points (the goal: a DeepSeek-V3 design point
// evaluates in well under a millisecond).
#include <benchmark/benchmark.h>

#include "stackscope/io/project.hpp"
#include "stackscope/perf/evaluator.hpp"

namespace {

using namespace stackscope;

perf::Design project(const char* id) {
  io::PresetRegistry presets;
  presets.register_builtins();
  return presets.project(id);
}

void evaluate_project(benchmark::State& state, const char* id) {
  const perf::Design d = project(id);
  for (auto _ : state) {
    perf::Result r = perf::evaluate(d);
    benchmark::DoNotOptimize(r);
  }
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// A reused Evaluator keeps the network model and its memoised collective costs (the search
// inner loop); the free function rebuilds them every call (a one-off evaluation).
void evaluate_design_reused(benchmark::State& state, const perf::Design& d) {
  perf::Evaluator ev;
  for (auto _ : state) {
    perf::Result r = ev.evaluate(d);
    benchmark::DoNotOptimize(r);
  }
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
void evaluate_project_reused(benchmark::State& state, const char* id) {
  evaluate_design_reused(state, project(id));
}

void BM_DeepSeekV3_64_Cold(benchmark::State& s) { evaluate_project(s, "deepseek-v3-deepstack"); }
void BM_DeepSeekV3_64_Reused(benchmark::State& s) {
  evaluate_project_reused(s, "deepseek-v3-deepstack");
}
void BM_DeepSeekV3_256_Cold(benchmark::State& s) {
  evaluate_project(s, "deepseek-v3-deepstack-256");
}
void BM_DeepSeekV3_256_Reused(benchmark::State& s) {
  evaluate_project_reused(s, "deepseek-v3-deepstack-256");
}
void BM_Llama70B_H100_TP4_Cold(benchmark::State& s) { evaluate_project(s, "default"); }
void BM_Llama70B_H100_TP4_Reused(benchmark::State& s) { evaluate_project_reused(s, "default"); }
// Llama-3.1-8B on one H200 at batch 48 (GEMMs and decode attention between measured rows) with
// the preset's measured kernel table, and without it: what the table's lookups cost a search.
perf::Design h200_llama8b(bool table) {
  io::PresetRegistry presets;
  presets.register_builtins();
  perf::Design d = presets.project("default");
  d.hardware = presets.hardware("h200");
  d.model = presets.model("llama-3.1-8b");
  d.runtime = presets.runtime("torch-eager-graphs");
  d.parallel = {};
  d.system = {};
  d.system.devices = 1;
  d.workload.batch_auto = false;
  d.workload.batch = 48;
  d.workload.input_len = 1500;
  d.workload.output_len = 200;
  if (!table) d.hardware.kernel_times = nullptr;
  return d;
}
void BM_Llama8B_H200_KernelTable(benchmark::State& s) {
  evaluate_design_reused(s, h200_llama8b(true));
}
void BM_Llama8B_H200_Roofline(benchmark::State& s) {
  evaluate_design_reused(s, h200_llama8b(false));
}
BENCHMARK(BM_Llama8B_H200_KernelTable);
BENCHMARK(BM_Llama8B_H200_Roofline);
BENCHMARK(BM_DeepSeekV3_64_Cold);
BENCHMARK(BM_DeepSeekV3_64_Reused);
BENCHMARK(BM_DeepSeekV3_256_Cold);
BENCHMARK(BM_DeepSeekV3_256_Reused);
BENCHMARK(BM_Llama70B_H100_TP4_Cold);
BENCHMARK(BM_Llama70B_H100_TP4_Reused);

}  // namespace

BENCHMARK_MAIN();
