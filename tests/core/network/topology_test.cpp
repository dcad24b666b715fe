// SPDX-License-Identifier: GPL-3.0-or-later
// Topology: links built from hw::System and deterministic routes (docs/model.md §5.1).
// Every route is checked to be a connected path from a to b through existing devices; hop
// counts are compared with closed forms (ring, Manhattan and torus distances, 2 per switch).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "stackscope/network/topology.hpp"

namespace stackscope::network {
namespace {

hw::NetworkLevel level(hw::Topology t, int size, int dx = 0, int dy = 0) {
  hw::NetworkLevel l;
  l.topology = t;
  l.size = size;
  l.dims_x = dx;
  l.dims_y = dy;
  l.link_GBps = 100;
  l.efficiency = 0.8;
  l.hop_latency_ns = 50;
  l.energy_pJ_per_bit = 2;
  return l;
}

hw::System system(int devices, std::vector<hw::NetworkLevel> levels) {
  hw::System s;
  s.id = "test";
  s.devices = devices;
  s.levels = std::move(levels);
  return s;
}

// The route as links; checks it is a path a -> b that only passes existing devices.
std::vector<int> checked_route(const Topology& t, int a, int b) {
  std::vector<int> r;
  t.route(a, b, r);
  if (a == b) {
    EXPECT_TRUE(r.empty());
    return r;
  }
  EXPECT_FALSE(r.empty()) << a << " -> " << b;
  int at = a;
  for (int id : r) {
    EXPECT_GE(id, 0);
    EXPECT_LT(id, static_cast<int>(t.links().size()));
    const Link& l = t.links()[static_cast<std::size_t>(id)];
    EXPECT_EQ(l.src, at) << a << " -> " << b;
    at = l.dst;
    EXPECT_LT(at, t.nodes());
  }
  EXPECT_EQ(at, b) << a << " -> " << b;
  return r;
}

int hops(const Topology& t, int a, int b) {
  return static_cast<int>(checked_route(t, a, b).size());
}

int ring_distance(int a, int b, int n) {
  const int d = std::abs(a - b);
  return std::min(d, n - d);
}

TEST(Topology, RingHopsAreShortestWayRound) {
  for (int n : {2, 3, 7, 8}) {
    const Topology t(system(n, {level(hw::Topology::ring, n)}));
    EXPECT_EQ(t.nodes(), n);
    EXPECT_EQ(static_cast<int>(t.links().size()), n == 2 ? 2 : 2 * n);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) EXPECT_EQ(hops(t, a, b), ring_distance(a, b, n)) << n;
  }
}

TEST(Topology, RingTieGoesThePositiveWay) {
  const Topology t(system(8, {level(hw::Topology::ring, 8)}));
  const auto r = checked_route(t, 6, 2);  // 4 either way
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(t.links()[static_cast<std::size_t>(r[0])].dst, 7);
}

TEST(Topology, MeshIsSquarestAndRoutesXThenY) {
  const Topology t(system(12, {level(hw::Topology::mesh2d, 12)}));  // 4 x 3
  // Links: 3 rows x 3 x-links + 4 columns x 2 y-links, both directions.
  EXPECT_EQ(t.links().size(), 2u * (3 * 3 + 4 * 2));
  for (int a = 0; a < 12; ++a) {
    for (int b = 0; b < 12; ++b) {
      const auto r = checked_route(t, a, b);
      const int manhattan = std::abs(a % 4 - b % 4) + std::abs(a / 4 - b / 4);
      EXPECT_EQ(static_cast<int>(r.size()), manhattan);
      // X first: every x move (same row) precedes every y move.
      bool seen_y = false;
      for (int id : r) {
        const auto& l = t.links()[static_cast<std::size_t>(id)];
        const bool y_move = l.src / 4 != l.dst / 4;
        if (y_move)
          seen_y = true;
        else
          EXPECT_FALSE(seen_y) << a << " -> " << b;
      }
    }
  }
}

TEST(Topology, TorusHopsAreTorusDistance) {
  for (auto [dx, dy] : {std::pair{4, 4}, std::pair{5, 3}, std::pair{2, 6}, std::pair{16, 16}}) {
    const int n = dx * dy;
    const Topology t(system(n, {level(hw::Topology::torus2d, n, dx, dy)}));
    for (int a = 0; a < n; a += (n > 64 ? 7 : 1)) {
      for (int b = 0; b < n; ++b) {
        const int d = ring_distance(a % dx, b % dx, dx) + ring_distance(a / dx, b / dx, dy);
        EXPECT_EQ(hops(t, a, b), d) << dx << "x" << dy << " " << a << " -> " << b;
      }
    }
  }
}

TEST(Topology, SwitchIsTwoHopsThroughOneSwitch) {
  const Topology t(system(8, {level(hw::Topology::switch_fabric, 8)}));
  EXPECT_EQ(t.nodes(), 9);
  EXPECT_EQ(t.links().size(), 16u);
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      const auto r = checked_route(t, a, b);
      if (a == b) continue;
      ASSERT_EQ(r.size(), 2u);
      EXPECT_EQ(t.links()[static_cast<std::size_t>(r[0])].dst, 8);
    }
  }
  EXPECT_EQ(t.node_name(3), "d3");
  EXPECT_EQ(t.node_name(8), "L0-switch0");
}

