// SPDX-License-Identifier: GPL-3.0-or-later
// Layer stack description for the thermal grid solver, mirroring HotSpot's inputs (Huang et al.,
// "HotSpot: a compact thermal modeling methodology for early-stage VLSI design", IEEE TVLSI 2006;
// Skadron et al., ISCA 2003): floorplans (.flp), layer configuration (.lcf) and the package keys
// of hotspot.config. SI units throughout; temperatures in degrees Celsius.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace stackscope::thermal {

// One floorplan unit, HotSpot .flp convention: origin at the bottom-left corner of the chip,
// (x_m, y_m) is the block's bottom-left corner, all lengths in metres.
struct Block {
  std::string name;
  double width_m = 0.0;
  double height_m = 0.0;
  double x_m = 0.0;
  double y_m = 0.0;
};

struct Floorplan {
  std::vector<Block> blocks;
};

// One chip layer, the seven fields of a HotSpot .lcf entry. HotSpot stores resistivity
// (m.K/W); we store its inverse, conductivity.
struct Layer {
  std::string name;
  double thickness_m = 150e-6;
  double conductivity_W_per_mK = 100.0;                // HotSpot default silicon (k_chip)
  double volumetric_heat_capacity_J_per_m3K = 1.75e6;  // HotSpot default silicon (p_chip)
  bool lateral_heat_flow = true;                       // .lcf "Lateral heat flow Y/N"
  bool dissipates_power = false;                       // .lcf "Power Dissipation Y/N"
  int floorplan = -1;  // index into StackModel::floorplans; -1 = none (uniform material)
};

// Package below/above the chip; field names follow hotspot.config keys (s_sink, t_sink, k_sink,
// c_sink, s_spreader, ..., t_interface, k_interface, c_interface, r_convec, ambient). Defaults are
// HotSpot 6's hotspot.config values (ambient 318.15 K = 45 C).
struct Package {
  double ambient_C = 45.0;         // ambient
  double r_convec_K_per_W = 0.1;   // r_convec: sink-to-air convection resistance
  double s_sink_m = 0.06;          // heat sink side
  double t_sink_m = 6.9e-3;        // heat sink base thickness
  double k_sink_W_per_mK = 400.0;  // copper
  double c_sink_J_per_m3K = 3.55e6;
  double s_spreader_m = 0.03;  // heat spreader side
  double t_spreader_m = 1e-3;
  double k_spreader_W_per_mK = 400.0;
  double c_spreader_J_per_m3K = 3.55e6;
  double t_interface_m = 20e-6;  // TIM, used only if append_interface_layer
  double k_interface_W_per_mK = 4.0;
  double c_interface_J_per_m3K = 4.0e6;
};

// The full stack. Layer order is HotSpot's .lcf order: layer 0 is the layer FARTHEST from the heat
// sink; the last layer touches the heat spreader (in HotSpot's grid model the spreader and sink are
// appended after the last .lcf layer, LAYER_SI = 0 and LAYER_INT = 1 in the default two-layer
// chip). So a 3D stack lists the logic die first and the TIM last. Heat leaves only through the
// spreader/sink and r_convec (no secondary path through the C4 bumps/PCB).
struct StackModel {
  std::vector<Layer> layers;
  std::vector<Floorplan> floorplans;
  Package package;
  double chip_width_m = 0.016;   // x extent (HotSpot ev6: 16 mm)
  double chip_height_m = 0.016;  // y extent
  // HotSpot without an .lcf uses silicon + interface from the config; with an .lcf the TIM is an
  // explicit layer. true = append a TIM layer from package.t_interface/k_interface after the last
  // layer (the .lcf reader/writer should keep this false and list the TIM explicitly).
  bool append_interface_layer = false;
};

// Bounding box of a floorplan's blocks (width, height) in metres.
struct Extent {
  double width_m = 0.0;
  double height_m = 0.0;
};
Extent floorplan_extent(const Floorplan& fp);

// Two blocks of one floorplan that cover the same area: HotSpot's units tile the chip, and the
// solver would add both blocks' power to the cells they share.
struct BlockOverlap {
  std::size_t first = 0;  // block indices, first < second
  std::size_t second = 0;
  double width_m = 0.0;  // the shared rectangle
  double height_m = 0.0;
};
// An overlapping pair (the first the sweep meets; deterministic), if any. Blocks that only touch,
// or overlap by less than 1e-9 of the floorplan's extent in a direction (rounding in the file's
// decimals), do not overlap. Sweeps blocks by left edge: O(n log n) plus the pairs whose x
// ranges overlap.
std::optional<BlockOverlap> find_overlap(const Floorplan& fp);

}  // namespace stackscope::thermal
