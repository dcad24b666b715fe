// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The placement comparison (docs/model.md §12.5): every strategy is
// fitted on one set of routing traces and scored, by simulate_layer() alone, on batches of
// another (or the same) set, layer by layer, on one mesh. What `stackscope-cli moe --compare`
// prints and the Experts view shows.
//
// Per evaluated MoE layer l:
//  * fit: the layer's statistics over the fit traces (moe::layer_stats of their tokens joined)
//    give the expected loads f_i and the top-k sets; each strategy builds its placement from
//    them (TP and EP ignore them). HD-MoE solves node_balance() with the mesh's own costs
//    (compute_s = 2·3·h·I / FLOP/s, weight_read_s = 3·h·I·weight bytes / memory B/s, comm_s per
//    node = h·activation bytes / (its links × link B/s)). Its placement is the MILP's unless
//    one of the MILP's warm-start candidates (EP, TP, interval split, balanced hybrid)
//    simulates faster on the fit batches (`batches` batches of the joined fit tokens; never the
//    eval batches); HdSolve::chosen says which, so a MILP that did not close in its time limit
//    cannot make HD-MoE worse than its own starting points. Then link balance permutes its
//    logical nodes over the mesh (link_iterations, seed), again on the fit batches only.
//  * eval: `batches` consecutive batches of `batch` tokens from the start of each eval trace's
//    layer l (token t's home t mod N, as batch_from_trace) are simulated; the layer's time is
//    the mean over them.
// The MoE time of the model is the mean evaluated layer time × its MoE layers; the end-to-end
// time between tokens adds non_moe_s per MoE layer (attention and shared experts, identical for
// every strategy; non_moe_time()). Speedups are ratios of end-to-end times, as HD-MoE reports
// them (HD-MoE's evaluation, arXiv 2509.09420), and of MoE times.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/experts/mesh_sim.hpp"
#include "stackscope/experts/placement.hpp"
#include "stackscope/lp/lp.hpp"
#include "stackscope/moe/trace.hpp"
#include "stackscope/workload/model.hpp"

namespace stackscope::experts {

// hd_dynamic: HD-MoE's static placement plus its pre-broadcast (dynamic.hpp): per eval batch,
// the `predicted_experts` experts the next-layer predictor (fitted on the fit traces) expects
// hottest from the batch's own routing at the layer before get a chunk broadcast under the
// non-MoE time, tokens water-filled to the least-loaded holders; layer 0 has no predecessor and
// runs static. shadow: the same static placement with FasterMoE's shadowing of the batch's
// hottest experts instead (He et al., PPoPP 2022), the whole-expert broadcast never hidden.
// Both are scored by simulate_layer plus the broadcast time not hidden (added to the layer).
enum class Strategy { tp, ep, eplb, balanced, hd, hd_dynamic, shadow };

// Bounds on the work of one comparison, shared by `moe`, the project check and the GUI: each
// grows the run (mesh nodes: the MILP and every simulated layer; tokens: the simulated batches;
// link iterations: one layer simulation per fit batch each), and past them a run takes hours.
inline constexpr int kMaxMeshSide = 32;
inline constexpr int kMaxMeshNodes = 1024;
inline constexpr long long kMaxScoredTokens = 1LL << 20;  // batch x batches
inline constexpr int kMaxLinkIterations = 100'000;

// "tp", "ep", "eplb", "balanced", "hd", "hd-dynamic", "shadow".
std::string_view to_string(Strategy strategy);
std::optional<Strategy> parse_strategy(std::string_view text);
// Every strategy, in the order above.
std::vector<Strategy> all_strategies();

struct CompareConfig {
  MeshConfig mesh;              // at most kMaxMeshSide per side, kMaxMeshNodes nodes
  int batch = 64;               // tokens per batch, B (1..65536)
  int batches = 4;              // eval batches per layer and eval trace (1..1024);
                                // batch x batches <= kMaxScoredTokens
  std::vector<int> layers;      // trace layers evaluated; empty: every layer
  std::vector<Strategy> strategies;  // empty: all_strategies()
  double weight_bytes = 2;      // per expert weight (BF16)
  double capacity_bytes = lp::kInf;  // per node, for every strategy
  // EPLB: redundant slots (-1: the fewest >= 1 that make E + R a multiple of N) and groups
  // (1 = global policy, > 1 hierarchical).
  int eplb_redundant = -1;
  int eplb_groups = 1;
  CopyChoice eplb_choice = CopyChoice::least_loaded;
  // HD-MoE node balance: GLPK's limits per layer and how many of the most frequent top-k sets
  // enter the MILP (the rest of the tokens still count in f_i; 1..100000).
  double hd_time_limit_s = 5;
  double hd_mip_gap = 1e-3;
  int hd_max_sets = 256;
  // HD-MoE's link balance after the node balance (link_balance.hpp): simulated-annealing swap
  // proposals over the node -> mesh permutation, scored by simulate_layer on the fit batches;
  // 0 leaves the placement on the identity mapping.
  int link_iterations = 200;  // 0..kMaxLinkIterations
  std::uint64_t seed = 1;
  int predicted_experts = 1;  // hd-dynamic: experts pre-broadcast per layer (HD-MoE: the hottest)
  // Non-MoE time per MoE layer, s; < 0: non_moe_time(model, mesh, batch, context).
  double non_moe_s = -1;
  int context = 1024;  // tokens of context for the attention (hdmoe-setup.md)
  // Requested (Ctrl-C in `moe`): compare() returns at the next layer, strategy or batch with
  // CompareResult::stopped set; the GLPK search and the link balance stop too.
  std::stop_token stop;
  // Called from the calling thread after each strategy of each layer is fitted and scored, with
  // the steps done and their total (layers x strategies); null = none.
  std::function<void(std::size_t done, std::size_t total)> progress;
  // Called from the calling thread with what is being fitted now ("layer 4, ep: link balance,
  // 3072 of 100000 moves"), so that a long fit shows signs of life between steps; null = none.
  std::function<void(std::string_view what)> activity;
};

struct LayerOutcome {
  int layer = 0;
  double time_s = 0;         // mean simulated layer time over the eval batches
  double imbalance = 1;      // mean over batches of max / mean node compute
  double link_utilisation = 0;  // mean over batches of the busiest link's busy / layer time
  double link_bytes = 0;     // mean bytes × hops
  double surrogate_s = 0;    // node_balance's surrogate of this placement, fitted statistics
  double surrogate_error = 0;  // mean over batches of |surrogate_s - simulated| / simulated
  double broadcast_bytes = 0;      // hd-dynamic / shadow: mean bytes broadcast (weights)
  double exposed_broadcast_s = 0;  // mean broadcast time not hidden (included in time_s)
  double shadowed = 0;             // shadow: mean experts shadowed per batch
};

struct StrategyOutcome {
  Strategy strategy = Strategy::tp;
  std::vector<LayerOutcome> layers;     // as CompareConfig::layers
  std::vector<Placement> placements;    // per evaluated layer
  LayerResult first;                    // the first layer's first batch, for views
  double moe_s = 0;          // mean layer time × MoE layers
  double end_to_end_s = 0;   // moe_s + non-MoE time of the MoE layers
  double imbalance = 1;      // mean over layers
  double link_utilisation = 0;
  // Mean over layers of LayerOutcome::surrogate_error (the surrogate's error on the eval
  // traces; the placement's statistics come from the fit traces).
  double surrogate_error = 0;
};

struct HdSolve {
  int layer = 0;
  lp::Status status = lp::Status::feasible;
  double gap = 0, seconds = 0;
  double objective_s = 0;
  std::string warm_start;
  double warm_start_objective_s = 0;
  int split_experts = 0;
  std::string chosen;  // "milp" or the warm-start candidate that simulated faster (above)
  double milp_fit_s = 0, chosen_fit_s = 0;  // mean simulated time on the fit batches
  double linked_fit_s = 0;  // the same after link balance (= chosen_fit_s without it)
  int link_accepted = 0;    // annealing moves accepted
  int sets = 0;  // top-k sets in the MILP
  double set_coverage = 0;  // fraction of the fit tokens whose set is in the MILP
};

struct CompareResult {
  int experts = 0, top_k = 0, moe_layers = 0;
  std::vector<int> layers;
  double non_moe_s = 0;  // per MoE layer
  int eplb_redundant = 0;
  std::vector<StrategyOutcome> strategies;
  std::vector<HdSolve> hd;  // per evaluated layer when HD-MoE was run
  bool stopped = false;     // CompareConfig::stop was requested: the result is incomplete

