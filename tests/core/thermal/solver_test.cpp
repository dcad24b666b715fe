// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "stackscope/thermal/solver.hpp"

namespace stackscope::thermal {
namespace {

constexpr double kSide = 0.016;  // 16 mm square chip (HotSpot's ev6 floorplan size)

// Silicon (power) + TIM, HotSpot's default two-layer chip, with a 2x2 floorplan.
StackModel quad_stack() {
  StackModel s;
  s.chip_width_m = s.chip_height_m = kSide;
  const double h = kSide / 2;
  s.floorplans = {
      {{{"sw", h, h, 0, 0}, {"se", h, h, h, 0}, {"nw", h, h, 0, h}, {"ne", h, h, h, h}}}};
  s.layers = {{"silicon", 150e-6, 100.0, 1.75e6, true, true, 0},
              {"tim", 20e-6, 4.0, 4.0e6, true, false, -1}};
  return s;
}

// A centred 4 mm block inside a uniform background on the 16 mm die.
StackModel centred_stack() {
  StackModel s = quad_stack();
  s.floorplans = {{{{"hot", 0.004, 0.004, 0.006, 0.006}}}};
  return s;
}

double peak(const Solution& s) {
  double m = -1e300;
  for (const auto& l : s.layers) m = std::max(m, l.max_C);
  return m;
}

TEST(ThermalSolver, EnergyBalance) {
  const StackModel s = quad_stack();
  const PowerMap p = {{10.0, 20.0, 5.0, 30.0}, {}};
  const Solution sol = solve_steady(s, p);
  EXPECT_NEAR(sol.total_power_W, 65.0, 1e-9);
  EXPECT_NEAR(sol.heat_to_ambient_W / sol.total_power_W, 1.0, 1e-6);
  GridOptions chol;
  chol.method = GridOptions::Method::kCholesky;
  const Solution s2 = solve_steady(s, p, chol);
  EXPECT_NEAR(s2.heat_to_ambient_W / s2.total_power_W, 1.0, 1e-9);
  // Both solvers agree cell by cell.
  for (size_t i = 0; i < sol.temperature_C[0].size(); ++i)
    ASSERT_NEAR(sol.temperature_C[0][i], s2.temperature_C[0][i], 1e-6);
}

TEST(ThermalSolver, UniformPowerMatchesOneDimensionalSeriesResistance) {
  // Spreader and sink the size of the die: no periphery, purely 1D heat flow. HotSpot's grid
  // model puts each node on its layer's face farther from the sink (temperature_grid.c find_res
  // and populate_R_model_grid), so the path is the whole silicon, TIM, spreader and sink base,
  // then r_convec.
  StackModel s = quad_stack();
  s.layers.insert(s.layers.begin(), Layer{"substrate", 300e-6, 100.0, 1.75e6, true, false, -1});
  s.package.s_spreader_m = s.package.s_sink_m = kSide;
  const double P = 40.0, A = kSide * kSide;
  const PowerMap p = {{}, {P / 4, P / 4, P / 4, P / 4}, {}};
  const Solution sol = solve_steady(s, p);
  const auto& k = s.package;
  const double r = (150e-6 / 100.0 + 20e-6 / 4.0 + k.t_spreader_m / k.k_spreader_W_per_mK +
                    k.t_sink_m / k.k_sink_W_per_mK) /
                       A +
                   k.r_convec_K_per_W;
  const double expect = k.ambient_C + P * r;
  EXPECT_NEAR(sol.layers[1].max_C - k.ambient_C, P * r, 1e-6 * P * r);
  EXPECT_NEAR(sol.layers[1].min_C - k.ambient_C, P * r, 1e-6 * P * r);
  for (double t : sol.periphery_C) EXPECT_TRUE(std::isnan(t));  // no overhang, no nodes
  // The adiabatic substrate farther from the sink sits at the power layer's temperature.
  EXPECT_NEAR(sol.layers[0].mean_C, sol.layers[1].mean_C, 1e-6);
  std::printf("1D: expected %.4f C, grid %.4f C\n", expect, sol.layers[1].mean_C);
}

// The spreader no larger than the die: no spreader periphery, and the sink-inner nodes are only
// the junctions from the sink's edge to the sink beyond the spreader; heat still balances and
// both solvers agree.
TEST(ThermalSolver, SpreaderTheSizeOfTheDieLeavesJunctionNodes) {
  StackModel s = quad_stack();
  s.package.s_spreader_m = kSide;
  const PowerMap p = {{10.0, 20.0, 5.0, 30.0}, {}};
  const Solution a = solve_steady(s, p);
  GridOptions chol;
  chol.method = GridOptions::Method::kCholesky;
  chol.rows = chol.cols = 64;
  const Solution b = solve_steady(s, p, chol);
  EXPECT_NEAR(a.heat_to_ambient_W / a.total_power_W, 1.0, 1e-6);
  for (int k : {kSpW, kSpE, kSpN, kSpS}) EXPECT_TRUE(std::isnan(a.periphery_C[k]));
  for (int k = kSinkCW; k < kPeripheryNodes; ++k) {
    ASSERT_FALSE(std::isnan(a.periphery_C[k]));
    EXPECT_NEAR(a.periphery_C[k], b.periphery_C[k], 1e-6);
  }
  // Without the spreader's overhang the die runs hotter than under the 30 mm spreader.
  EXPECT_GT(a.layers[0].max_C, solve_steady(quad_stack(), p).layers[0].max_C);
}

// A 20 x 10 mm die under the 30 mm spreader: the west/east and north/south trapezoids differ
// (HotSpot's r_sp1_x vs r_sp1_y, areas (s + H)(s - W) / 4 vs (s + W)(s - H) / 4), so their nodes
// do too (measured: north/south 0.24 C warmer under 60 W); each pair is symmetric.
TEST(ThermalSolver, RectangularDieHasItsOwnPeripheryPerDirection) {
  StackModel s = quad_stack();
  s.chip_width_m = 0.02;
  s.chip_height_m = 0.01;
  s.floorplans = {{{{"all", 0.02, 0.01, 0.0, 0.0}}}};
  const Solution sol = solve_steady(s, {{60.0}, {}});
  EXPECT_NEAR(sol.heat_to_ambient_W / sol.total_power_W, 1.0, 1e-6);
  const auto& t = sol.periphery_C;
  const double rise = t[kSpW] - s.package.ambient_C;
  EXPECT_NEAR(t[kSpW], t[kSpE], 1e-9 * rise);
  EXPECT_NEAR(t[kSpN], t[kSpS], 1e-9 * rise);
  EXPECT_NEAR(t[kSinkW], t[kSinkE], 1e-9 * rise);
  EXPECT_NEAR(t[kSinkN], t[kSinkS], 1e-9 * rise);
  std::printf("20 x 10 mm die: SP_W %.3f SP_N %.3f SINK_C_W %.3f SINK_C_N %.3f C\n", t[kSpW],
              t[kSpN], t[kSinkCW], t[kSinkCN]);
  EXPECT_GT(t[kSpN] - t[kSpW], 1e-3 * rise);
  EXPECT_GT(t[kSinkCN] - t[kSinkCW], 1e-3 * rise);
}

TEST(ThermalSolver, CentredBlockGivesSymmetricMap) {
  const StackModel s = centred_stack();
  const Solution sol = solve_steady(s, {{25.0}, {}});
  const int n = sol.rows;
  double rise = sol.layers[0].max_C - s.package.ambient_C;
  for (const auto& t : sol.temperature_C)
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) {
        const double v = t[static_cast<size_t>(r * n + c)];
        ASSERT_NEAR(v, t[static_cast<size_t>(r * n + (n - 1 - c))], 1e-6 * rise);
        ASSERT_NEAR(v, t[static_cast<size_t>((n - 1 - r) * n + c)], 1e-6 * rise);
        ASSERT_NEAR(v, t[static_cast<size_t>(c * n + r)], 1e-6 * rise);
      }
  // The peak sits in the centre.
  EXPECT_NEAR(sol.temperature_C[0][static_cast<size_t>((n / 2) * n + n / 2)], sol.layers[0].max_C,
              1e-9);
}

TEST(ThermalSolver, MorePowerIsHotterEverywhere) {
  const StackModel s = quad_stack();
  const Solution a = solve_steady(s, {{10.0, 10.0, 10.0, 10.0}, {}});
  const Solution b = solve_steady(s, {{10.0, 10.0, 10.0, 15.0}, {}});
  for (size_t l = 0; l < a.temperature_C.size(); ++l)
    for (size_t i = 0; i < a.temperature_C[l].size(); ++i)
      ASSERT_GT(b.temperature_C[l][i], a.temperature_C[l][i]);
  EXPECT_GT(b.sink_periphery_C, a.sink_periphery_C);
}

TEST(ThermalSolver, HigherConductivityLowersThePeak) {
  StackModel s = centred_stack();
  const PowerMap p = {{25.0}, {}};
  const double base = peak(solve_steady(s, p));
  s.layers[0].conductivity_W_per_mK = 150.0;
  const double si = peak(solve_steady(s, p));
  s.layers[1].conductivity_W_per_mK = 8.0;
  const double tim = peak(solve_steady(s, p));
  EXPECT_LT(si, base);
  EXPECT_LT(tim, si);
}

TEST(ThermalSolver, GridRefinementConverges) {
  const StackModel s = quad_stack();
  const PowerMap p = {{5.0, 40.0, 10.0, 20.0}, {}};
  GridOptions g64, g128;
  g128.rows = g128.cols = 128;
  const Solution a = solve_steady(s, p, g64), b = solve_steady(s, p, g128);
  const double ra = peak(a) - s.package.ambient_C, rb = peak(b) - s.package.ambient_C;
  std::printf("peak rise 64x64 %.4f C, 128x128 %.4f C (%.3f%%)\n", ra, rb,
              100 * std::abs(ra - rb) / rb);
  EXPECT_NEAR(ra, rb, 0.02 * rb);
}

TEST(ThermalSolver, ReportsTheHottestBlock) {
  const StackModel s = quad_stack();
  const Solution sol = solve_steady(s, {{5.0, 40.0, 10.0, 20.0}, {}});
  EXPECT_EQ(sol.hottest.layer, 0);
  EXPECT_EQ(sol.hottest.block, "se");
  EXPECT_NEAR(sol.hottest.max_C, sol.layers[0].max_C, 1e-12);
  ASSERT_EQ(sol.blocks.size(), 4u);
  for (const auto& b : sol.blocks) {
    EXPECT_LE(b.mean_C, b.max_C);
    if (b.block != "se") {
      EXPECT_LT(b.max_C, sol.hottest.max_C);
    }
  }
}

TEST(ThermalSolver, RasterisationConservesPowerForOffGridBlocks) {
  StackModel s = quad_stack();
  // A block straddling cell boundaries and partly off the chip keeps its power.
  s.floorplans[0].blocks = {{"odd", 0.0051, 0.0033, 0.0123, 0.0101}};
  const auto cells = rasterise_power(s, 0, {7.0}, 37, 29);
  double sum = 0;
  for (double c : cells) sum += c;
  EXPECT_NEAR(sum, 7.0, 1e-12);
}

TEST(ThermalSolver, AppendedInterfaceLayer) {
  StackModel s = quad_stack();
  s.layers.pop_back();
  s.append_interface_layer = true;
  const PowerMap p = {{10.0, 20.0, 5.0, 30.0}};
  const Solution a = solve_steady(s, p);
  const Solution b = solve_steady(quad_stack(), {{10.0, 20.0, 5.0, 30.0}, {}});
  ASSERT_EQ(a.layers.size(), 2u);
  EXPECT_NEAR(a.layers[0].max_C, b.layers[0].max_C, 1e-6);
}

TEST(ThermalTransient, HeatsMonotonicallyTowardsSteadyState) {
  const StackModel s = quad_stack();
  const PowerMap p = {{10.0, 20.0, 5.0, 30.0}, {}};
  const Solution steady = solve_steady(s, p);
  TransientOptions t;
  t.step_s = 5.0;  // the sink's time constant is ~C_sink.r_convec = 88 J/K x 0.1 K/W ~ 9 s
  t.steps = 100;
  t.record_every = 10;
  const auto snaps = solve_transient(s, p, {}, t);
  ASSERT_EQ(snaps.size(), 10u);
  double prev = s.package.ambient_C;
  for (const auto& sn : snaps) {
    EXPECT_GE(sn.layers[0].max_C, prev - 1e-9);
    prev = sn.layers[0].max_C;
  }
  EXPECT_NEAR(snaps.back().time_s, 500.0, 1e-9);
  const double rise = steady.layers[0].max_C - s.package.ambient_C;
  EXPECT_NEAR(snaps.back().layers[0].max_C, steady.layers[0].max_C, 1e-3 * rise);
  // A short, fine-step run stays well below steady state: the die heats in milliseconds but the
  // sink takes seconds.
  t.step_s = 1e-4;
  t.steps = 20;
  t.record_every = 0;
  const auto early = solve_transient(s, p, {}, t);
  ASSERT_EQ(early.size(), 1u);
  EXPECT_LT(early[0].layers[0].max_C - s.package.ambient_C, 0.5 * rise);
  EXPECT_GT(early[0].layers[0].max_C, s.package.ambient_C);
}

TEST(ThermalTransient, SteadyStateIsAFixedPoint) {
  const StackModel s = centred_stack();
  const PowerMap p = {{25.0}, {}};
  const Solution steady = solve_steady(s, p);
  TransientOptions t;
  t.step_s = 0.01;
  t.steps = 5;
  t.initial = &steady;
  const auto out = solve_transient(s, p, {}, t);
  for (size_t i = 0; i < steady.temperature_C[0].size(); ++i)
    ASSERT_NEAR(out.back().temperature_C[0][i], steady.temperature_C[0][i], 1e-6);
}

TEST(ThermalSolver, RejectsMalformedInput) {
  StackModel s = quad_stack();
  EXPECT_THROW(solve_steady(s, {{1.0, 2.0}, {}}), std::invalid_argument);       // wrong block count
  EXPECT_THROW(solve_steady(s, {{1, 1, 1, 1}, {3.0}}), std::invalid_argument);  // TIM has no power
  s.package.s_spreader_m = 0.01;  // smaller than the die
  EXPECT_THROW(solve_steady(s, {{1, 1, 1, 1}, {}}), std::invalid_argument);
}

TEST(ThermalSolver, TwentyLayerSolveTime) {
  // 10 silicon + 10 bond layers, 64x64: prints the wall time (timing goals live in the benchmark).
  StackModel s = quad_stack();
  s.layers.clear();
  PowerMap p;
  for (int i = 0; i < 10; ++i) {
    s.layers.push_back({"si" + std::to_string(i), 50e-6, 130.0, 1.75e6, true, true, 0});
    s.layers.push_back({"bond" + std::to_string(i), 10e-6, 2.25, 2.175e6, true, false, -1});
    p.push_back({i == 0 ? 60.0 : 2.0, 1.0, 1.0, 1.0});
    p.push_back({});
  }
  // Sparse LDLT fill grows fast on a 3D grid, so it runs on 32x32 only.
  for (auto method : {GridOptions::Method::kConjugateGradient, GridOptions::Method::kCholesky}) {
    GridOptions o;
    o.method = method;
    if (method == GridOptions::Method::kCholesky) o.rows = o.cols = 32;
    const Solution sol = solve_steady(s, p, o);
    std::printf("%dx%dx20 %s: %.3f s, %d iterations, peak %.2f C, balance %.2e\n", o.rows, o.cols,
                method == GridOptions::Method::kCholesky ? "LDLT" : "PCG", sol.solve_seconds,
                sol.iterations, peak(sol), sol.heat_to_ambient_W / sol.total_power_W - 1);
    EXPECT_NEAR(sol.heat_to_ambient_W / sol.total_power_W, 1.0, 1e-6);
  }
}

}  // namespace
}  // namespace stackscope::thermal
