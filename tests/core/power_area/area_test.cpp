// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include "stackscope/power_area/area.hpp"

namespace stackscope::power_area {
namespace {

// A DeepStack-style die: 4 connected layers x 64 channels x 64 bit at 3.2 Gb/s per link.
hw::Hardware stacked() {
  hw::Hardware h;
  h.compute.cores = 128;
  h.compute.area_per_core_mm2 = 3.0;
  h.compute.shared_buffer_MiB = 64;
  h.compute.die_area_mm2 = 700;
  auto& m = h.memory;
  m.kind = hw::MemoryKind::stacked_3d;
  m.stacks = 1;
  m.layers_total = 8;
  m.layers_connected = 4;
  m.channels_per_layer = 64;
  m.bytes_per_transfer = 8;
  m.transfers_per_clock = 2;
  m.clock_MHz = 1600;
  m.vertical = {hw::VerticalLinkKind::hybrid_bond, 9.0, 0.5, 3.2, 0.05, 81};
  h.noc = {16, 8, 153.6, 1};
  return h;
}

TEST(Area, VerticalFieldCarriesThePeakBandwidth) {
  const auto a = area(stacked());
  // 256 channels x 204.8 Gb/s / 3.2 Gb/s = 16384 data links; half the bonds carry data.
  EXPECT_NEAR(a.vertical_links, 32768, 1e-6);
  EXPECT_NEAR(a.vertical_mm2, 32768 * 81e-6, 1e-9);
}

TEST(Area, PartsAddUpAndFitTheDie) {
  const auto a = area(stacked());
  EXPECT_DOUBLE_EQ(a.cores_mm2, 384);
  EXPECT_NEAR(a.shared_sram_mm2, 64 * 0.35, 1e-12);
  EXPECT_NEAR(a.noc_mm2, 128 * 0.1, 1e-12);
  EXPECT_NEAR(a.used_mm2(), a.cores_mm2 + a.shared_sram_mm2 + a.noc_mm2 + a.phy_mm2 +
                                a.vertical_mm2 + a.other_mm2, 1e-9);
  EXPECT_TRUE(a.fits_die());
  EXPECT_TRUE(a.fits_reticle());
}

TEST(Area, CoarseTsvsCanOverflowTheDie) {
  auto h = stacked();
  h.memory.vertical.kind = hw::VerticalLinkKind::tsv;
  h.memory.vertical.pitch_um = 40;
  h.memory.vertical.keepout_um2 = 40 * 40;
  h.memory.vertical.gbps_per_link = 0.5;  // slow links: 6.5x more of them
  const auto a = area(h);
  EXPECT_FALSE(a.fits_die());
  auto big = stacked();
  big.compute.die_area_mm2 = 900;
  EXPECT_FALSE(area(big).fits_reticle());  // 26 mm x 33 mm = 858 mm^2
}

TEST(Area, LayerCapacityFollowsBitDensity) {
  auto h = stacked();
  h.memory.bit_density_Gb_per_mm2 = 0.15;
  const auto a = area(h);
  EXPECT_NEAR(a.dram_layer_capacity_bytes, 0.15e9 * (700 - a.vertical_mm2) / 8, 1.0);
}

}  // namespace
}  // namespace stackscope::power_area
