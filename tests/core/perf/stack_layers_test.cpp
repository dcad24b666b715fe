// SPDX-License-Identifier: GPL-3.0-or-later
// A 3D stack described layer by layer (hw::Memory::layers, docs/model.md §4.8): the same dies
// written out give the uniform stack's results exactly; capacity is the sum of the dies; a
// disconnected die costs exactly one connected layer of peak bandwidth; a thicker die runs
// hotter in the compact model and in the grid solver; a per-die pitch moves the vertical-link
// field; a list that disagrees with the counts, or a value out of range, is refused by path.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "stackscope/common/units.hpp"
#include "stackscope/hw/derived.hpp"
#include "stackscope/hw/stack_layers.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/thermal_map.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/power_area/area.hpp"
#include "test_designs.hpp"

namespace stackscope::perf {
namespace {

// testing::stacked_design(): 8 dies of 12 GiB, the bottom 4 connected, 9 um hybrid bonds.
Design explicit_design() {
  Design d = testing::stacked_design();
  d.hardware.memory.layers = hw::explicit_layers(d.hardware.memory);
  return d;
}

void expect_same(const Result& a, const Result& b) {
  EXPECT_EQ(a.feasible, b.feasible);
  EXPECT_EQ(a.batch, b.batch);
  EXPECT_EQ(a.memory.capacity, b.memory.capacity);
  EXPECT_EQ(a.metrics.stps, b.metrics.stps);
  EXPECT_EQ(a.metrics.ttft_s, b.metrics.ttft_s);
  EXPECT_EQ(a.metrics.power_w, b.metrics.power_w);
  EXPECT_EQ(a.decode.time_s, b.decode.time_s);
  EXPECT_EQ(a.thermal.dram_peak_C, b.thermal.dram_peak_C);
  EXPECT_EQ(a.area.vertical, b.area.vertical);
  EXPECT_EQ(a.clock_scale, b.clock_scale);
}

Issue issue_at(const Design& d, const std::string& path) {
  for (const auto& i : validate(d))
    if (i.path == path) return i;
  ADD_FAILURE() << "no issue at " << path;
  return {};
}

TEST(StackLayers, UniformAndExplicitIdenticalDiesAgreeExactly) {
  const Design u = testing::stacked_design();
  const Design e = explicit_design();
  ASSERT_EQ(e.hardware.memory.layers.size(), 8u);
  EXPECT_TRUE(validate(e).empty());
  expect_same(evaluate(u), evaluate(e));
  // Dies that spell out the uniform values (50 um, 12 GiB, 9 um) are the same stack.
  Design v = e;
  for (auto& l : v.hardware.memory.layers) l = {l.connected, 50, 12, 9};
  EXPECT_TRUE(validate(v).empty());
  expect_same(evaluate(u), evaluate(v));
  // The thermal grid gets the same stack and powers too.
  const Result ru = evaluate(u);
  const auto tu = thermal_model(u, ru), tv = thermal_model(v, ru);
  ASSERT_EQ(tu.power.size(), tv.power.size());
  for (std::size_t l = 0; l < tu.power.size(); ++l) {
    EXPECT_EQ(tu.power[l], tv.power[l]) << l;
    EXPECT_EQ(tu.stack.layers[l].thickness_m, tv.stack.layers[l].thickness_m) << l;
  }
}

TEST(StackLayers, CapacityIsTheSumOfTheDies) {
  Design d = explicit_design();
  const double before = evaluate(d).memory.capacity;
  EXPECT_DOUBLE_EQ(before, 8 * 12 * units::kGiB);
  d.hardware.memory.layers[2].capacity_GiB = 24;  // one die twice as dense
  d.hardware.memory.layers[5].capacity_GiB = 6;
  EXPECT_TRUE(validate(d).empty());
  EXPECT_DOUBLE_EQ(hw::memory_capacity_bytes(d.hardware.memory), (6 * 12 + 24 + 6) * units::kGiB);
  EXPECT_DOUBLE_EQ(evaluate(d).memory.capacity, (6 * 12 + 24 + 6) * units::kGiB);
  // With a bit density the unset dies take the density's capacity, the set ones their own.
  d.hardware.memory.bit_density_Gb_per_mm2 = 0.5;
  const double per_die = power_area::area(d.hardware).dram_layer_capacity_bytes;
  EXPECT_GT(per_die, 0);
  EXPECT_NEAR(evaluate(d).memory.capacity, 6 * per_die + (24 + 6) * units::kGiB, 1.0);
}

TEST(StackLayers, ADisconnectedDieCostsExactlyOneConnectedLayer) {
  Design d = explicit_design();
  d.hardware.memory.layers[1].connected = false;  // the second die from the logic die
  hw::sync_layer_counts(d.hardware.memory);
  EXPECT_EQ(d.hardware.memory.layers_connected, 3);
  EXPECT_TRUE(validate(d).empty());
  Design fewer = testing::stacked_design();
  fewer.hardware.memory.layers_connected = 3;
  const auto& c = d.hardware.compute;
  const auto bw = memory::effective_bandwidth(d.hardware.memory, c, {});
  const auto bw3 = memory::effective_bandwidth(fewer.hardware.memory, c, {});
  const auto bw4 = memory::effective_bandwidth(testing::stacked_design().hardware.memory, c, {});
  EXPECT_EQ(bw.peak_Bps, bw3.peak_Bps);
  EXPECT_EQ(bw.effective_Bps, bw3.effective_Bps);
  EXPECT_NEAR(bw.peak_Bps, bw4.peak_Bps * 3 / 4, 1e-6 * bw4.peak_Bps);
  const Result r = evaluate(d), r3 = evaluate(fewer);
  EXPECT_EQ(r.decode.time_s, r3.decode.time_s);
  EXPECT_EQ(r.area.vertical, r3.area.vertical);
  EXPECT_EQ(r.thermal.dram_peak_C, r3.thermal.dram_peak_C);
  // The first unconnected die from the bottom shares link 1, the next link 2 (round-robin); in
  // the grid the disconnected die carries background power only, the connected ones a third
  // of the access power each.
  EXPECT_EQ(hw::layer_link(d.hardware.memory, 1), 1);
  EXPECT_EQ(hw::layer_link(d.hardware.memory, 2), 2);
  EXPECT_EQ(hw::layer_link(d.hardware.memory, 4), 2);
  const auto td = thermal_model(d, r);
  const auto die_W = [&](int k) {  // DRAM die k (0-based) sits at stack index 2 (k + 1)
    double s = 0;
    for (double w : td.power[static_cast<std::size_t>(2 * (k + 1))]) s += w;
    return s;
  };
  EXPECT_NEAR(die_W(1), td.split.dram_background_W / 8, 1e-9);
  EXPECT_NEAR(die_W(2), td.split.dram_background_W / 8 + td.split.dram_access_W / 3, 1e-9);
  EXPECT_NEAR(die_W(4), td.split.dram_background_W / 8, 1e-9);
  // The bonds carry the whole vertical-link power: bond k the connected dies at or above it
  // (dies 1, 3, 4 in 1-based positions: bond 1 all three, bond 2 two, bonds 5.. none).
  double bonds = 0;
  for (int k = 1; k <= 8; ++k) bonds += td.split.bond_W(k);
  EXPECT_NEAR(bonds, td.split.vertical_W, 1e-12 * td.split.vertical_W);
  EXPECT_NEAR(td.split.bond_W(2), td.split.vertical_W * 2 / 8, 1e-12 * td.split.vertical_W);
  EXPECT_EQ(td.split.bond_W(5), 0.0);
  // The result's per-die breakdown (CLI, result JSON) is the same map.
  EXPECT_EQ(r.power.dram_die_W(2), 0.0 + td.split.dram_die_W(2));
}

TEST(StackLayers, AThickerDieRaisesThePeakTemperature) {
  Design d = explicit_design();
  const Result r0 = evaluate(d);
  d.hardware.memory.layers[0].thickness_um = 400;
  EXPECT_TRUE(validate(d).empty());
  const Result r1 = evaluate(d);
  // Compact model: + P (400 - 50) um / (130 W/mK x A) at the same power.
  const double area_m2 = d.hardware.compute.die_area_mm2 * 1e-6;
  EXPECT_GT(r1.thermal.dram_peak_C, r0.thermal.dram_peak_C);
  if (r1.clock_scale == r0.clock_scale) {
    EXPECT_NEAR(r1.thermal.dram_peak_C - r0.thermal.dram_peak_C,
                r1.power.total_W * 350e-6 / (130 * area_m2), 1e-9);
  }
  // Grid solver: the die's layer is thicker and the hottest DRAM cell is hotter.
  thermal::GridOptions o;
  o.rows = o.cols = 24;
  Design thin = explicit_design();
  const auto t0 = thermal_model(thin, r0);
  const auto t1 = thermal_model(d, r0);  // same powers, one die 8x thicker
  EXPECT_DOUBLE_EQ(t1.stack.layers[2].thickness_m, 400e-6);
  const auto s0 = thermal::solve_steady(t0.stack, t0.power, o);
  const auto s1 = thermal::solve_steady(t1.stack, t1.power, o);
  const int h0 = hottest_layer(t0, s0, LayerRole::dram),
            h1 = hottest_layer(t1, s1, LayerRole::dram);
  ASSERT_GE(h0, 0);
  ASSERT_GE(h1, 0);
  EXPECT_GT(s1.layers[static_cast<std::size_t>(h1)].max_C,
            s0.layers[static_cast<std::size_t>(h0)].max_C + 0.01);
  // A thinner die cools it in the compact model.
  d.hardware.memory.layers[0].thickness_um = 20;
  EXPECT_LT(evaluate(d).thermal.dram_peak_C, r0.thermal.dram_peak_C);
}

TEST(StackLayers, APerDiePitchMovesTheVerticalField) {
  Design d = explicit_design();
  const double a0 = power_area::area(d.hardware).vertical_mm2;
  d.hardware.memory.layers[0].pitch_um = 18;  // a connected die at twice the pitch
  const double a1 = power_area::area(d.hardware).vertical_mm2;
  // Its quarter of the signal links takes 4x the area: + 3/4 of the field.
  EXPECT_NEAR(a1, a0 * (1 + 0.75), 1e-9 * a0);
  // An unconnected die has no signal links (no supply links here): its pitch changes nothing.
  Design u = explicit_design();
  u.hardware.memory.layers[6].pitch_um = 18;
  EXPECT_NEAR(power_area::area(u.hardware).vertical_mm2, a0, 1e-12);
  EXPECT_GT(evaluate(d).area.vertical, evaluate(explicit_design()).area.vertical);
}

TEST(StackLayers, ValidationNamesTheFieldAndTheRange) {
  Design d = explicit_design();
  d.hardware.memory.layers.pop_back();  // 7 dies, layers_total still 8
  Issue i = issue_at(d, "/hardware/memory/layers_total");
  EXPECT_NE(i.allowed.find("= 7"), std::string::npos) << i.allowed;
  d = explicit_design();
  d.hardware.memory.layers[5].connected = true;  // 5 connected, layers_connected still 4
  i = issue_at(d, "/hardware/memory/layers_connected");
  EXPECT_NE(i.allowed.find("= 5"), std::string::npos) << i.allowed;
  d = explicit_design();
  d.hardware.memory.layers[3].thickness_um = 2000;
  i = issue_at(d, "/hardware/memory/layers/3/thickness_um");
  EXPECT_EQ(i.allowed, "number in [0, 1000]");
  d.hardware.memory.layers[3].thickness_um = -5;
  i = issue_at(d, "/hardware/memory/layers/3/thickness_um");
  EXPECT_EQ(i.allowed, "finite number >= 0");
  d = explicit_design();
  d.hardware.memory.layers[2].pitch_um = 5000;
  EXPECT_EQ(issue_at(d, "/hardware/memory/layers/2/pitch_um").allowed, "number in [0, 1000]");
  d = explicit_design();
  d.hardware.memory.layers[1].capacity_GiB = -1;
  issue_at(d, "/hardware/memory/layers/1/capacity_GiB");
  d = explicit_design();
  for (auto& l : d.hardware.memory.layers) l.connected = false;
  hw::sync_layer_counts(d.hardware.memory);
  issue_at(d, "/hardware/memory/layers");
  d = explicit_design();
  d.hardware.memory.kind = hw::MemoryKind::hbm;
  issue_at(d, "/hardware/memory/layers");
  // The ranges the editor offers for a die's fields, even before the stack has rows.
  const auto ranges = field_ranges(testing::stacked_design());
  ASSERT_TRUE(ranges.count("/hardware/memory/layers/0/thickness_um"));
  EXPECT_EQ(ranges.at("/hardware/memory/layers/0/thickness_um").max, 1000);
  EXPECT_EQ(ranges.at("/hardware/memory/layers/0/pitch_um").max, 1000);
}

TEST(StackLayers, LinksAreSharedRoundRobin) {
  hw::Memory m = testing::stacked_design().hardware.memory;  // 8 dies, bottom 4 connected
  for (int k = 0; k < 8; ++k) EXPECT_EQ(hw::layer_link(m, k), k % 4 + 1) << k;
  m.layers = hw::explicit_layers(m);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(hw::layer_link(m, k), k % 4 + 1) << k;
  // Connected dies on top: the unconnected bottom dies use links 1..4 in turn.
  std::reverse(m.layers.begin(), m.layers.end());
  for (int k = 0; k < 4; ++k) EXPECT_EQ(hw::layer_link(m, k), k + 1) << k;
  for (int k = 4; k < 8; ++k) EXPECT_EQ(hw::layer_link(m, k), k - 3) << k;
  EXPECT_FALSE(hw::connected_at_bottom(m));
}

}  // namespace
}  // namespace stackscope::perf
