// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Serving instances of a StackScope design (docs/model.md §11.4): each instance is one replica of
// the design's plan (tp x pp x ep x cp devices) whose iterations are costed by perf::IterationModel
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

// Prefill/decode disaggregation (Splitwise, DistServe): a prefill pool and a decode pool, each
// `count` replicas of its own design (the same model, system and KV precision; each pool its own
// parallel plan, e.g. DistServe's prefill at lower tp than decode) under its own scheduler. The
// pools sit on consecutive devices of the system: prefill instance i on devices
// [i kp, (i + 1) kp), decode instance j on [P kp + j kd, P kp + (j + 1) kd) (kp, kd = one
// replica's devices, P prefill instances).
//
// The KV transfer re-shards: each decode device receives its layers and heads from the prefill
// devices that hold them (kv_reshard_routes), one point-to-point message of the system's network
// model (network::NetworkModel) per (source, destination) pair. Messages run in parallel, but a
// device's own messages serialise on its link (what it sends, and what it receives, each take
// the sum of their times): the transfer takes the busiest device's total. Energy is both ends'
// of every message; the bytes are what the decode replica holds (replicated heads arrive once per
// copy). Without a multi-device network (one device, no levels) transfers are free.
// Throws std::invalid_argument when a count is < 1, the pools' designs differ in model or KV
// precision, a replica has no room for one KV block, or the system has fewer devices than the two
// pools need.
struct Pool {
  perf::Design design;  // validated; its dp is not used
  SchedulerConfig scheduler;
  int count = 1;
};
struct Disaggregated {
  std::vector<InstanceConfig> instances;  // the prefill pool, then the decode pool
  KvTransferFn transfer;                  // (from, to) index `instances`
};
Disaggregated disaggregated_instances(const Pool& prefill, const Pool& decode);
// Both pools replicas of `design`.
Disaggregated disaggregated_instances(const perf::Design& design, const SchedulerConfig& prefill,
                                      const SchedulerConfig& decode, int prefill_count,
                                      int decode_count);

}  // namespace stackscope::serving
