// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Hop-aware KV transfer over a wafer's D2D mesh with link contention (docs/model.md §15.2).
// One transfer is a set of flows (die -> die, bytes) that run together, routed
// by the network's topology (dimension order, X then Y). Its time is the network model's step
// cost (network/model.hpp):
//   alpha + max( max over flows (hops x hop latency),
//                max over links (first arrival of a flow on it + bytes on it / bandwidth) ),
// so a lone transfer costs exactly what network::NetworkModel charges a point-to-point message.
// Contention between transfers: each link is reserved first come, first served. A transfer
// starts when every link it uses is free (or at once) and holds them for its time. Transfers on
// disjoint paths overlap; transfers that share a link queue. This is store-and-forward at
// message granularity, not the max-min sharing of network/flow_sim.hpp. Both give the same
// makespan when the shared link is the bottleneck of every transfer (tests check it).
// Energy: bytes x hops x the links' energy per byte.
//
// Contract: not thread-safe (it holds the reservations); one per simulation. Times in s.
#include <span>
#include <vector>

#include "stackscope/hw/hardware.hpp"
#include "stackscope/network/schedule.hpp"
#include "stackscope/network/topology.hpp"

namespace stackscope::wafer {

struct TransferTiming {
  double start_s = 0;
  double time_s = 0;  // from start to the last byte
  double energy_J = 0;
  double bytes = 0;
  int max_hops = 0;
};

class D2dLinks {
 public:
  explicit D2dLinks(const hw::System& wafer_system);

  // Schedules one transfer of `flows` (device ids of the wafer system) asked at `now_s`.
  TransferTiming transfer(std::span<const network::Flow> flows, double now_s);
  // Cost of the flows on an idle mesh (no reservation made).
  TransferTiming cost(std::span<const network::Flow> flows) const;

  const network::Topology& topology() const { return topology_; }
  // Bytes each directed link carried so far (index = link id of topology()).
  const std::vector<double>& link_bytes() const { return bytes_; }
  void reset();

 private:
  network::Topology topology_;
  double alpha_s_ = 0;
  std::vector<double> busy_until_;
  std::vector<double> bytes_;
  TransferTiming cost(std::span<const network::Flow> flows, std::vector<int>* used) const;
};

}  // namespace stackscope::wafer
