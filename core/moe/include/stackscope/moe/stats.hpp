// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Routing statistics of one MoE layer of a token-level trace (docs/model.md §6.1): how often
// each expert is selected, how often two experts are selected together, and the distinct top-k sets
// with their counts. HD-MoE's communication estimator charges a node once per top-k set it takes
// part in (arXiv 2509.09420 §IV-B2, read as the OR its text states), so the set counts, not only
// the frequencies, are what a placement is scored on.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "stackscope/moe/trace.hpp"

namespace stackscope::moe {

struct TopKSet {
  std::vector<std::uint16_t> experts;  // ascending
  std::size_t tokens = 0;              // tokens that selected exactly this set
};

struct LayerStats {
  std::size_t tokens = 0;
  // frequency[e]: selections of e per token (0..1); sums to top_k.
  std::vector<double> frequency;
  // pair[i * experts + j], i != j: fraction of tokens that selected both i and j (symmetric;
  // the diagonal holds frequency[i]). Row i sums to frequency[i] * top_k.
  std::vector<double> pair;
  // The distinct top-k sets, most tokens first (ties: lexicographic by experts).
  std::vector<TopKSet> sets;
  // max_e frequency / mean frequency (1 = every expert equally used; experts / top_k at most).
  double imbalance = 0;
};

// The statistics of layer `layer` of a checked trace. Throws std::out_of_range for a layer that
// is not in the trace.
LayerStats layer_stats(const RoutingTrace& trace, std::size_t layer);

}  // namespace stackscope::moe
