// SPDX-License-Identifier: GPL-3.0-or-later
// Parametrised 3D stack (logic die + L DRAM dies, DeepStack-style) and the compact thermal model
// peak = ambient + P.(R_base + R_layer.L) fitted to the grid solver for the search inner loop
// (docs/model.md §14.2; DeepStack uses R = 0.56 + 0.01.L C/W).
#pragma once

#include <vector>

#include "stackscope/hw/hardware.hpp"
#include "stackscope/hw/stack_layers.hpp"
#include "stackscope/thermal/solver.hpp"
#include "stackscope/thermal/stack.hpp"

namespace stackscope::thermal {

// Material values: silicon 130 W/mK near 300-350 K (HotSpot uses 100; 3D-ICE uses 130);
// BEOL / hybrid-bond dielectric ~2.25 W/mK (3D-ICE BEOL material); TIM 4 W/mK and copper
// spreader/sink 400 W/mK (hotspot.config defaults).
struct StackParams {
  int dram_layers = 8;
  double die_width_m = 0.02;
  double die_height_m = 0.02;
  double logic_power_W = 300.0;         // spread over the logic die's core region
  double dram_power_per_layer_W = 3.0;  // uniform over each DRAM die
  double logic_thickness_m = 100e-6;
  double dram_thickness_m = hw::kDramDieThicknessUm / 1e6;  // thinned DRAM die (the hw value)
  double bond_thickness_m = 10e-6;  // BEOL + hybrid bond per interface
  double tim_thickness_m = 20e-6;
  double k_silicon_W_per_mK = 130.0;
  double k_bond_W_per_mK = 2.25;
  double k_tim_W_per_mK = 4.0;
  double logic_core_fraction =
      0.8;  // share of logic power in the central core block (rest: I/O ring)
  Package package{};
};

// Layers: 0 = logic die, then (bond, DRAM die) x L, then TIM (last, touches the spreader).
// Floorplans: logic (core + 4 periphery blocks), dram (one "array" block).
StackModel make_3d_stack(const StackParams& p);
// Power map matching make_3d_stack's floorplans.
PowerMap make_3d_stack_power(const StackParams& p);

struct CompactFit {
  double r_base_K_per_W = 0.0;
  double r_layer_K_per_W = 0.0;
  double max_abs_error_C = 0.0;
  double mean_abs_error_C = 0.0;
  int samples = 0;
  // Temperature rise over ambient predicted for total power P and L DRAM layers.
  double rise_C(double power_W, int layers) const {
    return power_W * (r_base_K_per_W + r_layer_K_per_W * layers);
  }
};

struct CompactSample {
  int layers = 0;
  double power_W = 0.0;  // total stack power
  double rise_C = 0.0;   // grid-solver peak minus ambient
};

// Which temperature the compact model predicts.
enum class CompactTarget {
  stack_peak,  // hottest cell of the whole stack (the logic die under the DRAM)
  dram_peak,   // hottest cell of any DRAM die (what the 85 / 95 C DRAM limits apply to)
};

// Grid solves of make_3d_stack(base with dram_layers = L, logic_power_W = P) for every L and P,
// then a least-squares fit of rise = P.(R_base + R_layer.L). Samples are returned if non-null.
CompactFit fit_compact_model(const StackParams& base, const std::vector<int>& layer_counts,
                             const std::vector<double>& logic_powers_W, const GridOptions& opt,
                             std::vector<CompactSample>* samples = nullptr,
                             CompactTarget target = CompactTarget::stack_peak);

// Compact DRAM-peak model for a die of the given area under the default (hotspot.config)
// package: R_base = a0 + a1.(400 mm^2 / A), R_layer = b0 + b1.(400 mm^2 / A). The constants are
// least-squares fits of fit_compact_model(..., dram_peak) at several die areas
// (tests/core/thermal/compact_test.cpp re-derives them and checks the error). Valid for
// 100..900 mm^2 dies and 1..16 DRAM layers.
struct GeometryCompact {
  double r_base_K_per_W = 0;
  double r_layer_K_per_W = 0;
};
GeometryCompact geometry_compact_model(double die_area_mm2) noexcept;
// The resistances a design's compact model uses: the geometry fit for its die area, or the
// given r_base / r_layer (hw::Thermal::compact).
GeometryCompact compact_resistances(const hw::Thermal& t, double die_area_mm2) noexcept;
// Extra resistance of a per-layer stack's dies that are thicker (or thinner) than the die the
// compact resistances assume (hw::kDramDieThicknessUm): sum of (t_k - t_ref) / (k_si A), 1D
// conduction through a slab (Fourier's law, R = t / (k A); Incropera, Fundamentals of Heat and
// Mass Transfer, eq. 3.6) with StackParams' silicon k = 130 W/mK over the die area. Every die
// lies between the logic die and the sink, so the whole stack's power crosses it. 0 for a
// uniform stack.
double dram_thickness_resistance_K_per_W(const hw::Memory& m, double die_area_mm2) noexcept;
// Re-fitted when the grid solver took HotSpot's twelve-node package; the single
// periphery node before gave 0.1245 + 0.04223 (400/A) and 0.01078 (400/A).
inline constexpr double kGeometryRefAreaMm2 = 400.0;
inline constexpr double kGeometryBaseA0 = 0.13053;  // K/W (sink + spreader: area-independent part)
inline constexpr double kGeometryBaseA1 = 0.01992;  // K/W at 400 mm^2 (die, TIM, spreading)
inline constexpr double kGeometryLayerB0 = -0.000072;  // K/W per layer
inline constexpr double kGeometryLayerB1 =
    0.010920;  // K/W per layer at 400 mm^2 (bond + die conduction)

}  // namespace stackscope::thermal
