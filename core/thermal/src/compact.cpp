// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/thermal/compact.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "stackscope/hw/stack_layers.hpp"

namespace stackscope::thermal {

StackModel make_3d_stack(const StackParams& p) {
  if (p.dram_layers < 0) throw std::invalid_argument("make_3d_stack: dram_layers < 0");
  if (!(p.logic_core_fraction >= 0 && p.logic_core_fraction <= 1))
    throw std::invalid_argument("make_3d_stack: logic_core_fraction must be in [0, 1]");
  StackModel s;
  s.chip_width_m = p.die_width_m;
  s.chip_height_m = p.die_height_m;
  s.package = p.package;
  const double W = p.die_width_m, H = p.die_height_m, rw = 0.1 * W, rh = 0.1 * H;
  // Logic floorplan: a central core array and a 10% I/O / PHY ring.
  Floorplan logic;
  logic.blocks = {{"core", W - 2 * rw, H - 2 * rh, rw, rh},
                  {"io_south", W, rh, 0.0, 0.0},
                  {"io_north", W, rh, 0.0, H - rh},
                  {"io_west", rw, H - 2 * rh, 0.0, rh},
                  {"io_east", rw, H - 2 * rh, W - rw, rh}};
  Floorplan dram;
  dram.blocks = {{"array", W, H, 0.0, 0.0}};
  s.floorplans = {logic, dram};

  // Silicon volumetric heat capacity 1.75e6 J/m3K and TIM 4e6 (hotspot.config p_chip,
  // c_interface); BEOL/bond 2.175e6 (3D-ICE BEOL material).
  Layer si{"logic", p.logic_thickness_m, p.k_silicon_W_per_mK, 1.75e6, true, true, 0};
  s.layers.push_back(si);
  for (int i = 1; i <= p.dram_layers; ++i) {
    s.layers.push_back({"bond" + std::to_string(i), p.bond_thickness_m, p.k_bond_W_per_mK, 2.175e6,
                        true, false, -1});
    s.layers.push_back({"dram" + std::to_string(i), p.dram_thickness_m, p.k_silicon_W_per_mK,
                        1.75e6, true, true, 1});
  }
  s.layers.push_back({"tim", p.tim_thickness_m, p.k_tim_W_per_mK, 4.0e6, true, false, -1});
  return s;
}

PowerMap make_3d_stack_power(const StackParams& p) {
  const StackModel s = make_3d_stack(p);
  PowerMap pm(s.layers.size());
  const auto& logic = s.floorplans[0].blocks;
  double ring_area = 0;
  for (size_t i = 1; i < logic.size(); ++i) ring_area += logic[i].width_m * logic[i].height_m;
  pm[0].push_back(p.logic_power_W * p.logic_core_fraction);
  for (size_t i = 1; i < logic.size(); ++i)
    pm[0].push_back(p.logic_power_W * (1 - p.logic_core_fraction) * logic[i].width_m *
                    logic[i].height_m / ring_area);
  for (size_t l = 2; l + 1 < s.layers.size(); l += 2) pm[l] = {p.dram_power_per_layer_W};
  return pm;
}

CompactFit fit_compact_model(const StackParams& base, const std::vector<int>& layer_counts,
                             const std::vector<double>& logic_powers_W, const GridOptions& opt,
                             std::vector<CompactSample>* samples, CompactTarget target) {
  std::vector<CompactSample> pts;
  for (int L : layer_counts)
    for (double P : logic_powers_W) {
      StackParams sp = base;
      sp.dram_layers = L;
      sp.logic_power_W = P;
      const Solution sol = solve_steady(make_3d_stack(sp), make_3d_stack_power(sp), opt);
      double peak = -1e300;
      const auto top = static_cast<std::size_t>(2 * sp.dram_layers);  // dram<i> at index 2i
      for (std::size_t l = 0; l < sol.layers.size(); ++l) {
        const bool dram = l >= 2 && l <= top && l % 2 == 0;
        if (target == CompactTarget::stack_peak || dram) peak = std::max(peak, sol.layers[l].max_C);
      }
      pts.push_back({L, sol.total_power_W, peak - sp.package.ambient_C});
    }
  if (pts.size() < 2) throw std::invalid_argument("fit_compact_model: need >= 2 samples");
  // Least squares on rise = P.Rb + (P.L).Rl: 2x2 normal equations.
  double s11 = 0, s12 = 0, s22 = 0, b1 = 0, b2 = 0;
  for (const auto& s : pts) {
    const double a1 = s.power_W, a2 = s.power_W * s.layers;
    s11 += a1 * a1;
    s12 += a1 * a2;
    s22 += a2 * a2;
    b1 += a1 * s.rise_C;
    b2 += a2 * s.rise_C;
  }
  const double det = s11 * s22 - s12 * s12;
  if (std::abs(det) <= 1e-12 * s11 * s22)
    throw std::invalid_argument("fit_compact_model: samples need at least two layer counts");
  CompactFit fit;
  fit.r_base_K_per_W = (b1 * s22 - b2 * s12) / det;
  fit.r_layer_K_per_W = (s11 * b2 - s12 * b1) / det;
  for (const auto& s : pts) {
    const double e = std::abs(fit.rise_C(s.power_W, s.layers) - s.rise_C);
    fit.max_abs_error_C = std::max(fit.max_abs_error_C, e);
    fit.mean_abs_error_C += e;
  }
  fit.samples = static_cast<int>(pts.size());
  fit.mean_abs_error_C /= fit.samples;
  if (samples) *samples = std::move(pts);
  return fit;
}

GeometryCompact geometry_compact_model(double die_area_mm2) noexcept {
  const double x = kGeometryRefAreaMm2 / std::max(die_area_mm2, 1.0);
  return {kGeometryBaseA0 + kGeometryBaseA1 * x, kGeometryLayerB0 + kGeometryLayerB1 * x};
}

double dram_thickness_resistance_K_per_W(const hw::Memory& m, double die_area_mm2) noexcept {
  if (hw::uniform_thickness(m)) return 0.0;
  const double k_si = StackParams{}.k_silicon_W_per_mK;
  const double area_m2 = std::max(die_area_mm2, 1.0) * 1e-6;
  double r = 0;
  for (int k = 0; k < hw::stack_layer_count(m); ++k)
    r += (hw::layer_thickness_um(m, k) - hw::kDramDieThicknessUm) * 1e-6 / (k_si * area_m2);
  return r;
}

GeometryCompact compact_resistances(const hw::Thermal& t, double die_area_mm2) noexcept {
  if (t.compact == hw::CompactSource::geometry) return geometry_compact_model(die_area_mm2);
  return {t.r_base_K_per_W, t.r_layer_K_per_W};
}

}  // namespace stackscope::thermal
