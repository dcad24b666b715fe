// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Design -> thermal grid model (issue 4, deliverable 2): a layer stack, floorplans and a steady
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

// Decode-phase (steady state) mean power per device split by where it is dissipated, in W.
struct PowerSplit {
  double total_W = 0;            // decode.energy_J / decode.time_s
  double dram_access_W = 0;      // dram_bytes x 8 x memory.energy_pJ_per_bit / time
  double vertical_W = 0;         // dram_bytes x 8 x vertical.energy_pJ_per_bit / time (stacked_3d)
  double noc_W = 0;              // dram_bytes x noc_J_per_byte / time, on the uncore strip
  double dram_background_W = 0;  // kDramBackgroundShare x static power, over all DRAM layers
  double logic_static_W = 0;     // rest of the static power, on the logic die by area
  double logic_dynamic_W = 0;    // the rest: matrix/vector FLOPs and SRAM staging
};

struct ThermalDesign {
  thermal::StackModel stack;
  thermal::PowerMap power;       // [layer][block], blocks as in the layer's floorplan
  std::vector<LayerRole> roles;  // per stack layer
  PowerSplit split;
  int dram_layers = 0;  // DRAM dies in the stack (0 for hbm / sram_only)
};

// Share of the device's static power attributed to DRAM refresh and background (standby)
// power when DRAM is stacked on the logic die. An assumption, not a fitted value: HBM-class
// standby + refresh is of order 10% of a device's idle power.
inline constexpr double kDramBackgroundShare = 0.10;

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
