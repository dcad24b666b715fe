// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Token-level MoE routing (docs/model.md §6.1): for each MoE layer, the
// top-k experts every token selected, from a recorded trace (io::load_moe_trace reads the format of
// reference/moe-traces, HD-MoE's artifact: {"<layer>": [[e0, e1], ...one list per token]}) or
// drawn from a seeded synthetic distribution (synthetic_trace). What placement strategies are
// fitted on and scored with; the per-layer frequencies of routing.hpp are its first moment.
//
// Token t of one layer is token t of every other layer (the traces record one forward pass per
// token), so a trace with equal token counts per layer also gives layer-to-layer transitions
// (predictor.hpp).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stackscope/workload/model.hpp"

namespace stackscope::moe {

struct RoutingTrace {
  int experts = 0;  // expert ids are 0..experts-1
  int top_k = 0;    // experts per token, the same for every token of every layer
  // Per MoE layer, token-major: layers[l][t * top_k + j] = the j-th expert of token t. Each
  // token's ids are distinct.
  std::vector<std::vector<std::uint16_t>> layers;
  std::string source;  // the file, or "zipf:1.2 seed 7" for a synthetic trace (for messages)

  std::size_t tokens(std::size_t layer) const {
    return top_k > 0 ? layers[layer].size() / static_cast<std::size_t>(top_k) : 0;
  }
  std::span<const std::uint16_t> token(std::size_t layer, std::size_t t) const {
    return std::span<const std::uint16_t>(layers[layer])
        .subspan(t * static_cast<std::size_t>(top_k), static_cast<std::size_t>(top_k));
  }
};

// Throws std::invalid_argument naming the trace (`source`), layer and token when a trace breaks
// the invariants above: experts in [1, 65536], top_k in [1, experts], at least one layer, no
// empty layer, a whole number of tokens per layer, ids in range and distinct per token.
void check(const RoutingTrace& trace);

// `tokens` tokens per layer for `layers` MoE layers, each selecting top_k distinct experts with
// probabilities proportional to the per-layer frequencies of `routing` (expert_frequency():
// uniform, zipf, dirichlet or a recorded frequency table), drawn without replacement by
// successive sampling, independently per token and layer (no layer-to-layer correlation: a
// synthetic trace is the null case of the next-layer predictor). Deterministic for `seed`
// (std::mt19937_64, whose sequence the C++ standard fixes; no std:: distributions).
// Throws std::invalid_argument for experts outside [1, kMaxExperts], top_k outside
// [1, experts], layers < 1 or tokens < 1.
RoutingTrace synthetic_trace(const workload::Routing& routing, int experts, int top_k, int layers,
                             std::size_t tokens, std::uint64_t seed);

}  // namespace stackscope::moe
