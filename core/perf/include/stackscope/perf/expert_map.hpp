// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Expert placement of a design, device by device (link view): which expert-parallel
// group and rank each device belongs to (parallel::Placement), how many routed experts it holds
// and the token selections routed to it in one decode step (moe::ep_ranks, the placement the
// evaluator costs). Pure; reentrant.
#include <vector>

#include "stackscope/perf/design.hpp"

namespace stackscope::perf {

struct DeviceExperts {
  int stage = 0, tp = 0, ep = 0, cp = 0, dp = 0;  // global plan coordinates (parallel::Coord)
  int ep_group = 0;     // index of the device's MoE expert-parallel group (0..groups-1)
  int ep_rank = 0;      // rank inside that group
  int moe_tp_rank = 0;  // shard of each hosted expert this device holds (experts split moe_tp ways)
  int experts = 0;      // routed expert slots on the device (originals + replicas)
  int replicas = 0;     // of which redundant replicas
  double tokens = 0;    // expected token selections routed to the device per MoE layer and step
};

struct ExpertMap {
  bool moe = false;  // false: dense model, `devices` is empty
  int moe_ep = 1, moe_tp = 1, ep_groups = 0;
  int routed_experts = 0, top_k = 0, redundant_per_rank = 0;
  double step_tokens = 0;     // tokens of one pipeline stage in one decode step (batch per replica)
  double busiest_tokens = 0;  // max over devices of `tokens`
  std::vector<DeviceExperts> devices;  // indexed by device
};

// Decode step, first MoE layer's routing row (synthetic routings have a single row). The batch
// is workload.batch, or max_batch_that_fits() when batch_auto.
ExpertMap expert_map(const Design& design);

}  // namespace stackscope::perf
