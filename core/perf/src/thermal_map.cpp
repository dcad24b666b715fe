// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/perf/thermal_map.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "stackscope/hw/stack_layers.hpp"
#include "stackscope/power_area/area.hpp"
#include "stackscope/power_area/energy.hpp"
#include "stackscope/thermal/compact.hpp"

namespace stackscope::perf {
namespace {

// rows x cols with rows * cols == n and rows <= cols as square as possible, so every block of
// a grid floorplan has the same area (uniform power density per block).
std::pair<int, int> factor_grid(int n) {
  int rows = 1;
  for (int r = 1; r * r <= n; ++r)
    if (n % r == 0) rows = r;
  return {rows, n / rows};
}

// Blocks named prefix<i>, row-major from the bottom-left, tiling [x0, x0+w] x [y0, y0+h].
void add_grid(thermal::Floorplan& fp, const std::string& prefix, int rows, int cols, double x0,
              double y0, double w, double h) {
  const double bw = w / cols, bh = h / rows;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      fp.blocks.push_back(
          {prefix + std::to_string(r * cols + c), bw, bh, x0 + c * bw, y0 + r * bh});
}

double area_of(const thermal::Block& b) {
  return b.width_m * b.height_m;
}

}  // namespace

ThermalDesign thermal_model(const Design& d, const Result& r) {
  const auto& hw = d.hardware;
  const bool stacked = hw.memory.kind == hw::MemoryKind::stacked_3d;
  ThermalDesign td;

  // Decode phase = steady state: the run is dominated by output_len - 1 decode steps.
  const auto& ps = r.power;
  td.split = ps;

  const double side_m = std::sqrt(std::max(hw.compute.die_area_mm2, 1.0)) * 1e-3;
  thermal::StackParams sp;
  sp.dram_layers = stacked ? std::max(0, hw::stack_layer_count(hw.memory)) : 0;
  sp.die_width_m = side_m;
  sp.die_height_m = side_m;
  sp.package.ambient_C = hw.thermal.ambient_C;
  td.stack = thermal::make_3d_stack(sp);
  td.dram_layers = sp.dram_layers;

  // Logic floorplan: uncore strip (NoC routers, PHYs, other) along the bottom edge, its height
  // the uncore share of the die area (at least 10%, the I/O ring of make_3d_stack), and the
  // core grid above it.
  const auto a = power_area::area(hw);
  const double die_mm2 = std::max(a.die_mm2, 1e-9);
  const double uncore_share = std::clamp((a.noc_mm2 + a.phy_mm2 + a.other_mm2) / die_mm2, 0.1, 0.5);
  const double strip_h = uncore_share * side_m;
  thermal::Floorplan logic;
  logic.blocks.push_back({"uncore", side_m, strip_h, 0.0, 0.0});
  const int cores = std::max(1, hw.compute.cores);
  auto [rows, cols] = factor_grid(cores);
  if (hw.noc.mesh_x * hw.noc.mesh_y == cores) {
    rows = hw.noc.mesh_y;
    cols = hw.noc.mesh_x;
  }
  add_grid(logic, "core", rows, cols, 0.0, strip_h, side_m, side_m - strip_h);

  thermal::Floorplan dram;
  const int channels = std::max(1, hw.memory.channels_per_layer);
  const auto [drows, dcols] = factor_grid(channels);
  add_grid(dram, "chan", drows, dcols, 0.0, 0.0, side_m, side_m);
  thermal::Floorplan vlink;
  vlink.blocks.push_back({"vlink", side_m, side_m, 0.0, 0.0});
  td.stack.floorplans = {logic, dram, vlink};

  const auto nlayers = td.stack.layers.size();
  td.power.assign(nlayers, {});
  td.roles.assign(nlayers, LayerRole::bond);
  td.roles.front() = LayerRole::logic;
  td.roles.back() = LayerRole::tim;

  // Logic die: dynamic power over the cores, NoC power on the uncore strip, static power by area.
  auto& lp = td.power[0];
  lp.assign(logic.blocks.size(), 0.0);
  const double logic_area = side_m * side_m;
  const double core_area = area_of(logic.blocks[1]);
  lp[0] = ps.noc_W + ps.logic_static_W * area_of(logic.blocks[0]) / logic_area;
  for (std::size_t i = 1; i < lp.size(); ++i)
    lp[i] = ps.logic_dynamic_W / cores + ps.logic_static_W * core_area / logic_area;

  // DRAM dies j = 1..L at stack index 2j, bond j (index 2j - 1) below die j; access power on
  // the connected dies (PowerSummary::dram_die_W / bond_W: the ones nearest the logic die, or
  // a per-layer stack's wherever they sit), and a per-layer stack's dies take their own
  // thickness (docs/model.md §4.8).
  const int L = td.dram_layers;
  const auto& mem = hw.memory;
  for (int j = 1; j <= L; ++j) {
    const auto die = static_cast<std::size_t>(2 * j), bond = die - 1;
    td.roles[die] = LayerRole::dram;
    td.power[die].assign(static_cast<std::size_t>(channels), ps.dram_die_W(j) / channels);
    if (hw::layer_thickness_um(mem, j - 1) != hw::kDramDieThicknessUm)
      td.stack.layers[die].thickness_m = hw::layer_thickness_um(mem, j - 1) * 1e-6;
    auto& bl = td.stack.layers[bond];
    bl.floorplan = 2;
    bl.dissipates_power = true;
    td.power[bond] = {ps.bond_W(j)};
  }
  return td;
}

int hottest_layer(const ThermalDesign& td, const thermal::Solution& s, LayerRole role) {
  int best = -1;
  for (std::size_t l = 0; l < td.roles.size() && l < s.layers.size(); ++l) {
    if (td.roles[l] != role) continue;
    if (best < 0 || s.layers[l].max_C > s.layers[static_cast<std::size_t>(best)].max_C)
      best = static_cast<int>(l);
  }
  return best;
}

}  // namespace stackscope::perf
