// SPDX-License-Identifier: GPL-3.0-or-later
// HotSpot 6 interchange: each file type, file:line errors, and write -> read round trips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/hotspot.hpp"
#include "stackscope/thermal/solver.hpp"

namespace stackscope::io {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(STACKSCOPE_SOURCE_DIR) / "tests" / "data" / "hotspot";

// The first issue's "path: message (...)" text of the ConfigError f throws ("" if none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.issues().empty() ? std::string(e.what()) : format_issue(e.issues().front());
  }
  return {};
}

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() /
                     ("stackscope_hotspot_" + name + "_" +
                      std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

TEST(HotspotFlp, ParsesBlocksCommentsAndBlankLines) {
  const auto fp = parse_flp(
      "# a comment\n\ncore\t0.004 0.002  0.001 0   # trailing comment\r\n"
      "cache 0.005 0.003 0 0.002 1.75e6 0.01\n",
      "x.flp");
  ASSERT_EQ(fp.blocks.size(), 2u);
  EXPECT_EQ(fp.blocks[0].name, "core");
  EXPECT_DOUBLE_EQ(fp.blocks[0].width_m, 0.004);
  EXPECT_DOUBLE_EQ(fp.blocks[0].height_m, 0.002);
  EXPECT_DOUBLE_EQ(fp.blocks[0].left_m, 0.001);
  EXPECT_DOUBLE_EQ(fp.blocks[0].bottom_m, 0.0);
  EXPECT_EQ(fp.blocks[1].name, "cache");  // 7 columns: per-block material (HotSpot 6)
  EXPECT_DOUBLE_EQ(fp.blocks[1].bottom_m, 0.002);
}

TEST(HotspotFlp, ErrorsNameFileAndLine) {
  EXPECT_EQ(error_of([] { parse_flp("# c\na 1 1 0\n", "x.flp"); }).substr(0, 48),
            "x.flp:2: floorplan line: wrong number of columns");
  EXPECT_NE(error_of([] {
              parse_flp("a 1 1 0 0\nb 1 abc 0 0\n", "x.flp");
            }).find("x.flp:2: height: not a number (got 'abc'"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_flp("a -1 1 0 0\n", "x.flp");
            }).find("x.flp:1: width: out of range (got -1; allowed: > 0)"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_flp("a 1 1 0 0\na 1 1 1 0\n", "x.flp");
            }).find("x.flp:2: duplicate block name"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_flp("# only a comment\n", "x.flp"); }).find("no blocks"),
            std::string::npos);
}

TEST(HotspotLcf, ParsesLayersWithComments) {
  const auto layers = parse_lcf(
      "# layer 0\n0\nY\nY\n1.75e6\n0.01\n0.00015\ncore.flp\n\n# name: tim\n1\nN\nN\n4e6\n"
      "0.25\n2e-05\ntim.flp\n",
      "x.lcf");
  ASSERT_EQ(layers.size(), 2u);
  EXPECT_TRUE(layers[0].lateral);
  EXPECT_TRUE(layers[0].power);
  EXPECT_DOUBLE_EQ(layers[0].heat_capacity_J_m3K, 1.75e6);
  EXPECT_DOUBLE_EQ(layers[0].resistivity_mK_W, 0.01);
  EXPECT_DOUBLE_EQ(layers[0].thickness_m, 150e-6);
  EXPECT_EQ(layers[0].floorplan_file, "core.flp");
  EXPECT_EQ(layers[0].name, "");
  EXPECT_EQ(layers[1].name, "tim");
  EXPECT_FALSE(layers[1].lateral);
  EXPECT_FALSE(layers[1].power);
}

TEST(HotspotLcf, ErrorsNameFileAndLine) {
  EXPECT_NE(error_of([] {
              parse_lcf("0\nY\nY\n1.75e6\n0.01\n-0.00015\nc.flp\n", "x.lcf");
            }).find("x.lcf:6: thickness: out of range (got -0.00015; allowed: > 0)"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_lcf("0\nY\nmaybe\n1.75e6\n0.01\n1e-4\nc.flp\n", "x.lcf");
            }).find("x.lcf:3: power dissipation: expected Y or N"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_lcf("0\nY\nY\n1.75e6\n0.01 2\n1e-4\nc.flp\n", "x.lcf");
            }).find("x.lcf:5: layer line: wrong number of columns"),
            std::string::npos);
  EXPECT_NE(
      error_of([] { parse_lcf("0\nY\nY\n1.75e6\n", "x.lcf"); }).find("x.lcf:1: incomplete layer"),
      std::string::npos);
  EXPECT_NE(error_of([] {
              parse_lcf("1\nY\nY\n1.75e6\n0.01\n1e-4\nc.flp\n", "x.lcf");
            }).find("x.lcf:1: layer number out of sequence"),
            std::string::npos);
}

