// SPDX-License-Identifier: GPL-3.0-or-later
// Analytic network model vs the reference flow simulator (docs/model.md
// §6: the simulator should be >= 1000x slower than the analytic path). For each collective:
//  - analytic: NetworkModel::cost on a warm model (the evaluator's path: memoised per shape,
//    the size changes every call so only the bytes-dependent part is recomputed);
//  - analytic_cold: a fresh NetworkModel (topology build + costing every algorithm);
//  - simulate: the flow simulator on the chosen algorithm's schedule (built once, outside).
// After the runs the simulate / analytic time ratios are printed.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "stackscope/network/flow_sim.hpp"
#include "stackscope/network/model.hpp"

namespace {

using namespace stackscope;
using namespace stackscope::network;

hw::System make_system(int devices, hw::Topology topology, double GBps, double hop_ns) {
  hw::System s;
  s.id = "bench";
  s.devices = devices;
  hw::NetworkLevel l;
  l.name = "net";
  l.topology = topology;
  l.size = devices;
  l.link_GBps = GBps;
  l.hop_latency_ns = hop_ns;
  s.levels.push_back(l);
  return s;
}

struct Case {
  const char* name;
  hw::System system;
  Collective op;
  Algorithm algorithm;  // automatic: whatever the model picks
  double bytes;
  std::vector<int> ranks;
};

std::vector<int> iota(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) v[i] = i;
  return v;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      {"ring_all_reduce_8gpu_256MB", make_system(8, hw::Topology::switch_fabric, 450, 500),
       Collective::all_reduce, Algorithm::ring, 256.0 * (1 << 20), iota(8)},
      {"all_to_all_64_torus8x8_64MB", make_system(64, hw::Topology::torus2d, 100, 200),
       Collective::all_to_all, Algorithm::automatic, 64.0 * (1 << 20), iota(64)},
      {"all_to_all_256_torus16x16_256MB", make_system(256, hw::Topology::torus2d, 100, 200),
       Collective::all_to_all, Algorithm::automatic, 256.0 * (1 << 20), iota(256)},
  };
  return c;
}

CollectiveRequest request(const Case& c) {
  CollectiveRequest r;
  r.op = c.op;
  r.bytes = c.bytes;
  r.ranks = c.ranks;
  r.algorithm = c.algorithm;
  return r;
}

void BM_analytic(benchmark::State& state, int index) {
  const Case& c = cases()[index];
  NetworkModel model(c.system);
  CollectiveRequest r = request(c);
  double bytes = c.bytes;
  for (auto _ : state) {
    r.bytes = bytes;
    benchmark::DoNotOptimize(model.cost(r));
    bytes = bytes == c.bytes ? c.bytes * 0.5 : c.bytes;  // defeat any per-size cache
  }
}

void BM_analytic_cold(benchmark::State& state, int index) {
  const Case& c = cases()[index];
  const CollectiveRequest r = request(c);
  for (auto _ : state) {
    NetworkModel model(c.system);
    benchmark::DoNotOptimize(model.cost(r));
  }
}

void BM_simulate(benchmark::State& state, int index) {
  const Case& c = cases()[index];
  NetworkModel model(c.system);
  const CollectiveRequest r = request(c);
  const CollectiveCost cost = model.cost(r);
  const Schedule s = model.schedule(r, cost.algorithm);
  std::size_t flows = 0;
  for (const auto& st : s.steps) flows += st.flows.size();
  SimResult sim;
  for (auto _ : state) {
    sim = simulate(model.topology(), s);
    benchmark::DoNotOptimize(sim.time_s);
  }
  state.counters["flows"] = static_cast<double>(flows);
  state.counters["steps"] = static_cast<double>(s.steps.size());
  state.counters["events"] = static_cast<double>(sim.events);
  // In the label: counters print with SI prefixes, which turns a 1e-14 % error into "f".
  char label[96];
  std::snprintf(label, sizeof label, "%s, analytic vs simulated %+.3f%%",
                std::string(to_string(cost.algorithm)).c_str(),
                100 * (cost.time_s - sim.time_s) / sim.time_s);
  state.SetLabel(label);
}

// Keeps every run's mean real time (ns) so main() can print the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      if (r.run_type == Run::RT_Iteration && r.iterations > 0) {
        ns_[r.benchmark_name()] =
            r.real_accumulated_time / static_cast<double>(r.iterations) * 1e9;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  double ns(const std::string& name) const {
    const auto it = ns_.find(name);
    return it == ns_.end() ? 0 : it->second;
  }

 private:
  std::map<std::string, double> ns_;
};

}  // namespace

int main(int argc, char** argv) {
  for (int i = 0; i < static_cast<int>(cases().size()); ++i) {
    const std::string n = cases()[i].name;
    benchmark::RegisterBenchmark(("analytic/" + n).c_str(), BM_analytic, i);
    benchmark::RegisterBenchmark(("analytic_cold/" + n).c_str(), BM_analytic_cold, i);
    benchmark::RegisterBenchmark(("simulate/" + n).c_str(), BM_simulate, i)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nsimulate / analytic wall-time ratio (docs/model.md §18.2 goal: >= 1000x)\n");
  for (const auto& c : cases()) {
    const std::string n = c.name;
    const double sim = reporter.ns("simulate/" + n);
    const double warm = reporter.ns("analytic/" + n);
    const double cold = reporter.ns("analytic_cold/" + n);
    if (sim <= 0 || warm <= 0) continue;
    std::printf("  %-34s simulate %10.3f ms  analytic %9.3f us (x%.0f)  cold %9.3f us (x%.0f)\n",
                n.c_str(), sim * 1e-6, warm * 1e-3, sim / warm, cold * 1e-3,
                cold > 0 ? sim / cold : 0.0);
  }
  benchmark::Shutdown();
  return 0;
}
