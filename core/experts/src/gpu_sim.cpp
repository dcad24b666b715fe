// SPDX-License-Identifier: GPL-3.0-or-later
// The MoE-layer estimator on GPU systems (gpu_sim.hpp has the model and sources).
#include "stackscope/experts/gpu_sim.hpp"

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

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

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
  const int n_experts = static_cast<int>(placement.experts.size());
  if (n_experts < 1) bad("placement.experts is empty (allowed: >= 1 experts)");
  if (batch.hidden < 1)
    bad("batch.hidden = " + std::to_string(batch.hidden) + " out of range (allowed: >= 1)");
  if (batch.intermediate < 1)
    bad("batch.intermediate = " + std::to_string(batch.intermediate) +
        " out of range (allowed: >= 1)");
  positive(batch.weight_bytes, "batch.weight_bytes");
  const double h = batch.hidden, inter = batch.intermediate;
  // Gated FFN (gate, up, down: three h×I matrices): 2·3·h·I FLOPs per token, 3·h·I weights.
  const double expert_flops = 6.0 * h * inter;
  const double expert_bytes = 3.0 * h * inter * batch.weight_bytes;
  if (const auto issues = validate(placement, n_experts, n_gpus, expert_bytes,
                                   std::numeric_limits<double>::infinity());
      !issues.empty())
    bad("placement rejected for " + std::to_string(n_gpus) + " GPUs: " + format_issues(issues));
  if (batch.top_k < 1 || batch.top_k > n_experts)
    bad("batch.top_k = " + std::to_string(batch.top_k) + " out of range (allowed: 1.." +
        std::to_string(n_experts) + ", the placement's experts)");
  const std::size_t T = batch.home.size();
  const auto K = static_cast<std::size_t>(batch.top_k);
  if (batch.expert_ids.size() != T * K)
    bad("batch.expert_ids holds " + std::to_string(batch.expert_ids.size()) +
        " ids (allowed: tokens × top_k = " + std::to_string(T) + " × " + std::to_string(K) + " = " +
        std::to_string(T * K) + ")");
  {
    std::vector<std::size_t> last(static_cast<std::size_t>(n_experts), 0);
    for (std::size_t t = 0; t < T; ++t) {
      if (batch.home[t] < 0 || batch.home[t] >= n_gpus)
        bad("batch.home[" + std::to_string(t) + "] = " + std::to_string(batch.home[t]) +
            " out of range (allowed: GPU 0.." + std::to_string(n_gpus - 1) + ")");
      for (std::size_t j = 0; j < K; ++j) {
        const int e = batch.expert_ids[t * K + j];
        if (e < 0 || e >= n_experts)
          bad("batch.expert_ids[" + std::to_string(t * K + j) + "] (token " + std::to_string(t) +
              ") = " + std::to_string(e) + " out of range (allowed: 0.." +
              std::to_string(n_experts - 1) + ")");
        if (last[static_cast<std::size_t>(e)] == t + 1)
          bad("batch.expert_ids: token " + std::to_string(t) + " selects expert " +
              std::to_string(e) + " twice (allowed: distinct ids per token)");
        last[static_cast<std::size_t>(e)] = t + 1;
      }
    }
  }

  GpuLayerResult r;
  r.gpus.resize(G);
  r.dispatch_bytes.assign(G * G, 0.0);
  r.combine_bytes.assign(G * G, 0.0);

  // Token -> copy -> GPUs, with the copy choice of simulate_layer (mesh_sim.cpp).
  std::vector<std::size_t> copy_base(static_cast<std::size_t>(n_experts) + 1, 0);
  for (int e = 0; e < n_experts; ++e)
    copy_base[static_cast<std::size_t>(e) + 1] =
        copy_base[static_cast<std::size_t>(e)] +
        placement.experts[static_cast<std::size_t>(e)].copies.size();
  std::vector<char> copy_used(copy_base.back(), 0);
  std::vector<std::size_t> rr(static_cast<std::size_t>(n_experts), 0);
  std::vector<std::size_t> need_stamp(G, 0);
  std::vector<double> remote_tokens(G * G, 0.0);  // [home * G + gpu]
  for (std::size_t t = 0; t < T; ++t) {
    const auto home = static_cast<std::size_t>(batch.home[t]);
    for (std::size_t j = 0; j < K; ++j) {
      const auto e = static_cast<std::size_t>(batch.expert_ids[t * K + j]);
      const auto& copies = placement.experts[e].copies;
      std::size_t c = 0;
      if (copies.size() > 1) {
        if (choice == CopyChoice::round_robin) {
          c = rr[e]++ % copies.size();
        } else {
          double best = std::numeric_limits<double>::infinity();
          for (std::size_t i = 0; i < copies.size(); ++i) {
            double load = 0;
            for (const Share& s : copies[i].shares)
              load = std::max(load, r.gpus[static_cast<std::size_t>(s.node)].flops);
            if (load < best) best = load, c = i;
          }
        }
      }
      copy_used[copy_base[e] + c] = 1;
      for (const Share& s : copies[c].shares) {
        const auto g = static_cast<std::size_t>(s.node);
        r.gpus[g].flops += s.fraction * expert_flops;
        ++r.gpus[g].assignments;
        if (need_stamp[g] != t + 1) {  // the OR: once per (token, GPU)
          need_stamp[g] = t + 1;
          ++r.gpus[g].tokens;
          if (g != home) remote_tokens[home * G + g] += 1;
        }
      }
    }
  }
  for (int e = 0; e < n_experts; ++e) {
    const auto& copies = placement.experts[static_cast<std::size_t>(e)].copies;
    for (std::size_t c = 0; c < copies.size(); ++c)
      if (copy_used[copy_base[static_cast<std::size_t>(e)] + c])
        for (const Share& s : copies[c].shares)
          r.gpus[static_cast<std::size_t>(s.node)].weight_bytes += s.fraction * expert_bytes;
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
