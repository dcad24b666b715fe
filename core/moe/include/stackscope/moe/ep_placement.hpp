// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where the routed experts of one MoE layer sit over the expert-parallel ranks, rank by rank:
// the same placement ep_load() costs (contiguous originals, E/ep per rank, plus `redundant`
// replica slots per rank filled with the hottest experts, DeepSeek-V3 EPLB, arXiv 2412.19437
// §3.4). For views that show every rank, not only the busiest.

#include "stackscope/moe/routing.hpp"

namespace stackscope::moe {

struct RankShare {
  int experts = 0;            // expert slots filled on this rank: originals + replicas
  int replicas = 0;           // of which redundant copies (replicas)
  double tokens = 0;          // expected token selections routed here (same units as ep_load)
  double active_experts = 0;  // expected experts used by >= 1 token
};

// Fills out[0..ep') for ep' = ep clamped to [1, experts] and returns ep'. `out` must hold
// kMaxExperts entries or ep. The busiest rank's tokens equal ep_load().most_tokens.tokens.
int ep_ranks(const double* freq, int experts, int ep, double tokens, int redundant,
             RankShare* out) noexcept;

}  // namespace stackscope::moe