TEST(Topology, FullyConnectedIsOneHop) {
  const Topology t(system(6, {level(hw::Topology::fully_connected, 6)}));
  EXPECT_EQ(t.links().size(), 30u);
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b) EXPECT_EQ(hops(t, a, b), a == b ? 0 : 1);
}

TEST(Topology, LinkPropertiesComeFromTheLevel) {
  auto l = level(hw::Topology::ring, 4);
  const Topology t(system(4, {l}));
  for (const auto& k : t.links()) {
    EXPECT_DOUBLE_EQ(k.bw_Bps, 100e9 * 0.8);
    EXPECT_DOUBLE_EQ(k.latency_s, 50e-9);
    EXPECT_DOUBLE_EQ(k.energy_J_per_byte, 2 * 8e-12);
    EXPECT_EQ(k.level, 0);
  }
  // A switch crossing (two links) costs the level's pJ/bit once.
  const Topology s(system(4, {level(hw::Topology::switch_fabric, 4)}));
  for (const auto& k : s.links()) EXPECT_DOUBLE_EQ(k.energy_J_per_byte, 8e-12);
}

// Two switch levels, 8 per node, as many nodes as needed: rail-optimised outer fabric.
TEST(Topology, RailStyleTwoLevelSwitches) {
  const Topology t(
      system(16, {level(hw::Topology::switch_fabric, 8), level(hw::Topology::switch_fabric, 0)}));
  EXPECT_EQ(t.unit_size(-1), 1);
  EXPECT_EQ(t.unit_size(0), 8);
  EXPECT_EQ(t.unit_size(1), 16);
  EXPECT_EQ(t.nodes(), 16 + 2 + 8);  // one switch per node, one per rail
  EXPECT_EQ(t.level_between(3, 3), -1);
  EXPECT_EQ(t.level_between(3, 5), 0);
  EXPECT_EQ(t.level_between(3, 11), 1);
  // Same local index: straight across the rail switch.
  auto r = checked_route(t, 3, 11);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(t.links()[static_cast<std::size_t>(r[0])].level, 1);
  EXPECT_EQ(t.node_name(t.links()[static_cast<std::size_t>(r[0])].dst), "L1-switch3");
  // Different local index: rail of the source first, then inside the destination node.
  r = checked_route(t, 7, 9);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(t.links()[static_cast<std::size_t>(r[0])].level, 1);
  EXPECT_EQ(t.links()[static_cast<std::size_t>(r[1])].dst, 15);
  EXPECT_EQ(t.links()[static_cast<std::size_t>(r[2])].level, 0);
  for (int a = 0; a < 16; ++a)
    for (int b = 0; b < 16; ++b) {
      const int expected = a == b ? 0 : (a / 8 == b / 8 ? 2 : (a % 8 == b % 8 ? 2 : 4));
      EXPECT_EQ(hops(t, a, b), expected) << a << " -> " << b;
    }
}

