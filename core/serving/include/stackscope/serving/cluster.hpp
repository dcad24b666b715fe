// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Serving instances of a StackScope design (MODEL.md §13): each instance is one replica of the
// design's plan (tp x pp x ep x cp devices) whose iterations are costed by perf::IterationModel
// and whose KV cache is what the replica's memory holds after weights, activations and reserve.
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/serving/simulator.hpp"

namespace stackscope::serving {

// `count` co-located instances of `design` (validated; its dp is not used: each instance is one
// replica). Throws std::invalid_argument naming the reason when a replica has no room for even
// one KV block.
std::vector<InstanceConfig> colocated_instances(const perf::Design& design,
                                                const SchedulerConfig& scheduler, int count);

// Prefill/decode disaggregation (Splitwise, DistServe): `prefill` instances then `decode`
// instances of the design's plan, laid out on consecutive devices of its system (instance i on
// devices [i k, (i + 1) k), k = one replica's devices), and the KV transfer between them: shard j
// of a prefill replica goes to shard j of the decode replica as a point-to-point message of the
// system's network model (network::NetworkModel), all shards in parallel; the transfer takes
// the slowest shard and costs the links' energy. Throws std::invalid_argument when the system
// has fewer devices than the two pools need.
struct Disaggregated {
  std::vector<InstanceConfig> instances;
  KvTransferFn transfer;
};
Disaggregated disaggregated_instances(const perf::Design& design, const SchedulerConfig& prefill,
                                      const SchedulerConfig& decode, int prefill_count,
                                      int decode_count);

}  // namespace stackscope::serving
