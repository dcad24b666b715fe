// SPDX-License-Identifier: GPL-3.0-or-later
// The reference flow-level simulator (docs/model.md §5.5). Time model:
//  - steps run in order with a barrier: step k starts at the finish of step k-1 plus its
//    alpha_s (the first step at 0 + alpha_s);
//  - every flow is routed with Topology::route; its path latency (sum of the hop latencies)
//    is counted once, as a start delay: pipelined cut-through, the first byte needs the path
//    latency and the bytes then stream at the flow's rate. FlowRecord::start_s is the step
//    start plus that latency, finish_s the time its last byte is delivered;
//  - active flows share every link max-min fairly (Bertsekas & Gallager, Data Networks,
//    §6.5.2, progressive filling), recomputed at every activation or completion event;
//  - flows with src == dst or no bytes finish at the step start.
// The event loop and the rate solver are in flow_sim_engine.hpp.
#include "stackscope/network/flow_sim.hpp"

#include <stdexcept>
#include <string>

#include "flow_sim_engine.hpp"

namespace stackscope::network {

SimResult simulate(const Topology& topology, const Schedule& schedule, bool keep_flows) {
  const auto& links = topology.links();
  std::vector<double> capacity(links.size());
  for (std::size_t l = 0; l < links.size(); ++l) capacity[l] = links[l].bw_Bps;
  flow_sim_detail::StepEngine engine(std::move(capacity));

  SimResult result;
  std::vector<double> bytes, delay, start, finish;
  std::vector<int> path_begin, path;
  double t = 0;
  for (std::size_t s = 0; s < schedule.steps.size(); ++s) {
    const Step& step = schedule.steps[s];
    const std::size_t n = step.flows.size();
    bytes.resize(n);
    delay.resize(n);
    start.resize(n);
    finish.resize(n);
    path_begin.resize(n + 1);
    path.clear();
    path_begin[0] = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Flow& f = step.flows[i];
      if (f.src < 0 || f.src >= topology.devices() || f.dst < 0 || f.dst >= topology.devices()) {
        throw std::invalid_argument("flow_sim: flow " + std::to_string(f.src) + " -> " +
                                    std::to_string(f.dst) + " outside the " +
                                    std::to_string(topology.devices()) + " devices");
      }
      if (!(f.bytes >= 0)) throw std::invalid_argument("flow_sim: negative flow bytes");
      bytes[i] = f.bytes;
      const std::size_t first = path.size();
      if (f.src != f.dst && f.bytes > 0) {
        topology.route(f.src, f.dst, path);
        if (path.size() == first) throw std::logic_error("flow_sim: empty route between devices");
      }
      double latency = 0;
      for (std::size_t k = first; k < path.size(); ++k) latency += links[path[k]].latency_s;
      delay[i] = latency;
      path_begin[i + 1] = static_cast<int>(path.size());
    }
    const double t0 = t + step.alpha_s;
    t = engine.run(t0, bytes, delay, path_begin, path, start, finish);
    if (keep_flows) {
      for (std::size_t i = 0; i < n; ++i) {
        const Flow& f = step.flows[i];
        result.flows.push_back(
            {f.src, f.dst, static_cast<int>(s), f.bytes, start[i], finish[i]});
      }
    }
  }
  result.time_s = t;
  result.events = engine.events();
  return result;
}

}  // namespace stackscope::network
