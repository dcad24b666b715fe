// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/network/topology.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "stackscope/common/units.hpp"

// Layout. Level i groups `slots` units of level i-1 (a level-0 "unit below" is a device); a
// device d sits in level-i unit d / unit, at slot (d / inner) % slots, on rail d % inner.
// Every (unit, rail) pair of a level is its own small network: ring, mesh, torus, fully
// connected, or one switch. So outer switch levels are rail-optimised fabrics (one switch per
// rail per unit, as in DGX SuperPOD rail-optimised InfiniBand), and outer ring/mesh/torus levels
// join the devices with the same local index of neighbouring units (DeepStack-style chip-to-chip
// links). Devices >= system.devices do not exist: they have no links and routes avoid them.

namespace stackscope::network {
namespace {

constexpr int kDirs = 4;  // +x, -x, +y, -y (rings use +, -)

std::string level_label(const hw::System& s, int i) {
  const auto& n = s.levels[static_cast<std::size_t>(i)].name;
  return "level " + std::to_string(i) + (n.empty() ? "" : " (" + n + ")");
}

// Squarest factorisation of n with dims_x >= dims_y.
void squarest(int n, int& dx, int& dy) {
  dy = 1;
  for (int f = 1; static_cast<long long>(f) * f <= n; ++f)
    if (n % f == 0) dy = f;
  dx = n / dy;
}

}  // namespace

Topology::Topology(const hw::System& system) : system_(system), devices_(system.devices) {
  if (devices_ < 1)
    throw std::invalid_argument("system '" + system.id + "': devices must be at least 1");
  const int n_levels = static_cast<int>(system.levels.size());
  if (n_levels == 0 && devices_ > 1)
    throw std::invalid_argument("system '" + system.id + "': no network levels connect the " +
                                std::to_string(devices_) + " devices");

  // Shapes.
  long long inner = 1;
  for (int i = 0; i < n_levels; ++i) {
    const auto& nl = system.levels[static_cast<std::size_t>(i)];
    const bool outermost = i + 1 == n_levels;
    Level l;
    l.kind = nl.topology;
    l.inner = static_cast<int>(inner);
    const bool grid = nl.topology == hw::Topology::mesh2d || nl.topology == hw::Topology::torus2d;
    if (nl.size < 0 || (nl.size == 0 && !outermost))
      throw std::invalid_argument(level_label(system, i) + ": size must be at least 1" +
                                  (outermost ? " (or 0 = as many as needed)" : ""));
    long long slots = nl.size;
    if (slots == 0) {
      const long long needed = (devices_ + inner - 1) / inner;
      slots = grid && nl.dims_x > 0 && nl.dims_y > 0 ? static_cast<long long>(nl.dims_x) * nl.dims_y
                                                     : needed;
      if (slots < needed)
        throw std::invalid_argument(level_label(system, i) + ": dims " + std::to_string(nl.dims_x) +
                                    " x " + std::to_string(nl.dims_y) + " hold fewer than the " +
                                    std::to_string(needed) + " units needed");
    }
    if (inner * slots > (1LL << 30))
      throw std::invalid_argument(level_label(system, i) + ": too many devices");
    l.slots = static_cast<int>(slots);
    if (grid) {
      if (nl.dims_x > 0 || nl.dims_y > 0) {
        if (nl.dims_x < 1 || nl.dims_y < 1 ||
            static_cast<long long>(nl.dims_x) * nl.dims_y != slots)
          throw std::invalid_argument(
              level_label(system, i) + ": dims_x x dims_y (" + std::to_string(nl.dims_x) + " x " +
              std::to_string(nl.dims_y) + ") must equal size " + std::to_string(slots));
        l.dims_x = nl.dims_x;
        l.dims_y = nl.dims_y;
      } else {
        squarest(l.slots, l.dims_x, l.dims_y);
      }
    } else {
      l.dims_x = l.slots;
      l.dims_y = 1;
    }
    inner *= slots;
    l.unit = static_cast<int>(inner);
    unit_size_.push_back(l.unit);
    level_.push_back(std::move(l));
  }
  if (n_levels > 0 && inner < devices_)
    throw std::invalid_argument("system '" + system.id + "': the network levels connect at most " +
                                std::to_string(inner) + " devices, not " +
                                std::to_string(devices_));

  // Switch nodes: one per (unit, rail) of every switch level.
  nodes_ = devices_;
  for (int i = 0; i < n_levels; ++i) {
    auto& l = level_[static_cast<std::size_t>(i)];
    if (l.kind != hw::Topology::switch_fabric) {
      switch_base_.push_back(-1);
      continue;
    }
    switch_base_.push_back(nodes_);
    const int units = (devices_ + l.unit - 1) / l.unit;
    nodes_ += units * l.inner;
  }
  out_links_.assign(static_cast<std::size_t>(nodes_), {});

  // Links.
  for (int i = 0; i < n_levels; ++i) {
    auto& l = level_[static_cast<std::size_t>(i)];
    const int units = (devices_ + l.unit - 1) / l.unit;
    switch (l.kind) {
      case hw::Topology::switch_fabric:
        l.up.assign(static_cast<std::size_t>(devices_), -1);
        l.down.assign(static_cast<std::size_t>(devices_), -1);
        break;
      case hw::Topology::fully_connected:
        l.fc_base.assign(static_cast<std::size_t>(units) * l.inner, -1);
        break;
      default: l.nbr.assign(static_cast<std::size_t>(devices_) * kDirs, -1); break;
    }
    for (int u = 0; u < units; ++u) {
      for (int k = 0; k < l.inner; ++k) {
        const int m = rail_members(l, u, k);
        if (m < 2) continue;
        switch (l.kind) {
          case hw::Topology::switch_fabric: {
            const int sw = switch_base_[static_cast<std::size_t>(i)] + u * l.inner + k;
            for (int c = 0; c < m; ++c) {
              const int d = device_at(l, u, c, k);
              l.up[static_cast<std::size_t>(d)] = add_link(d, sw, i);
              l.down[static_cast<std::size_t>(d)] = add_link(sw, d, i);
            }
            break;
          }
          case hw::Topology::fully_connected:
            l.fc_base[static_cast<std::size_t>(u * l.inner + k)] = static_cast<int>(links_.size());
            for (int p = 0; p < m; ++p)
              for (int q = 0; q < m; ++q)
                if (p != q) add_link(device_at(l, u, p, k), device_at(l, u, q, k), i);
            break;
          case hw::Topology::ring:
            // The ring closes over the members that exist (an incomplete unit is a smaller
            // ring); with 2 members both directions use the same pair of links.
            for (int c = 0; c < m; ++c) {
              const int d = device_at(l, u, c, k);
              const int next = device_at(l, u, (c + 1) % m, k);
              const int prev = device_at(l, u, (c + m - 1) % m, k);
              auto* nb = &l.nbr[static_cast<std::size_t>(d) * kDirs];
              nb[0] = find_link(d, next) >= 0 ? find_link(d, next) : add_link(d, next, i);
              nb[1] = find_link(d, prev) >= 0 ? find_link(d, prev) : add_link(d, prev, i);
            }
            break;
          case hw::Topology::mesh2d:
          case hw::Topology::torus2d: {
            const bool wrap = l.kind == hw::Topology::torus2d;
            for (int c = 0; c < m; ++c) {
              const int d = device_at(l, u, c, k);
              const int x = c % l.dims_x;
              const int y = c / l.dims_x;
              auto* nb = &l.nbr[static_cast<std::size_t>(d) * kDirs];
              const int nx[kDirs] = {x + 1, x - 1, x, x};
              const int ny[kDirs] = {y, y, y + 1, y - 1};
              for (int dir = 0; dir < kDirs; ++dir) {
                int tx = nx[dir];
                int ty = ny[dir];
                if (wrap) {
                  tx = (tx + l.dims_x) % l.dims_x;
                  ty = (ty + l.dims_y) % l.dims_y;
                } else if (tx < 0 || tx >= l.dims_x || ty < 0 || ty >= l.dims_y) {
                  continue;
                }
                const int tc = ty * l.dims_x + tx;
                if (tc == c || tc >= m) continue;
                const int t = device_at(l, u, tc, k);
                const int existing = find_link(d, t);
                nb[dir] = existing >= 0 ? existing : add_link(d, t, i);
              }
            }
            break;
          }
        }
      }
    }
  }
}

int Topology::rail_members(const Level& l, int unit, int rail) const {
  const long long first = static_cast<long long>(unit) * l.unit + rail;
  if (first >= devices_) return 0;
  const long long m = (devices_ - first + l.inner - 1) / l.inner;
  return static_cast<int>(std::min<long long>(m, l.slots));
}

int Topology::add_link(int src, int dst, int level) {
  const auto& nl = system_.levels[static_cast<std::size_t>(level)];
  Link k;
  k.src = src;
  k.dst = dst;
  k.level = level;
  k.bw_Bps = nl.link_GBps * units::kGiga * nl.efficiency;
  k.latency_s = nl.hop_latency_ns * units::kNano;
  // The level's pJ/bit is per link; on a switch level it describes a device-to-device crossing
  // (both SerDes ends and the switch), so each of the two links of the crossing carries half.
  const double share = nl.topology == hw::Topology::switch_fabric ? 0.5 : 1.0;
  k.energy_J_per_byte = nl.energy_pJ_per_bit * units::kPico * units::kBitsPerByte * share;
  const int id = static_cast<int>(links_.size());
  links_.push_back(k);
  out_links_[static_cast<std::size_t>(src)].push_back(id);
  return id;
}

int Topology::find_link(int src, int dst) const {
  for (int id : out_links_[static_cast<std::size_t>(src)])
    if (links_[static_cast<std::size_t>(id)].dst == dst) return id;
  return -1;
}

int Topology::level_between(int a, int b) const {
  if (a == b) return -1;
  for (int i = static_cast<int>(level_.size()) - 1; i >= 0; --i)
    if (a / level_[static_cast<std::size_t>(i)].inner !=
        b / level_[static_cast<std::size_t>(i)].inner)
      return i;
  return -1;
}

void Topology::route(int a, int b, std::vector<int>& out) const {
  while (a != b) {
    const int li = level_between(a, b);
    const Level& l = level_[static_cast<std::size_t>(li)];
    const int u = a / l.unit;
    const int ca = (a / l.inner) % l.slots;
    const int cb = (b / l.inner) % l.slots;
    const int ka = a % l.inner;
    const int kb = b % l.inner;
    const int landing = device_at(l, u, cb, ka);
    if (landing < devices_) {
      // Cross level li on a's own rail, then continue inside b's unit.
      level_path(li, u, ka, ca, cb, out);
      a = landing;
    } else {
      // b's unit is the incomplete last one and lacks a's rail: move to b's rail inside a's
      // (complete) unit first, then cross.
      route(a, device_at(l, u, ca, kb), out);
      level_path(li, u, kb, ca, cb, out);
      a = b;
    }
  }
}

void Topology::level_path(int level, int unit, int rail, int from, int to,
                          std::vector<int>& out) const {
  const Level& l = level_[static_cast<std::size_t>(level)];
  const int da = device_at(l, unit, from, rail);
  const int db = device_at(l, unit, to, rail);
  switch (l.kind) {
    case hw::Topology::switch_fabric:
      out.push_back(l.up[static_cast<std::size_t>(da)]);
      out.push_back(l.down[static_cast<std::size_t>(db)]);
      return;
    case hw::Topology::fully_connected: {
      const int m = rail_members(l, unit, rail);
      out.push_back(l.fc_base[static_cast<std::size_t>(unit * l.inner + rail)] + from * (m - 1) +
                    (to < from ? to : to - 1));
      return;
    }
    case hw::Topology::ring: {
      // Shortest way round; a tie goes the positive way.
      const int m = rail_members(l, unit, rail);
      const int fwd = (to - from + m) % m;
      const int dir = fwd <= m - fwd ? 0 : 1;
      const int hops = dir == 0 ? fwd : m - fwd;
      int d = da;
      for (int h = 0; h < hops; ++h) {
        const int id = l.nbr[static_cast<std::size_t>(d) * kDirs + dir];
        out.push_back(id);
        d = links_[static_cast<std::size_t>(id)].dst;
      }
      return;
    }
    case hw::Topology::mesh2d:
    case hw::Topology::torus2d: {
      // Dimension order X then Y (shortest direction per dimension on a torus). Only an
      // incomplete unit can make that path hit a missing device; then Y-first, then without
      // wrap-around, are tried.
      const bool torus = l.kind == hw::Topology::torus2d;
      if (grid_path(l, unit, rail, from, to, false, torus, out)) return;
      if (grid_path(l, unit, rail, from, to, true, torus, out)) return;
      if (torus && grid_path(l, unit, rail, from, to, false, false, out)) return;
      if (torus && grid_path(l, unit, rail, from, to, true, false, out)) return;
      throw std::logic_error("network: no dimension-order route from d" + std::to_string(da) +
                             " to d" + std::to_string(db));
    }
  }
}

bool Topology::grid_path(const Level& l, int unit, int rail, int from, int to, bool y_first,
                         bool wrap, std::vector<int>& out) const {
  const std::size_t mark = out.size();
  int d = device_at(l, unit, from, rail);
  auto walk = [&](int from_c, int to_c, int extent, int dir_pos) {
    const int fwd = ((to_c - from_c) % extent + extent) % extent;
    int dir = dir_pos;
    int hops = to_c - from_c;
    if (wrap) {
      if (fwd <= extent - fwd) {
        hops = fwd;
      } else {
        hops = extent - fwd;
        dir = dir_pos + 1;
      }
    } else if (hops < 0) {
      hops = -hops;
      dir = dir_pos + 1;
    }
    for (int h = 0; h < hops; ++h) {
      const int id = l.nbr[static_cast<std::size_t>(d) * kDirs + dir];
      if (id < 0) return false;
      out.push_back(id);
      d = links_[static_cast<std::size_t>(id)].dst;
    }
    return true;
  };
  const int fx = from % l.dims_x, fy = from / l.dims_x;
  const int tx = to % l.dims_x, ty = to / l.dims_x;
  const bool ok = y_first ? walk(fy, ty, l.dims_y, 2) && walk(fx, tx, l.dims_x, 0)
                          : walk(fx, tx, l.dims_x, 0) && walk(fy, ty, l.dims_y, 2);
  if (!ok) out.resize(mark);
  return ok;
}

std::string Topology::node_name(int node) const {
  // Built by appending to a one-character string: assigning or concatenating short literals
  // trips a GCC 12 -Wrestrict false positive.
  if (node < devices_) return std::string(1, 'd').append(std::to_string(node));
  for (std::size_t i = switch_base_.size(); i-- > 0;) {
    if (switch_base_[i] >= 0 && node >= switch_base_[i]) {
      std::string name(1, 'L');
      name.append(std::to_string(i)).append("-switch");
      return name.append(std::to_string(node - switch_base_[i]));
    }
  }
  return std::string(1, 'n').append(std::to_string(node));
}

bool same_network(const hw::System& a, const hw::System& b) noexcept {
  if (a.devices != b.devices || a.levels.size() != b.levels.size()) return false;
  for (std::size_t i = 0; i < a.levels.size(); ++i) {
    const auto& x = a.levels[i];
    const auto& y = b.levels[i];
    if (x.topology != y.topology || x.size != y.size || x.dims_x != y.dims_x ||
        x.dims_y != y.dims_y || x.link_GBps != y.link_GBps || x.latency_us != y.latency_us ||
        x.hop_latency_ns != y.hop_latency_ns || x.efficiency != y.efficiency ||
        x.energy_pJ_per_bit != y.energy_pJ_per_bit ||
        x.in_network_reduction != y.in_network_reduction ||
        x.in_network_efficiency != y.in_network_efficiency)
      return false;
  }
  return true;
}

}  // namespace stackscope::network