TEST(HotspotPtrace, AveragesStepsForSteadyState) {
  const auto t = parse_ptrace("# powers\na\tb\n1 2\n\n3 4\n", "x.ptrace");
  ASSERT_EQ(t.names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(t.steps, 2u);
  EXPECT_DOUBLE_EQ(t.average_W[0], 2.0);
  EXPECT_DOUBLE_EQ(t.average_W[1], 3.0);
  EXPECT_EQ(t.header_line, 2);
}

TEST(HotspotPtrace, ErrorsNameFileAndLine) {
  EXPECT_NE(error_of([] {
              parse_ptrace("a b\n1 2\n1\n", "x.ptrace");
            }).find("x.ptrace:3: power line: wrong number of columns (got 1; allowed: 2"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_ptrace("a b\n1 x\n", "x.ptrace");
            }).find("x.ptrace:2: power of b: not a number"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_ptrace("a b\n", "x.ptrace"); }).find("no power lines"),
            std::string::npos);
}

TEST(HotspotConfig, ReadsPackageKeysAndReportsUnused) {
  const auto c = parse_hotspot_config(
      "# package\n-s_sink 0.07\n\n-r_convec\t0.2  # per HotSpot\n-ambient 300\n"
      "-grid_rows 16\n-grid_cols 8\n-init_temp 333.15\n-model_type block\n-leakage_used 0\n",
      "x.config");
  EXPECT_DOUBLE_EQ(c.s_sink_m, 0.07);
  EXPECT_DOUBLE_EQ(c.r_convec_K_W, 0.2);
  EXPECT_DOUBLE_EQ(c.ambient_K, 300);
  EXPECT_DOUBLE_EQ(c.k_sink_W_mK, 400);  // HotSpot default kept
  EXPECT_TRUE(c.has_grid);
  EXPECT_EQ(c.grid_rows, 16);
  EXPECT_EQ(c.grid_cols, 8);
  EXPECT_EQ(c.unused, (std::vector<std::string>{"-init_temp", "-leakage_used"}));
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "x.config:9: -model_type block: solving the grid model instead");
}

TEST(HotspotConfig, ErrorsNameFileAndLine) {
  EXPECT_NE(error_of([] {
              parse_hotspot_config("-s_sink\n", "x.config");
            }).find("x.config:1: config line: expected '-key value'"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_hotspot_config("# c\n-t_sink abc\n", "x.config");
            }).find("x.config:2: -t_sink: not a number"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_hotspot_config("-grid_rows 2.5\n", "x.config");
            }).find("x.config:1: -grid_rows: out of range"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              parse_hotspot_config("-k_sink 1\n-k_sink 2\n", "x.config");
            }).find("x.config:2: duplicate key"),
            std::string::npos);
}

