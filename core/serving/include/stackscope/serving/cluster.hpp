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

}  // namespace stackscope::serving
