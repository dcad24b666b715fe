// SPDX-License-Identifier: GPL-3.0-or-later
// The wafer temperature map (wafer/thermal.hpp): symmetry, linearity and energy balance of the
// grid solve on a wafer-sized floorplan, the per-die power of a serving run, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "stackscope/hw/wafer.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/wafer/partition.hpp"
#include "stackscope/wafer/run.hpp"
#include "stackscope/wafer/thermal.hpp"

namespace stackscope::wafer {
namespace {

const io::PresetRegistry& presets() {
  return io::builtin_presets();
}

// The shipped SRAM-only wafer (12 x 7 dies, no edge DRAM strip: every tile is its die, so the
// floorplan is mirror-symmetric both ways).
perf::Design sram_wafer() {
  perf::Design d = presets().project("default");
  d.hardware = presets().hardware("wafer-scale");
  d.hardware.area.other_mm2 = 5;  // the uncore the preset's notes assume
  const hw::Wafer w = presets().wafer("wse3-sram");
  d.wafer = w;
  hw::apply_wafer(w, d.hardware, d.system);
  return d;
}

double at(const WaferThermalMap& m, int r, int c) {
  return m.temperature_C[static_cast<std::size_t>(r * m.cols + c)];
}

TEST(WaferThermal, UniformPowerIsSymmetricAndHottestAtTheCentre) {
  const perf::Design d = sram_wafer();
  const auto l = hw::wafer_layout(*d.wafer, d.hardware);
  ASSERT_TRUE(l.issues.empty()) << l.issues.front().message;
  ASSERT_EQ(l.dies_x, 12);
  ASSERT_EQ(l.dies_y, 7);
  const WaferThermalMap m = wafer_thermal_map(d, std::vector<double>(84, 150.0));
  ASSERT_EQ(m.temperature_C.size(), static_cast<std::size_t>(m.rows * m.cols));
  EXPECT_GE(m.rows, 7 * 8);  // several cells a die each way
  EXPECT_GE(m.cols, 12 * 8);
  EXPECT_NEAR(m.width_mm, 215, 1e-6);
  EXPECT_NEAR(m.height_mm, 215, 1e-6);
  EXPECT_DOUBLE_EQ(m.ambient_C, d.hardware.thermal.ambient_C);
  const double rise = m.peak_C - m.ambient_C;
  EXPECT_GT(rise, 1.0);
  // Mirror symmetry both ways within the solver's tolerance (1e-10 relative residual).
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) {
      ASSERT_NEAR(at(m, r, c), at(m, m.rows - 1 - r, c), 1e-6 * rise) << r << "," << c;
      ASSERT_NEAR(at(m, r, c), at(m, r, m.cols - 1 - c), 1e-6 * rise) << r << "," << c;
    }
  // Hottest at the centre: the middle row (3 of 0..6), one of the two middle columns (5, 6),
  // the centre cell above every edge cell, and the corner die the coolest.
  EXPECT_EQ(m.hottest_die / 12, 3);
  EXPECT_TRUE(m.hottest_die % 12 == 5 || m.hottest_die % 12 == 6) << m.hottest_die;
  const double centre = at(m, m.rows / 2, m.cols / 2);
  for (int c = 0; c < m.cols; ++c) {
    EXPECT_GT(centre, at(m, 0, c));
    EXPECT_GT(centre, at(m, m.rows - 1, c));
  }
  const double coolest = *std::min_element(m.die_peak_C.begin(), m.die_peak_C.end());
  EXPECT_NEAR(m.die_peak_C[0], coolest, 1e-9);
  EXPECT_GT(m.peak_C - coolest, 0.01 * rise) << "the edge must be noticeably cooler";
  EXPECT_EQ(die_name(m, m.hottest_die), "die " + std::to_string(m.hottest_die) + " at (" +
                                            std::to_string(m.hottest_die % 12) + ", 3)");
}

// Conduction is linear: twice the power is twice the rise over ambient in every cell; the heat
// reaching ambient is the power put in.
TEST(WaferThermal, DoublingPowerDoublesTheRiseAndEnergyBalances) {
  const perf::Design d = sram_wafer();
  std::vector<double> p(84);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = 50.0 + static_cast<double>(i % 13) * 10.0;
  std::vector<double> p2 = p;
  for (double& v : p2) v *= 2;
  const WaferThermalMap a = wafer_thermal_map(d, p), b = wafer_thermal_map(d, p2);
  ASSERT_EQ(a.temperature_C.size(), b.temperature_C.size());
  for (std::size_t i = 0; i < a.temperature_C.size(); ++i)
    ASSERT_NEAR(b.temperature_C[i] - b.ambient_C, 2 * (a.temperature_C[i] - a.ambient_C),
                1e-6 * (b.peak_C - b.ambient_C))
        << i;
  EXPECT_EQ(a.hottest_die, b.hottest_die);
  const double sum = std::accumulate(p.begin(), p.end(), 0.0);
  EXPECT_NEAR(a.total_power_W, sum, 1e-9 * sum);
  EXPECT_NEAR(a.heat_to_ambient_W, sum, 1e-6 * sum);
  EXPECT_NEAR(b.heat_to_ambient_W, 2 * sum, 2e-6 * sum);
}

// One powered die is the hottest, and its neighbours are warmer than dies far away.
TEST(WaferThermal, OneHotDieIsNamedHottest) {
  const perf::Design d = sram_wafer();
  std::vector<double> p(84, 0.0);
  p[2 * 12 + 9] = 400;
  const WaferThermalMap m = wafer_thermal_map(d, p);
  EXPECT_EQ(m.hottest_die, 2 * 12 + 9);
  EXPECT_GT(m.die_peak_C[2 * 12 + 8], m.die_peak_C[6 * 12 + 0]);
  EXPECT_GT(m.die_mean_C[2 * 12 + 9], m.die_mean_C[2 * 12 + 8]);
}

// A better cold plate (liquid cooling's coefficient) lowers the whole map.
TEST(WaferThermal, HigherHeatTransferIsCooler) {
  const perf::Design d = sram_wafer();
  const std::vector<double> p(84, 150.0);
  WaferThermalOptions liquid;
  liquid.heat_transfer_W_per_m2K = 10 * WaferThermalOptions{}.heat_transfer_W_per_m2K;
  const auto air = wafer_thermal_map(d, p), water = wafer_thermal_map(d, p, liquid);
  EXPECT_LT(water.peak_C, air.peak_C);
  EXPECT_NEAR(water.r_convec_K_per_W, air.r_convec_K_per_W / 10, 1e-12);
  // The plate is the 300 mm wafer's diameter, over a 215 mm grid.
  EXPECT_DOUBLE_EQ(air.plate_side_m, 0.3);
}

// A finished run's die powers add up to the wafer's power, instance dies carry their instance's
// mean power and the rest the static power; its map is warmest on a working die.
TEST(WaferThermal, RunDiePowerSumsToWaferPower) {
  perf::Design d = presets().project("default");
  d.hardware = presets().hardware("h100-sxm");
  d.model = presets().model("llama-3-8b");
  d.runtime = presets().runtime("modern-gpu-2025");
  d.workload.numerics = {Precision::fp8, Precision::fp8, Precision::fp8};
  d.workload.batch = 1;
  d.workload.batch_auto = false;
  hw::Wafer w = presets().wafer("wsc-dram-5x4");
  w.dies_x = 4;
  w.dies_y = 2;
  d.wafer = w;
  hw::apply_wafer(w, d.hardware, d.system);
  d.parallel = {};
  d.parallel.tp = 1;
  d.parallel.dp = 8;
  Partition part;
  part.prefill = 1;
  part.decode = 1;
  part.prefill_pool.tp = 2;
  part.decode_pool.tp = 2;
  part.order = PlacementOrder::clustered;
  part.kv_borrow = false;
  serving::GeneratorSpec g;
  g.arrivals.rate_per_s = 4;
  g.input = serving::ServingSpec::fixed_length(512);
  g.output = serving::ServingSpec::fixed_length(32);
  g.requests = 40;
  g.seed = 7;
  const auto reqs = serving::generate(g);
  serving::ServingSpec spec;
  const WaferRun run = run_on_wafer(d, spec, part, reqs);
  ASSERT_GT(run.result.makespan_s, 0);
  const auto p = die_power_W(run, d);
  ASSERT_EQ(p.size(), 8u);
  const double sum = std::accumulate(p.begin(), p.end(), 0.0);
  EXPECT_NEAR(sum, run.power_W, 1e-9 * run.power_W);
  const double idle = d.hardware.energy.static_power_W;
  int working = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (run.wafer.placement.die_owner[i] < 0) {
      EXPECT_DOUBLE_EQ(p[i], idle);
    } else {
      ++working;
      EXPECT_GE(p[i], idle * (1 - 1e-9)) << "a working die draws at least its static power";
    }
  }
  EXPECT_EQ(working, 4);
  const WaferThermalMap m = wafer_thermal_map(d, run);
  EXPECT_GT(m.peak_C, m.ambient_C);
  EXPECT_GE(run.wafer.placement.die_owner[static_cast<std::size_t>(m.hottest_die)], 0);
  EXPECT_NEAR(m.heat_to_ambient_W, run.power_W, 1e-6 * run.power_W);
}

TEST(WaferThermal, BadInputIsAClearError) {
  const perf::Design d = sram_wafer();
  const auto message = [&](const std::vector<double>& p, const WaferThermalOptions& o = {}) {
    try {
      (void)wafer_thermal_map(d, p, o);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(std::vector<double>(83, 1.0)).find("83 die powers for a wafer of 84"),
            std::string::npos);
  std::vector<double> p(84, 1.0);
  p[5] = -1;
  EXPECT_NE(message(p).find("die 5"), std::string::npos);
  p[5] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(message(p).find("die 5"), std::string::npos);
  p[5] = 1;
  WaferThermalOptions o;
  o.cell_mm = 0;
  EXPECT_NE(message(p, o).find("cell_mm"), std::string::npos);
  o = {};
  o.max_cells = 2;
  EXPECT_NE(message(p, o).find("max_cells"), std::string::npos);
  o = {};
  o.heat_transfer_W_per_m2K = -3;
  EXPECT_NE(message(p, o).find("heat-transfer"), std::string::npos);
  perf::Design none = presets().project("default");
  EXPECT_THROW((void)wafer_thermal_map(none, p), std::invalid_argument);
}

}  // namespace
}  // namespace stackscope::wafer
