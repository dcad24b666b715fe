// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Expert routing statistics (docs/model.md §6.1). An MoE layer's time under expert parallelism is
// set by its most loaded device, so the evaluator needs, per layer, how often each expert is
// chosen. Frequencies f_i are expected selections per token (0 <= f_i <= 1, sum = top_k).
#include <cstddef>

#include "stackscope/workload/model.hpp"

namespace stackscope::moe {

inline constexpr int kMaxExperts = 1024;

// Number of distinct frequency rows the routing provides (1 unless a per-layer trace is given).
int frequency_rows(const workload::Routing& routing) noexcept;

// Fills freq[0..experts) for MoE layer `moe_layer` (0-based among MoE layers):
//  uniform   f_i = k / E
//  zipf      p_i ~ 1 / rank^s, ranks assigned to experts by a permutation seeded with `seed`
//  dirichlet p ~ Dirichlet(alpha), sampled with `seed`
//  trace     the recorded row (rows are reused cyclically if fewer than the MoE layers)
// then f = k p, water-filled so that no f_i exceeds 1 (a token picks k distinct experts).
// Deterministic for a given routing; no allocation. experts <= kMaxExperts.
void expert_frequency(const workload::Routing& routing, int experts, int top_k, int moe_layer,
                      double* freq) noexcept;

// Expert-parallel load of one layer: experts are placed contiguously, E/ep per rank.
struct RankLoad {
  double tokens = 0;          // expected tokens routed to this rank (x top-k selections)
  double active_experts = 0;  // expected experts on this rank used by at least one token
};

// P(an expert with routing share `share` is used by >= 1 of `tokens` tokens)
// = 1 - (1 - share)^tokens, clamped to [0, 1].
double hit_probability(double share, double tokens) noexcept;

// Distinct tokens among `tokens` that send at least one of their top_k selections to a rank
// holding `selections` of the tokens x top_k routed selections: each token misses the rank with
// probability (1 - q)^top_k, q = selections / (tokens x top_k) (a token's picks taken as
// independent draws). All tokens when the rank holds every selection; 0 for no selections.
double unique_tokens(double tokens, int top_k, double selections) noexcept;

// Load of the busiest rank (by tokens) for `tokens` tokens in the batch.
// P(expert i used by >= 1 of T tokens) = 1 - (1 - f_i)^T.
RankLoad busiest_rank(const double* freq, int experts, int ep, double tokens) noexcept;

// The two candidates for the slowest EP rank: the one with the most tokens (compute-bound
// layers) and the one with the most experts in use (weight reads, memory-bound decode).
struct EpLoad {
  RankLoad most_tokens;
  RankLoad most_experts;
};

// Like busiest_rank, with `redundant` extra expert slots per rank holding replicas of the
// hottest experts (DeepSeek-V3's redundant experts, arXiv 2412.19437 §3.4): slots go one at a
// time to the expert with the highest load per copy; a replicated expert's tokens split evenly
// over its copies; copies are placed on the least-loaded ranks (greedy, longest first). A
// replica is a separate copy of the weights, so it also adds weight reads where it is used.
EpLoad ep_load(const double* freq, int experts, int ep, double tokens, int redundant) noexcept;

// ep_load(), remembered per thread: an earlier call's result when the frequencies (bitwise) and
// the other arguments are the same, so evaluating many plans on one routing costs each
// (ep, tokens) once. Results are identical to ep_load()'s.
EpLoad ep_load_memo(const double* freq, int experts, int ep, double tokens, int redundant) noexcept;

// Ratio of the busiest rank's tokens to the mean (1 = perfectly balanced).
double imbalance(const double* freq, int experts, int ep) noexcept;

}  // namespace stackscope::moe
