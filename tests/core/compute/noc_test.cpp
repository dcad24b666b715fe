// SPDX-License-Identifier: GPL-3.0-or-later
// On-die mesh traffic (compute/noc.hpp): closed forms against an explicit XY routing of every
// flow, conservation (the per-link loads add up to the byte-hops), and hand-derived values.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "stackscope/compute/noc.hpp"
#include "stackscope/compute/roofline.hpp"

namespace stackscope::compute {
namespace {

using LinkKey = std::tuple<int, int, int, int>;

MeshRates mesh(int x, int y, bool edge = false) {
  MeshRates m;
  m.x = x;
  m.y = y;
  m.link_Bps = 100e9;
  m.hop_s = 1e-9;
  m.edge_memory = edge;
  return m;
}

// Routes `bytes` from (sx, sy) to (dx, dy), X first then Y, adding to every directed link.
void route(std::map<LinkKey, double>& links, int sx, int sy, int dx, int dy, double bytes) {
  int x = sx, y = sy;
  while (x != dx) {
    const int nx = x + (dx > x ? 1 : -1);
    links[{x, y, nx, y}] += bytes;
    x = nx;
  }
  while (y != dy) {
    const int ny = y + (dy > y ? 1 : -1);
    links[{x, y, x, ny}] += bytes;
    y = ny;
  }
}

std::map<LinkKey, double> as_map(const std::vector<MeshLink>& v) {
  std::map<LinkKey, double> m;
  for (const auto& l : v) m[{l.x0, l.y0, l.x1, l.y1}] += l.bytes;
  return m;
}

void expect_same_loads(const std::map<LinkKey, double>& want, const std::vector<MeshLink>& got,
                       double scale) {
  const auto g = as_map(got);
  for (const auto& [k, v] : want) {
    auto it = g.find(k);
    ASSERT_NE(it, g.end());
    EXPECT_NEAR(it->second, v, 1e-12 * scale);
  }
  for (const auto& [k, v] : g) {
    if (!want.count(k)) {
      EXPECT_NEAR(v, 0.0, 1e-12 * scale);
    }
  }
}

double sum(const std::vector<MeshLink>& v) {
  double s = 0;
  for (const auto& l : v) s += l.bytes;
  return s;
}
double max_of(const std::vector<MeshLink>& v) {
  double s = 0;
  for (const auto& l : v) s = std::max(s, l.bytes);
  return s;
}

// Uniform all-to-all: every (source, destination) pair, self included, carries U / N^2.
TEST(Noc, UniformTrafficMatchesExplicitXYRouting) {
  for (const auto& [x, y] : {std::pair{4, 3}, std::pair{5, 2}, std::pair{1, 6}, std::pair{7, 1},
                             std::pair{16, 8}}) {
    const MeshRates m = mesh(x, y);
    const double u = 1e6;
    const double n = static_cast<double>(x) * y;
    std::map<LinkKey, double> want;
    for (int s = 0; s < x * y; ++s)
      for (int d = 0; d < x * y; ++d) route(want, s % x, s / x, d % x, d / x, u / (n * n));
    NocTraffic t;
    t.uniform_bytes = u;
    const auto got = link_loads(m, t);
    EXPECT_EQ(got.size(), 2u * (x - 1) * y + 2u * x * (y - 1));
    expect_same_loads(want, got, u);
    double want_max = 0, want_sum = 0;
    for (const auto& [k, v] : want) {
      want_max = std::max(want_max, v);
      want_sum += v;
    }
    EXPECT_NEAR(max_link_bytes(m, t), want_max, 1e-12 * u) << x << "x" << y;
    EXPECT_NEAR(byte_hops(m, t), want_sum, 1e-9 * u) << x << "x" << y;
  }
}

// Edge memory (2.5D HBM): each core's bytes enter at the nearer-assigned edge of its row (the
// west edge serves the first ceil(X/2) columns).
TEST(Noc, EdgeTrafficMatchesExplicitRouting) {
  for (const auto& [x, y] : {std::pair{5, 2}, std::pair{4, 3}, std::pair{2, 2}}) {
    const MeshRates m = mesh(x, y, true);
    const double e = 3e6, per_core = e / (x * y);
    std::map<LinkKey, double> want;
    const int h = (x + 1) / 2;
    for (int r = 0; r < y; ++r)
      for (int c = 0; c < x; ++c) route(want, c < h ? 0 : x - 1, r, c, r, per_core);
    NocTraffic t;
    t.edge_bytes = e;
    const auto got = link_loads(m, t);
    expect_same_loads(want, got, e);
    EXPECT_NEAR(max_link_bytes(m, t), max_of(got), 1e-12 * e);
    EXPECT_NEAR(byte_hops(m, t), sum(got), 1e-9 * e);
  }
  // 5 columns, 2 rows, 3 MB: 300 kB per core; the link next to the west edge carries cores 1
  // and 2 (600 kB), the one next to the east edge core 3 (300 kB).
  NocTraffic t;
  t.edge_bytes = 3e6;
  EXPECT_NEAR(max_link_bytes(mesh(5, 2, true), t), 600e3, 1e-6);
}

// Mixed traffic: the per-link loads add up, and their maximum and sum are what max_link_bytes
// and byte_hops report.
TEST(Noc, LoadsAreConservedForMixedTraffic) {
  for (bool edge : {false, true}) {
    const MeshRates m = mesh(6, 4, edge);
    NocTraffic t{1e5, 2e5, 3e6, edge ? 4e6 : 0.0};
    const auto got = link_loads(m, t);
    EXPECT_NEAR(max_link_bytes(m, t), max_of(got), 1e-6);
    EXPECT_NEAR(byte_hops(m, t), sum(got), 1e-3);
    EXPECT_NEAR(noc_time_s(m, t), max_of(got) / m.link_Bps, 1e-18);
  }
}

// DeepSeek-V3-like decode GEMV on DeepStack's 16 x 8 mesh: M 64 tokens, K 7168, N 2048, fp8.
// A = 64 x 7168 = 458,752 B; fp32 partial sums 64 x 2048 x 4 = 524,288 B. K over the 8 rows:
// X-links 458,752 / 8 = 57,344 B, Y-links 524,288 / 16 = 32,768 B (max 57,344); the transpose
// gives 65,536 / 28,672 (max 65,536): the first is used.
TEST(Noc, GemmUsesTheCheaperSummaOrientation) {
  const MeshRates m = mesh(16, 8);
  const NocTraffic t = gemm_traffic(m, 64, 2048, 7168, 1.0, 1.0, 1e9);
  EXPECT_DOUBLE_EQ(t.x_link_bytes, 57344.0);
  EXPECT_DOUBLE_EQ(t.y_link_bytes, 32768.0);
  EXPECT_DOUBLE_EQ(t.edge_bytes, 0.0);  // stacked DRAM: weights are read from above each core
  EXPECT_DOUBLE_EQ(max_link_bytes(m, t), 57344.0);
  // 15 X-links x 8 rows + 7 Y-links x 16 columns.
  EXPECT_DOUBLE_EQ(byte_hops(m, t), 57344.0 * 15 * 8 + 32768.0 * 7 * 16);
  // A 1 x 1 mesh has no links; a crossbar with edge memory carries the DRAM bytes once.
  EXPECT_TRUE(gemm_traffic(mesh(1, 1), 64, 2048, 7168, 1.0, 1.0, 1e9).empty());
  const NocTraffic xbar = gemm_traffic(mesh(1, 1, true), 64, 2048, 7168, 1.0, 1.0, 1e9);
  EXPECT_DOUBLE_EQ(noc_time_s(mesh(1, 1, true), xbar), 1e9 / 100e9);
  EXPECT_DOUBLE_EQ(byte_hops(mesh(1, 1, true), xbar), 1e9);
}

TEST(Noc, FillCrossesTheDiameterAndFollowsTheClock) {
  EXPECT_DOUBLE_EQ(fill_time_s(mesh(16, 8)), 22e-9);
  EXPECT_DOUBLE_EQ(fill_time_s(mesh(1, 1)), 0.0);
  hw::Hardware h;
  h.noc.mesh_x = 16;
  h.noc.mesh_y = 8;
  h.noc.link_GBps = 153.6;
  h.noc.hop_latency_ns = 1;
  h.memory.kind = hw::MemoryKind::stacked_3d;
  const MeshRates half = mesh_rates(h, 0.5);
  EXPECT_DOUBLE_EQ(half.link_Bps, 76.8e9);
  EXPECT_DOUBLE_EQ(half.hop_s, 2e-9);
  EXPECT_FALSE(half.edge_memory);
  h.memory.kind = hw::MemoryKind::hbm;
  EXPECT_TRUE(mesh_rates(h).edge_memory);
}

// The mesh is the third roofline term: a slow enough link makes a GEMM NoC-bound, and every
// GEMM pays the fill on top of the launch.
TEST(Noc, SlowMeshBoundsAGemm) {
  const hw::ComputeDie die{};
  Rates r{989e12, 60e12, 3e12, 5e-6, mesh(16, 8)};
  const OpCost fast = gemm(die, r, 64, 2048, 7168, {1, 1, 1});
  EXPECT_FALSE(fast.noc_bound());
  EXPECT_DOUBLE_EQ(fast.t_overhead, 5e-6 + 22e-9);
  EXPECT_DOUBLE_EQ(fast.t_noc, 57344.0 / 100e9);
  r.mesh.link_Bps = 1e9;  // 57 us on the busiest link
  const OpCost slow = gemm(die, r, 64, 2048, 7168, {1, 1, 1});
  EXPECT_TRUE(slow.noc_bound());
  EXPECT_DOUBLE_EQ(slow.time, 57344.0 / 1e9 + 5e-6 + 22e-9);
  EXPECT_DOUBLE_EQ(slow.t_compute, fast.t_compute);
  EXPECT_DOUBLE_EQ(slow.t_memory, fast.t_memory);
}

}  // namespace
}  // namespace stackscope::compute
