// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The design's expert placement in the evaluator (docs/model.md §12.5;
// parallel::ExpertPlacement says what each strategy is).
//
//  * Mesh systems (the first network level a mesh2d of exactly one pipeline stage's devices):
//    every MoE layer of every strategy but `plan` is the mesh simulator's
//    (experts::simulate_layer, with pre-broadcast or shadowing for hd-dynamic and shadow).
//    The placement of MoE layer l is fitted once, as `stackscope-cli moe` fits it
//    (experts::fit_placement), on a draw of max(4096, 4 B) tokens from the design's routing
//    row l alone (moe::synthetic_trace, seed parallel.experts.seed + 2 l), B = workload.batch
//    (64 when batch_auto) tokens per fit batch, GLPK limited to hd_time_limit_s per layer;
//    HD-MoE's placements are held to the node's free memory (capacity less everything but
//    the routed experts, shared over the stage's MoE layers), the other strategies' fixed
//    rules are checked by memory_footprint() instead. Each evaluation then simulates the layer
//    at its own token count (a decode step, a prefill pass, a serving iteration) on
//    independent draws (seed + 2 l + 1).
//    The design's routing has frequency rows, not recorded tokens, so hd-dynamic pre-broadcasts
//    the layer's most frequent expert (a static prediction; the `moe` command uses the
//    next-layer predictor on recorded traces) under experts::non_moe_time of the step.
//    Node rates: the matrix peak at the weights' precision × the runtime's matmul efficiency,
//    the streaming DRAM bandwidth, level 0's link_GBps × efficiency per directed link and its
//    latency_us as α; activations at the communication precision.
//  * Other systems (GPU clusters, 3D-stacked chips on switches or tori): eplb and balanced set
//    which experts each of the moe ep ranks holds (experts::eplb_placement with R =
//    redundant_experts_per_rank × ranks rounded up to fill every rank equally, or
//    experts::balanced_placement, on the layer's expected loads); the evaluator then costs the
//    busiest rank as it costs the plan's layout (moe::ep_load).
// Fitted placements and simulated layers are remembered process-wide (bounded; thread-safe), so
// a search or a serving run fits each (design, layer) once.
#include <string>

#include "stackscope/experts/mesh_sim.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/perf/design.hpp"

namespace stackscope::perf {

// Why `system` cannot run the mesh strategies with `stage_devices` devices per pipeline stage
// (empty when it can).
std::string expert_mesh_unfit(const hw::System& system, int stage_devices);

// True when the design's MoE layers are simulated on the mesh (a mesh strategy, or eplb /
// balanced, on a system expert_mesh_unfit() accepts).
bool simulated_on_mesh(const Design& design);

// The mesh of the design's first network level with the node rates given (above).
experts::MeshConfig expert_mesh(const hw::System& system, double node_flops, double mem_Bps,
                                double activation_bytes);

// One MoE layer's routed experts on the mesh, for `tokens` tokens of one pipeline stage.
struct MeshMoeCost {
  double time_s = 0;     // simulated layer: dispatch, experts, combine, exposed broadcast
  double compute_s = 0;  // the busiest node's expert compute (roofline)
  double flops = 0;      // that node's FLOPs and weight bytes read
  double weight_bytes = 0;
  double bytes_sent = 0;       // mean per node: dispatch + combine payload injected
  double link_bytes = 0;       // Σ over links (bytes × hops)
  double imbalance = 1;        // max / mean node compute
  double broadcast_bytes = 0;  // hd-dynamic / shadow weight broadcasts
};
// Mean over min(4, ceil(4096 / tokens)) draws of `tokens` tokens; above 4096 tokens, one
// slice of tokens / ceil(tokens / 4096) tokens scaled to the whole (consecutive slices, as
// chunked prefill runs them). Throws std::invalid_argument
// when the placement cannot be fitted (e.g. the experts do not fit the nodes' memory).
MeshMoeCost mesh_moe_layer(const Design& design, const experts::MeshConfig& mesh, int row,
                           double tokens, double weight_bytes);

// eplb / balanced on the moe ep ranks of a non-mesh system: the two candidate ranks as
// moe::ep_load() reports them (tokens = token-expert pairs × the fraction of the expert held;
// active experts = P(used) × fraction). `freq` has the model's experts entries.
moe::EpLoad placed_ep_load(const Design& design, const double* freq, int ranks, double tokens);

// Routed-expert weights on the fullest device, in whole experts (each expert's weights once):
// the plan's E / ep + redundant per rank, split moe tp ways; eplb's slots per rank; balanced's
// fullest rank; on a mesh TP's E / N, EP's ceil(E / N), HD-MoE's mean share E / N (its MILP
// holds every node to its free memory). Cheap: fits no placement that needs a solver.
double experts_per_device(const Design& design) noexcept;

// EPLB's redundant slots for `experts` experts on `ranks` ranks: redundant_per_rank × ranks,
// rounded up to a multiple of ranks minus experts' remainder (every rank the same slots).
int eplb_redundant_slots(int experts, int ranks, int redundant_per_rank) noexcept;

}  // namespace stackscope::perf
