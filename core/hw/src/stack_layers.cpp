// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/hw/stack_layers.hpp"

#include <algorithm>

#include "stackscope/common/units.hpp"

namespace stackscope::hw {
namespace {

const DramLayer* at(const Memory& m, int k) noexcept {
  if (k < 0 || static_cast<std::size_t>(k) >= m.layers.size()) return nullptr;
  return &m.layers[static_cast<std::size_t>(k)];
}

}  // namespace

int stack_layer_count(const Memory& m) noexcept {
  return m.layers.empty() ? m.layers_total : static_cast<int>(m.layers.size());
}

int stack_connected_count(const Memory& m) noexcept {
  if (m.layers.empty()) return m.layers_connected;
  return static_cast<int>(std::count_if(m.layers.begin(), m.layers.end(),
                                        [](const DramLayer& l) { return l.connected; }));
}

bool layer_connected(const Memory& m, int k) noexcept {
  if (m.layers.empty()) return k >= 0 && k < m.layers_connected;
  const DramLayer* l = at(m, k);
  return l && l->connected;
}

int layer_link(const Memory& m, int k) noexcept {
  const int n = stack_layer_count(m);
  const int c = std::max(1, stack_connected_count(m));
  if (k < 0 || k >= n) return 0;
  if (m.layers.empty()) return k % c + 1;
  int own = 0, shared = 0;
  for (int i = 0; i < k; ++i) (layer_connected(m, i) ? own : shared)++;
  return layer_connected(m, k) ? own + 1 : shared % c + 1;
}

double layer_thickness_um(const Memory& m, int k) noexcept {
  const DramLayer* l = at(m, k);
  return l && l->thickness_um > 0 ? l->thickness_um : kDramDieThicknessUm;
}

double layer_capacity_GiB(const Memory& m, int k, double uniform_GiB) noexcept {
  const DramLayer* l = at(m, k);
  return l && l->capacity_GiB > 0 ? l->capacity_GiB : uniform_GiB;
}

double layer_pitch_um(const Memory& m, int k) noexcept {
  const DramLayer* l = at(m, k);
  return l && l->pitch_um > 0 ? l->pitch_um : m.vertical.pitch_um;
}

bool uniform_capacity(const Memory& m) noexcept {
  return std::all_of(m.layers.begin(), m.layers.end(),
                     [](const DramLayer& l) { return !(l.capacity_GiB > 0); });
}

bool uniform_thickness(const Memory& m) noexcept {
  return std::all_of(m.layers.begin(), m.layers.end(), [](const DramLayer& l) {
    return !(l.thickness_um > 0) || l.thickness_um == kDramDieThicknessUm;
  });
}

bool uniform_pitch(const Memory& m) noexcept {
  return std::all_of(m.layers.begin(), m.layers.end(), [&](const DramLayer& l) {
    return !(l.pitch_um > 0) || l.pitch_um == m.vertical.pitch_um;
  });
}

bool connected_at_bottom(const Memory& m) noexcept {
  const int c = stack_connected_count(m);
  for (int k = 0; k < stack_layer_count(m); ++k)
    if (layer_connected(m, k) != (k < c)) return false;
  return true;
}

double stack_raw_bytes(const Memory& m, double uniform_layer_bytes) noexcept {
  if (m.layers.empty() || uniform_capacity(m)) return stack_layer_count(m) * uniform_layer_bytes;
  double sum = 0;
  for (const DramLayer& l : m.layers)
    sum += l.capacity_GiB > 0 ? l.capacity_GiB * units::kGiB : uniform_layer_bytes;
  return sum;
}

std::vector<DramLayer> explicit_layers(const Memory& m) {
  if (!m.layers.empty()) return m.layers;
  std::vector<DramLayer> out(static_cast<std::size_t>(std::max(0, m.layers_total)));
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k].connected = static_cast<int>(k) < m.layers_connected;
  return out;
}

void sync_layer_counts(Memory& m) noexcept {
  if (m.layers.empty()) return;
  m.layers_total = stack_layer_count(m);
  m.layers_connected = stack_connected_count(m);
}

}  // namespace stackscope::hw
