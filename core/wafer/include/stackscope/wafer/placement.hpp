// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where serving instances sit on a wafer's die grid (docs/model.md §15.2).
// Every instance is a contiguous rectangle of dies, so its collectives stay inside it under the
// mesh's dimension-order routing and it can be costed as its own w x h mesh
// (hw::region_system). Dies are numbered row-major, as network::Topology numbers a mesh2d
// level: die (x, y) is device y * dies_x + x. The spare dies are the last ones in that order.
#include <string>
#include <vector>

#include "stackscope/hw/wafer.hpp"

namespace stackscope::wafer {

struct Region {
  int x = 0, y = 0;  // lowest corner
  int w = 1, h = 1;  // extent in dies
  int dies() const { return w * h; }
  bool operator==(const Region&) const = default;
};

// Region-local index r (row-major in the region) -> die id on a grid `dies_x` wide.
int die_of(const Region& r, int local, int dies_x);

// Order in which instances are laid on the grid:
//  - clustered: every prefill instance first, then every decode instance (Splitwise's
//    separate machines);
//  - interleaved: the prefill instances spread evenly among the decode instances, so each
//    prefill region has decode regions beside it (shorter KV paths, WSC-LLM's placement aim).
enum class PlacementOrder { clustered, interleaved };
const char* to_string(PlacementOrder o);

// What to place: `count` instances of `dies` dies each, by role.
struct PlacementRequest {
  int prefill = 0, prefill_dies = 1;
  int decode = 0, decode_dies = 1;
  PlacementOrder order = PlacementOrder::interleaved;
};

struct PlacementResult {
  bool ok = false;
  std::string reason;           // why not, when !ok
  std::vector<Region> regions;  // prefill instances, then decode instances (the serving order)
  std::vector<int> die_owner;   // per die: instance index, -1 idle, -2 spare
};

// First fit: instances in `order`, each at the first free position scanning columns left to
// right and rows bottom to top (column-major), trying its shapes squarest first, then wider.
// Deterministic. Fails (ok = false, with the reason) when an instance finds no free rectangle;
// the spares are never used.
PlacementResult place(const hw::WaferLayout& layout, const PlacementRequest& request);

// Dimension-order hop count between two dies of a grid `dies_x` wide.
int hops(int a, int b, int dies_x);

}  // namespace stackscope::wafer
