// SPDX-License-Identifier: GPL-3.0-or-later
// Token-level routing traces (trace.hpp): invariants and the seeded synthetic trace.
#include "stackscope/moe/trace.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include "stackscope/moe/routing.hpp"

namespace stackscope::moe {
namespace {

[[noreturn]] void fail(const RoutingTrace& t, const std::string& what) {
  throw std::invalid_argument("routing trace " + (t.source.empty() ? "" : t.source + " ") + what);
}

// Uniform on [0, 1): the top 53 bits of one draw (the engine's sequence is fixed by the
// standard; std::uniform_real_distribution's is not).
double unit(std::mt19937_64& g) {
  return static_cast<double>(g() >> 11) * 0x1.0p-53;
}

}  // namespace

void check(const RoutingTrace& t) {
  if (t.experts < 1 || t.experts > 65'536)
    fail(t, "has " + std::to_string(t.experts) + " experts (allowed: 1..65536)");
  if (t.top_k < 1 || t.top_k > t.experts)
    fail(t, "selects " + std::to_string(t.top_k) + " experts per token (allowed: 1.." +
                std::to_string(t.experts) + ")");
  if (t.layers.empty()) fail(t, "has no layers (allowed: at least one)");
  const auto k = static_cast<std::size_t>(t.top_k);
  std::vector<std::size_t> last(static_cast<std::size_t>(t.experts), 0);
  std::size_t stamp = 0;
  for (std::size_t l = 0; l < t.layers.size(); ++l) {
    const auto& ids = t.layers[l];
    if (ids.empty()) fail(t, "layer " + std::to_string(l) + " has no tokens");
    if (ids.size() % k != 0)
      fail(t, "layer " + std::to_string(l) + " holds " + std::to_string(ids.size()) +
                  " ids, not a whole number of tokens of " + std::to_string(k));
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (i % k == 0) ++stamp;
      const std::size_t token = i / k;
      if (ids[i] >= t.experts)
        fail(t, "layer " + std::to_string(l) + " token " + std::to_string(token) + ": expert id " +
                    std::to_string(ids[i]) + " out of range (allowed: 0.." +
                    std::to_string(t.experts - 1) + ")");
      if (last[ids[i]] == stamp)
        fail(t, "layer " + std::to_string(l) + " token " + std::to_string(token) + ": expert " +
                    std::to_string(ids[i]) + " selected twice");
      last[ids[i]] = stamp;
    }
  }
}

RoutingTrace synthetic_trace(const workload::Routing& routing, int experts, int top_k, int layers,
                             std::size_t tokens, std::uint64_t seed) {
  if (experts < 1 || experts > kMaxExperts)
    throw std::invalid_argument("synthetic routing trace: experts " + std::to_string(experts) +
                                " out of range (allowed: 1.." + std::to_string(kMaxExperts) + ")");
  if (top_k < 1 || top_k > experts)
    throw std::invalid_argument("synthetic routing trace: top_k " + std::to_string(top_k) +
                                " out of range (allowed: 1.." + std::to_string(experts) + ")");
  if (layers < 1 || tokens < 1)
    throw std::invalid_argument("synthetic routing trace: needs at least one layer and token");
  RoutingTrace t;
  t.experts = experts;
  t.top_k = top_k;
  t.source = "synthetic seed " + std::to_string(seed);
  std::mt19937_64 g(seed);
  std::vector<double> freq(static_cast<std::size_t>(experts)), w(freq.size());
  const auto k = static_cast<std::size_t>(top_k);
  for (int l = 0; l < layers; ++l) {
    expert_frequency(routing, experts, top_k, l, freq.data());
    auto& ids = t.layers.emplace_back();
    ids.reserve(tokens * k);
    for (std::size_t n = 0; n < tokens; ++n) {
      // Successive sampling without replacement: each pick proportional to the remaining
      // weights (the frequencies; a zero weight is never picked while others remain).
      w = freq;
      double total = 0;
      for (double x : w) total += x;
      for (std::size_t j = 0; j < k; ++j) {
        std::size_t pick = w.size();
        if (total > 0) {
          double r = unit(g) * total;
          for (std::size_t e = 0; e < w.size(); ++e) {
            if (w[e] <= 0) continue;
            pick = e;  // the last positive weight, should rounding leave r > 0
            r -= w[e];
            if (r < 0) break;
          }
        }
        if (pick == w.size()) {
          // No positive weight left (k > the experts with f > 0): the lowest unused id.
          pick = 0;
          while (w[pick] < 0) ++pick;
        }
        total -= std::max(0.0, w[pick]);
        w[pick] = -1;  // used
        ids.push_back(static_cast<std::uint16_t>(pick));
      }
    }
  }
  return t;
}

}  // namespace stackscope::moe
