// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The wafer's temperature map (docs/model.md §15.4): each die's mean power over a serving run,
// laid out on the die grid, solved by core/thermal's grid solver (thermal::solve_steady) on one
// wafer-sized floorplan with one power block per die.
//
// The stack is the one perf::thermal_model gives a die without stacked DRAM
// (thermal::make_3d_stack with no DRAM layers: a 100 um silicon layer at 130 W/mK under a 20 um
// TIM at 4 W/mK), spanning the whole die grid. The package keeps hotspot.config's materials and
// thicknesses (copper spreader 1 mm, sink base 6.9 mm, 400 W/mK) and the design's ambient
// (hw::Thermal::ambient_C, as thermal_model), but HotSpot's 30 mm spreader and 60 mm sink cannot
// hold a wafer: both become one cold plate of WaferThermalOptions::plate_side_m, and r_convec
// is hotspot.config's 0.1 K/W over its 60 mm sink face taken per unit area (h = 1 / (0.1 K/W x
// (0.06 m)^2) = 2778 W/m²K) over the plate. That is an air-cooled heat sink's coefficient;
// set heat_transfer_W_per_m2K for liquid cooling.
//
// Pure functions of their arguments; reentrant.
#include <string>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/wafer/run.hpp"

namespace stackscope::wafer {

// Each die's mean power over a finished run (W), row-major like WaferRun::role: an instance's
// mean power (its energy over the makespan, as wafer_power_W) split evenly over its dies, and
// the design's static power (hw::Energy::static_power_W) on every die no instance holds
// (lenders, idle and spare dies are powered). Sums to wafer_power_W().
std::vector<double> die_power_W(const WaferRun& run, const perf::Design& design);

struct WaferThermalOptions {
  // Grid cell side the solver aims at (mm); cells per tile are rounded up so every tile gets a
  // whole number of them, and the grid is capped at max_cells a side (cells grow instead).
  // 2 mm cells put ~16 x 16 cells under a reticle-sized die: a 5 x 4 grid of 33 mm tiles solves
  // in a fraction of a second.
  double cell_mm = 2.0;
  int max_cells = 256;
  // The cold plate (spreader and sink sides): the 300 mm wafer's diameter (SEMI M1), so the
  // plate covers the whole wafer the die grid was cut from; never smaller than the grid.
  double plate_side_m = 0.300;
  // Convection from the plate to ambient per unit area (above). r_convec = 1 / (h x plate area).
  double heat_transfer_W_per_m2K = 1.0 / (0.1 * 0.06 * 0.06);
};

struct WaferThermalMap {
  int dies_x = 0, dies_y = 0;
  double tile_width_mm = 0, tile_height_mm = 0;  // die + its edge DRAM strip (hw::WaferLayout)
  double die_width_mm = 0, die_height_mm = 0;    // the die, at its tile's bottom-left corner
  double width_mm = 0, height_mm = 0;            // the die grid: dies_x x tile width, ...
  int rows = 0, cols = 0;
  // The silicon layer's temperature, rows x cols, row 0 at the bottom (y = 0, die row 0),
  // column 0 at x = 0; cell (r, c) covers [c, c+1) x width_mm / cols by [r, r+1) x height_mm /
  // rows.
  std::vector<double> temperature_C;
  double ambient_C = 0;
  std::vector<double> die_power_W;  // per die, row-major (the input)
  std::vector<double> die_peak_C;   // per die: the hottest cell it overlaps
  std::vector<double> die_mean_C;   // per die: area-weighted mean over the die
  int hottest_die = -1;             // index of the highest die_peak_C
  double peak_C = 0;                // its peak
  double total_power_W = 0;
  double heat_to_ambient_W = 0;  // the solver's energy balance: equals total_power_W
  double plate_side_m = 0, r_convec_K_per_W = 0;
  int iterations = 0;
  double solve_seconds = 0;
};

// The map of `design`'s wafer with `die_power_W` (W per die, row-major, one per die of the
// layout). Throws std::invalid_argument when the design has no wafer, its layout has issues,
// the power vector has the wrong size or a value that is negative or not finite, or the options
// are out of range (cell_mm, plate side and h must be positive, max_cells >= 8).
WaferThermalMap wafer_thermal_map(const perf::Design& design,
                                  const std::vector<double>& die_power_W,
                                  const WaferThermalOptions& options = {});
// The map of a finished run: die_power_W(run, design) on the run's layout.
WaferThermalMap wafer_thermal_map(const perf::Design& design, const WaferRun& run,
                                  const WaferThermalOptions& options = {});

// "die <d> at (x, y)" (the Wafer view's name) with x the column from the left and y the row from
// the bottom, both from 0.
std::string die_name(const WaferThermalMap& map, int die);

}  // namespace stackscope::wafer
