// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/power_area/area.hpp"

#include <algorithm>
#include <cmath>

#include "stackscope/common/units.hpp"
#include "stackscope/hw/stack_layers.hpp"

namespace stackscope::power_area {

AreaBreakdown area(const hw::Hardware& h) noexcept {
  AreaBreakdown a;
  const auto& c = h.compute;
  const auto& m = h.memory;
  a.shared_sram_mm2 = c.shared_buffer_MiB * h.area.sram_mm2_per_MiB;
  a.noc_mm2 =
      (h.noc.mesh_x * h.noc.mesh_y > 1) ? h.noc.mesh_x * h.noc.mesh_y * h.area.router_mm2 : 0.0;
  a.phy_mm2 = h.area.io_phy_mm2;
  if (m.kind == hw::MemoryKind::hbm) a.phy_mm2 += m.stacks * h.area.memory_phy_mm2;
  a.other_mm2 = h.area.other_mm2;
  a.die_mm2 = c.die_area_mm2;
  a.reticle_mm2 = h.area.reticle_mm2;

  const double layer_bytes = m.capacity_per_layer_GiB * units::kGiB;
  a.dram_layer_capacity_bytes = layer_bytes;
  if (m.kind == hw::MemoryKind::stacked_3d) {
    // Data links to carry every connected channel at its pin rate, plus supply/ground/spare
    // links: data = bits per transfer x transfer rate / link rate; all = data / signal share.
    const int layers = hw::stack_layer_count(m);
    const int connected = hw::stack_connected_count(m);
    const double channels = static_cast<double>(m.stacks) * connected * m.channels_per_layer;
    const double channel_bps = m.bytes_per_transfer * units::kBitsPerByte * m.transfers_per_clock *
                               m.clock_MHz * units::kMega;
    const double link_bps = std::max(1e-9, m.vertical.gbps_per_link) * units::kGiga;
    const double data_links = channels * channel_bps / link_bps;
    // Every layer draws its supply through the logic die, connected or not.
    a.supply_links = std::max(0.0, m.vertical.supply_links_per_layer) * m.stacks * layers;
    const double signal_links = data_links / std::clamp(m.vertical.signal_fraction, 1e-6, 1.0);
    a.vertical_links = signal_links + a.supply_links;
    // Hybrid bonds occupy one pitch^2 cell each; a TSV blocks its keep-out zone.
    const auto cell_um2 = [&](double pitch_um) {
      return m.vertical.kind == hw::VerticalLinkKind::hybrid_bond
                 ? pitch_um * pitch_um
                 : std::max(m.vertical.keepout_um2, pitch_um * pitch_um);
    };
    if (hw::uniform_pitch(m)) {
      a.vertical_mm2 = a.vertical_links * cell_um2(m.vertical.pitch_um) * 1e-6;
    } else {
      // Per-layer pitch (docs/model.md §4.8): a connected die's links (an equal share of the
      // signal links) and every die's supply links are laid out at that die's pitch.
      const double own = connected > 0 ? signal_links / connected : 0.0;
      const double supply = a.supply_links / std::max(1, layers);
      double um2 = 0;
      for (int k = 0; k < layers; ++k)
        um2 +=
            ((hw::layer_connected(m, k) ? own : 0.0) + supply) * cell_um2(hw::layer_pitch_um(m, k));
      a.vertical_mm2 = um2 * 1e-6;
    }
    if (m.bit_density_Gb_per_mm2 > 0) {
      // The DRAM layer has the logic die's footprint; the vertical field is lost to it too.
      const double dram_mm2 = std::max(0.0, a.die_mm2 - a.vertical_mm2);
      a.dram_layer_capacity_bytes =
          m.bit_density_Gb_per_mm2 * units::kGiga * dram_mm2 / units::kBitsPerByte;
    }
  }
  a.cores = c.cores;
  if (h.area.fit_cores && c.area_per_core_mm2 > 0) {
    // The largest whole number of cores in the area the rest of the die leaves (DeepStack's
    // max SM count per design point), capped by compute.cores; at least one.
    const double left =
        a.die_mm2 - (a.shared_sram_mm2 + a.noc_mm2 + a.phy_mm2 + a.vertical_mm2 + a.other_mm2);
    const double fit = std::floor(left / c.area_per_core_mm2 * (1 + 1e-12));
    a.cores = fit >= c.cores ? c.cores : std::max(1, static_cast<int>(std::max(0.0, fit)));
  }
  a.cores_mm2 = a.cores * c.area_per_core_mm2;
  return a;
}

int cores_on_die(const hw::Hardware& h) noexcept {
  return area(h).cores;
}

}  // namespace stackscope::power_area
