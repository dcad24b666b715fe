// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// On-die network traffic of the operators' mapping onto the core mesh (docs/model.md §3.3,
// §13). Pure functions; SI units (bytes, B/s, s).
//
// The mesh is X columns by Y rows of cores with one link per direction between neighbours,
// dimension-order (X then Y) routing, `link_Bps` per direction and `hop_s` per router.
// Where the bytes come from:
//  - memory: on stacked DRAM each core reads the channels bonded above it, on SRAM-only
//    devices its own SRAM (the preset notes of deepstack-3d, hdmoe-node and wafer-scale), so
//    DRAM/SRAM bytes do not cross the mesh. On 2.5D HBM devices the memory controllers sit at
//    the west and east die edges (HBM PHYs on two sides, as on GH100/GB100): every DRAM byte
//    enters at the edge of its row and travels to the consuming core; a 1 x 1 "mesh" is the
//    GPU's crossbar to L2, crossed once by every DRAM byte.
//  - GEMMs: the weights are stationary (each core holds a K/Y x N/X block in the memory above
//    it), the activation panel of each mesh row is multicast along the row and the fp32
//    partial sums are reduced along each column — SUMMA's row broadcast and column reduction
//    (van de Geijn & Watts, "SUMMA: scalable universal matrix multiplication algorithm",
//    Concurrency: Practice and Experience 9(4), 1997). The orientation (K over rows or over
//    columns) with the smaller link load is used.
//  - attention: sequences and heads are spread over the cores, each reads its own KV pages;
//    the queries and outputs are re-laid out between the head split and the GEMMs' layout as
//    an all-to-all between uniformly random cores.
// Vector operators work on each core's own slice and do not use the mesh.
#include <vector>

#include "stackscope/hw/hardware.hpp"

namespace stackscope::compute {

// The mesh an operator runs on. A default MeshRates (1 x 1, no edge memory) has no traffic.
struct MeshRates {
  int x = 1, y = 1;          // columns, rows
  double link_Bps = 0;       // per link and direction
  double hop_s = 0;          // per router
  bool edge_memory = false;  // DRAM bytes enter at the west/east edges (2.5D HBM)
};

// The mesh of a device whose logic clock runs at `clock_scale` x nominal (power wall, thermal
// throttle): links move a fixed width per cycle and routers take whole cycles, so link
// bandwidth scales with the clock and hop latency inversely. Memory enters at the edges for
// 2.5D HBM devices.
MeshRates mesh_rates(const hw::Hardware& h, double clock_scale = 1.0);

// Traffic of one or more operators, in the pattern terms above (bytes per device).
struct NocTraffic {
  double x_link_bytes = 0;   // carried by every X-direction link (row multicasts/reductions)
  double y_link_bytes = 0;   // carried by every Y-direction link
  double uniform_bytes = 0;  // all-to-all between uniformly random cores, XY-routed
  double edge_bytes = 0;     // DRAM bytes entering at the edges (edge_memory) or crossbar
  NocTraffic& operator+=(const NocTraffic& o) {
    x_link_bytes += o.x_link_bytes;
    y_link_bytes += o.y_link_bytes;
    uniform_bytes += o.uniform_bytes;
    edge_bytes += o.edge_bytes;
    return *this;
  }
  NocTraffic scaled(double f) const {
    return {x_link_bytes * f, y_link_bytes * f, uniform_bytes * f, edge_bytes * f};
  }
  bool empty() const {
    return x_link_bytes <= 0 && y_link_bytes <= 0 && uniform_bytes <= 0 && edge_bytes <= 0;
  }
};

// GEMM accumulators are fp32: the per-core tile's accumulators (roofline.cpp) and the partial
// sums reduced over the mesh.
inline constexpr double kAccumulatorBytes = 4.0;

// Traffic of C[M x N] = A[M x K] . B[K x N] repeated `count` times, with `a_bytes` per input
// element, plus `dram_bytes` of memory traffic (used only with edge memory).
NocTraffic gemm_traffic(const MeshRates& mesh, double m, double n, double k, double a_bytes,
                        double count, double dram_bytes);
// Traffic of an operator that re-lays out `relayout_bytes` between cores (attention queries and
// outputs) and moves `dram_bytes` from memory.
NocTraffic relayout_traffic(const MeshRates& mesh, double relayout_bytes, double dram_bytes);

// Bytes on the busiest link in one direction (the crossbar for a 1 x 1 mesh with edge memory).
double max_link_bytes(const MeshRates& mesh, const NocTraffic& t);
// Time the traffic needs on the busiest link: max_link_bytes / link_Bps (0 without traffic).
double noc_time_s(const MeshRates& mesh, const NocTraffic& t);
// Pipeline fill of an operator spread over the mesh: the farthest core's first data crosses
// the diameter, (X - 1 + Y - 1) hops.
double fill_time_s(const MeshRates& mesh);
// Byte-hops of the traffic (for energy: x pJ/bit/hop): multicast and reduction chains use every
// link of their row or column once, uniform traffic the mean XY distance
// (X^2 - 1)/(3X) + (Y^2 - 1)/(3Y), edge traffic the mean distance from the row's entry edge
// (the crossbar counts one hop).
double byte_hops(const MeshRates& mesh, const NocTraffic& t);

// Loads depend only on a link's position along its direction: every row's X-link between
// columns c and c + 1 carries the same bytes, as does every column's Y-link between rows r and
// r + 1. Eastward (east = true) or westward; southward (towards row r + 1) or northward.
double x_link_bytes(const MeshRates& mesh, const NocTraffic& t, int c, bool east);
double y_link_bytes(const MeshRates& mesh, const NocTraffic& t, int r, bool south);

// One directed link and its bytes, for the link view.
struct MeshLink {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // from core (x0, y0) to its neighbour (x1, y1)
  double bytes = 0;
};
// Every directed link of the mesh with the traffic it carries (X-links of every row, then
// Y-links of every column; 2 Y + 2 X (Y-1) entries). Multicasts and reductions run from
// west to east and north to south (their direction is a mapping choice; the load per link is
// the same either way). Empty for a 1 x 1 mesh.
std::vector<MeshLink> link_loads(const MeshRates& mesh, const NocTraffic& t);

}  // namespace stackscope::compute
