// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/power_area/area.hpp"

#include <algorithm>
#include <cmath>

#include "stackscope/common/units.hpp"

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
    const double channels =
        static_cast<double>(m.stacks) * m.layers_connected * m.channels_per_layer;
    const double channel_bps = m.bytes_per_transfer * units::kBitsPerByte * m.transfers_per_clock *
                               m.clock_MHz * units::kMega;
    const double link_bps = std::max(1e-9, m.vertical.gbps_per_link) * units::kGiga;
    const double data_links = channels * channel_bps / link_bps;
    // Every layer draws its supply through the logic die, connected or not.
    a.supply_links = std::max(0.0, m.vertical.supply_links_per_layer) * m.stacks * m.layers_total;
    a.vertical_links =
        data_links / std::clamp(m.vertical.signal_fraction, 1e-6, 1.0) + a.supply_links;
    // Hybrid bonds occupy one pitch^2 cell each; a TSV blocks its keep-out zone.
    const double cell_um2 =
        m.vertical.kind == hw::VerticalLinkKind::hybrid_bond
            ? m.vertical.pitch_um * m.vertical.pitch_um
            : std::max(m.vertical.keepout_um2, m.vertical.pitch_um * m.vertical.pitch_um);
    a.vertical_mm2 = a.vertical_links * cell_um2 * 1e-6;
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
