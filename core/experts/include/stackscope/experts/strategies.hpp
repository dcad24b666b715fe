// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The baseline placement strategies (docs/model.md §12.1), each building
// a Placement from one layer's expected expert loads (selections per token, moe::LayerStats::
// frequency, or any load in consistent units). Scored, like every strategy, by simulate_layer()
// alone (score()).
#include <span>
#include <string>
#include <vector>

#include "stackscope/experts/mesh_sim.hpp"
#include "stackscope/experts/placement.hpp"

namespace stackscope::experts {

// Tensor parallelism: every expert one copy, 1/N of its columns on each of the N nodes.
Placement tp_placement(int experts, int nodes);

// Expert parallelism: every expert whole on node e mod N (round-robin, as HD-MoE's EP baseline
// and the contiguous-block EP of most runtimes when E is a multiple of N up to a relabelling).
Placement ep_placement(int experts, int nodes);

// DeepSeek's EPLB (github.com/deepseek-ai/EPLB, eplb.py; DeepSeek-V3, arXiv 2412.19437 §3.4):
// `redundant` extra slots go one at a time to the expert of the highest load per copy
// (replicate_experts: argmax load / copies, ties to the lower id), then the E + R copies, each
// carrying its expert's load / copies, are packed onto the nodes with (E + R) / N slots each by
// balanced packing (heaviest first onto the lightest node with a free slot; ties to the lower
// node). Hierarchical (`groups` > 1, rebalance_experts_hierarchical): the experts are cut into
// `groups` contiguous expert groups, packed onto `groups` node groups of N / groups
// consecutive nodes by the same balanced packing, and each node group replicates (R / groups
// slots) and packs its own experts; `groups` = 1 is EPLB's global policy. A token of a
// replicated expert goes to one of its copies (CopyChoice).
// Throws std::invalid_argument unless loads are finite and >= 0, nodes >= 1, redundant >= 0,
// (E + R) is a multiple of N, and for groups > 1 E, N and R are multiples of groups.
Placement eplb_placement(std::span<const double> loads, int nodes, int redundant, int groups = 1);

// The compute-balanced TP-EP hybrid of HD-MoE's baselines: an expert whose load exceeds the
// mean node load (Σ loads / N) is split over all nodes (TP); the others stay whole and are
// assigned longest-processing-time first (heaviest first onto the least-loaded node, ties to
// the lower node; Graham, SIAM J. Appl. Math. 1969) on top of the split experts' share.
// With fewer experts than nodes (Mixtral's 8 on 32) that rule would split every expert over
// every node, i.e. TP; instead each expert gets a block of consecutive nodes sized to its load
// (D'Hondt's divisor method) and is split evenly over it: TP within a group, EP across groups,
// like the tp 4 x ep 8 plan of the mixtral-hdmoe project.
Placement balanced_placement(std::span<const double> loads, int nodes);

// Expected load per node of a placement (Σ over shares of load / copies × fraction): the
// quantity EPLB and the balanced hybrid even out, for tests and views. Not a time.
std::vector<double> expected_node_load(const Placement& placement, std::span<const double> loads,
                                       int nodes);

// One strategy's placement as scored by simulate_layer() on `batch`.
struct Scored {
  std::string strategy;
  Placement placement;
  LayerResult result;
};
// Scores each placement with simulate_layer(mesh, placement, batch, choice): the one estimator
// every strategy is judged by. Throws what simulate_layer throws, and std::invalid_argument
// naming the strategy when validate() rejects its placement (memory capacity
// `capacity_bytes_per_node` included; expert_bytes = 3 h I weight_bytes).
std::vector<Scored> score(const MeshConfig& mesh, const LayerBatch& batch,
                          std::vector<std::pair<std::string, Placement>> placements,
                          double capacity_bytes_per_node,
                          CopyChoice choice = CopyChoice::round_robin);

}  // namespace stackscope::experts
