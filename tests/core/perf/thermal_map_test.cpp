// SPDX-License-Identifier: GPL-3.0-or-later
// Design -> thermal grid model: power conservation, where the heat goes, and the
// stack-height sweep (bandwidth vs temperature).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "stackscope/memory/dram.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/thermal_map.hpp"
#include "test_designs.hpp"

namespace stackscope::perf {
namespace {

double stack_power(const thermal::PowerMap& pm) {
  double s = 0;
  for (const auto& l : pm) s = std::accumulate(l.begin(), l.end(), s);
  return s;
}

thermal::GridOptions coarse() {
  thermal::GridOptions o;
  o.rows = 32;
  o.cols = 32;
  return o;
}

TEST(ThermalMap, PowerIsConserved) {
  const Design d = testing::stacked_design();
  const Result r = evaluate(d);
  const ThermalDesign td = thermal_model(d, r);
  const double device_W = r.decode.energy_J / r.decode.time_s;
  EXPECT_NEAR(stack_power(td.power), device_W, 0.01 * device_W);
  EXPECT_GT(td.split.dram_access_W, 0.0);
  EXPECT_GT(td.split.logic_dynamic_W, 0.0);
  ASSERT_EQ(td.dram_layers, 8);
  ASSERT_EQ(td.stack.layers.size(), 1u + 2u * 8u + 1u);
  EXPECT_EQ(td.stack.layers[0].name, "logic");
  EXPECT_EQ(td.stack.layers[1].name, "bond1");
  EXPECT_EQ(td.stack.layers[2].name, "dram1");
  EXPECT_EQ(td.stack.floorplans[0].blocks.size(), 1u + 132u);  // uncore + core0..core131
  // Only connected dies carry access power: dram5 (index 10) has background power only.
  const double dram1 = stack_power({td.power[2]}), dram5 = stack_power({td.power[10]});
  EXPECT_GT(dram1, dram5);
  EXPECT_NEAR(dram5, td.split.dram_background_W / 8, 1e-9);
}

TEST(ThermalMap, HbmDesignIsALogicDieOnly) {
  const Design d = testing::small_dense();
  const Result r = evaluate(d);
  const ThermalDesign td = thermal_model(d, r);
  EXPECT_EQ(td.dram_layers, 0);
  ASSERT_EQ(td.stack.layers.size(), 2u);  // logic + TIM
  const double device_W = r.decode.energy_J / r.decode.time_s;
  // The HBM stacks' DRAM power is dissipated beside the die, not in this stack.
  EXPECT_NEAR(stack_power(td.power), device_W - td.split.dram_access_W, 0.01 * device_W);
}

TEST(ThermalMap, HottestDramLayerIsNextToTheLogicDie) {
  Design d = testing::stacked_design();
  d.workload.batch = 256;  // compute-heavy decode
  const Result r = evaluate(d);
  const ThermalDesign td = thermal_model(d, r);
  const auto s = thermal::solve_steady(td.stack, td.power, coarse());
  const int hot = hottest_layer(td, s, LayerRole::dram);
  EXPECT_GE(hot, 1);
  EXPECT_LE(hot, 2);
  EXPECT_EQ(s.hottest.layer, 0);  // the logic die is the hottest layer overall
  EXPECT_NEAR(s.total_power_W, stack_power(td.power), 1e-6 * s.total_power_W);
}

// Stack-height sweep (DeepStack's bandwidth peak at a moderate layer
// count). The compact model is the die-geometry fit of the grid solver, so the grid solve of each
// point checks it. Adding layers (half of them connected) adds raw bandwidth, but each layer adds
// thermal resistance: past 85 C refresh doubles, and at 95 C the throttle lowers clock and DRAM
// rate, so delivered bandwidth (decode DRAM bytes / decode time) peaks and then falls.
TEST(ThermalMap, StackHeightSweepShowsTheBandwidthTemperatureTradeOff) {
  Design d = testing::stacked_design();
  d.hardware.thermal.compact = hw::CompactSource::geometry;
  d.hardware.thermal.ambient_C = 45;
  std::vector<double> bw, dram_C, grid_C;
  std::vector<bool> throttled;
  std::printf("%6s %9s %9s %13s %9s %10s %11s %8s\n", "layers", "connected", "throttle",
              "delivered GB/s", "STPS", "compact C", "grid DRAM C", "decode W");
  for (int L = 2; L <= 16; L += 2) {
    d.hardware.memory.layers_total = L;
    d.hardware.memory.layers_connected = L / 2;
    const Result r = evaluate(d);
    ASSERT_TRUE(r.thermal.modelled);
    ASSERT_TRUE(r.feasible) << describe(r.reasons).front();
    const ThermalDesign td = thermal_model(d, r);
    const auto s = thermal::solve_steady(td.stack, td.power, coarse());
    const int hot = hottest_layer(td, s, LayerRole::dram);
    ASSERT_GE(hot, 0);
    const double delivered = r.decode.dram_bytes / r.decode.time_s;
    const double grid = s.layers[static_cast<std::size_t>(hot)].max_C;
    std::printf("%6d %9d %9.3f %13.1f %9.0f %10.1f %11.1f %8.1f\n", L, L / 2, r.thermal.throttle,
                delivered / 1e9, r.metrics.stps, r.thermal.dram_peak_C, grid, r.power.total_W);
    bw.push_back(delivered);
    dram_C.push_back(r.thermal.dram_peak_C);
    grid_C.push_back(grid);
    throttled.push_back((r.reasons & kThermalThrottled) != 0);
  }
  for (std::size_t i = 0; i < bw.size(); ++i) {
    EXPECT_LE(dram_C[i], 95.0) << "the throttle holds the DRAM limit";
    // Compact (geometry fit) vs grid (this design's floorplan), both at the decode power.
    EXPECT_NEAR(grid_C[i], dram_C[i], 3.0) << "compact model tracks the grid solver";
  }
  const auto peak = static_cast<std::size_t>(std::max_element(bw.begin(), bw.end()) - bw.begin());
  ASSERT_GT(peak, 0u) << "bandwidth rises with layers while cool";
  ASSERT_LT(peak, bw.size() - 1) << "bandwidth must fall once the thermal limit binds";
  for (std::size_t i = 1; i <= peak; ++i) EXPECT_GT(bw[i], bw[i - 1]);
  for (std::size_t i = peak + 1; i < bw.size(); ++i) {
    EXPECT_LT(bw[i], bw[i - 1]) << "past the peak every extra layer costs bandwidth";
    EXPECT_TRUE(throttled[i]);
  }
  EXPECT_FALSE(throttled.front());
}

}  // namespace
}  // namespace stackscope::perf
