// SPDX-License-Identifier: GPL-3.0-or-later
// The MoE-layer estimator on GPU systems (gpu_sim.hpp has the model and sources).
#include "stackscope/experts/gpu_sim.hpp"

#include "layer_work.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "stackscope/network/flow_sim.hpp"
#include "stackscope/network/schedule.hpp"

namespace stackscope::experts {
namespace {

using detail::num;

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("simulate_gpu_layer: " + what);
}

void positive(double v, const std::string& name) {
  if (!(v > 0) || !std::isfinite(v))
    bad(name + " = " + num(v) + " out of range (allowed: finite, > 0)");
}

void fraction(double v, const std::string& name) {
  if (!(v > 0) || !(v <= 1)) bad(name + " = " + num(v) + " out of range (allowed: (0, 1])");
}

double max_over_mean(const std::vector<double>& v) {
  double mx = 0, sum = 0;
  for (const double x : v) mx = std::max(mx, x), sum += x;
  return sum > 0 ? mx / (sum / static_cast<double>(v.size())) : 1.0;
}

// One all-to-all phase: the non-zero off-diagonal entries of `bytes` as one step whose alpha is
// the outermost crossed level's latency_us (as network::detail::expand charges a step).
struct PhaseRun {
  double time_s = 0;
  double alpha_s = 0;
  long long events = 0;
  std::vector<double> received;  // per device, from the flow records
};

PhaseRun run_phase(const network::Topology& topology, const std::vector<double>& bytes) {
  const int g = topology.devices();
  const auto G = static_cast<std::size_t>(g);
  PhaseRun run;
  run.received.assign(G, 0.0);
  network::Schedule schedule;
  schedule.op = network::Collective::all_to_all;
  schedule.algorithm = network::Algorithm::direct;
  network::Step step;
  int level = -1;
  for (int s = 0; s < g; ++s)
    for (int d = 0; d < g; ++d) {
      const double b = bytes[static_cast<std::size_t>(s) * G + static_cast<std::size_t>(d)];
      if (s == d || !(b > 0)) continue;
      step.flows.push_back({s, d, b});
      level = std::max(level, topology.level_between(s, d));
    }
  if (step.flows.empty()) return run;
  run.alpha_s = topology.system().levels[static_cast<std::size_t>(level)].latency_us * 1e-6;
  step.alpha_s = run.alpha_s;
  schedule.steps.push_back(std::move(step));
  const auto sim = network::simulate(topology, schedule, true);
  run.time_s = sim.time_s;
  run.events = sim.events;
  for (const auto& f : sim.flows)
    if (std::isfinite(f.finish_s) && f.finish_s <= sim.time_s)
      run.received[static_cast<std::size_t>(f.dst)] += f.bytes;
  return run;
}

}  // namespace

GpuLayerResult simulate_gpu_layer(const network::Topology& topology, const GpuConfig& config,
                                  const Placement& placement, const LayerBatch& batch,
                                  CopyChoice choice) {
  const int n_gpus = topology.devices();
  if (n_gpus < 1)
    bad("topology.devices() = " + std::to_string(n_gpus) + " out of range (allowed: >= 1)");
  const auto G = static_cast<std::size_t>(n_gpus);
  positive(config.gpu_flops, "config.gpu_flops");
  positive(config.mem_Bps, "config.mem_Bps");
  fraction(config.flops_efficiency, "config.flops_efficiency");
  fraction(config.mem_efficiency, "config.mem_efficiency");
  positive(config.dispatch_bytes_per_element, "config.dispatch_bytes_per_element");
  positive(config.combine_bytes_per_element, "config.combine_bytes_per_element");
  detail::check_batch("simulate_gpu_layer", placement, batch, n_gpus,
                      "placement rejected for " + std::to_string(n_gpus) + " GPUs", "GPU ");
  const double h = batch.hidden;

  GpuLayerResult r;
  r.gpus.resize(G);
  r.dispatch_bytes.assign(G * G, 0.0);
  r.combine_bytes.assign(G * G, 0.0);

  // Token -> copy -> GPUs, as simulate_layer assigns them (layer_work.hpp).
  const detail::LayerWork work = detail::assign_work(placement, batch, n_gpus, choice);
  std::vector<double> remote_tokens(G * G, 0.0);  // [home * G + gpu]
  for (const auto& [home, g] : work.remote)
    remote_tokens[static_cast<std::size_t>(home) * G + static_cast<std::size_t>(g)] += 1;
  for (std::size_t g = 0; g < G; ++g) {
    r.gpus[g].flops = work.flops[g];
    r.gpus[g].weight_bytes = work.weight_bytes[g];
    r.gpus[g].tokens = work.tokens[g];
    r.gpus[g].assignments = work.assignments[g];
  }
  const double flops_rate = config.gpu_flops * config.flops_efficiency;
  const double mem_rate = config.mem_Bps * config.mem_efficiency;
  for (auto& g : r.gpus) {
    g.compute_s = std::max(g.flops / flops_rate, g.weight_bytes / mem_rate);
    r.compute_s = std::max(r.compute_s, g.compute_s);
  }

  const double dispatch_token = h * config.dispatch_bytes_per_element;
  const double combine_token = h * config.combine_bytes_per_element;
  for (std::size_t s = 0; s < G; ++s)
    for (std::size_t d = 0; d < G; ++d) {
      const double n = remote_tokens[s * G + d];
      r.dispatch_bytes[s * G + d] = n * dispatch_token;
      r.combine_bytes[d * G + s] = n * combine_token;  // the reverse direction
      r.gpus[s].dispatch_sent_bytes += n * dispatch_token;
      r.gpus[d].combine_sent_bytes += n * combine_token;
      r.bytes_injected += n * (dispatch_token + combine_token);
    }

  const PhaseRun dispatch = run_phase(topology, r.dispatch_bytes);
  const PhaseRun combine = run_phase(topology, r.combine_bytes);
  r.dispatch_s = dispatch.time_s;
  r.dispatch_alpha_s = dispatch.alpha_s;
  r.combine_s = combine.time_s;
  r.combine_alpha_s = combine.alpha_s;
  r.events = dispatch.events + combine.events;
  for (std::size_t g = 0; g < G; ++g) {
    r.gpus[g].dispatch_received_bytes = dispatch.received[g];
    r.gpus[g].combine_received_bytes = combine.received[g];
    r.bytes_delivered += dispatch.received[g] + combine.received[g];
  }
  r.time_s = r.dispatch_s + r.compute_s + r.combine_s;

  std::vector<double> compute(G), tokens(G), assignments(G);
  for (std::size_t g = 0; g < G; ++g) {
    compute[g] = r.gpus[g].compute_s;
    tokens[g] = r.gpus[g].tokens;
    assignments[g] = r.gpus[g].assignments;
  }
  r.compute_imbalance = max_over_mean(compute);
  r.token_imbalance = max_over_mean(tokens);
  r.assignment_imbalance = max_over_mean(assignments);
  return r;
}

}  // namespace stackscope::experts
