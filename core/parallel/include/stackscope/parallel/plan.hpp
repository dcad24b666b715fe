// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A parallel plan (MODEL.md §5). Devices = tp x pp x dp x ep x cp.
//  - tp: tensor parallel (Megatron): heads and FFN columns split, all-reduce after attention
//        and after the FFN; with sequence_parallel the all-reduce becomes reduce-scatter +
//        all-gather and norms/residuals are sharded over the sequence (Korthikanti et al. 2022).
//  - pp: pipeline stages, layers split evenly; micro_batches micro-batches in flight.
//  - ep: expert parallel. Experts spread over ep ranks (each expert split tp ways); attention
//        and dense layers run data-parallel over the ep ranks (DeepSeek-style attention-DP),
//        so one replica = tp x ep x cp x pp devices. ep > 1 requires an MoE model.
//  - cp: context parallel for long prefill (ring attention: K/V blocks passed around the cp
//        ranks, Liu et al. 2023); in decode the cp ranks serve as extra attention-DP groups.
//  - dp: independent replicas; STPS scales with dp.
// Per-module plans override how the tp x ep x cp devices of one stage are used by attention,
// dense FFN and MoE layers (0 = derived from the global plan); each must use all of them.
#include <initializer_list>
#include <limits>
#include <string>

namespace stackscope::parallel {

struct ModulePlan {
  int tp = 0;  // tensor parallel degree inside the module (0 = global tp)
  int ep = 0;  // MoE only: expert-parallel degree (0 = stage devices / tp)
};

enum class Overlap { off, fixed, auto_tiles };

struct Plan {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int ep = 1;
  int cp = 1;
  bool sequence_parallel = false;
  int micro_batches = 0;  // 0 = auto (pp micro-batches in decode, so every stage is busy)
  // Rank placement, innermost dimension first: consecutive ranks of the first dimension sit on
  // consecutive devices. A permutation of tp, ep, cp, pp, dp.
  std::string placement = "tp,ep,cp,pp,dp";
  ModulePlan attention;
  ModulePlan dense_ffn;
  ModulePlan moe;
  // Extra expert slots per EP rank holding replicas of the hottest experts (DeepSeek-V3 EPLB
  // "redundant experts"); a replicated expert's tokens split evenly over its copies.
  int redundant_experts_per_rank = 0;
  // Tile-level compute/communication overlap (MODEL.md §7): off, a fixed number of tiles, or
  // the best tile count per operator.
  Overlap overlap = Overlap::off;
  int overlap_tiles = 4;
};

// Device counts of a plan. Degrees come from files and flags before validation, so the
// products saturate at INT_MAX instead of overflowing (validate() then refuses the count);
// non-positive degrees give 0.
inline int degree_product(std::initializer_list<int> degrees) {
  constexpr long long cap = std::numeric_limits<int>::max();
  long long v = 1;
  for (const int d : degrees) {
    if (d <= 0) return 0;
    v = v <= cap / d ? v * d : cap;
  }
  return static_cast<int>(v);
}
// "tp2 pp4 ep8 dp2 cp2 sp": tp always, the other degrees when > 1, sp when on (the search
// table's plan column, a serving pool's plan).
std::string short_text(const Plan& p);

inline int devices(const Plan& p) { return degree_product({p.tp, p.pp, p.dp, p.ep, p.cp}); }
inline int devices_per_replica(const Plan& p) { return degree_product({p.tp, p.pp, p.ep, p.cp}); }
inline int devices_per_stage(const Plan& p) { return degree_product({p.tp, p.ep, p.cp}); }

}  // namespace stackscope::parallel
