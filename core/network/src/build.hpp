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
  int begin = 0;  // the step's flows: CompactSchedule::flows[begin, end)
  int end = 0;
  // Steps with flows take the alpha of the outermost level their flows cross (found while
  // routing them); this is only set for the flow-less in_network steps.
  double alpha_s = 0;
  int repeat = 1;
};

// All flows live in one array (bytes per byte of the request) that steps index into, so a
// reused CompactSchedule builds without allocating, and phases that repeat the same flows (the
// all-gather after a reduce-scatter) share them.
struct CompactSchedule {
  bool ok = false;  // false: the algorithm cannot run this op on this group
  Algorithm algorithm = Algorithm::ring;
  std::vector<Flow> flows;
  std::vector<CompactStep> steps;
  // in_network: the level whose switches reduce (the steps then have no device flows).
  int in_network_level = -1;

  std::span<const Flow> flows_of(const CompactStep& s) const {
    return {flows.data() + s.begin, static_cast<std::size_t>(s.end - s.begin)};
  }
  void clear() {
    ok = false;
    flows.clear();
    steps.clear();
    in_network_level = -1;
  }
};

// Algorithms tried by Algorithm::automatic for an op, in order of preference on ties.
std::span<const Algorithm> candidates(Collective op);

// Level whose switch can reduce the whole group in the network, or -1: the group must sit in
// one unit of a switch level with in_network_reduction, one member per unit of the level below,
// all on the same rail (then every member reaches the same switch in one hop).
int in_network_level(const Topology& topology, std::span<const int> ranks);

// Stage 1 for one algorithm into `out` (cleared first; its capacity is reused). `traffic`:
// optional all-to-all matrix (empty: uniform).
void build(const Topology& topology, Collective op, std::span<const int> ranks,
           std::span<const double> traffic, Algorithm algorithm, CompactSchedule& out);
CompactSchedule build(const Topology& topology, Collective op, std::span<const int> ranks,
                      std::span<const double> traffic, Algorithm algorithm);

// Per-step alpha of a step whose outermost crossed level is `level` (-1: none).
double level_alpha(const Topology& topology, int level);

// Expands a compact schedule into the public form for a message of `bytes`.
Schedule expand(const Topology& topology, const CompactSchedule& compact, Collective op,
                double bytes);

}  // namespace stackscope::network::detail
