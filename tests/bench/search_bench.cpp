// SPDX-License-Identifier: GPL-3.0-or-later
// Search engine throughput: evaluated points per second per core and the fraction of
// the space pruned, on DeepSeek-V3 decode over 3D-stacked chips (hardware x full parallelism).
#include <benchmark/benchmark.h>

#include <cstdint>

#include "stackscope/io/project.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/search/engine.hpp"

namespace {

using namespace stackscope;
using namespace stackscope::search;

Space deepseek_space() {
  io::PresetRegistry presets;
  presets.register_builtins();
  Space s;
  s.base = presets.project("deepseek-v3-deepstack");
  s.hardware = {{"devices", {32, 64, 128}},
                {"memory.layers_total", {8, 12, 16}},
                {"memory.layers_connected", {2, 4, 8}},
                {"memory.vertical.pitch_um", {6, 9}},
                {"compute.cores", {96, 128}},
                {"compute.clock_GHz", {1.0, 1.2}},
                {"system.link_bw_scale", {0.5, 1, 2}}};
  s.inner.tp = {1, 2, 4, 8};
  s.inner.pp = {1, 2, 4};
  s.inner.ep = {1, 2, 4, 8, 16, 32, 64, 128};
  s.inner.dp = {1, 2, 4};
  s.inner.batch = {64, 128, 256, 512, 1024};
  s.inner.sequence_parallel = {0, 1};
  s.inner.overlap = {parallel::Overlap::off, parallel::Overlap::auto_tiles};
  s.objectives = {objective(Metric::stps_per_mm2), objective(Metric::utps)};
  return s;
}

const CompiledSpace& space() {
  static const CompiledSpace cs(deepseek_space());
  return cs;
}

class NullSink : public ResultSink {};

void run_search(benchmark::State& state, bool prune) {
  const CompiledSpace& cs = space();
  RunOptions opt;
  opt.threads = static_cast<int>(state.range(0));
  opt.prune_bounds = prune;
  NullSink sink;
  Summary sum;
  double seconds = 0;
  for (auto _ : state) {
    sum = run(cs, opt, sink);
    seconds += sum.progress.elapsed_s;
  }
  const double runs = static_cast<double>(state.iterations());
  const double size = to_double(cs.size());
  state.counters["space_points"] = size;
  state.counters["evaluated"] = static_cast<double>(sum.progress.evaluated);
  state.counters["pruned_fraction"] = static_cast<double>(sum.progress.pruned) / size;
  state.counters["pruned_by_bounds"] = static_cast<double>(sum.progress.pruned_bound) / size;
  state.counters["evals_per_s_per_core"] =
      static_cast<double>(sum.progress.evaluated) * runs / seconds / opt.threads;
  state.counters["points_per_s"] = size * runs / seconds;
  state.counters["frontier"] = static_cast<double>(sum.archive.size());
}

void BM_DeepSeekV3_Exhaustive(benchmark::State& s) {
  run_search(s, true);
}
void BM_DeepSeekV3_NoBoundPruning(benchmark::State& s) {
  run_search(s, false);
}
BENCHMARK(BM_DeepSeekV3_Exhaustive)->Arg(1)->Arg(2)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_DeepSeekV3_NoBoundPruning)->Arg(1)->Arg(2)->Unit(benchmark::kSecond)->Iterations(1);

// The headline figure: the whole presets/search/deepseek-v3-deepstack space (1.79e12 points),
// exhaustive, on all cores of the machine (minutes: run it with
// --benchmark_filter=Preset).
void BM_DeepSeekV3_PresetExhaustive(benchmark::State& state) {
  io::PresetRegistry presets;
  presets.register_builtins();
  const CompiledSpace cs(io::resolve_search_project("deepseek-v3-deepstack", presets).space);
  RunOptions opt;
  opt.threads = static_cast<int>(state.range(0));
  NullSink sink;
  Summary sum;
  for (auto _ : state) sum = run(cs, opt, sink);
  const auto& p = sum.progress;
  const double size = to_double(cs.size());
  state.counters["space_points"] = size;
  state.counters["complete"] = sum.complete ? 1 : 0;
  state.counters["elapsed_s"] = p.elapsed_s;
  state.counters["evaluated"] = static_cast<double>(p.evaluated);
  state.counters["pruned_fraction"] = static_cast<double>(p.pruned) / size;
  state.counters["points_per_s"] = size / p.elapsed_s;
  state.counters["evals_per_core_s_in_evaluator"] =
      p.evaluator_s > 0 ? static_cast<double>(p.evaluated) / p.evaluator_s : 0;
  state.counters["frontier"] = static_cast<double>(sum.archive.size());
}
BENCHMARK(BM_DeepSeekV3_PresetExhaustive)->Arg(2)->Unit(benchmark::kSecond)->Iterations(1);

// The evaluator alone on valid points drawn evenly from the preset space (a reused Evaluator,
// as a search worker uses it): evaluated points per second on one core.
void BM_DeepSeekV3_PresetEvaluator(benchmark::State& state) {
  io::PresetRegistry presets;
  presets.register_builtins();
  const CompiledSpace cs(io::resolve_search_project("deepseek-v3-deepstack", presets).space);
  std::vector<perf::Design> designs;
  // Ranks spread over the whole space: k times Knuth's multiplicative-hash constant
  // (2^32 / golden ratio, TAOCP vol. 3 §6.4) times a prime, modulo the size.
  for (std::uint64_t k = 0; designs.size() < 512 && k < 200000; ++k) {
    const PointId id = cs.point_at((Count{k} * 2654435761u * 977u) % cs.size());
    perf::Design d = cs.decode(id);
    if (perf::validate(d).empty()) designs.push_back(std::move(d));
  }
  perf::Evaluator ev;
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ev.evaluate(designs[i]));
    i = (i + 1) % designs.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["designs"] = static_cast<double>(designs.size());
}
BENCHMARK(BM_DeepSeekV3_PresetEvaluator);

}  // namespace

BENCHMARK_MAIN();
