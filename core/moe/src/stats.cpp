// SPDX-License-Identifier: GPL-3.0-or-later
// Routing statistics of one layer of a token-level trace (stats.hpp).
#include "stackscope/moe/stats.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace stackscope::moe {

LayerStats layer_stats(const RoutingTrace& trace, std::size_t layer) {
  if (layer >= trace.layers.size())
    throw std::out_of_range("routing trace " + trace.source + ": no layer " +
                            std::to_string(layer) + " (it has " +
                            std::to_string(trace.layers.size()) + ")");
  const auto e = static_cast<std::size_t>(trace.experts);
  LayerStats s;
  s.tokens = trace.tokens(layer);
  s.frequency.assign(e, 0.0);
  s.pair.assign(e * e, 0.0);
  std::map<std::vector<std::uint16_t>, std::size_t> sets;
  std::vector<std::uint16_t> set(static_cast<std::size_t>(trace.top_k));
  for (std::size_t t = 0; t < s.tokens; ++t) {
    const auto ids = trace.token(layer, t);
    for (const auto i : ids)
      for (const auto j : ids) s.pair[i * e + j] += 1.0;  // i == j: the diagonal, frequency
    std::copy(ids.begin(), ids.end(), set.begin());
    std::sort(set.begin(), set.end());
    ++sets[set];
  }
  const double n = static_cast<double>(s.tokens);
  for (auto& x : s.pair) x /= n;
  double top = 0;
  for (std::size_t i = 0; i < e; ++i) {
    s.frequency[i] = s.pair[i * e + i];
    top = std::max(top, s.frequency[i]);
  }
  s.imbalance = top / (static_cast<double>(trace.top_k) / static_cast<double>(e));
  s.sets.reserve(sets.size());
  for (auto& [experts, count] : sets) s.sets.push_back({experts, count});
  // Most tokens first; the map's order (lexicographic) breaks ties, kept by the stable sort.
  std::stable_sort(s.sets.begin(), s.sets.end(),
                   [](const TopKSet& a, const TopKSet& b) { return a.tokens > b.tokens; });
  return s;
}

}  // namespace stackscope::moe
