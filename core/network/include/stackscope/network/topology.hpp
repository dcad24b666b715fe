// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The physical system network built from hw::System (docs/model.md §5.1). Nodes 0..D-1 are
// devices; switches are extra nodes after them. Links are directed (one per direction) and
// carry their level, bandwidth, hop latency and energy. Routes are deterministic:
// shortest way round on rings, dimension-order (X then Y) on meshes and tori (shortest
// direction per dimension on tori), up-down through a level's switch, a direct link on fully
// connected levels. Across levels routing is rail-style: a flow first crosses the outermost
// level it must cross on its own rail (same local index), then moves inside the destination's
// unit, level by level inwards.
#include <cstdint>
#include <string>
#include <vector>

#include "stackscope/hw/hardware.hpp"

namespace stackscope::network {

struct Link {
  int src = 0;  // node ids
  int dst = 0;
  int level = 0;         // index into System::levels
  double bw_Bps = 0;     // line rate x efficiency, per direction
  double latency_s = 0;  // hop latency
  double energy_J_per_byte = 0;
};

// True when a topology / network model built for `a` serves `b`: every field of the system
// that the network model reads is equal (level names are not compared).
bool same_network(const hw::System& a, const hw::System& b) noexcept;

class Topology {
 public:
  // Throws std::invalid_argument with a clear message for impossible shapes (e.g. dims_x x
  // dims_y != size); perf::validate() reports the same conditions first.
  explicit Topology(const hw::System& system);

  int devices() const { return devices_; }
  int nodes() const { return nodes_; }
  const std::vector<Link>& links() const { return links_; }
  const hw::System& system() const { return system_; }

  // Appends the ids of the links from device a to device b (empty if a == b).
  void route(int a, int b, std::vector<int>& out) const;
  // Outermost level on which devices a and b differ (-1 if a == b).
  int level_between(int a, int b) const;
  // Human-readable endpoint names: "d12", "L1-switch3".
  std::string node_name(int node) const;
  // Devices per unit of `level` (unit_size(-1) == 1: a device); the outermost level's unit is
  // the whole system (its size 0 resolved to as many units as the devices need).
  int unit_size(int level) const { return level < 0 ? 1 : unit_size_[level]; }
  int levels() const { return static_cast<int>(unit_size_.size()); }

 private:
  hw::System system_;
  int devices_ = 0;
  int nodes_ = 0;
  std::vector<Link> links_;
  // Implementation detail (adjacency, per-level unit sizes, switch ids) is private.
  std::vector<int> unit_size_;               // devices per unit of each level
  std::vector<int> switch_base_;             // first switch node id per level (-1 if none)
  std::vector<std::vector<int>> out_links_;  // per node, outgoing link ids
  int find_link(int src, int dst) const;

  // Per level: shape and O(1) link lookup tables (ids into links_, -1 = none).
  struct Level {
    hw::Topology kind = hw::Topology::switch_fabric;
    int slots = 1;   // units of the level below per unit of this level
    int dims_x = 1;  // mesh2d / torus2d shape (dims_x x dims_y == slots)
    int dims_y = 1;
    int inner = 1;             // devices per unit of the level below (= number of rails)
    int unit = 1;              // devices per unit of this level
    std::vector<int> up;       // switch: device -> its rail switch
    std::vector<int> down;     // switch: rail switch -> device
    std::vector<int> nbr;      // ring (+, -) / mesh, torus (+x, -x, +y, -y): 4 per device
    std::vector<int> fc_base;  // fully connected: first link id per (unit, rail)
  };
  std::vector<Level> level_;
  int device_at(const Level& l, int unit, int slot, int rail) const {
    return unit * l.unit + slot * l.inner + rail;
  }
  int rail_members(const Level& l, int unit, int rail) const;
  int add_link(int src, int dst, int level);
  void level_path(int level, int unit, int rail, int from, int to, std::vector<int>& out) const;
  bool grid_path(const Level& l, int unit, int rail, int from, int to, bool y_first, bool wrap,
                 std::vector<int>& out) const;
};

}  // namespace stackscope::network
