// SPDX-License-Identifier: GPL-3.0-or-later
// Unit tests of the bank-level DRAM scheduler (core/memory/src/bank_sim.cpp).
#include <gtest/gtest.h>

#include "stackscope/memory/bank_sim.hpp"

namespace stackscope::memory {
namespace {

// One HBM2 8 Gb x128 channel (DRAMsim3 configs/HBM2_8Gb_x128.ini): 32 GB/s, tCK 1 ns,
// 64 B sectors in 2 cycles, 1 KiB rows.
hw::Memory one_channel(int banks) {
  hw::Memory m;
  m.kind = hw::MemoryKind::hbm;
  m.stacks = 1;
  m.layers_total = 1;
  m.layers_connected = 1;
  m.channels_per_layer = 1;
  m.banks_per_channel = banks;
  m.bytes_per_transfer = 16;
  m.transfers_per_clock = 2;
  m.clock_MHz = 1000;
  m.row_bytes = 1024;
  m.sector_bytes = 64;
  m.cycles_per_sector = 2;
  m.timing = {14, 14, 34, 30, 4, 3900, 260, 6, 2};
  return m;
}

constexpr double kPeak = 32e9;  // B/s per channel
constexpr double kRefresh = 260.0 / 3900.0;

AccessPattern pattern(const char* text) {
  return *parse_pattern(text, nullptr);
}

TEST(BankSim, StreamOnTwoBanksReachesBusPeakMinusRefresh) {
  const BankSimResult r = simulate_bank_level(one_channel(2), pattern("stream"));
  // Two banks alternate: one streams its row (32 ns) while the other precharges and activates
  // (tRP + tRCD = 28 ns), so only refresh (and draining the banks before it) is lost.
  EXPECT_NEAR(r.per_channel_Bps, kPeak * (1 - kRefresh), 0.03 * kPeak);
  EXPECT_LE(r.per_channel_Bps, kPeak * (1 - kRefresh) * 1.001);
  EXPECT_NEAR(r.refresh_share, kRefresh, 0.015);
  EXPECT_NEAR(r.row_hit_rate, 15.0 / 16.0, 0.01);  // one ACT per 16-sector row
  EXPECT_EQ(r.writes, 0u);
}

TEST(BankSim, StreamOnOneBankPaysTheRowCycle) {
  const BankSimResult r = simulate_bank_level(one_channel(1), pattern("stream"));
  // Nothing hides the recharge: ACT, tRCD, 16 sectors x 2 cycles, PRE (tRAS already met), tRP.
  const double period_ns = 14 + 32 + 14;
  EXPECT_NEAR(r.per_channel_Bps, 1024 / (period_ns * 1e-9) * (1 - r.refresh_share), 0.03 * kPeak);
}

TEST(BankSim, FawCapsRandomActivationRate) {
  hw::Memory m = one_channel(16);
  m.timing.tRRD_ns = 1;  // leave tFAW as the only activation limit
  BankSimConfig cfg;
  const BankSimResult r = simulate_bank_level(m, pattern("random"), cfg);
  const double acts_per_ns = static_cast<double>(r.activations) / (cfg.window_us * 1e3);
  EXPECT_LE(acts_per_ns, 4.0 / 30.0 * 1.001);  // never more than 4 per tFAW
  EXPECT_NEAR(acts_per_ns, 4.0 / 30.0 * (1 - r.refresh_share), 0.05 * 4.0 / 30.0);
  EXPECT_LT(r.row_hit_rate, 0.01);
  EXPECT_NEAR(r.per_channel_Bps, acts_per_ns * 1e9 * 64, 0.01 * r.per_channel_Bps);
}

TEST(BankSim, RrdCapsActivationRateWhenTighterThanFaw) {
  hw::Memory m = one_channel(16);
  m.timing.tRRD_ns = 10;  // 1 / tRRD = 0.1 per ns < 4 / tFAW
  BankSimConfig cfg;
  const BankSimResult r = simulate_bank_level(m, pattern("random"), cfg);
  const double acts_per_ns = static_cast<double>(r.activations) / (cfg.window_us * 1e3);
  EXPECT_LE(acts_per_ns, 0.1 * 1.001);
  EXPECT_NEAR(acts_per_ns, 0.1 * (1 - r.refresh_share), 0.005);
}

TEST(BankSim, RowConflictGivesOneSectorPerRowCycle) {
  // One bank, a new row every access: ACT -> RD after tRCD, PRE no earlier than tRAS after the
  // ACT, ACT again tRP later: one sector per tRC = tRAS + tRP = 48 ns (JEDEC).
  const BankSimResult r = simulate_bank_level(one_channel(16), pattern("row-conflict"));
  EXPECT_NEAR(r.per_channel_Bps, 64 / 48e-9 * (1 - r.refresh_share), 0.02 * 64 / 48e-9);
  EXPECT_EQ(r.row_hit_rate, 0.0);
  // With a short tRAS the cycle is tRCD + read-to-precharge (one burst) + tRP = 30 ns.
  hw::Memory m = one_channel(16);
  m.timing.tRAS_ns = 10;
  const BankSimResult s = simulate_bank_level(m, pattern("row-conflict"));
  EXPECT_NEAR(s.per_channel_Bps, 64 / 30e-9 * (1 - s.refresh_share), 0.02 * 64 / 30e-9);
}

TEST(BankSim, RefreshDoublesAbove85C) {
  BankSimConfig hot;
  hot.temperature_C = 90;
  const BankSimResult cool = simulate_bank_level(one_channel(16), pattern("stream"));
  const BankSimResult warm = simulate_bank_level(one_channel(16), pattern("stream"), hot);
  EXPECT_NEAR(warm.refresh_share, 2 * kRefresh, 0.03);
  EXPECT_LT(warm.per_channel_Bps, cool.per_channel_Bps * (1 - 0.5 * kRefresh));
}

TEST(BankSim, MixWritesTheirShareAndPaysTurnarounds) {
  const BankSimResult mix = simulate_bank_level(one_channel(16), pattern("mix:0.7"));
  const BankSimResult rd = simulate_bank_level(one_channel(16), pattern("stream"));
  const double wfrac =
      static_cast<double>(mix.writes) / static_cast<double>(mix.reads + mix.writes);
  EXPECT_NEAR(wfrac, 0.3, 0.05);
  EXPECT_LT(mix.per_channel_Bps, rd.per_channel_Bps);
}

TEST(BankSim, StackedChannelFrontsLayersBanksAndScalesByChannels) {
  hw::Memory m = one_channel(16);
  m.kind = hw::MemoryKind::stacked_3d;
  m.layers_total = 12;
  m.layers_connected = 4;
  m.channels_per_layer = 2;
  const BankSimResult r = simulate_bank_level(m, pattern("stream"));
  EXPECT_EQ(r.banks_per_channel, 3 * 16);  // 12 layers / 4 links, 16 banks per layer each
  EXPECT_DOUBLE_EQ(r.effective_Bps, r.per_channel_Bps * 8);
  // Fully connected: one layer's 16 banks still interleave, so a stream keeps the bus busy.
  m.layers_connected = 12;
  m.channels_per_layer = 1;
  const BankSimResult full = simulate_bank_level(m, pattern("stream"));
  EXPECT_EQ(full.banks_per_channel, 16);
  EXPECT_NEAR(full.per_channel_Bps, r.per_channel_Bps, 0.02 * r.per_channel_Bps);
  m.kind = hw::MemoryKind::hbm;
  EXPECT_EQ(simulate_bank_level(m, pattern("stream")).banks_per_channel, 16);
}

TEST(BankSim, OneBankLayersPayTheRowCycleWhenFullyConnected) {
  // DeepStack's organisation (a layer's channel slice is one lock-stepped bank): a link that
  // fronts one layer cannot hide the recharge, one that fronts three can.
  hw::Memory m = one_channel(1);
  m.kind = hw::MemoryKind::stacked_3d;
  m.layers_total = 12;
  m.layers_connected = 4;
  const BankSimResult shared = simulate_bank_level(m, pattern("stream"));
  EXPECT_EQ(shared.banks_per_channel, 3);
  EXPECT_NEAR(shared.per_channel_Bps, kPeak * (1 - kRefresh), 0.03 * kPeak);
  m.layers_connected = 12;
  const BankSimResult alone = simulate_bank_level(m, pattern("stream"));
  EXPECT_EQ(alone.banks_per_channel, 1);
  EXPECT_NEAR(alone.per_channel_Bps, 1024 / 60e-9 * (1 - alone.refresh_share), 0.03 * kPeak);
}

TEST(BankSim, EachLayerHasItsOwnActivationWindow) {
  // tRRD and tFAW hold per die (DRAMsim3: per rank): random sectors on a link fronting two
  // layers activate at 2 x 4 / tFAW, on a link fronting one at 4 / tFAW.
  hw::Memory m = one_channel(16);
  m.timing.tRRD_ns = 1;
  m.kind = hw::MemoryKind::stacked_3d;
  m.layers_total = 2;
  m.layers_connected = 1;
  BankSimConfig cfg;
  const BankSimResult two = simulate_bank_level(m, pattern("random"), cfg);
  const double two_rate = static_cast<double>(two.activations) / (cfg.window_us * 1e3);
  EXPECT_LE(two_rate, 2 * 4.0 / 30.0 * 1.001);
  EXPECT_NEAR(two_rate, 2 * 4.0 / 30.0 * (1 - two.refresh_share), 0.05 * 8.0 / 30.0);
  m.layers_connected = 2;
  const BankSimResult one = simulate_bank_level(m, pattern("random"), cfg);
  const double one_rate = static_cast<double>(one.activations) / (cfg.window_us * 1e3);
  EXPECT_NEAR(one_rate, 4.0 / 30.0 * (1 - one.refresh_share), 0.05 * 4.0 / 30.0);
}

TEST(BankSim, SameGroupColumnsWaitForTccdL) {
  // Row-conflict-free single-row run in one bank group: one sector per tCCD_L, not per burst.
  hw::Memory m = one_channel(1);  // one bank: every column command is in its group
  m.timing.tCCD_ns = 8;           // 8 clocks vs a 2-clock burst
  m.timing.tRCD_ns = 1;
  m.timing.tRP_ns = 1;
  m.timing.tRAS_ns = 1;
  const BankSimResult r = simulate_bank_level(m, pattern("stream"));
  // 16 sectors x 8 ns + PRE/ACT/tRCD (~3 ns) per 1 KiB row.
  EXPECT_NEAR(r.per_channel_Bps, 1024 / ((16 * 8 + 3) * 1e-9) * (1 - r.refresh_share),
              0.03 * 1024 / (16 * 8e-9));
}

TEST(BankSim, DeterministicForAConfig) {
  const hw::Memory m = one_channel(16);
  for (const char* p : {"random", "chunk:256", "mix:0.5"}) {
    const BankSimResult a = simulate_bank_level(m, pattern(p));
    const BankSimResult b = simulate_bank_level(m, pattern(p));
    EXPECT_EQ(a.reads, b.reads) << p;
    EXPECT_EQ(a.writes, b.writes) << p;
    EXPECT_EQ(a.activations, b.activations) << p;
    EXPECT_DOUBLE_EQ(a.effective_Bps, b.effective_Bps) << p;
  }
}

TEST(BankSim, AnalyticDramLimitIsRowOrActivationTimesRefresh) {
  DramBandwidth bw;
  bw.row_limited_Bps = 100;
  bw.activation_Bps = 80;
  bw.buffering_Bps = 10;  // excluded: not DRAM behaviour
  bw.sram_Bps = 10;
  bw.refresh_overhead = 0.1;
  EXPECT_DOUBLE_EQ(analytic_dram_limit_Bps(bw), 72);
}

TEST(BankSim, SramOnlyHasNoDram) {
  hw::Memory m = one_channel(16);
  m.kind = hw::MemoryKind::sram_only;
  EXPECT_EQ(simulate_bank_level(m, pattern("stream")).effective_Bps, 0);
}

}  // namespace
}  // namespace stackscope::memory
