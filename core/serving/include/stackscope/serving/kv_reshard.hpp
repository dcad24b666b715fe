// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// KV re-sharding between a prefill and a decode replica of different parallel plans
// (prefill and decode pools of their own size and plan; DistServe §4 and Splitwise §4.3 move
// the KV cache between pools whose tensor/pipeline degrees differ). Where one sequence's KV
// lives in a replica, after perf::IterationModel's layout:
//  - layers: pipeline stage s holds the layers parallel::stage_layers gives it;
//  - heads: within a stage the sequence sits in one attention group of tp_a devices
//    (attention-DP groups take whole sequences); rank r of the group holds KV heads
//    [r H / tp_a, (r + 1) H / tp_a) when tp_a <= H = kv_heads, else the one head
//    floor(r H / tp_a), replicated tp_a / H times (parallel::kv_bytes_per_token_layer);
//    MLA's latent is held whole by every rank;
//  - tokens: a prefill replica with context parallelism (cp > 1) splits the sequence over its
//    cp ring, rank c holding tokens [c/cp, (c+1)/cp) of it (ring attention, Liu et al. 2023);
//    a decode replica keeps the whole sequence in one group (its cp ranks are attention-DP
//    groups, parallel/plan.hpp).
// Every piece a decode device needs comes from one prefill device that holds it; when several
// hold it (replicated heads), the destinations are spread over them in turn. The sequence sits
// in the first group of each replica (groups are symmetric in the layout; the network may not
// be, which this ignores).
#include <vector>

#include "stackscope/perf/design.hpp"

namespace stackscope::serving {

// Bytes one (source device, destination device) pair moves per token of context; devices are
// replica-local indices (parallel::Placement of each design's plan).
struct KvRoute {
  int from = 0;
  int to = 0;
  double bytes_per_token = 0;
};

// The routes that move one sequence's KV from a replica of `prefill` to one of `decode`, in
// (from, to) order, pairs with nothing to move left out. Both designs are validated and run the
// same model with the same KV precision; throws std::invalid_argument otherwise. The routes'
// bytes add up to the decode replica's KV per token (its replicas included): every byte a
// decode device holds arrives once.
std::vector<KvRoute> kv_reshard_routes(const perf::Design& prefill, const perf::Design& decode);

}  // namespace stackscope::serving
