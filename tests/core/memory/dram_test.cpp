// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include "stackscope/memory/dram.hpp"

namespace stackscope::memory {
namespace {

// HBM2 8Gb x128 stack from DRAMsim3 (configs/HBM2_8Gb_x128.ini): 8 channels x 128 bit,
// 2 Gb/s per pin (tCK 1 ns, DDR) -> 32 GB/s per channel, 256 GB/s per stack.
hw::Memory hbm2_stack() {
  hw::Memory m;
  m.kind = hw::MemoryKind::hbm;
  m.stacks = 1;
  m.layers_total = 4;
  m.layers_connected = 4;
  m.channels_per_layer = 2;
  m.banks_per_channel = 16;
  m.bytes_per_transfer = 16;
  m.transfers_per_clock = 2;
  m.clock_MHz = 1000;
  m.row_bytes = 1024;   // 64 columns x 128 bit
  m.sector_bytes = 64;  // BL4 x 128 bit
  m.cycles_per_sector = 2;
  m.timing = {14, 14, 34, 30, 4, 3900, 260, 6, 2};
  m.utilisation_cap = 1.0;
  return m;
}

hw::ComputeDie big_die() {
  hw::ComputeDie d;  // defaults: 132 cores, 228 KiB each -> buffering is not the limit
  return d;
}

TEST(Dram, PeakMatchesPublishedHbm2Stack) {
  const auto bw = effective_bandwidth(hbm2_stack(), big_die(), {});
  EXPECT_NEAR(bw.peak_Bps, 256e9, 1e6);  // dram-timings.md: 256 GB/s per stack
}

TEST(Dram, StreamIsRowCycleBoundWithRefreshOnly) {
  const auto bw = effective_bandwidth(hbm2_stack(), big_die(), {});
  // Bank interleave hides recharge; refresh costs tRFC/tREFI = 260/3900.
  EXPECT_DOUBLE_EQ(bw.eta, 1.0);
  EXPECT_NEAR(bw.refresh_overhead, 260.0 / 3900.0, 1e-12);
  EXPECT_NEAR(bw.effective_Bps, 256e9 * (1.0 - 260.0 / 3900.0), 1e6);
}

TEST(Dram, RandomSectorsAreActivationBound) {
  AccessPattern p;
  p.kind = PatternKind::random;
  const auto bw = effective_bandwidth(hbm2_stack(), big_die(), p);
  // 8 channels x min(4/30ns, 1/4ns) x 64 B = 68.3 GB/s.
  EXPECT_EQ(bw.bound, DramBound::activation);
  EXPECT_NEAR(bw.activation_Bps, 8 * (4.0 / 30e-9) * 64, 1e3);
}

TEST(Dram, RowConflictPaysFullRecharge) {
  AccessPattern p;
  p.kind = PatternKind::row_conflict;
  const auto bw = effective_bandwidth(hbm2_stack(), big_die(), p);
  // One 64 B sector = 2 ns per row cycle max(tRAS 34, tRCD 14 + 2) + tRP 14 = 48 ns (JEDEC tRC).
  EXPECT_NEAR(bw.eta, 2.0 / 48.0, 1e-12);
}

TEST(Dram, LargerChunksNeverSlower) {
  double prev = 0;
  for (double chunk : {64.0, 128.0, 256.0, 512.0, 1024.0, 4096.0}) {
    AccessPattern p;
    p.kind = PatternKind::chunk;
    p.chunk_bytes = chunk;
    const double bw = effective_bandwidth(hbm2_stack(), big_die(), p).effective_Bps;
    // Longer chunks keep fewer runs in the controller queue, so two of them share a bank a
    // little more often (4.5 runs of 1 KiB over 16 banks: ~1e-4 of the row cycle).
    EXPECT_GE(bw, prev * (1 - 1e-4)) << chunk;
    prev = bw;
  }
}

TEST(Dram, ConnectivityRuleFor3dStacksOfOneBankLayers) {
  // DeepStack's organisation: a channel's slice of one layer is one lock-stepped bank.
  hw::Memory m = hbm2_stack();
  m.kind = hw::MemoryKind::stacked_3d;
  m.layers_total = 8;
  m.row_bytes = 1024;
  m.banks_per_channel = 1;
  // Half connected or fewer: recharge hidden (DeepStack rule).
  m.layers_connected = 4;
  EXPECT_DOUBLE_EQ(effective_bandwidth(m, big_die(), {}).eta, 1.0);
  // Fully connected: eta = eta_row = row_read / (row_read + tRP + tRCD); row_read = 16 x 2 ns.
  m.layers_connected = 8;
  const double eta_row = 32.0 / (32.0 + 28.0);
  EXPECT_NEAR(effective_bandwidth(m, big_die(), {}).eta, eta_row, 1e-12);
  // In between: 6 connections front 8 layers, so 2 front two layers (hidden) and 4 front one.
  m.layers_connected = 6;
  EXPECT_NEAR(effective_bandwidth(m, big_die(), {}).eta, (2.0 + 4.0 * eta_row) / 6.0, 1e-12);
}

TEST(Dram, BanksOfEachLayerHideRechargeAtFullConnection) {
  // With banks_per_channel banks per layer (HBM2: 16) one layer alone interleaves its banks,
  // so connecting every layer costs no row-cycle efficiency.
  hw::Memory m = hbm2_stack();
  m.kind = hw::MemoryKind::stacked_3d;
  m.layers_total = 8;
  m.layers_connected = 8;
  EXPECT_DOUBLE_EQ(effective_bandwidth(m, big_die(), {}).eta, 1.0);
  // Two banks: 2 x 32 ns of data per bank cycle max(tRAS 34, tRCD 14 + 32) + tRP 14 = 60 ns.
  m.banks_per_channel = 2;
  EXPECT_DOUBLE_EQ(effective_bandwidth(m, big_die(), {}).eta, 1.0);
  AccessPattern half_row;
  half_row.kind = PatternKind::chunk;
  half_row.chunk_bytes = 256;  // 4 sectors = 8 ns per bank cycle max(34, 22) + 14 = 48 ns
  // Chunks land in random banks: with 16.5 runs in flight, all in one of the two banks has a
  // chance of ~2^-15.5 and then one bank serves alone (8 / 48): 4e-6 below two banks' 16 / 48.
  EXPECT_NEAR(effective_bandwidth(m, big_die(), half_row).eta, 2 * 8.0 / 48.0, 1e-5);
  EXPECT_LT(effective_bandwidth(m, big_die(), half_row).eta, 2 * 8.0 / 48.0);
}

TEST(Dram, StackedLayersActivateIndependently) {
  // Each layer is its own die with its own tFAW window (DRAMsim3 checks tFAW per rank): a
  // link fronting two layers activates twice as often as a link fronting one.
  AccessPattern p;
  p.kind = PatternKind::random;
  hw::Memory m = hbm2_stack();
  m.kind = hw::MemoryKind::stacked_3d;
  m.layers_total = 8;
  m.layers_connected = 4;
  const auto two = effective_bandwidth(m, big_die(), p);
  // 8 links x 2 layers x 4 / 30 ns x 64 B.
  EXPECT_NEAR(two.activation_Bps, 8 * 2 * (4.0 / 30e-9) * 64, 1e3);
  m.layers_connected = 8;
  const auto one = effective_bandwidth(m, big_die(), p);
  EXPECT_NEAR(one.activation_Bps, 16 * (4.0 / 30e-9) * 64, 1e3);  // 16 links, one layer each
}

TEST(Dram, BankGroupsSlowARowAloneInItsGroup) {
  // tCCD_L 4 clocks vs a 2-clock burst: random 1 KiB rows (one bank group each) over 4 groups
  // with 64 queued sectors = 2.5 rows in flight: E[min(1, D / 2)] over the distinct groups D
  // of 2 rows (7/8) and 3 rows (1 - 1/16 x 1/2 = 31/32), interpolated half way.
  hw::Memory m = hbm2_stack();
  m.sector_bytes = 32;
  m.cycles_per_sector = 2;
  m.bytes_per_transfer = 8;
  m.timing.tCCD_ns = 4;
  AccessPattern rows;
  rows.kind = PatternKind::chunk;
  rows.chunk_bytes = 1024;
  const auto bw = effective_bandwidth(m, big_die(), rows);
  EXPECT_NEAR(bw.column_rate, 0.5 * (7.0 / 8.0 + 31.0 / 32.0), 1e-12);
  // A sequential stream walks consecutive groups: 3 rows in flight, two suffice.
  EXPECT_DOUBLE_EQ(effective_bandwidth(m, big_die(), {}).column_rate, 1.0);
}

TEST(Dram, RefreshDoublesAbove85C) {
  const auto cool = effective_bandwidth(hbm2_stack(), big_die(), {}, 60.0);
  const auto hot = effective_bandwidth(hbm2_stack(), big_die(), {}, 90.0);
  EXPECT_NEAR(hot.refresh_overhead, 2.0 * cool.refresh_overhead, 1e-12);
  EXPECT_LT(hot.effective_Bps, cool.effective_Bps);
}

TEST(Dram, SmallBuffersLimitBandwidthByLittlesLaw) {
  hw::ComputeDie tiny;
  tiny.cores = 4;
  tiny.sram_per_core_KiB = 16;
  hw::Memory m = hbm2_stack();
  m.round_trip_latency_ns = 500;
  const auto bw = effective_bandwidth(m, tiny, {});
  // In flight: 4 x 8 KiB = 32 KiB over 500 ns = 65.5 GB/s < 256 GB/s.
  EXPECT_EQ(bw.bound, DramBound::buffering);
  EXPECT_NEAR(bw.buffering_Bps, 4 * 8 * 1024 / 500e-9, 1.0);
}

TEST(Dram, ReadWriteMixCostsTurnarounds) {
  AccessPattern reads, mixed;
  mixed.kind = PatternKind::mix;
  mixed.read_fraction = 0.5;
  EXPECT_LT(effective_bandwidth(hbm2_stack(), big_die(), mixed).effective_Bps,
            effective_bandwidth(hbm2_stack(), big_die(), reads).effective_Bps);
}

TEST(Dram, ParsePattern) {
  std::string err;
  EXPECT_EQ(parse_pattern("stream", &err)->kind, PatternKind::stream);
  EXPECT_EQ(parse_pattern("row-conflict", &err)->kind, PatternKind::row_conflict);
  EXPECT_DOUBLE_EQ(parse_pattern("chunk:4096", &err)->chunk_bytes, 4096);
  EXPECT_DOUBLE_EQ(parse_pattern("mix:0.7", &err)->read_fraction, 0.7);
  EXPECT_FALSE(parse_pattern("mix:1.5", &err));
  EXPECT_NE(err.find("[0, 1]"), std::string::npos);
  EXPECT_FALSE(parse_pattern("chunk:abc", &err));
  EXPECT_FALSE(parse_pattern("sequential", &err));
  EXPECT_NE(err.find("allowed"), std::string::npos);
}

}  // namespace
}  // namespace stackscope::memory
