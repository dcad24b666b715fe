// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to core/experts: what the mesh simulator (simulate_layer) and the GPU-system
// estimator (simulate_gpu_layer) share — the checks of a batch against a placement and the
// token → copy → node assignment with HD-MoE's OR rule (mesh_sim.hpp states the model).
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "stackscope/experts/mesh_sim.hpp"
#include "stackscope/experts/placement.hpp"

namespace stackscope::experts::detail {

// "%.12g".
std::string num(double v);

// Throws std::invalid_argument("<who>: ...") naming the field, where and the allowed range:
// an empty placement, hidden / intermediate < 1, weight_bytes not finite > 0, a placement
// validate() rejects on `nodes` nodes ("<rejected>: <issues>"), top_k outside 1..experts,
// expert_ids not tokens × top_k long, an id out of range or repeated in a token, a home node
// out of range ("allowed: <node_label>0..nodes-1").
void check_batch(const std::string& who, const Placement& placement, const LayerBatch& batch,
                 int nodes, const std::string& rejected, const std::string& node_label);

// Per-node work of one checked batch: each (token, expert) goes to one copy (CopyChoice; the
// least-loaded choice sees the FLOPs assigned so far), every share of that copy gets its
// fraction of the expert's 2·3·h·I FLOPs (a gated FFN's three h×I matrices), and a node
// receives a token once however many of its experts it holds (the OR). Weights are read once
// per share of every copy used: fraction × 3·h·I × weight_bytes.
struct LayerWork {
  std::vector<double> flops, weight_bytes;
  std::vector<int> tokens;                  // tokens each node computes for
  std::vector<int> assignments;             // (token, expert) pairs each node serves a share of
  std::vector<std::pair<int, int>> remote;  // (home, node) per token and remote node, in order
};
LayerWork assign_work(const Placement& placement, const LayerBatch& batch, int nodes,
                      CopyChoice choice);

}  // namespace stackscope::experts::detail
