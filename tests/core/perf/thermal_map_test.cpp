// SPDX-License-Identifier: GPL-3.0-or-later
// Design -> thermal grid model (issue 4): power conservation, where the heat goes, and the
// stack-height sweep of the "Done when" (bandwidth vs temperature).
#include <gtest/gtest.h>

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

// Stack-height sweep (issue 4 "Done when"). Thermal parameters, chosen so the compact model
// crosses 85 C inside the sweep (at 8 layers): ambient 45 C, r_base 0.065 K/W, r_layer
// 0.01 K/W (DeepStack's per-layer term; its r_base 0.56 is for a whole-system sink and would put
// this 170-350 W device above 95 C at every height).
TEST(ThermalMap, StackHeightSweepShowsTheBandwidthTemperatureTradeOff) {
  Design d = testing::stacked_design();
  d.hardware.thermal = {45, 0.065, 0.01};
  memory::AccessPattern stream;
  std::vector<double> bw, dram_C;
  std::printf("%7s %12s %10s %12s %10s\n", "layers", "stream GB/s", "compact C", "grid DRAM C",
              "power W");
  for (int L = 2; L <= 16; L += 2) {
    d.hardware.memory.layers_total = L;
    d.hardware.memory.layers_connected = L / 2;
    const Result r = evaluate(d);
    ASSERT_TRUE(r.thermal.modelled);
    const auto b = memory::effective_bandwidth(d.hardware.memory, d.hardware.compute, stream,
                                               r.thermal.dram_peak_C);
    const ThermalDesign td = thermal_model(d, r);
    const auto s = thermal::solve_steady(td.stack, td.power, coarse());
    const int hot = hottest_layer(td, s, LayerRole::dram);
    ASSERT_GE(hot, 0);
    std::printf("%7d %12.1f %10.1f %12.1f %10.1f\n", L, b.effective_Bps / 1e9,
                r.thermal.dram_peak_C, s.layers[static_cast<std::size_t>(hot)].max_C,
                r.metrics.power_w);
    bw.push_back(b.effective_Bps);
    dram_C.push_back(r.thermal.dram_peak_C);
  }
  std::size_t cross = 0;  // first sweep point above 85 C
  while (cross < dram_C.size() && dram_C[cross] <= memory::kRefreshDoublingC) ++cross;
  ASSERT_GT(cross, 1u) << "crossing must leave at least two cool points";
  ASSERT_LT(cross, dram_C.size() - 1) << "crossing must leave at least two hot points";
  double cool_gain = 1e300;
  for (std::size_t i = 1; i < cross; ++i) {
    EXPECT_GT(bw[i], bw[i - 1]) << "bandwidth rises with layers while cool";
    cool_gain = std::min(cool_gain, bw[i] - bw[i - 1]);
  }
  for (std::size_t i = cross; i < bw.size(); ++i)
    EXPECT_LT(bw[i] - bw[i - 1], cool_gain) << "refresh doubling shrinks the gain per layer";
}

}  // namespace
}  // namespace stackscope::perf
