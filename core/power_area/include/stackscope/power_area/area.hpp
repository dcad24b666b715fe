// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Die area (docs/model.md §13.3): cores (with their SRAM) + shared SRAM + NoC routers + PHYs +
// vertical-link keep-out + uncore must fit the die, and the die the reticle. For 3D-stacked
// DRAM the vertical field holds the data links of every connected layer (enough to carry its
// peak bandwidth, plus the non-data share 1 - signal_fraction) and the supply links of every
// layer of the stack; with Area::fit_cores the cores are what the area left holds (DeepStack's
// area model), so a taller or more connected stack leaves fewer cores. A DRAM layer's capacity
// follows from its bit density over the area the vertical field leaves. Pure; mm^2 and bytes.
#include "stackscope/hw/hardware.hpp"

namespace stackscope::power_area {

struct AreaBreakdown {
  // Cores on the die: compute.cores, or with Area::fit_cores the most that fit (at least 1, so
  // a die with no room for one core is reported over its area).
  int cores = 0;
  double cores_mm2 = 0;
  double shared_sram_mm2 = 0;
  double noc_mm2 = 0;
  double phy_mm2 = 0;
  double vertical_mm2 = 0;  // hybrid-bond / TSV field (stacked_3d)
  double other_mm2 = 0;
  double vertical_links = 0;  // data + non-data + supply links of the vertical field
  double supply_links = 0;    // of which supply links (supply_links_per_layer x layers)
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

// The cores a device computes with: area(hw).cores.
int cores_on_die(const hw::Hardware& hw) noexcept;

}  // namespace stackscope::power_area