// Three levels: 2x2 mesh in a package, 4x4 torus of packages, a switch over 2 pods.
TEST(Topology, ThreeLevelsHopCountsAddUpPerLevel) {
  const Topology t(system(128, {level(hw::Topology::mesh2d, 4), level(hw::Topology::torus2d, 16),
                                level(hw::Topology::switch_fabric, 2)}));
  EXPECT_EQ(t.unit_size(0), 4);
  EXPECT_EQ(t.unit_size(1), 64);
  EXPECT_EQ(t.unit_size(2), 128);
  auto mesh = [](int a, int b) { return std::abs(a % 2 - b % 2) + std::abs(a / 2 - b / 2); };
  auto torus = [](int a, int b) {
    return ring_distance(a % 4, b % 4, 4) + ring_distance(a / 4, b / 4, 4);
  };
  for (int a = 0; a < 128; a += 3) {
    for (int b = 0; b < 128; ++b) {
      // Rail-style: cross outer levels on a's local index, then fix up inner coordinates.
      int expected = 0;
      if (a / 64 != b / 64) expected += 2;
      const int pa = (a / 4) % 16, pb = (b / 4) % 16;
      expected += torus(pa, pb) + mesh(a % 4, b % 4);
      EXPECT_EQ(hops(t, a, b), expected) << a << " -> " << b;
    }
  }
  // Inner links never leave their package, outer links join equal local indices.
  for (const auto& k : t.links()) {
    if (k.level == 0) {
      EXPECT_EQ(k.src / 4, k.dst / 4);
    } else if (k.level == 1) {
      EXPECT_EQ(k.src % 4, k.dst % 4);
    }
  }
}

TEST(Topology, RingOfMeshesCrossesOnTheSourceRail) {
  const Topology t(
      system(24, {level(hw::Topology::mesh2d, 6, 3, 2), level(hw::Topology::ring, 4)}));
  const auto r = checked_route(t, 1, 20);  // package 0 slot 1 -> package 3 slot 2
  // Ring 0 -> 3 is one hop backwards on rail 1 (to device 19), then 19 -> 20 in the mesh.
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(t.links()[static_cast<std::size_t>(r[0])].dst, 19);
  EXPECT_EQ(t.links()[static_cast<std::size_t>(r[0])].level, 1);
}

TEST(Topology, IncompleteOuterUnitHasNoPhantomDevices) {
  // 12 devices: node 1 of 8-device nodes holds only devices 8..11.
  for (auto inner : {hw::Topology::switch_fabric, hw::Topology::ring, hw::Topology::mesh2d,
                     hw::Topology::torus2d, hw::Topology::fully_connected}) {
    for (auto outer : {hw::Topology::switch_fabric, hw::Topology::ring, hw::Topology::torus2d}) {
      const Topology t(system(12, {level(inner, 8), level(outer, 0)}));
      // Node ids >= 12 are switches: a link to a phantom device would land on one.
      for (const auto& k : t.links()) {
        const bool via_switch = (k.level == 0 ? inner : outer) == hw::Topology::switch_fabric;
        EXPECT_EQ((k.src >= 12) + (k.dst >= 12), via_switch ? 1 : 0);
      }
      for (int a = 0; a < 12; ++a)
        for (int b = 0; b < 12; ++b) checked_route(t, a, b);
    }
  }
  // Torus level with a partially filled last row: routes avoid the missing devices.
  const Topology t(system(14, {level(hw::Topology::torus2d, 0, 4, 4)}));
  for (int a = 0; a < 14; ++a)
    for (int b = 0; b < 14; ++b) checked_route(t, a, b);
}

TEST(Topology, ImpossibleShapesThrow) {
  EXPECT_THROW(Topology(system(16, {level(hw::Topology::mesh2d, 16, 3, 5)})),
               std::invalid_argument);
  EXPECT_THROW(Topology(system(16, {level(hw::Topology::switch_fabric, 8)})),
               std::invalid_argument);
  EXPECT_THROW(Topology(system(16, {level(hw::Topology::switch_fabric, 0),
                                    level(hw::Topology::switch_fabric, 2)})),
               std::invalid_argument);
  EXPECT_THROW(Topology(system(4, {})), std::invalid_argument);
  EXPECT_NO_THROW(Topology(system(1, {})));
  EXPECT_NO_THROW(Topology(system(16, {level(hw::Topology::torus2d, 16, 8, 2)})));
}

}  // namespace
}  // namespace stackscope::network
