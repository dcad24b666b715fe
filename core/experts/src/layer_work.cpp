// SPDX-License-Identifier: GPL-3.0-or-later
// Batch checks and per-node work shared by the MoE-layer estimators (layer_work.hpp).
#include "layer_work.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace stackscope::experts::detail {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  return buf;
}

void check_batch(const std::string& who, const Placement& placement, const LayerBatch& batch,
                 int nodes, const std::string& rejected, const std::string& node_label) {
  const auto bad = [&](const std::string& what) { throw std::invalid_argument(who + ": " + what); };
  const int n_experts = static_cast<int>(placement.experts.size());
  if (n_experts < 1) bad("placement.experts is empty (allowed: >= 1 experts)");
  if (batch.hidden < 1)
    bad("batch.hidden = " + std::to_string(batch.hidden) + " out of range (allowed: >= 1)");
  if (batch.intermediate < 1)
    bad("batch.intermediate = " + std::to_string(batch.intermediate) +
        " out of range (allowed: >= 1)");
  if (!(batch.weight_bytes > 0) || !std::isfinite(batch.weight_bytes))
    bad("batch.weight_bytes = " + num(batch.weight_bytes) + " out of range (allowed: finite, > 0)");
  const double expert_bytes = 3.0 * batch.hidden * batch.intermediate * batch.weight_bytes;
  if (const auto issues = validate(placement, n_experts, nodes, expert_bytes,
                                   std::numeric_limits<double>::infinity());
      !issues.empty())
    bad(rejected + ": " + format_issues(issues));
  if (batch.top_k < 1 || batch.top_k > n_experts)
    bad("batch.top_k = " + std::to_string(batch.top_k) + " out of range (allowed: 1.." +
        std::to_string(n_experts) + ", the placement's experts)");
  const std::size_t T = batch.home.size();
  const auto K = static_cast<std::size_t>(batch.top_k);
  if (batch.expert_ids.size() != T * K)
    bad("batch.expert_ids holds " + std::to_string(batch.expert_ids.size()) +
        " ids (allowed: tokens × top_k = " + std::to_string(T) + " × " + std::to_string(K) + " = " +
        std::to_string(T * K) + ")");
  std::vector<std::size_t> last(static_cast<std::size_t>(n_experts), 0);
  for (std::size_t t = 0; t < T; ++t) {
    if (batch.home[t] < 0 || batch.home[t] >= nodes)
      bad("batch.home[" + std::to_string(t) + "] = " + std::to_string(batch.home[t]) +
          " out of range (allowed: " + node_label + "0.." + std::to_string(nodes - 1) + ")");
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

LayerWork assign_work(const Placement& placement, const LayerBatch& batch, int nodes,
                      CopyChoice choice) {
  const auto N = static_cast<std::size_t>(nodes);
  const auto E = placement.experts.size();
  const std::size_t T = batch.home.size();
  const auto K = static_cast<std::size_t>(batch.top_k);
  const double h = batch.hidden, inter = batch.intermediate;
  const double expert_flops = 6.0 * h * inter;
  const double expert_bytes = 3.0 * h * inter * batch.weight_bytes;
  LayerWork w;
  w.flops.assign(N, 0.0);
  w.weight_bytes.assign(N, 0.0);
  w.tokens.assign(N, 0);
  w.assignments.assign(N, 0);
  w.remote.reserve(T * K);
  // Flat index per (expert, copy) for the "weights read" flags.
  std::vector<std::size_t> copy_base(E + 1, 0);
  for (std::size_t e = 0; e < E; ++e)
    copy_base[e + 1] = copy_base[e] + placement.experts[e].copies.size();
  std::vector<char> copy_used(copy_base.back(), 0);
  std::vector<std::size_t> rr(E, 0);
  std::vector<std::size_t> need_stamp(N, 0);
  for (std::size_t t = 0; t < T; ++t) {
    const int home = batch.home[t];
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
              load = std::max(load, w.flops[static_cast<std::size_t>(s.node)]);
            if (load < best) best = load, c = i;
          }
        }
      }
      copy_used[copy_base[e] + c] = 1;
      for (const Share& s : copies[c].shares) {
        const auto n = static_cast<std::size_t>(s.node);
        w.flops[n] += s.fraction * expert_flops;
        ++w.assignments[n];
        if (need_stamp[n] != t + 1) {  // the OR: once per (token, node)
          need_stamp[n] = t + 1;
          ++w.tokens[n];
          if (s.node != home) w.remote.emplace_back(home, s.node);
        }
      }
    }
  }
  for (std::size_t e = 0; e < E; ++e) {
    const auto& copies = placement.experts[e].copies;
    for (std::size_t c = 0; c < copies.size(); ++c)
      if (copy_used[copy_base[e] + c])
        for (const Share& s : copies[c].shares)
          w.weight_bytes[static_cast<std::size_t>(s.node)] += s.fraction * expert_bytes;
  }
  return w;
}

}  // namespace stackscope::experts::detail
