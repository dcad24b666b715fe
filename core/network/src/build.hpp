// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stage 1 internals shared by schedule.cpp and model.cpp: a compact schedule whose flow bytes
// are fractions of the request's `bytes` (so one build serves every message size) and whose
// steps carry a repeat count (the steps of a ring phase are identical, so they are built and
// costed once).
#include <span>
#include <vector>

#include "stackscope/network/schedule.hpp"
#include "stackscope/network/topology.hpp"

namespace stackscope::network::detail {

struct CompactStep {
  std::vector<Flow> flows;  // bytes per byte of the request
  double alpha_s = 0;
  int repeat = 1;
};

struct CompactSchedule {
  bool ok = false;  // false: the algorithm cannot run this op on this group
  Algorithm algorithm = Algorithm::ring;
  std::vector<CompactStep> steps;
  // in_network: the level whose switches reduce (the steps then have no device flows).
  int in_network_level = -1;
};

// Algorithms tried by Algorithm::automatic for an op, in order of preference on ties.
std::span<const Algorithm> candidates(Collective op);

// Level whose switch can reduce the whole group in the network, or -1: the group must sit in
// one unit of a switch level with in_network_reduction, one member per unit of the level below,
// all on the same rail (then every member reaches the same switch in one hop).
int in_network_level(const Topology& topology, std::span<const int> ranks);

// Stage 1 for one algorithm. `bytes` only matters for a traffic matrix (none: uniform).
CompactSchedule build(const Topology& topology, Collective op, std::span<const int> ranks,
                      std::span<const double> traffic, Algorithm algorithm);

// Expands a compact schedule into the public form for a message of `bytes`.
Schedule expand(const CompactSchedule& compact, Collective op, double bytes);

}  // namespace stackscope::network::detail
