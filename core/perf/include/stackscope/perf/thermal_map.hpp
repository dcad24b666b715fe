// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Design -> thermal grid model: a layer stack, floorplans and a steady
// power map derived from the performance model's decode-phase activity, for
// thermal::solve_steady and io::write_hotspot. Lives in core/perf because it reads Result;
// core/thermal stays independent of the performance model.
#include <string>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/perf/result.hpp"
#include "stackscope/thermal/solver.hpp"
#include "stackscope/thermal/stack.hpp"

namespace stackscope::perf {

enum class LayerRole { logic, bond, dram, tim };

struct ThermalDesign {
  thermal::StackModel stack;
  thermal::PowerMap power;       // [layer][block], blocks as in the layer's floorplan
  std::vector<LayerRole> roles;  // per stack layer
  PowerSummary split;            // = Result::power
  int dram_layers = 0;           // DRAM dies in the stack (0 for hbm / sram_only)
};

// stacked_3d: thermal::make_3d_stack package and materials, die side sqrt(die_area_mm2),
// L = layers_total DRAM dies; logic floorplan = a grid of core<i> blocks (as close to
// noc.mesh_x x mesh_y as the core count allows) above an "uncore" strip (NoC, PHYs, other,
// sized by its area share, at least 10% of the die); each DRAM die = one block per channel
// (chan<k>). Access power goes to the layers_connected dies nearest the logic die (they carry
// the channels), background power to every DRAM die, vertical-link power to the bond layers
// between the logic die and the farthest connected die.
// hbm / sram_only: a logic die + TIM only; HBM stacks sit beside the die on the interposer and
// their DRAM power is not in this stack (it is reported in split.dram_access_W only).
ThermalDesign thermal_model(const Design& design, const Result& result);

// Index of the stack layer with the highest max temperature among layers of `role`, or -1.
int hottest_layer(const ThermalDesign& td, const thermal::Solution& s, LayerRole role);

}  // namespace stackscope::perf
