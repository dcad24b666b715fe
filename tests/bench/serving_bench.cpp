// SPDX-License-Identifier: GPL-3.0-or-later
// Serving simulator speed: the Azure conversation trace (19,366
// requests; shared/reference/traces, Splitwise, CC-BY-4.0) for Llama-3-70B FP8 on 8 H100s as
// one TP8 instance and as 4 TP2 replicas behind join-shortest-queue, and 10^6 synthetic Poisson
// requests. Counters: simulated requests/s and scheduler iterations/s of wall time.
#include <benchmark/benchmark.h>

#include "stackscope/io/project.hpp"
#include "stackscope/serving/cluster.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/serving/simulator.hpp"

namespace stackscope::serving {
namespace {

perf::Design llama70b_h100(int tp) {
  perf::Design d = io::builtin_presets().project("default");
  d.hardware = io::builtin_presets().hardware("h100-sxm");
  d.system = io::builtin_presets().system("h100-sxm-x8");
  d.model = io::builtin_presets().model("llama-3-70b");
  d.runtime = io::builtin_presets().runtime("modern-gpu-2025");
  d.workload.numerics = {Precision::fp8, Precision::fp8, Precision::fp8};
  d.workload.batch = 1;
  d.workload.batch_auto = false;
  d.parallel = {};
  d.parallel.tp = tp;
  d.parallel.dp = 8 / tp;
  return d;
}

void run(benchmark::State& state, const std::vector<Request>& reqs, int tp) {
  const perf::Design d = llama70b_h100(tp);
  std::uint64_t iterations = 0;
  for (auto _ : state) {
    auto inst = colocated_instances(d, SchedulerConfig{}, 8 / tp);
    const SimResult r = simulate(reqs, std::move(inst), SimOptions{});
    iterations += r.iterations;
    benchmark::DoNotOptimize(r.output_tokens_per_s);
  }
  state.counters["requests/s"] =
      benchmark::Counter(static_cast<double>(reqs.size()) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["iterations/s"] =
      benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kIsRate);
}

const std::vector<Request>& azure_conv() {
  static const auto r = io::load_trace(STACKSCOPE_REFERENCE_DIR "/traces/azure-llm-2023-conv.csv");
  return r;
}

void BM_AzureConvTp8(benchmark::State& s) {
  run(s, azure_conv(), 8);
}
void BM_AzureConv4xTp2(benchmark::State& s) {
  run(s, azure_conv(), 2);
}
void BM_Poisson1M4xTp2(benchmark::State& s) {
  static const auto reqs = [] {
    GeneratorSpec g;
    g.arrivals.rate_per_s = 30;
    g.requests = 1'000'000;
    g.input.a = 512;
    g.output.a = 128;
    return generate(g);
  }();
  run(s, reqs, 2);
}
BENCHMARK(BM_AzureConvTp8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AzureConv4xTp2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Poisson1M4xTp2)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace stackscope::serving

BENCHMARK_MAIN();
