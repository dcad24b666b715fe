// SPDX-License-Identifier: GPL-3.0-or-later
// On-die mesh traffic (see noc.hpp for the mapping and its sources).
#include "stackscope/compute/noc.hpp"

#include <algorithm>
#include <cmath>

#include "stackscope/common/units.hpp"

namespace stackscope::compute {
namespace {

bool is_crossbar(const MeshRates& m) { return m.x <= 1 && m.y <= 1; }

// Share of uniform all-to-all traffic (N^2 source/destination pairs, self included, N = XY)
// on the X-link between columns c and c + 1 of a row, either direction, XY routing: sources
// in that row on one side, destinations anywhere on the other side:
// (c + 1)(X - 1 - c) Y / (XY)^2 = (c + 1)(X - 1 - c) / (X^2 Y).
double uniform_x_share(const MeshRates& m, int c) {
  const double x = m.x, y = m.y;
  return (c + 1.0) * (x - 1.0 - c) / (x * x * y);
}
// The Y-link between rows r and r + 1 of a column: the packet already turned into its
// destination column, so sources in any column on one side and destinations in this column on
// the other: (r + 1) X (Y - 1 - r) / (XY)^2 = (r + 1)(Y - 1 - r) / (X Y^2).
double uniform_y_share(const MeshRates& m, int r) {
  const double x = m.x, y = m.y;
  return (r + 1.0) * (y - 1.0 - r) / (x * y * y);
}
// Columns served from the west edge; the others from the east.
int west_columns(const MeshRates& m) { return (m.x + 1) / 2; }
// Edge traffic on the X-link between columns c and c + 1 of a row: eastward from the west
// entry (cores c + 1 .. h - 1 beyond it) and westward from the east entry (cores h .. c).
// Every core consumes E / (XY).
double edge_east(const MeshRates& m, const NocTraffic& t, int c) {
  const int h = west_columns(m);
  const double per_core = t.edge_bytes / (static_cast<double>(m.x) * m.y);
  return c < h - 1 ? (h - 1 - c) * per_core : 0.0;
}
double edge_west(const MeshRates& m, const NocTraffic& t, int c) {
  const int h = west_columns(m);
  const double per_core = t.edge_bytes / (static_cast<double>(m.x) * m.y);
  return c >= h ? (c - h + 1) * per_core : 0.0;
}

}  // namespace

MeshRates mesh_rates(const hw::Hardware& h, double clock_scale) {
  MeshRates m;
  m.x = std::max(1, h.noc.mesh_x);
  m.y = std::max(1, h.noc.mesh_y);
  m.link_Bps = h.noc.link_GBps * units::kGiga * clock_scale;
  m.hop_s = clock_scale > 0 ? h.noc.hop_latency_ns * units::kNano / clock_scale : 0.0;
  m.edge_memory = h.memory.kind == hw::MemoryKind::hbm;
  return m;
}

NocTraffic gemm_traffic(const MeshRates& mesh, double m, double n, double k, double a_bytes,
                        double count, double dram_bytes) {
  NocTraffic t;
  if (mesh.edge_memory) t.edge_bytes = std::max(0.0, dram_bytes);
  if (is_crossbar(mesh) || m <= 0 || n <= 0 || k <= 0 || count <= 0) return t;
  const double x = mesh.x, y = mesh.y;
  const double panel = m * k * a_bytes * count;            // activations A
  const double partial = m * n * kAccumulatorBytes * count;  // fp32 partial sums of C
  // Links a direction has at all (a 1-wide mesh has no links in that direction).
  const bool hx = mesh.x > 1, hy = mesh.y > 1;
  // K over the rows: each row multicasts its K/Y panel along the X-links, each column reduces
  // its N/X partial sums along the Y-links. Or the transpose.
  const double x1 = hx ? panel / y : 0.0, y1 = hy ? partial / x : 0.0;
  const double x2 = hx ? partial / y : 0.0, y2 = hy ? panel / x : 0.0;
  if (std::max(x2, y2) < std::max(x1, y1)) {
    t.x_link_bytes = x2;
    t.y_link_bytes = y2;
  } else {
    t.x_link_bytes = x1;
    t.y_link_bytes = y1;
  }
  return t;
}

NocTraffic relayout_traffic(const MeshRates& mesh, double relayout_bytes, double dram_bytes) {
  NocTraffic t;
  if (mesh.edge_memory) t.edge_bytes = std::max(0.0, dram_bytes);
  if (!is_crossbar(mesh)) t.uniform_bytes = std::max(0.0, relayout_bytes);
  return t;
}

double max_link_bytes(const MeshRates& m, const NocTraffic& t) {
  if (is_crossbar(m)) return m.edge_memory ? t.edge_bytes : 0.0;
  double best = 0;
  if (m.x > 1) {
    if (t.edge_bytes > 0) {
      // Edge traffic peaks next to the edges, uniform traffic in the middle: scan the columns
      // (HBM meshes are small).
      for (int c = 0; c + 1 < m.x; ++c) {
        const double u = t.uniform_bytes * uniform_x_share(m, c);
        best = std::max({best, t.x_link_bytes + u + edge_east(m, t, c), u + edge_west(m, t, c)});
      }
    } else {
      best = t.x_link_bytes + t.uniform_bytes * uniform_x_share(m, m.x / 2 - 1);
    }
  }
  if (m.y > 1)
    best = std::max(best, t.y_link_bytes + t.uniform_bytes * uniform_y_share(m, m.y / 2 - 1));
  return best;
}

double noc_time_s(const MeshRates& mesh, const NocTraffic& t) {
  if (!(mesh.link_Bps > 0)) return 0.0;
  return max_link_bytes(mesh, t) / mesh.link_Bps;
}

double fill_time_s(const MeshRates& mesh) {
  return (std::max(0, mesh.x - 1) + std::max(0, mesh.y - 1)) * mesh.hop_s;
}

double byte_hops(const MeshRates& m, const NocTraffic& t) {
  if (is_crossbar(m)) return m.edge_memory ? t.edge_bytes : 0.0;
  const double x = m.x, y = m.y;
  double hops = t.x_link_bytes * (x - 1.0) * y + t.y_link_bytes * (y - 1.0) * x;
  hops += t.uniform_bytes * ((x * x - 1.0) / (3.0 * x) + (y * y - 1.0) / (3.0 * y));
  if (m.edge_memory) {
    // Mean distance from the entry edge: west cores 0..h-1 at c hops, east cores at X-1-c.
    const double h = west_columns(m), e = x - h;
    hops += t.edge_bytes * (h * (h - 1.0) + e * (e - 1.0)) / (2.0 * x);
  }
  return hops;
}

double x_link_bytes(const MeshRates& m, const NocTraffic& t, int c, bool east) {
  if (c < 0 || c + 1 >= m.x) return 0.0;
  const double u = t.uniform_bytes * uniform_x_share(m, c);
  return east ? t.x_link_bytes + u + edge_east(m, t, c) : u + edge_west(m, t, c);
}

double y_link_bytes(const MeshRates& m, const NocTraffic& t, int r, bool south) {
  if (r < 0 || r + 1 >= m.y) return 0.0;
  const double u = t.uniform_bytes * uniform_y_share(m, r);
  return south ? t.y_link_bytes + u : u;
}

std::vector<MeshLink> link_loads(const MeshRates& m, const NocTraffic& t) {
  std::vector<MeshLink> out;
  if (is_crossbar(m)) return out;
  out.reserve(2 * static_cast<std::size_t>(std::max(0, m.x - 1)) * m.y +
              2 * static_cast<std::size_t>(m.x) * std::max(0, m.y - 1));
  for (int r = 0; r < m.y; ++r)
    for (int c = 0; c + 1 < m.x; ++c) {
      out.push_back({c, r, c + 1, r, x_link_bytes(m, t, c, true)});
      out.push_back({c + 1, r, c, r, x_link_bytes(m, t, c, false)});
    }
  for (int c = 0; c < m.x; ++c)
    for (int r = 0; r + 1 < m.y; ++r) {
      out.push_back({c, r, c, r + 1, y_link_bytes(m, t, r, true)});
      out.push_back({c, r + 1, c, r, y_link_bytes(m, t, r, false)});
    }
  return out;
}

}  // namespace stackscope::compute
