// SPDX-License-Identifier: GPL-3.0-or-later
// Compact thermal model fit: peak = ambient + P.(R_base + R_layer.L)
// fitted to grid solves of a logic die under L = 1..16 DRAM dies. DeepStack: 0.56 + 0.01.L C/W.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "stackscope/thermal/compact.hpp"

namespace stackscope::thermal {
namespace {

TEST(CompactThermal, StackBuilderLayout) {
  StackParams p;
  p.dram_layers = 3;
  const StackModel s = make_3d_stack(p);
  ASSERT_EQ(s.layers.size(), 1u + 2 * 3 + 1);
  EXPECT_EQ(s.layers.front().name, "logic");
  EXPECT_EQ(s.layers.back().name, "tim");
  const PowerMap pm = make_3d_stack_power(p);
  double total = 0;
  for (const auto& l : pm)
    for (double w : l) total += w;
  EXPECT_NEAR(total, p.logic_power_W + 3 * p.dram_power_per_layer_W, 1e-9);
  const Solution sol = solve_steady(s, pm);
  EXPECT_NEAR(sol.heat_to_ambient_W / sol.total_power_W, 1.0, 1e-6);
  EXPECT_EQ(sol.hottest.layer, 0);  // the logic die, farthest from the sink
  EXPECT_EQ(sol.hottest.block, "core");
}

TEST(CompactThermal, FitToGridSolver) {
  StackParams base;  // 20 x 20 mm die, 3 W per DRAM die, hotspot.config package
  std::vector<int> layers;
  for (int L = 1; L <= 16; ++L) layers.push_back(L);
  const std::vector<double> powers = {100.0, 200.0, 300.0};
  GridOptions opt;
  opt.rows = opt.cols = 32;
  std::vector<CompactSample> samples;
  const CompactFit fit = fit_compact_model(base, layers, powers, opt, &samples);
  std::printf(
      "compact fit: R_base %.4f K/W, R_layer %.5f K/W, max |err| %.3f C, mean |err| %.3f C"
      " over %d grid solves (DeepStack: 0.56 + 0.01 L)\n",
      fit.r_base_K_per_W, fit.r_layer_K_per_W, fit.max_abs_error_C, fit.mean_abs_error_C,
      fit.samples);
  std::printf("   L   P_W   grid_rise_C  fit_rise_C\n");
  for (const auto& s : samples)
    std::printf("  %2d %6.1f  %10.3f  %10.3f\n", s.layers, s.power_W, s.rise_C,
                fit.rise_C(s.power_W, s.layers));
  EXPECT_GT(fit.r_base_K_per_W, 0.0);
  EXPECT_GT(fit.r_layer_K_per_W, 0.0);  // each DRAM die + bond adds resistance above the logic
  // The one-parameter-per-term form cannot tell logic watts (under the whole stack) from DRAM
  // watts (nearer the sink), so at 100 W logic with 16 DRAM dies it over-predicts by ~4 C out
  // of ~55 C; mean error ~1 C (32x32 grid, hotspot.config package, 20 x 20 mm die).
  EXPECT_LT(fit.max_abs_error_C, 5.0);
  EXPECT_LT(fit.mean_abs_error_C, 1.5);
  for (const auto& s : samples)
    EXPECT_LT(std::abs(fit.rise_C(s.power_W, s.layers) - s.rise_C), 0.08 * s.rise_C);
}

// The geometry compact model (hw::CompactSource::geometry): DRAM-peak fits at five die areas,
// then R_base and R_layer each fitted as a + b.(400 mm^2 / A). The constants in compact.hpp
// must reproduce this fit, and the model must track every grid solve.
TEST(CompactThermal, GeometryModelFitsTheGridSolverAcrossDieAreas) {
  const std::vector<double> areas = {100.0, 200.0, 400.0, 600.0, 900.0};
  const std::vector<int> layers = {1, 2, 4, 8, 12, 16};
  const std::vector<double> powers = {100.0, 300.0};
  GridOptions opt;
  opt.rows = opt.cols = 32;
  std::vector<double> xs, rb, rl;
  std::vector<std::pair<double, CompactSample>> all;
  std::printf("  area_mm2  R_base_K/W  R_layer_K/W  max|err|_C  (DRAM peak, per-area fit)\n");
  for (double a : areas) {
    StackParams base;
    base.die_width_m = base.die_height_m = std::sqrt(a) * 1e-3;
    // Uniform logic power density (the core block is 64% of the die), as core/perf's
    // thermal_map spreads a design's power over its core grid and uncore strip.
    base.logic_core_fraction = 0.64;
    std::vector<CompactSample> samples;
    const CompactFit f =
        fit_compact_model(base, layers, powers, opt, &samples, CompactTarget::dram_peak);
    std::printf("  %8.0f  %10.4f  %11.5f  %10.3f\n", a, f.r_base_K_per_W, f.r_layer_K_per_W,
                f.max_abs_error_C);
    xs.push_back(kGeometryRefAreaMm2 / a);
    rb.push_back(f.r_base_K_per_W);
    rl.push_back(f.r_layer_K_per_W);
    for (const auto& s : samples) all.emplace_back(a, s);
  }
  auto line = [&](const std::vector<double>& y) {  // least squares y = c0 + c1 x
    const double n = static_cast<double>(xs.size());
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      sx += xs[i];
      sy += y[i];
      sxx += xs[i] * xs[i];
      sxy += xs[i] * y[i];
    }
    const double c1 = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    return std::pair{(sy - c1 * sx) / n, c1};
  };
  const auto [a0, a1] = line(rb);
  const auto [b0, b1] = line(rl);
  std::printf("  fit: R_base = %.5f + %.5f (400/A), R_layer = %.6f + %.6f (400/A)\n", a0, a1, b0,
              b1);
  EXPECT_NEAR(kGeometryBaseA0, a0, 0.002);
  EXPECT_NEAR(kGeometryBaseA1, a1, 0.002);
  EXPECT_NEAR(kGeometryLayerB0, b0, 0.0002);
  EXPECT_NEAR(kGeometryLayerB1, b1, 0.0002);
  double max_err = 0, sum_err = 0;
  for (const auto& [a, s] : all) {
    const auto g = geometry_compact_model(a);
    const double e =
        std::abs(s.power_W * (g.r_base_K_per_W + g.r_layer_K_per_W * s.layers) - s.rise_C);
    max_err = std::max(max_err, e / s.rise_C);
    sum_err += e / s.rise_C;
  }
  std::printf("  geometry model vs %zu grid solves: mean |err| %.2f%%, max %.2f%%\n", all.size(),
              100 * sum_err / static_cast<double>(all.size()), 100 * max_err);
  // Measured: mean 2.4%, max 7.8% (the 100 mm^2 die at 16 layers, where a single R_layer
  // cannot follow the heat spreading of a tall narrow stack).
  EXPECT_LT(max_err, 0.09);
  EXPECT_LT(sum_err / static_cast<double>(all.size()), 0.03);
}

}  // namespace
}  // namespace stackscope::thermal
