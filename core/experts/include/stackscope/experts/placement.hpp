// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where each routed expert of one MoE layer lives on the N nodes of a mesh (docs/model.md
// §12.1). An expert has one or more copies; a copy is a list of (node, fraction) shares whose
// fractions are the share of the expert's FFN columns that node holds — of its weights and of
// its FLOPs alike (HD-MoE's P[i,c], arXiv 2509.09420 §4). Every strategy is a Placement:
//   TP      one copy, fraction 1/N on every node;
//   EP      one copy, fraction 1 on one node;
//   EPLB    several single-node copies of a hot expert (DeepSeek-V3, arXiv 2412.19437 §3.4);
//   HD-MoE  one copy with fractions over a subset of the nodes.
// Strategies that build placements live elsewhere; this header only describes and checks them.
#include <vector>

#include "stackscope/common/issue.hpp"

namespace stackscope::experts {

struct Share {
  int node = 0;         // node id, 0..N-1 (on a mesh: y * X + x)
  double fraction = 1;  // share of the expert's FFN columns held here, in (0, 1]
};

struct Copy {
  std::vector<Share> shares;  // fractions sum to 1; a node appears at most once
};

struct ExpertPlacement {
  std::vector<Copy> copies;  // at least one; a token of this expert is served by one copy
};

struct Placement {
  std::vector<ExpertPlacement> experts;  // indexed by routed-expert id
};

// Tolerance on Σ fractions = 1 per copy.
inline constexpr double kFractionSumTolerance = 1e-9;

// Bytes of expert weights each node holds: Σ over experts, copies and shares on the node of
// fraction × expert_bytes. Shares with a node outside [0, nodes) are skipped (validate() reports
// them). Throws std::invalid_argument for nodes < 1 or expert_bytes not finite and > 0.
std::vector<double> node_weight_bytes(const Placement& placement, int nodes, double expert_bytes);

// Everything wrong with `placement` for a layer of `experts` routed experts on `nodes` nodes,
// each expert `expert_bytes` of weights and each node holding at most capacity_bytes_per_node
// (memory capacity is a constraint for every strategy; +inf disables it). Paths are JSON
// pointers into the placement ("/experts/3/copies/0/shares/1/fraction") or "/nodes/5" for a
// node over capacity. Empty when the placement is usable. Throws std::invalid_argument when an
// argument itself is unusable (experts < 1, nodes < 1, expert_bytes or capacity not > 0).
std::vector<Issue> validate(const Placement& placement, int experts, int nodes, double expert_bytes,
                            double capacity_bytes_per_node);

}  // namespace stackscope::experts
