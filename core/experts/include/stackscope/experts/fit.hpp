// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The two halves of compare() (compare.hpp), for callers that fit a placement once and score it
// on many batches: the evaluator (perf) fits each MoE layer's placement on token draws from the
// design's routing and simulates it at every iteration's token count.
#include <span>
#include <vector>

#include "stackscope/experts/compare.hpp"
#include "stackscope/experts/node_balance.hpp"
#include "stackscope/moe/stats.hpp"

namespace stackscope::experts {

// The layer's statistics (moe::layer_stats of layer `layer` of `fit`) and the node-balance
// problem HD-MoE solves on them with the mesh's own costs (compare.hpp: compute_s, weight_read_s,
// comm_s per node from its links; the hd_max_sets most frequent sets; cfg.batch tokens).
struct FitProblem {
  moe::LayerStats stats;
  NodeBalanceInput input;
  double set_coverage = 0;  // fraction of the fit tokens whose set is in the MILP
};
FitProblem fit_problem(const workload::Model& model, const CompareConfig& cfg,
                       const moe::RoutingTrace& fit, int layer);

// Strategy `s`'s placement of layer `layer`, fitted on that layer's tokens in `fit` (compare.hpp's
// fit step): TP and EP ignore them; EPLB with `eplb_redundant` slots and cfg.eplb_groups; HD,
// hd-dynamic and shadow share HD-MoE's static placement (node balance, polish on cfg.batches
// batches of cfg.batch fit tokens, link balance seeded with cfg.seed; compare() passes
// seed + layer), whose record goes to `solve` when not null.
// Throws std::invalid_argument as compare() does.
Placement fit_placement(const workload::Model& model, const CompareConfig& cfg, Strategy s,
                        const moe::RoutingTrace& fit, int layer, const FitProblem& problem,
                        int eplb_redundant, HdSolve* solve = nullptr);

// One batch scored by simulate_layer (compare.hpp, eval step): hd-dynamic pre-broadcasts
// `predicted` (empty: runs static, as a layer with no predecessor) under non_moe_s; shadow
// shadows the batch's hottest experts; eplb picks copies by cfg.eplb_choice. The broadcast time
// not hidden is added to layer.time_s and reported as exposed_s.
struct BatchScore {
  LayerResult layer;
  double exposed_s = 0;
  double broadcast_bytes = 0;
  int shadowed = 0;
};
BatchScore score_batch(const CompareConfig& cfg, Strategy s, const Placement& placement,
                       const LayerBatch& batch, std::span<const int> predicted, double non_moe_s);

}  // namespace stackscope::experts
