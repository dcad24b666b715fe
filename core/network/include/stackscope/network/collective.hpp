// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Alpha-beta cost of collectives on a hierarchical system network (MODEL.md §5; the
// dual-stage, per-link model is a later issue). A group of `group` ranks whose consecutive
// members are `stride` devices apart is laid over the network levels (level 0 innermost):
// the ranks inside one level-0 unit talk over level 0, the rest over the outer levels, and
// hierarchical algorithms (reduce-scatter inside, all-reduce across, all-gather inside) are
// used when a group spans levels. Pure functions; SI units.
#include "stackscope/hw/hardware.hpp"

namespace stackscope::network {

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, point_to_point };

struct CollectiveCost {
  double time_s = 0;
  double bytes_per_device = 0;  // bytes each device sends over the network
  double energy_J = 0;          // per device, link energy of the sent bytes
  int outermost_level = -1;     // deepest level the group spans (-1: no communication)
};

// `bytes`: the per-rank buffer (all_reduce: the vector reduced; all_gather: the gathered
// output; reduce_scatter: the input; all_to_all: the data each rank holds for all others;
// point_to_point: the message).
CollectiveCost collective(const hw::System& sys, Collective op, double bytes, int group,
                          int stride) noexcept;

}  // namespace stackscope::network