  const StrategyOutcome* find(Strategy s) const;
  // end_to_end(of) / end_to_end(over): > 1 means `over` is slower. nullopt if either is absent.
  std::optional<double> speedup(Strategy of, Strategy over) const;
  std::optional<double> moe_speedup(Strategy of, Strategy over) const;
};

// Attention (and shared experts) of one layer for `batch` tokens at `context` tokens of KV,
// split ideally over the mesh's nodes: the roofline max(FLOPs / (N F), bytes / (N M)) with
// FLOPs = 2 · attention weights · B + 4 · B · context · heads · head_dim (QKᵀ and PV) +
// 2 · shared-expert weights · B and bytes = (attention + shared-expert weights +
// B · 2 · kv_heads · head_dim · context) × weight bytes (Williams et al., CACM 2009). No
// communication: it is the same for every placement and only dilutes their differences.
// Throws std::invalid_argument for a model without MoE or non-positive batch or context.
double non_moe_time(const workload::Model& model, const MeshConfig& mesh, int batch, int context,
                    double weight_bytes = 2);

// Fits on `fit` and scores on `eval` (both non-empty, each trace of the model's experts and
// top_k and at least as many layers as evaluated). Throws std::invalid_argument naming the
// field and its allowed range, or the trace, for bad input; what node_balance() throws when a
// placement cannot fit memory.
CompareResult compare(const workload::Model& model, const CompareConfig& config,
                      const std::vector<moe::RoutingTrace>& fit,
                      const std::vector<moe::RoutingTrace>& eval);

// Recomputes every strategy's totals (moe_s, end_to_end_s, imbalance, link_utilisation,
// surrogate_error) from its layers, moe_layers and non_moe_s, as compare() does; for callers
// that join the results of several compare() runs over different layers.
void summarise(CompareResult& result);

// Tokens [from, to) of every layer of a trace (for fitting on one half, scoring on the other).
// Throws std::invalid_argument unless from < to <= the fewest tokens of any layer.
moe::RoutingTrace token_range(const moe::RoutingTrace& trace, std::size_t from, std::size_t to);

}  // namespace stackscope::experts
