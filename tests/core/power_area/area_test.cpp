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
  EXPECT_NEAR(
      a.used_mm2(),
      a.cores_mm2 + a.shared_sram_mm2 + a.noc_mm2 + a.phy_mm2 + a.vertical_mm2 + a.other_mm2, 1e-9);
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

// DeepStack's DRAM-layer device (presets/hardware/deepstack-paper.json): a 100 mm^2 logic die
// whose cores are what the area left after a TSV field per layer holds.
hw::Hardware tsv_die(int layers) {
  hw::Hardware h;
  h.compute.cores = 128;
  h.compute.area_per_core_mm2 = 3.8;
  h.compute.shared_buffer_MiB = 32;
  h.compute.die_area_mm2 = 100;
  h.area.io_phy_mm2 = 40;
  h.area.other_mm2 = 12;
  h.area.fit_cores = true;
  auto& m = h.memory;
  m.kind = hw::MemoryKind::stacked_3d;
  m.stacks = 1;
  m.layers_total = layers;
  m.layers_connected = layers;
  m.channels_per_layer = 8;
  m.bytes_per_transfer = 8;
  m.transfers_per_clock = 2;
  m.clock_MHz = 1600;
  m.vertical = {hw::VerticalLinkKind::tsv, 40.0, 0.5, 3.2, 0.5, 100, 400};
  h.noc = {1, 1, 9370, 2};
  return h;
}

TEST(Area, SupplyLinksGrowWithEveryLayerDataLinksWithConnectedOnes) {
  auto h = tsv_die(8);
  h.memory.layers_connected = 4;
  const auto half = area(h);
  // Data: 4 layers x 8 channels x 204.8 Gb/s / 3.2 Gb/s = 2048 links, / 0.5 signal share = 4096;
  // supply: 400 per layer x 8 layers, connected or not.
  EXPECT_NEAR(half.supply_links, 3200, 1e-9);
  EXPECT_NEAR(half.vertical_links, 4096 + 3200, 1e-9);
  // TSVs at 40 um pitch: the 1600 um^2 cell exceeds the 100 um^2 keep-out.
  EXPECT_NEAR(half.vertical_mm2, 7296 * 1600e-6, 1e-9);
  h.memory.layers_connected = 8;
  const auto all = area(h);
  EXPECT_NEAR(all.supply_links, 3200, 1e-9);
  EXPECT_NEAR(all.vertical_links, 8192 + 3200, 1e-9);
}

TEST(Area, FittedCoresShrinkAsLayersAreStacked) {
  // Per connected layer 512 / 0.5 + 400 = 1424 TSVs x 1600 um^2 = 2.2784 mm^2; the die leaves
  // 100 - 32 x 0.35 - 40 - 12 = 36.8 mm^2 for cores and the field: floor((36.8 - 2.2784 L) / 3.8).
  const int expected[] = {9, 8, 7, 7, 6, 6, 5, 4, 4, 3, 3, 2, 1, 1};
  for (int layers = 1; layers <= 14; ++layers) {
    const auto a = area(tsv_die(layers));
    EXPECT_EQ(a.cores, expected[layers - 1]) << layers << " layers";
    EXPECT_EQ(cores_on_die(tsv_die(layers)), a.cores);
    EXPECT_NEAR(a.cores_mm2, 3.8 * a.cores, 1e-12);
    EXPECT_NEAR(a.vertical_mm2, 2.2784 * layers, 1e-9);
    EXPECT_TRUE(a.fits_die()) << layers << " layers";
  }
  // 15 layers leave 36.8 - 34.176 = 2.62 mm^2: not one core; reported as one that does not fit.
  const auto over = area(tsv_die(15));
  EXPECT_EQ(over.cores, 1);
  EXPECT_FALSE(over.fits_die());
}

TEST(Area, FittedCoresAreCappedByComputeCores) {
  auto h = tsv_die(2);
  h.compute.cores = 5;
  EXPECT_EQ(area(h).cores, 5);
  h.area.fit_cores = false;
  h.compute.cores = 20;  // as given, even past the die: 20 x 3.8 = 76 mm^2 > 36.8 - 4.56
  const auto a = area(h);
  EXPECT_EQ(a.cores, 20);
  EXPECT_FALSE(a.fits_die());
}

}  // namespace
}  // namespace stackscope::power_area
