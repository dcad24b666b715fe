// SPDX-License-Identifier: GPL-3.0-or-later
// Finite-volume thermal grid solver over a StackModel, after HotSpot 7's grid model (Huang et al.,
// IEEE TVLSI 2006; HotSpot temperature_grid.c): each chip layer is a rows x cols grid of cells;
// lateral conductances k.t.dy/dx between neighbours; vertically each layer's node sits on its
// face farther from the sink, so adjacent layers couple through the whole thickness of the one
// below (k.A/t). The last layer feeds a gridded heat spreader and heat sink over the chip
// footprint and HotSpot's twelve periphery nodes for the parts outside it (spreader: four
// trapezoids; sink: four under them, four beyond the spreader); the sink reaches ambient through
// its base and r_convec, shared by area over the sink face.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "stackscope/thermal/stack.hpp"

namespace stackscope::thermal {

// power[layer][block] in watts, blocks indexed as in that layer's floorplan. Layers that do not
// dissipate power (or have no floorplan) may have an empty vector. For a power layer with no
// floorplan, power[layer] may hold one value spread uniformly over the chip.
using PowerMap = std::vector<std::vector<double>>;

// HotSpot's periphery nodes in its order (temperature.h SP_W .. SINK_S, out.steady's inode_0 ..
// inode_11): the spreader overhang's west, east, north (max y), south trapezoids; the sink under
// them (inner); the sink beyond the spreader (outer).
enum PeripheryNode : int {
  kSpW,
  kSpE,
  kSpN,
  kSpS,
  kSinkCW,
  kSinkCE,
  kSinkCN,
  kSinkCS,
  kSinkW,
  kSinkE,
  kSinkN,
  kSinkS,
  kPeripheryNodes
};

struct GridOptions {
  int rows = 64;
  int cols = 64;
  double tolerance = 1e-10;  // PCG relative residual ||b - G.x|| / ||b||
  int max_iterations = 5000;
  // kConjugateGradient: PCG with a vertical-line + per-layer coarse-grid preconditioner
  // (64x64x20 layers: ~56 iterations, ~0.25 s). kCholesky: Eigen SimplicialLDLT, a direct
  // cross-check; its fill grows fast on 3D grids (32x32x20 already takes ~2 s).
  enum class Method { kConjugateGradient, kCholesky } method = Method::kConjugateGradient;
};

struct LayerStats {
  std::string name;
  double max_C = 0.0;
  double mean_C = 0.0;
  double min_C = 0.0;
};

struct BlockTemperature {
  int layer = -1;
  std::string block;
  double max_C = 0.0;   // hottest cell the block overlaps
  double mean_C = 0.0;  // overlap-area-weighted mean (HotSpot's default "avg" grid map mode)
};

struct Solution {
  int rows = 0;
  int cols = 0;
  // temperature_C[layer][r * cols + c], row 0 at the bottom (y = 0), column 0 at x = 0.
  // Indexed like StackModel::layers (plus an appended TIM layer if append_interface_layer).
  std::vector<std::vector<double>> temperature_C;
  std::vector<LayerStats> layers;
  std::vector<double> spreader_C;     // gridded spreader over the chip footprint (rows x cols)
  std::vector<double> sink_C;         // gridded sink over the chip footprint
  double spreader_periphery_C = 0.0;  // area-weighted mean of the spreader's periphery nodes
  double sink_periphery_C = 0.0;      // area-weighted mean of the sink's periphery nodes
  // Every periphery node (PeripheryNode order); NaN where the package has no overhang there.
  std::array<double, kPeripheryNodes> periphery_C{};
  std::vector<BlockTemperature> blocks;  // every block of every layer with a floorplan
  BlockTemperature hottest;              // block with the highest max_C (layer -1 if no floorplans)
  double total_power_W = 0.0;
  double heat_to_ambient_W = 0.0;  // sum over convection conductances of (T - ambient)
  int iterations = 0;              // CG iterations (0 for Cholesky)
  double residual = 0.0;
  double solve_seconds = 0.0;  // assembly + solve wall time
  double time_s = 0.0;         // transient snapshots: simulated time since the start
};

struct TransientOptions {
  double step_s = 1e-3;  // backward-Euler time step
  int steps = 100;
  int record_every = 0;               // keep a snapshot every N steps (0: only the last step)
  const Solution* initial = nullptr;  // nullptr: everything starts at ambient
};

// Steady state. Throws std::invalid_argument on malformed input.
Solution solve_steady(const StackModel& stack, const PowerMap& power, const GridOptions& opt = {});

// Transient under constant power (backward Euler on C.dT/dt + G.T = P, node capacitances =
// volumetric heat capacity x cell volume). Returns the recorded snapshots in time order;
// iterations accumulate over steps and solve_seconds is the wall time up to each snapshot.
std::vector<Solution> solve_transient(const StackModel& stack, const PowerMap& power,
                                      const GridOptions& opt, const TransientOptions& topt);

// Power density per cell (W) for one layer: blocks rasterised by overlap area (blocks clipped to
// the chip; power of the clipped part is kept, spread over the in-chip part).
std::vector<double> rasterise_power(const StackModel& stack, int layer,
                                    const std::vector<double>& block_power_W, int rows, int cols);

}  // namespace stackscope::thermal
