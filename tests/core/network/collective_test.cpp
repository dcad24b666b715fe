// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include "stackscope/network/collective.hpp"

namespace stackscope::network {
namespace {

hw::System nvswitch(int devices) {
  hw::System s;
  s.devices = devices;
  hw::NetworkLevel l;
  l.name = "nvswitch";
  l.size = 8;
  l.link_GBps = 450;
  l.latency_us = 2.0;
  l.efficiency = 0.82;
  s.levels.push_back(l);
  return s;
}

hw::System two_level(int devices) {
  hw::System s = nvswitch(devices);
  hw::NetworkLevel ib;
  ib.name = "ib";
  ib.size = 0;
  ib.link_GBps = 50;
  ib.latency_us = 5.0;
  ib.efficiency = 0.94;
  s.levels.push_back(ib);
  return s;
}

TEST(Collective, RingAllReduceAlphaBeta) {
  const double S = 1e9;
  const auto c = collective(nvswitch(8), Collective::all_reduce, S, 8, 1);
  const double expect = 14 * 2e-6 + 2.0 * 7 / 8 * S / (450e9 * 0.82);
  EXPECT_NEAR(c.time_s, expect, 1e-12);
  EXPECT_EQ(c.outermost_level, 0);
}

TEST(Collective, RingBusBandwidthMatchesNcclTests) {
  // nccl-tests busBW = algBW x 2(n-1)/n; reference/collectives.json: ~370 GB/s ring on
  // 8 x H100 NVSwitch for large messages.
  const double S = 4e9;
  const auto c = collective(nvswitch(8), Collective::all_reduce, S, 8, 1);
  const double bus = S / c.time_s * 2.0 * 7 / 8;
  EXPECT_NEAR(bus / 370e9, 1.0, 0.03);
}

TEST(Collective, SingleRankCostsNothing) {
  const auto c = collective(nvswitch(8), Collective::all_reduce, 1e6, 1, 1);
  EXPECT_EQ(c.time_s, 0.0);
  EXPECT_EQ(c.bytes_per_device, 0.0);
}

TEST(Collective, GroupsCrossingNodesUseTheOuterLevel) {
  const auto sys = two_level(16);
  const auto inside = collective(sys, Collective::all_reduce, 1e8, 8, 1);
  const auto across = collective(sys, Collective::all_reduce, 1e8, 16, 1);
  EXPECT_EQ(inside.outermost_level, 0);
  EXPECT_EQ(across.outermost_level, 1);
  EXPECT_GT(across.time_s, inside.time_s);
  // A 2-rank group with stride 8 sits on two nodes: only InfiniBand.
  const auto p2p = collective(sys, Collective::point_to_point, 1e8, 2, 8);
  EXPECT_EQ(p2p.outermost_level, 1);
  EXPECT_NEAR(p2p.time_s, 5e-6 + 1e8 / (50e9 * 0.94), 1e-12);
}

TEST(Collective, AllGatherSendsItsShare) {
  const auto c = collective(nvswitch(8), Collective::all_gather, 8e6, 8, 1);
  EXPECT_NEAR(c.bytes_per_device, 7e6, 1e-6);  // (n-1)/n of the gathered buffer
}

TEST(Collective, AllToAllOnRingIsBisectionLimited) {
  hw::System ring = nvswitch(32);
  ring.levels[0].topology = hw::Topology::ring;
  ring.levels[0].size = 32;
  hw::System sw = nvswitch(32);
  sw.levels[0].size = 32;
  const auto a = collective(ring, Collective::all_to_all, 1e8, 32, 1);
  const auto b = collective(sw, Collective::all_to_all, 1e8, 32, 1);
  EXPECT_NEAR((a.time_s - 2e-6) / (b.time_s - 2e-6), 2.0, 1e-9);  // share 16/32
}

TEST(Collective, MoreBandwidthNeverSlower) {
  for (auto op : {Collective::all_reduce, Collective::all_gather, Collective::all_to_all}) {
    auto fast = two_level(32);
    fast.levels[1].link_GBps *= 2;
    EXPECT_LE(collective(fast, op, 1e7, 32, 1).time_s,
              collective(two_level(32), op, 1e7, 32, 1).time_s);
  }
}

}  // namespace
}  // namespace stackscope::network