TEST(HotspotRead, ExampleStack) {
  const auto m = read_hotspot(kData / "stack.config", kData / "stack.lcf", kData / "stack.ptrace");
  ASSERT_EQ(m.stack.layers.size(), 4u);
  EXPECT_EQ(m.stack.layers[0].name, "core");
  EXPECT_EQ(m.stack.layers[1].name, "bond");
  EXPECT_EQ(m.stack.layers[2].name, "dram");
  EXPECT_EQ(m.stack.layers[3].name, "tim");
  EXPECT_DOUBLE_EQ(m.stack.layers[0].conductivity_W_per_mK, 100.0);
  EXPECT_NEAR(m.stack.layers[1].conductivity_W_per_mK, 2.25, 1e-12);
  EXPECT_DOUBLE_EQ(m.stack.layers[2].thickness_m, 50e-6);
  EXPECT_TRUE(m.stack.layers[2].dissipates_power);
  EXPECT_FALSE(m.stack.layers[3].dissipates_power);
  EXPECT_FALSE(m.stack.append_interface_layer);
  EXPECT_EQ(m.stack.floorplans.size(), 4u);
  EXPECT_DOUBLE_EQ(m.stack.chip_width_m, 0.01);
  EXPECT_DOUBLE_EQ(m.stack.chip_height_m, 0.01);
  EXPECT_NEAR(m.stack.package.ambient_C, 45.0, 1e-12);
  EXPECT_EQ(m.grid_rows, 32);
  EXPECT_TRUE(m.has_grid);
  // Steady state: the average of the two trace lines.
  ASSERT_EQ(m.power.size(), 4u);
  EXPECT_EQ(m.power[0], (std::vector<double>{22, 20, 5, 3}));
  EXPECT_TRUE(m.power[1].empty());
  EXPECT_EQ(m.power[2], (std::vector<double>{1.25, 1.25}));
  EXPECT_EQ(m.warnings.size(), 2u);  // -c_convec, -init_temp
}

TEST(HotspotRead, TwoDimensionalMode) {
  const auto m = read_hotspot_2d(kData / "stack.config", kData / "core.flp", kData / "core.ptrace");
  ASSERT_EQ(m.stack.layers.size(), 2u);
  EXPECT_TRUE(m.stack.layers[0].dissipates_power);
  EXPECT_DOUBLE_EQ(m.stack.layers[0].thickness_m, 0.15e-3);  // HotSpot's -t_chip default
  EXPECT_DOUBLE_EQ(m.stack.layers[1].thickness_m, 2e-5);     // -t_interface
  EXPECT_EQ(m.power[0], (std::vector<double>{22, 20, 5, 3}));
}

TEST(HotspotRead, FileErrors) {
  const fs::path d = temp_dir("errors");
  for (const char* f : {"core.flp", "dram.flp", "bond.flp", "tim.flp", "stack.config"}) {
    fs::copy_file(kData / f, d / f);
  }
  std::ifstream in(kData / "stack.lcf");
  const std::string lcf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  // Unknown block name in the .ptrace (header on line 2, after a comment).
  write(d / "bad.ptrace", "# p\ncore0 core1 l2 noc bank0 bank9\n1 1 1 1 1 1\n");
  write(d / "stack.lcf", lcf);
  EXPECT_NE(error_of([&] {
              read_hotspot(d / "stack.config", d / "stack.lcf", d / "bad.ptrace");
            }).find("bad.ptrace:2: unknown block name 'bank9'"),
            std::string::npos);
  // A block of a layer that does not dissipate power.
  write(d / "bad.ptrace", "core0 bond\n1 1\n");
  EXPECT_NE(error_of([&] {
              read_hotspot(d / "stack.config", d / "stack.lcf", d / "bad.ptrace");
            }).find("bad.ptrace:1: block 'bond' is on layer 1, which does not dissipate"),
            std::string::npos);
  // Missing floorplan file: reported at the .lcf line that names it.
  std::string broken = lcf;
  broken.replace(broken.find("dram.flp"), 8, "nowhere.flp");
  write(d / "broken.lcf", broken);
  const std::string e =
      error_of([&] { read_hotspot(d / "stack.config", d / "broken.lcf", kData / "stack.ptrace"); });
  EXPECT_NE(e.find("broken.lcf:"), std::string::npos) << e;
  EXPECT_NE(e.find(": cannot read floorplan file (got '"), std::string::npos) << e;
  EXPECT_NE(e.find("nowhere.flp"), std::string::npos) << e;
  // A floorplan narrower than the chip: read, with a warning at its .lcf line.
  write(d / "tim.flp", "tim 0.01 0.009 0 0\n");
  const auto narrow = read_hotspot(d / "stack.config", d / "stack.lcf", kData / "stack.ptrace");
  EXPECT_TRUE(std::any_of(narrow.warnings.begin(), narrow.warnings.end(), [](const auto& w) {
    return w.find("stack.lcf:39: floorplan tim.flp spans 0.01 x 0.009 m") != std::string::npos;
  }));
  // Missing input file.
  EXPECT_NE(error_of([&] {
              read_hotspot(d / "none.config", d / "stack.lcf", d / "x");
            }).find("none.config: cannot read config file"),
            std::string::npos);
  fs::remove_all(d);
}

