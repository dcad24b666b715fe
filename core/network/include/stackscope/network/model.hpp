// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stage 2, analytic (docs/model.md §5.4): flows of each step are routed on the topology, bytes are
// summed per link, and a step takes
//   alpha + max( max over flows (hops x hop_latency),
//                max over links (first arrival of a flow on it + bytes / bandwidth) ),
// i.e. the bottleneck-link term with the path latency overlapped where the bottleneck link's
// traffic arrives early (never more than alpha + max latency + max bytes / bandwidth); the
// collective takes the sum over steps. With Algorithm::automatic every applicable
// algorithm is costed and the fastest chosen. Symmetric steps (rings, shifts) are costed once
// and multiplied; costs are memoised per (op, algorithm, group) shape so repeated calls with
// other sizes are cheap: time is a convex piecewise-linear function of the bytes, stored as
// its pieces.
//
// Contract: NetworkModel is not thread-safe (it memoises); use one per thread. cost() never
// throws for valid requests; units are SI.
#include <memory>
#include <vector>

#include "stackscope/network/schedule.hpp"
#include "stackscope/network/topology.hpp"

namespace stackscope::network {

struct CollectiveCost {
  double time_s = 0;
  Algorithm algorithm = Algorithm::ring;
  int steps = 0;
  double bytes_per_device = 0;  // mean bytes each rank injects into the network
  double energy_J = 0;          // per device (mean), link energy of all hops
  double bus_bandwidth_Bps = 0; // nccl-tests busBW definition for this op
  int outermost_level = -1;     // deepest level crossed (-1: no communication)
};

// Bytes carried per directed link, accumulated over calls (index = link id).
struct LinkLoads {
  std::vector<double> bytes;
  void clear() { bytes.clear(); }
};

class NetworkModel {
 public:
  explicit NetworkModel(const hw::System& system);
  ~NetworkModel();
  NetworkModel(NetworkModel&&) noexcept;
  NetworkModel& operator=(NetworkModel&&) noexcept;

  const Topology& topology() const;

  // Cost of one collective. If `loads` is given, the chosen algorithm's per-link bytes are
  // added to it (times `multiplicity`, e.g. layers x steps).
  CollectiveCost cost(const CollectiveRequest& request, LinkLoads* loads = nullptr,
                      double multiplicity = 1.0);

  // Stage 1 for a request (used by the reference simulator and tests).
  Schedule schedule(const CollectiveRequest& request, Algorithm algorithm) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// nccl-tests busBW factor: all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all
// (n-1)/n; broadcast and point_to_point 1 (busBW = algBW x factor, algBW = bytes / time).
double bus_bandwidth_factor(Collective op, int n);

}  // namespace stackscope::network
