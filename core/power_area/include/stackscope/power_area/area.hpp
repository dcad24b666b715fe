// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Die area (MODEL.md §8): cores (with their SRAM) + shared SRAM + NoC routers + PHYs +
// vertical-link keep-out + uncore must fit the die, and the die the reticle. For 3D-stacked
// DRAM the vertical links needed to carry the peak bandwidth set the keep-out field, and a DRAM
// layer's capacity follows from its bit density over the area left. Pure; mm^2 and bytes.
#include "stackscope/hw/hardware.hpp"

namespace stackscope::power_area {

struct AreaBreakdown {
  double cores_mm2 = 0;
  double shared_sram_mm2 = 0;
  double noc_mm2 = 0;
  double phy_mm2 = 0;
  double vertical_mm2 = 0;  // hybrid-bond / TSV field (stacked_3d)
  double other_mm2 = 0;
  double vertical_links = 0;  // signal + supply links of the vertical field
  double used_mm2() const {
    return cores_mm2 + shared_sram_mm2 + noc_mm2 + phy_mm2 + vertical_mm2 + other_mm2;
  }
  double die_mm2 = 0;
  double reticle_mm2 = 0;
  bool fits_die() const { return used_mm2() <= die_mm2 * (1 + 1e-12); }
  bool fits_reticle() const { return die_mm2 <= reticle_mm2 * (1 + 1e-12); }
  // Capacity of one DRAM layer: from bit density when given, else the preset's figure.
  double dram_layer_capacity_bytes = 0;
};

AreaBreakdown area(const hw::Hardware& hw) noexcept;

}  // namespace stackscope::power_area
