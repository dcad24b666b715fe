// SPDX-License-Identifier: GPL-3.0-or-later
// Agreement of the grid solver with HotSpot 7 (uvahotspot/HotSpot f18831e) on HotSpot's own
// files: the public bare-die case in shared/reference and the 3D
// stacks of tests/data/thermal (README.md there says how HotSpot produced them). Each case is
// read through io::read_hotspot, solved on HotSpot's grid, and compared cell by cell: the rise
// over ambient at the peak and on the mean within 2 %, and every periphery node's rise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "stackscope/io/hotspot.hpp"
#include "stackscope/thermal/solver.hpp"

namespace stackscope::thermal {
namespace {

namespace fs = std::filesystem;

const fs::path kPublic =
    fs::path(STACKSCOPE_REFERENCE_DIR) / "hotspot" / "bare-die-default-package";
const fs::path kData = fs::path(STACKSCOPE_SOURCE_DIR) / "tests" / "data" / "thermal";

// Rise tolerance: 2 % of the rise over ambient.
constexpr double kRiseTolerance = 0.02;

// A HotSpot per-cell CSV ('#' comment lines; HotSpot's row 0 is the max-y edge): values in our
// row order (row 0 at y = 0).
std::vector<double> read_grid_csv(const fs::path& file, int rows, int cols) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::vector<std::vector<double>> hs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<double> row;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) row.push_back(std::stod(cell));
    hs.push_back(std::move(row));
  }
  if (static_cast<int>(hs.size()) != rows) throw std::runtime_error(file.string() + ": rows");
  std::vector<double> out(static_cast<size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    if (static_cast<int>(hs[static_cast<size_t>(r)].size()) != cols)
      throw std::runtime_error(file.string() + ": columns");
    for (int c = 0; c < cols; ++c)
      out[static_cast<size_t>((rows - 1 - r) * cols + c)] =
          hs[static_cast<size_t>(r)][static_cast<size_t>(c)];
  }
  return out;
}

// HotSpot's out.steady: "name kelvin" per line.
std::map<std::string, double> read_steady(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::map<std::string, double> out;
  std::string name;
  double kelvin = 0;
  while (in >> name >> kelvin) out[name] = kelvin - 273.15;
  return out;
}

struct LayerSummary {
  int layer = 0;
  double max_C = 0, mean_C = 0;
};

// layers.csv of a generated case: "layer,label,max_C,mean_C,min_C".
std::vector<LayerSummary> read_layers(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::vector<LayerSummary> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) f.push_back(cell);
    if (f.size() != 5) throw std::runtime_error(file.string() + ": bad line " + line);
    out.push_back({std::stoi(f[0]), std::stod(f[2]), std::stod(f[3])});
  }
  return out;
}

struct Case {
  io::HotspotModel model;
  Solution sol;
  double ambient_C = 0;
};

Case solve_case(const fs::path& dir) {
  Case c;
  c.model = io::read_hotspot(dir / "hotspot.config", dir / "stack.lcf", dir / "stack.ptrace");
  GridOptions opt;
  opt.rows = c.model.grid_rows;
  opt.cols = c.model.grid_cols;
  c.sol = solve_steady(c.model.stack, c.model.power, opt);
  c.ambient_C = c.model.stack.package.ambient_C;
  return c;
}

// Compares one layer's cells with HotSpot's; prints and checks the peak and mean rise.
void expect_layer_agrees(const Case& c, const std::vector<double>& ours,
                         const std::vector<double>& ref, const std::string& what) {
  ASSERT_EQ(ours.size(), ref.size());
  const double amb = c.ambient_C;
  double o_max = -1e300, r_max = -1e300, o_sum = 0, r_sum = 0, sq = 0, worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    o_max = std::max(o_max, ours[i]);
    r_max = std::max(r_max, ref[i]);
    o_sum += ours[i];
    r_sum += ref[i];
    sq += (ours[i] - ref[i]) * (ours[i] - ref[i]);
    worst = std::max(worst, std::abs(ours[i] - ref[i]));
  }
  const double n = static_cast<double>(ref.size());
  const double peak_rise = r_max - amb, mean_rise = r_sum / n - amb;
  const double peak_err = (o_max - r_max) / peak_rise, mean_err = (o_sum - r_sum) / n / mean_rise;
  const double rms = std::sqrt(sq / n);
  std::printf(
      "%-44s HotSpot peak %.2f C mean %.2f C | rise error peak %+.2f%% mean %+.2f%% | per-cell "
      "RMS %.3f C, max |d| %.3f C\n",
      what.c_str(), r_max, r_sum / n, 100 * peak_err, 100 * mean_err, rms, worst);
  EXPECT_LT(std::abs(peak_err), kRiseTolerance) << what;
  EXPECT_LT(std::abs(mean_err), kRiseTolerance) << what;
  // The map's shape, not just its extremes: RMS within 2 % of the peak rise.
  EXPECT_LT(rms, kRiseTolerance * peak_rise) << what;
}

