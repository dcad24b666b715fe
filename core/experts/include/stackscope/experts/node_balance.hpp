// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// HD-MoE's node balance (arXiv 2509.09420 §IV-C), with the
// communication term its reviewers asked for: a node takes part in a top-k set's traffic if it
// holds any part of any expert of the set (an OR over the set, Eq. 2's text), not once per
// expert (Eq. 8's sum). A MILP solved by GLPK (core/lp) under a time limit from a warm
// start (below):
//
//   variables  P[i,c] in [0, 1]   share of expert i's columns on node c,   Σ_c P[i,c] = 1
//              Z[i,c] in {0, 1}   node c holds part of expert i,            P[i,c] <= Z[i,c]
//              Y[g,c] in [0, 1]   node c takes part in set g's traffic,     Y[g,c] >= Z[i,c], i in
//              g T_comp, T_comm >= 0
//   per node   T_comp >= B · compute_s · Σ_i f_i P[i,c]                (its share of the FLOPs)
//              T_comp >= weight_read_s · Σ_i P[i,c]                     (its weights read once:
//                                                                        the roofline's memory
//                                                                        side, Williams et al.
//                                                                        CACM 2009, as in
//                                                                        simulate_layer)
//              T_comm >= B · comm_s[c] · (1 - 1/N) · Σ_g f_g Y[g,c]    (hidden states in; the
//                                                                        tokens already homed on
//                                                                        c, 1/N, need none)
//              Σ_i P[i,c] · expert_bytes <= capacity                   (memory, every strategy)
//   minimise   T_comp + 2 T_comm                                        (dispatch + combine)
//
// f_i are the expected selections per token of expert i and f_g the fraction of tokens whose
// top-k set is g (moe::LayerStats). Y may stay continuous: at an optimum it equals the largest
// Z of its set, 0 or 1. The objective is a surrogate of the layer time; simulate_layer() is the
// estimator that scores the resulting placement, and surrogate() lets callers report how far
// the two are apart on traces the placement was not fitted on.
#include <string>
#include <vector>

#include "stackscope/experts/placement.hpp"
#include "stackscope/lp/lp.hpp"
#include "stackscope/moe/stats.hpp"

namespace stackscope::experts {

struct NodeBalanceInput {
  std::vector<double> loads;       // f_i, expected selections per token (Σ = top_k)
  std::vector<moe::TopKSet> sets;  // the top-k sets and their token counts (LayerStats::sets)
  int nodes = 0;
  double tokens = 0;     // B, tokens per batch
  double compute_s = 0;  // one token through one whole expert on one node, s (2·3·h·I / FLOP/s)
  // Per node: one hidden state into that node, s (hidden × activation bytes / its ingress B/s).
  std::vector<double> comm_s;
  // One whole expert's weights read from one node's memory, s (3·h·I·weight bytes / mem B/s);
  // 0 leaves the memory side of the roofline out.
  double weight_read_s = 0;
  double expert_bytes = 1;
  double capacity_bytes = lp::kInf;  // per node
  lp::Options solver;                // time limit, gap; its warm_start is set here (above)
};

struct NodeBalanceResult {
  Placement placement;  // one copy per expert over the nodes with P[i,c] > 1e-9 (renormalised)
  lp::Solution solution;
  double t_comp_s = 0, t_comm_s = 0;  // the surrogate's terms at the solution
  double objective_s = 0;             // t_comp + 2 t_comm
  int split_experts = 0;              // experts on more than one node
  std::string warm_start;  // "ep", "tp", "interval" or "balanced": GLPK's first incumbent
  double warm_start_objective_s = 0;  // the surrogate at that start
  // GLPK stopped without a placement (time limit) or with a worse one than its start: the
  // result is the start, its gap against the best bound GLPK proved (0 at worst).
  bool from_warm_start = false;
};

// The interval split: the experts, in id order, laid end to end on a line of N node-lengths,
// expert i taking N · f_i / Σ f of it; node c holds of expert i the share of [c, c+1) that
// falls in expert i's interval. Every node gets exactly Σ f / N of the expected load (perfect
// compute balance) and each expert spans about N f_i / Σ f + 1 consecutive nodes, so a token
// reaches few nodes. An expert of load 0 sits whole on the node where its interval starts. Our
// construction (the fractional counterpart of HD-MoE's grouped TP); throws
// std::invalid_argument for no experts, nodes < 1 or loads not finite and >= 0.
Placement interval_placement(const std::vector<double>& loads, int nodes);

// Throws std::invalid_argument for inconsistent input (no experts, nodes < 1, loads or sets
// out of range, a comm_s of the wrong size, non-positive times or bytes), and when the MILP
// is infeasible (the experts do not fit the nodes' memory) or the solver found no solution in
// its time limit and no start fits the memory (the message names the limit).
NodeBalanceResult node_balance(const NodeBalanceInput& input);

// The surrogate's t_comp + 2 t_comm (t_comp with both roofline sides) of any single-copy
// placement under `input` (the MILP's objective at that placement, Y = OR of Z). For placements
// with several copies, each copy's share counts 1 / copies of the expert's load and presence. For
// reporting its error against simulate_layer().
double surrogate(const Placement& placement, const NodeBalanceInput& input);

}  // namespace stackscope::experts
