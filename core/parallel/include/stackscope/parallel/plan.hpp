// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A parallel plan (docs/model.md §7.1). Devices = tp x pp x dp x ep x cp.
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
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace stackscope::parallel {

struct ModulePlan {
  int tp = 0;  // tensor parallel degree inside the module (0 = global tp)
  int ep = 0;  // MoE only: expert-parallel degree (0 = stage devices / tp)
};

enum class Overlap { off, fixed, auto_tiles };

// Where the routed experts of every MoE layer live (docs/model.md §12.5;
// experts/compare.hpp builds and scores each strategy):
//  - plan: the plan's own layout: experts contiguous over the moe ep ranks, each split moe tp
//          ways, plus redundant_experts_per_rank copies of the hottest (moe::ep_load);
//  - eplb: DeepSeek's EPLB (arXiv 2412.19437 §3.4): the (E + R) slots, R =
//          redundant_experts_per_rank x ranks, filled with the experts and copies of the
//          hottest, packed to balance the expected load (global, or hierarchical over
//          eplb_groups groups of ranks);
//  - balanced: whole experts packed to balance the expected load, no copies;
//  - tp, ep, hd, hd_dynamic, shadow: mesh systems only (the first network level a mesh2d whose
//          size is the stage's devices): every expert split over all nodes; whole experts round
//          robin; HD-MoE's node balance (GLPK, hd_time_limit_s per layer) with link balance
//          (link_iterations annealing proposals, seed); the same plus pre-broadcast of the
//          predicted hottest expert; the same plus FasterMoE's shadowing.
// On a mesh every strategy is scored by the one mesh simulator (experts::simulate_layer); on
// other systems eplb and balanced set the ranks' loads the evaluator costs.
enum class ExpertStrategy { plan, tp, ep, eplb, balanced, hd, hd_dynamic, shadow };

// "plan", "tp", "ep", "eplb", "balanced", "hd", "hd-dynamic", "shadow".
std::string_view to_string(ExpertStrategy s);
std::optional<ExpertStrategy> parse_expert_strategy(std::string_view text);
// True for the strategies that need a mesh system (tp, ep, hd, hd_dynamic, shadow).
bool mesh_only(ExpertStrategy s);

struct ExpertPlacement {
  ExpertStrategy strategy = ExpertStrategy::plan;
  int eplb_groups = 1;           // 1 = EPLB's global policy, > 1 hierarchical (divides ranks)
  double hd_time_limit_s = 1.0;  // GLPK limit per MoE layer, s (1e-3..1e5)
  int hd_max_sets = 256;         // most frequent top-k sets in the MILP (1..100000)
  int link_iterations = 100;     // link balance proposals (0..10^7; 0 = identity mapping)
  // Tokens per batch the mesh placements are fitted on (0 = workload.batch, the decode step's;
  // a serving study may fit on its iterations' token budget instead; 0..65536).
  int fit_tokens = 0;
  std::uint64_t seed = 1;        // link balance and the token draws the placement is fitted on
  friend bool operator==(const ExpertPlacement&, const ExpertPlacement&) = default;
};

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
  // Placement strategy of the routed experts (above).
  ExpertPlacement experts;
  // Tile-level compute/communication overlap (docs/model.md §8): off, a fixed number of tiles, or
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
