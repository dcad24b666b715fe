// SPDX-License-Identifier: GPL-3.0-or-later
// Expert placements (placement.hpp): per-node weight bytes and validation.
#include "stackscope/experts/placement.hpp"

#include "layer_work.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace stackscope::experts {
namespace {

using detail::num;

void check_args(int nodes, double expert_bytes) {
  if (nodes < 1)
    throw std::invalid_argument("placement: nodes = " + std::to_string(nodes) +
                                " out of range (allowed: >= 1)");
  if (!(expert_bytes > 0) || !std::isfinite(expert_bytes))
    throw std::invalid_argument("placement: expert_bytes = " + num(expert_bytes) +
                                " out of range (allowed: finite, > 0)");
}

}  // namespace

std::vector<double> node_weight_bytes(const Placement& placement, int nodes, double expert_bytes) {
  check_args(nodes, expert_bytes);
  std::vector<double> bytes(static_cast<std::size_t>(nodes), 0.0);
  for (const auto& e : placement.experts)
    for (const auto& c : e.copies)
      for (const auto& s : c.shares)
        if (s.node >= 0 && s.node < nodes)
          bytes[static_cast<std::size_t>(s.node)] += s.fraction * expert_bytes;
  return bytes;
}

std::vector<Issue> validate(const Placement& placement, int experts, int nodes, double expert_bytes,
                            double capacity_bytes_per_node) {
  check_args(nodes, expert_bytes);
  if (experts < 1)
    throw std::invalid_argument("placement: experts = " + std::to_string(experts) +
                                " out of range (allowed: >= 1)");
  if (!(capacity_bytes_per_node > 0))
    throw std::invalid_argument("placement: capacity_bytes_per_node = " +
                                num(capacity_bytes_per_node) + " out of range (allowed: > 0)");
  std::vector<Issue> issues;
  const auto n_placed = static_cast<int>(placement.experts.size());
  if (n_placed > experts)
    issues.push_back({"/experts", "places more experts than the layer has",
                      std::to_string(n_placed), "exactly " + std::to_string(experts)});
  const std::string node_range = "0.." + std::to_string(nodes - 1);
  std::vector<int> seen(static_cast<std::size_t>(nodes), -1);
  int stamp = 0;
  for (int e = 0; e < experts; ++e) {
    const std::string ep = "/experts/" + std::to_string(e);
    if (e >= n_placed) {
      issues.push_back({ep, "expert " + std::to_string(e) + " is not placed", "missing",
                        "one entry per expert, 0.." + std::to_string(experts - 1)});
      continue;
    }
    const auto& copies = placement.experts[static_cast<std::size_t>(e)].copies;
    if (copies.empty()) {
      issues.push_back(
          {ep + "/copies", "expert " + std::to_string(e) + " has no copy", "0", ">= 1 copies"});
      continue;
    }
    for (std::size_t c = 0; c < copies.size(); ++c) {
      const std::string cp = ep + "/copies/" + std::to_string(c);
      const auto& shares = copies[c].shares;
      if (shares.empty()) {
        issues.push_back({cp + "/shares", "copy has no share", "0", ">= 1 (node, fraction)"});
        continue;
      }
      ++stamp;
      double sum = 0;
      bool fractions_ok = true;
      for (std::size_t s = 0; s < shares.size(); ++s) {
        const std::string sp = cp + "/shares/" + std::to_string(s);
        const Share& sh = shares[s];
        if (sh.node < 0 || sh.node >= nodes) {
          issues.push_back(
              {sp + "/node", "node out of range", std::to_string(sh.node), node_range});
        } else if (seen[static_cast<std::size_t>(sh.node)] == stamp) {
          issues.push_back({sp + "/node", "node appears twice in one copy", std::to_string(sh.node),
                            "each node at most once per copy"});
        } else {
          seen[static_cast<std::size_t>(sh.node)] = stamp;
        }
        if (!(sh.fraction > 0 && sh.fraction <= 1)) {
          issues.push_back({sp + "/fraction", "fraction out of range", num(sh.fraction), "(0, 1]"});
          fractions_ok = false;
        }
        sum += sh.fraction;
      }
      if (fractions_ok && std::abs(sum - 1.0) > kFractionSumTolerance)
        issues.push_back({cp + "/shares", "fractions of a copy do not sum to 1", num(sum),
                          "1 within " + num(kFractionSumTolerance)});
    }
  }
  const auto bytes = node_weight_bytes(placement, nodes, expert_bytes);
  for (int n = 0; n < nodes; ++n)
    if (bytes[static_cast<std::size_t>(n)] > capacity_bytes_per_node * (1 + 1e-12))
      issues.push_back({"/nodes/" + std::to_string(n),
                        "node holds more expert weights than its memory capacity (bytes)",
                        num(bytes[static_cast<std::size_t>(n)]),
                        "<= " + num(capacity_bytes_per_node)});
  return issues;
}

}  // namespace stackscope::experts