void expect_same_stack(const thermal::StackModel& a, const thermal::StackModel& b) {
  constexpr double rel = 1e-12;
  auto near = [&](double x, double y) { return std::abs(x - y) <= rel * std::abs(x); };
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (std::size_t l = 0; l < a.layers.size(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    EXPECT_EQ(a.layers[l].name, b.layers[l].name);
    EXPECT_TRUE(near(a.layers[l].thickness_m, b.layers[l].thickness_m));
    EXPECT_TRUE(near(a.layers[l].conductivity_W_per_mK, b.layers[l].conductivity_W_per_mK));
    EXPECT_TRUE(near(a.layers[l].volumetric_heat_capacity_J_per_m3K,
                     b.layers[l].volumetric_heat_capacity_J_per_m3K));
    EXPECT_EQ(a.layers[l].lateral_heat_flow, b.layers[l].lateral_heat_flow);
    EXPECT_EQ(a.layers[l].dissipates_power, b.layers[l].dissipates_power);
    EXPECT_EQ(a.layers[l].floorplan, b.layers[l].floorplan);
  }
  ASSERT_EQ(a.floorplans.size(), b.floorplans.size());
  for (std::size_t f = 0; f < a.floorplans.size(); ++f) {
    ASSERT_EQ(a.floorplans[f].blocks.size(), b.floorplans[f].blocks.size());
    for (std::size_t k = 0; k < a.floorplans[f].blocks.size(); ++k) {
      const auto& x = a.floorplans[f].blocks[k];
      const auto& y = b.floorplans[f].blocks[k];
      EXPECT_EQ(x.name, y.name);
      EXPECT_EQ(x.width_m, y.width_m);
      EXPECT_EQ(x.height_m, y.height_m);
      EXPECT_EQ(x.x_m, y.x_m);
      EXPECT_EQ(x.y_m, y.y_m);
    }
  }
  const auto& p = a.package;
  const auto& q = b.package;
  EXPECT_NEAR(p.ambient_C, q.ambient_C, 1e-9);
  for (auto [x, y] : {std::pair{p.r_convec_K_per_W, q.r_convec_K_per_W},
                      {p.s_sink_m, q.s_sink_m},
                      {p.t_sink_m, q.t_sink_m},
                      {p.k_sink_W_per_mK, q.k_sink_W_per_mK},
                      {p.c_sink_J_per_m3K, q.c_sink_J_per_m3K},
                      {p.s_spreader_m, q.s_spreader_m},
                      {p.t_spreader_m, q.t_spreader_m},
                      {p.k_spreader_W_per_mK, q.k_spreader_W_per_mK},
                      {p.c_spreader_J_per_m3K, q.c_spreader_J_per_m3K},
                      {p.t_interface_m, q.t_interface_m},
                      {p.k_interface_W_per_mK, q.k_interface_W_per_mK},
                      {p.c_interface_J_per_m3K, q.c_interface_J_per_m3K}}) {
    EXPECT_DOUBLE_EQ(x, y);
  }
  EXPECT_DOUBLE_EQ(a.chip_width_m, b.chip_width_m);
  EXPECT_DOUBLE_EQ(a.chip_height_m, b.chip_height_m);
  EXPECT_EQ(a.append_interface_layer, b.append_interface_layer);
}

void expect_same_solution(const thermal::StackModel& a, const thermal::PowerMap& pa,
                          const thermal::StackModel& b, const thermal::PowerMap& pb) {
  thermal::GridOptions opt;
  opt.rows = 16;
  opt.cols = 16;
  const auto sa = thermal::solve_steady(a, pa, opt);
  const auto sb = thermal::solve_steady(b, pb, opt);
  ASSERT_EQ(sa.layers.size(), sb.layers.size());
  for (std::size_t l = 0; l < sa.layers.size(); ++l) {
    EXPECT_NEAR(sa.layers[l].max_C, sb.layers[l].max_C, 1e-6 * std::abs(sa.layers[l].max_C));
  }
}

TEST(HotspotRoundTrip, ExampleStackWriteRead) {
  const auto m = read_hotspot(kData / "stack.config", kData / "stack.lcf", kData / "stack.ptrace");
  const fs::path d = temp_dir("roundtrip");
  const HotspotPaths paths = write_hotspot(d / "out", "case", m.stack, m.power, 32, 16);
  EXPECT_TRUE(fs::exists(paths.config));
  EXPECT_EQ(paths.floorplans.size(), 4u);
  const auto back = read_hotspot(paths.config, paths.lcf, paths.ptrace);
  EXPECT_EQ(back.grid_rows, 32);
  EXPECT_EQ(back.grid_cols, 16);
  expect_same_stack(m.stack, back.stack);
  EXPECT_EQ(m.power, back.power);
  EXPECT_TRUE(back.warnings.empty());
  expect_same_solution(m.stack, m.power, back.stack, back.power);
  fs::remove_all(d);
}

TEST(HotspotRoundTrip, SharedFloorplansAndOddValues) {
  // Two DRAM layers share one floorplan (names clash in the .ptrace, so the writer gives the
  // second its own prefixed copy); a layer without a floorplan gets a full-chip block.
  thermal::StackModel s;
  s.chip_width_m = 0.012;
  s.chip_height_m = 0.008;
  s.package.ambient_C = 27.3;
  s.package.r_convec_K_per_W = 0.137;
  s.floorplans.push_back({{{"cpu", 0.006, 0.008, 0, 0}, {"gpu", 0.006, 0.008, 0.006, 0}}});
  s.floorplans.push_back({{{"array", 0.012, 0.008, 0, 0}}});
  auto layer = [](std::string name, double t, double k, bool power, int fp) {
    thermal::Layer l;
    l.name = std::move(name);
    l.thickness_m = t;
    l.conductivity_W_per_mK = k;
    l.dissipates_power = power;
    l.floorplan = fp;
    return l;
  };
  s.layers = {layer("logic", 1.1e-4, 130, true, 0), layer("bond 1", 1e-5, 2.25, false, -1),
              layer("dram1", 5e-5, 130, true, 1), layer("dram2", 5e-5, 130, true, 1),
              layer("tim", 2.3e-5, 3.7, false, -1)};
  const thermal::PowerMap power = {{31.7, 12.05}, {}, {0.9}, {1.1}, {}};
  const fs::path d = temp_dir("shared");
  const HotspotPaths paths = write_hotspot(d, "shared", s, power);
  const auto back = read_hotspot(paths.config, paths.lcf, paths.ptrace);
  ASSERT_EQ(back.stack.layers.size(), 5u);
  for (std::size_t l = 0; l < 5; ++l) {
    EXPECT_EQ(back.stack.layers[l].name, s.layers[l].name);
    EXPECT_NEAR(back.stack.layers[l].conductivity_W_per_mK, s.layers[l].conductivity_W_per_mK,
                1e-12 * s.layers[l].conductivity_W_per_mK);
    EXPECT_EQ(back.stack.layers[l].thickness_m, s.layers[l].thickness_m);
  }
  EXPECT_EQ(back.power[0], power[0]);
  EXPECT_EQ(back.power[2], power[2]);
  EXPECT_EQ(back.power[3], power[3]);
  EXPECT_EQ(back.stack.floorplans[static_cast<std::size_t>(back.stack.layers[3].floorplan)]
                .blocks[0]
                .name,
            "dram2.array");
  EXPECT_DOUBLE_EQ(back.stack.chip_width_m, 0.012);
  EXPECT_NEAR(back.stack.package.ambient_C, 27.3, 1e-9);
  expect_same_solution(s, power, back.stack, back.power);
  fs::remove_all(d);
}

TEST(HotspotWrite, RejectsPowerNotMatchingBlocks) {
  thermal::StackModel s;
  s.floorplans.push_back({{{"a", 0.01, 0.01, 0, 0}}});
  thermal::Layer l;
  l.name = "die";
  l.dissipates_power = true;
  l.floorplan = 0;
  s.layers = {l};
  const fs::path d = temp_dir("reject");
  EXPECT_NE(error_of([&] {
              write_hotspot(d, "x", s, {{1.0, 2.0}});
            }).find("power/0: power entries do not match"),
            std::string::npos);
  fs::remove_all(d);
}

}  // namespace
}  // namespace stackscope::io
