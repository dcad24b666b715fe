// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A parallel plan (MODEL.md §5). Devices = tp x pp x dp x ep.
//  - tp: tensor parallel (Megatron): heads and FFN columns split, all-reduce after attention
//        and after the FFN.
//  - pp: pipeline stages, layers split evenly; micro_batches micro-batches in flight.
//  - ep: expert parallel. Experts spread over ep ranks (each expert split tp ways); attention
//        and dense layers run data-parallel over the ep ranks (DeepSeek-style attention-DP),
//        so one replica = tp x ep x pp devices. ep > 1 requires an MoE model.
//  - dp: independent replicas; STPS scales with dp.
namespace stackscope::parallel {

struct Plan {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int ep = 1;
  int micro_batches = 0;  // 0 = auto (pp micro-batches in decode, so every stage is busy)
};

inline int devices(const Plan& p) { return p.tp * p.pp * p.dp * p.ep; }
inline int devices_per_replica(const Plan& p) { return p.tp * p.pp * p.ep; }

}  // namespace stackscope::parallel