// Periphery nodes against HotSpot's inode_0..inode_11 (same order as PeripheryNode).
void expect_periphery_agrees(const Case& c, const std::map<std::string, double>& steady) {
  double worst = 0;
  for (int k = 0; k < kPeripheryNodes; ++k) {
    const auto it = steady.find("inode_" + std::to_string(k));
    ASSERT_NE(it, steady.end());
    const double ref_rise = it->second - c.ambient_C;
    const double ours_rise = c.sol.periphery_C[static_cast<size_t>(k)] - c.ambient_C;
    EXPECT_NEAR(ours_rise, ref_rise, kRiseTolerance * ref_rise) << "periphery node " << k;
    worst = std::max(worst, std::abs(ours_rise - ref_rise) / ref_rise);
  }
  std::printf("  periphery nodes inode_0..11: worst rise error %.3f%%\n", 100 * worst);
}

TEST(HotspotAgreement, PublicBareDieDefaultPackage) {
  const Case c = solve_case(kPublic);
  ASSERT_EQ(c.sol.rows, 64);
  EXPECT_NEAR(c.sol.total_power_W, 80.0, 1e-9);
  const auto ref = read_grid_csv(kPublic / "grid_logic_C.csv", c.sol.rows, c.sol.cols);
  expect_layer_agrees(c, c.sol.temperature_C[0], ref, "bare die 80 W: logic layer");
  expect_periphery_agrees(c, read_steady(kPublic / "out.steady"));
}

// A generated 3D case: per-cell agreement on the logic die and the top DRAM die, peak and mean
// rise of every grid layer (chip layers, then the spreader and sink under the die), and the
// periphery nodes.
void check_generated(const std::string& name, int top_dram_layer) {
  const fs::path dir = kData / name;
  const Case c = solve_case(dir);
  for (int l : {0, top_dram_layer}) {
    const auto ref =
        read_grid_csv(dir / ("grid_layer" + std::to_string(l) + "_C.csv"), c.sol.rows, c.sol.cols);
    expect_layer_agrees(c, c.sol.temperature_C[static_cast<size_t>(l)], ref,
                        name + ": layer " + std::to_string(l));
  }
  const auto layers = read_layers(dir / "layers.csv");
  const int nl = static_cast<int>(c.sol.temperature_C.size());
  ASSERT_EQ(static_cast<int>(layers.size()), nl + 2);
  double worst_peak = 0, worst_mean = 0;
  for (const auto& ls : layers) {
    const std::vector<double>& t = ls.layer < nl
                                       ? c.sol.temperature_C[static_cast<size_t>(ls.layer)]
                                   : ls.layer == nl ? c.sol.spreader_C
                                                    : c.sol.sink_C;
    double mx = -1e300, sum = 0;
    for (double v : t) {
      mx = std::max(mx, v);
      sum += v;
    }
    const double mean = sum / static_cast<double>(t.size());
    EXPECT_NEAR(mx - c.ambient_C, ls.max_C - c.ambient_C, kRiseTolerance * (ls.max_C - c.ambient_C))
        << name << " layer " << ls.layer;
    EXPECT_NEAR(mean - c.ambient_C, ls.mean_C - c.ambient_C,
                kRiseTolerance * (ls.mean_C - c.ambient_C))
        << name << " layer " << ls.layer;
    worst_peak = std::max(worst_peak, std::abs(mx - ls.max_C) / (ls.max_C - c.ambient_C));
    worst_mean = std::max(worst_mean, std::abs(mean - ls.mean_C) / (ls.mean_C - c.ambient_C));
  }
  std::printf("  all %zu grid layers: worst rise error peak %.3f%%, mean %.3f%%\n", layers.size(),
              100 * worst_peak, 100 * worst_mean);
  expect_periphery_agrees(c, read_steady(dir / "out.steady"));
}

TEST(HotspotAgreement, FourDramDiesOverAnOffCentreHotSpot) {
  check_generated("dram4-offcentre-10mm", 8);
}

TEST(HotspotAgreement, EightDramDiesOverA20mmLogicDie) {
  check_generated("dram8-core-20mm", 16);
}

// A rectangular die (the periphery differs per direction) under a non-default package.
TEST(HotspotAgreement, TwelveDramDiesOnARectangularDieUnderAnAluminiumSink) {
  check_generated("dram12-rect-alu-sink", 24);
}

}  // namespace
}  // namespace stackscope::thermal
