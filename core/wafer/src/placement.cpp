// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/wafer/placement.hpp"

#include <algorithm>
#include <cstdlib>

namespace stackscope::wafer {

int die_of(const Region& r, int local, int dies_x) {
  return (r.y + local / r.w) * dies_x + r.x + local % r.w;
}

const char* to_string(PlacementOrder o) {
  return o == PlacementOrder::clustered ? "clustered" : "interleaved";
}

int hops(int a, int b, int dies_x) {
  return std::abs(a % dies_x - b % dies_x) + std::abs(a / dies_x - b / dies_x);
}

namespace {

// Rectangles of `dies` dies that fit the grid, squarest first, then wider first.
std::vector<Region> shapes(int dies, int nx, int ny) {
  std::vector<Region> out;
  for (int w = 1; w <= dies; ++w)
    if (dies % w == 0 && w <= nx && dies / w <= ny) out.push_back({0, 0, w, dies / w});
  std::stable_sort(out.begin(), out.end(), [](const Region& a, const Region& b) {
    const int da = std::abs(a.w - a.h), db = std::abs(b.w - b.h);
    return da != db ? da < db : a.w > b.w;
  });
  return out;
}

}  // namespace

PlacementResult place(const hw::WaferLayout& layout, const PlacementRequest& q) {
  PlacementResult out;
  const int nx = layout.dies_x, ny = layout.dies_y;
  out.die_owner.assign(static_cast<std::size_t>(std::max(0, nx * ny)), -1);
  for (int d = layout.usable_dies; d < nx * ny; ++d)
    out.die_owner[static_cast<std::size_t>(d)] = -2;
  // The instances in laying order: (role is prefill, index in the serving order).
  std::vector<std::pair<bool, int>> order;
  if (q.order == PlacementOrder::clustered || q.prefill == 0 || q.decode == 0) {
    for (int i = 0; i < q.prefill; ++i) order.push_back({true, i});
    for (int j = 0; j < q.decode; ++j) order.push_back({false, q.prefill + j});
  } else {
    // Prefill i goes before the decode instances of its share: decode j belongs to prefill
    // floor(j * P / D).
    int next_prefill = 0;
    for (int j = 0; j < q.decode; ++j) {
      const int owner = static_cast<int>(static_cast<long long>(j) * q.prefill / q.decode);
      while (next_prefill <= owner) order.push_back({true, next_prefill++});
      order.push_back({false, q.prefill + j});
    }
    while (next_prefill < q.prefill) order.push_back({true, next_prefill++});
  }
  out.regions.assign(order.size(), Region{});
  for (const auto& [prefill, index] : order) {
    const int dies = prefill ? q.prefill_dies : q.decode_dies;
    bool placed = false;
    const auto candidates = shapes(dies, nx, ny);
    for (int x = 0; x < nx && !placed; ++x)
      for (int y = 0; y < ny && !placed; ++y) {
        if (out.die_owner[static_cast<std::size_t>(y * nx + x)] != -1) continue;
        for (Region r : candidates) {
          r.x = x;
          r.y = y;
          if (r.x + r.w > nx || r.y + r.h > ny) continue;
          bool free = true;
          for (int k = 0; k < r.dies() && free; ++k)
            free = out.die_owner[static_cast<std::size_t>(die_of(r, k, nx))] == -1;
          if (!free) continue;
          for (int k = 0; k < r.dies(); ++k)
            out.die_owner[static_cast<std::size_t>(die_of(r, k, nx))] = index;
          out.regions[static_cast<std::size_t>(index)] = r;
          placed = true;
          break;
        }
      }
    if (!placed) {
      out.reason = std::string(prefill ? "prefill" : "decode") + " instance " +
                   std::to_string(prefill ? index : index - q.prefill) + " of " +
                   std::to_string(dies) + " dies finds no free rectangle on the " +
                   std::to_string(nx) + " x " + std::to_string(ny) + " grid (" +
                   std::to_string(layout.usable_dies) + " usable dies)";
      return out;
    }
  }
  out.ok = true;
  return out;
}

}  // namespace stackscope::wafer
