// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/wafer/thermal.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "stackscope/hw/wafer.hpp"
#include "stackscope/thermal/compact.hpp"
#include "stackscope/thermal/solver.hpp"

namespace stackscope::wafer {

std::vector<double> die_power_W(const WaferRun& run, const perf::Design& design) {
  const auto& owner = run.wafer.placement.die_owner;
  const auto& instances = run.result.instances;
  std::vector<int> dies_of(instances.size(), 0);
  for (const int o : owner)
    if (o >= 0 && static_cast<std::size_t>(o) < dies_of.size())
      ++dies_of[static_cast<std::size_t>(o)];
  const double span = run.result.makespan_s;
  const double idle_W = design.hardware.energy.static_power_W;
  std::vector<double> p(owner.size(), idle_W);
  for (std::size_t d = 0; d < owner.size(); ++d) {
    const int o = owner[d];
    if (o < 0) continue;
    const auto i = static_cast<std::size_t>(o);
    // As wafer_power_W: an instance's energy over the makespan, nothing when there was no run.
    p[d] = i < instances.size() && span > 0 ? instances[i].energy_J / span / dies_of[i] : 0.0;
  }
  return p;
}

WaferThermalMap wafer_thermal_map(const perf::Design& design, const std::vector<double>& power,
                                  const WaferThermalOptions& o) {
  if (!design.wafer) throw std::invalid_argument("wafer thermal map: the design has no wafer");
  if (!(o.cell_mm > 0) || !std::isfinite(o.cell_mm))
    throw std::invalid_argument("wafer thermal map: cell_mm must be positive (got " +
                                std::to_string(o.cell_mm) + ")");
  if (o.max_cells < 8 || o.max_cells > 1024)
    throw std::invalid_argument("wafer thermal map: max_cells must be in [8, 1024] (got " +
                                std::to_string(o.max_cells) + ")");
  if (!(o.plate_side_m > 0) || !std::isfinite(o.plate_side_m) || !(o.heat_transfer_W_per_m2K > 0) ||
      !std::isfinite(o.heat_transfer_W_per_m2K))
    throw std::invalid_argument(
        "wafer thermal map: the plate side and heat-transfer coefficient must be positive");
  const hw::Wafer& w = *design.wafer;
  const hw::WaferLayout l = hw::wafer_layout(w, design.hardware);
  if (!l.issues.empty())
    throw std::invalid_argument("wafer thermal map: the wafer is not physical: " +
                                l.issues.front().message);
  if (l.dies <= 0) throw std::invalid_argument("wafer thermal map: the wafer has no dies");
  if (power.size() != static_cast<std::size_t>(l.dies))
    throw std::invalid_argument("wafer thermal map: " + std::to_string(power.size()) +
                                " die powers for a wafer of " + std::to_string(l.dies) + " dies");
  for (std::size_t d = 0; d < power.size(); ++d)
    if (!(power[d] >= 0) || !std::isfinite(power[d]))
      throw std::invalid_argument("wafer thermal map: die " + std::to_string(d) + " power " +
                                  std::to_string(power[d]) + " W is not a finite value >= 0");

  WaferThermalMap m;
  m.dies_x = l.dies_x;
  m.dies_y = l.dies_y;
  m.tile_width_mm = l.tile_width_mm;
  m.tile_height_mm = l.tile_height_mm;
  m.die_width_mm = w.die_width_mm;
  m.die_height_mm = w.die_height_mm;
  m.width_mm = l.dies_x * l.tile_width_mm;
  m.height_mm = l.dies_y * l.tile_height_mm;
  m.die_power_W = power;
  // Whole cells per tile, so die edges fall near cell edges in every tile alike.
  const double cell_mm =
      std::max(o.cell_mm, std::max(m.width_mm, m.height_mm) / static_cast<double>(o.max_cells));
  const int per_x = std::max(1, static_cast<int>(std::ceil(l.tile_width_mm / cell_mm - 1e-9)));
  const int per_y = std::max(1, static_cast<int>(std::ceil(l.tile_height_mm / cell_mm - 1e-9)));
  m.cols = std::min(o.max_cells, per_x * l.dies_x);
  m.rows = std::min(o.max_cells, per_y * l.dies_y);

  // The stack perf::thermal_model builds for a die without stacked DRAM (silicon + TIM), over
  // the whole grid, with the design's ambient.
  thermal::StackParams sp;
  sp.dram_layers = 0;
  sp.die_width_m = m.width_mm * 1e-3;
  sp.die_height_m = m.height_mm * 1e-3;
  sp.package.ambient_C = design.hardware.thermal.ambient_C;
  thermal::StackModel stack = thermal::make_3d_stack(sp);
  const double side_m = std::max({o.plate_side_m, sp.die_width_m, sp.die_height_m});
  stack.package.s_spreader_m = side_m;
  stack.package.s_sink_m = side_m;
  stack.package.r_convec_K_per_W = 1.0 / (o.heat_transfer_W_per_m2K * side_m * side_m);
  m.plate_side_m = side_m;
  m.r_convec_K_per_W = stack.package.r_convec_K_per_W;
  m.ambient_C = stack.package.ambient_C;

  // One block per die at its tile's bottom-left corner (the edge DRAM strip is to its east).
  thermal::Floorplan dies;
  for (int d = 0; d < l.dies; ++d) {
    const int x = d % l.dies_x, y = d / l.dies_x;
    dies.blocks.push_back({"die" + std::to_string(d), w.die_width_mm * 1e-3, w.die_height_mm * 1e-3,
                           x * l.tile_width_mm * 1e-3, y * l.tile_height_mm * 1e-3});
  }
  stack.floorplans[0] = dies;
  thermal::PowerMap pm(stack.layers.size());
  pm[0] = power;

  thermal::GridOptions go;
  go.rows = m.rows;
  go.cols = m.cols;
  const thermal::Solution s = thermal::solve_steady(stack, pm, go);
  m.temperature_C = s.temperature_C.front();
  m.total_power_W = s.total_power_W;
  m.heat_to_ambient_W = s.heat_to_ambient_W;
  m.iterations = s.iterations;
  m.solve_seconds = s.solve_seconds;
  m.die_peak_C.assign(power.size(), m.ambient_C);
  m.die_mean_C.assign(power.size(), m.ambient_C);
  for (const auto& b : s.blocks) {
    if (b.layer != 0 || b.block.rfind("die", 0) != 0) continue;
    const auto d = static_cast<std::size_t>(std::stoul(b.block.substr(3)));
    if (d >= power.size()) continue;
    m.die_peak_C[d] = b.max_C;
    m.die_mean_C[d] = b.mean_C;
  }
  const auto hottest = std::max_element(m.die_peak_C.begin(), m.die_peak_C.end());
  m.hottest_die = static_cast<int>(hottest - m.die_peak_C.begin());
  m.peak_C = *hottest;
  return m;
}

WaferThermalMap wafer_thermal_map(const perf::Design& design, const WaferRun& run,
                                  const WaferThermalOptions& options) {
  return wafer_thermal_map(design, die_power_W(run, design), options);
}

std::string die_name(const WaferThermalMap& map, int die) {
  if (map.dies_x <= 0 || die < 0) return "die " + std::to_string(die);
  return "die " + std::to_string(die) + " at (" + std::to_string(die % map.dies_x) + ", " +
         std::to_string(die / map.dies_x) + ")";
}

}  // namespace stackscope::wafer
