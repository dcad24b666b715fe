// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The reference: a flow-level discrete-event simulator of a Schedule on a Topology (docs/model.md
// §5.5). Steps run in order with a barrier between them; a step's flows start after the
// step's alpha, each flow becomes active after its path latency (hops x hop latency) and then
// shares link bandwidth max-min fairly with all active flows (progressive filling, recomputed
// at every flow arrival or completion). It is the slow ground truth for NetworkModel.
#include <vector>

#include "stackscope/network/schedule.hpp"
#include "stackscope/network/topology.hpp"

namespace stackscope::network {

struct FlowRecord {
  int src = 0;
  int dst = 0;
  int step = 0;
  double bytes = 0;
  double start_s = 0;   // when the flow started sending
  double finish_s = 0;  // when its last byte arrived
};

struct SimResult {
  double time_s = 0;               // completion of the last step
  std::vector<FlowRecord> flows;   // per-flow start/finish (when requested)
  long long events = 0;            // rate recomputations performed
};

SimResult simulate(const Topology& topology, const Schedule& schedule, bool keep_flows = false);

}  // namespace stackscope::network
