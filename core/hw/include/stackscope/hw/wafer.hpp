// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The wafer template (docs/model.md §15.1). The wafer is a grid of
// reticle-limited dies tied by die-to-die (D2D) links into one 2D mesh. Each die's area is
// split between compute, shared SRAM, D2D PHYs, the DRAM interface and the uncore. DRAM is
// either edge-attached (stacks on the wafer beside the die, taking wafer area) or stacked on
// the die, or absent (SRAM only). Spare dies stand in for defective ones, so the dies an
// instance may use are the grid minus the spares.
//
// The die itself is a hw::Hardware built from a technology device: die_hardware() keeps that
// device's per-core rates, energies, timings and NoC, and sets what the wafer decides: cores,
// shared SRAM, die area, DRAM capacity, bandwidth and latency, PHY areas and the power limit.
// The wafer's D2D mesh is a hw::System with one mesh2d level (wafer_system()). perf, network
// and serving then see an ordinary device and system.
//
// Units are in the field names (mm, mm², GB = 1e9 B, GB/s = 1e9 B/s, ns, pJ/bit, W).
// Where each default comes from is stated at the field.
#include <string>
#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/hw/hardware.hpp"

namespace stackscope::hw {

enum class WaferDram {
  none,     // SRAM only (Cerebras WSE-3)
  edge,     // DRAM stacks beside the die on the wafer: wafer area per GB
  stacked,  // DRAM stacked on the die: no wafer area, only its interface on the die
};

struct Wafer {
  std::string id;
  std::string name;
  std::string source;

  // --- geometry ---
  // The square region of the wafer the die grid may cover. Cerebras WSE-3: 46,225 mm² =
  // 215 x 215 mm, the largest square cut from a 300 mm wafer (Cerebras WSE-3 figures, March 2024).
  double usable_area_mm2 = 46225;
  // One die. At most the 26 x 33 mm lithography field (reticle), because a die is one exposure.
  double die_width_mm = 26;
  double die_height_mm = 33;
  // Die grid. 0 = as many as fit the usable square: columns of tile width = die width plus
  // the edge DRAM strip (dram_footprint / die height), rows of die height.
  int dies_x = 0;
  int dies_y = 0;
  // Dies held back for yield repair: they serve no instance, but their routers and links stay
  // in the mesh. The spares are the last dies in row-major order.
  int spare_dies = 0;
  // Poisson die yield exp(-A D0) with A the die area in cm². TSMC N5's reported defect
  // density was about 0.1 per cm² in 2020 (TSMC Technology Symposium 2020, as reported by
  // AnandTech, "TSMC: 5nm defect density").
  double defect_density_per_cm2 = 0.1;

  // --- die area split, as fractions of the die area ---
  // The rest after D2D and DRAM PHYs is the uncore (the technology device's area.other_mm2,
  // which must fit too).
  double compute_fraction = 0.5;  // cores, with their own SRAM (technology area_per_core_mm2)
  double sram_fraction = 0.1;     // shared SRAM (technology area.sram_mm2_per_MiB)

  // --- die-to-die links (one per neighbour and direction) ---
  double d2d_GBps = 1000;  // per link and direction
  // PHY shoreline bandwidth per direction: UCIe 2.5D reaches 1.3 TB/s per mm of die edge
  // for both directions together (Das Sharma, IEEE Hot Interconnects 2025), so 650 GB/s per
  // direction. A link of d2d_GBps needs d2d_GBps / this many mm of the die's edge on that side.
  double d2d_shoreline_GBps_per_mm = 650;
  // Depth of the PHY strip behind the shoreline. This is an estimate: a UCIe module is about
  // 1 mm deep including the adapter.
  double d2d_phy_depth_mm = 1.0;
  // Per hop: UCIe PHY + adapter entry and exit are under 1 ns each way (Das Sharma 2025); the
  // rest is an estimate of the die's router (~20 cycles at 1 GHz).
  double d2d_hop_latency_ns = 20;
  // Per message: starting a DMA transfer (descriptor fetch, doorbell). An estimate.
  double d2d_message_latency_us = 1.0;
  double d2d_pJ_per_bit = 0.3;  // UCIe 2.5D above 16 GT/s (Das Sharma 2025)
  double d2d_efficiency = 0.9;  // achievable fraction of line rate (flit framing, CRC)

  // --- DRAM per die ---
  WaferDram dram = WaferDram::edge;
  double dram_GB = 48;           // capacity per die
  double dram_GBps = 900;        // bandwidth per die (public 5 x 4 wafer simulator config)
  double dram_latency_ns = 100;  // load-to-use (the same config: 0.1 us)
  double dram_pJ_per_bit = 3.9;  // HBM-class DRAM core + I/O (O'Connor et al., MICRO 2017)
  // Wafer area an edge DRAM stack takes per GB: an HBM3 stack's 11 x 11 mm footprint holds
  // 24 GB (12-high x 16 Gb; JEDEC JESD238 package outline) = 121 / 24 mm² per GB.
  double dram_footprint_mm2_per_GB = 121.0 / 24.0;
  // Die area of the DRAM interface per TB/s: one HBM3 PHY is about 11 mm² for 819 GB/s
  // (hw::Area::memory_phy_mm2 default; JESD238 6.4 Gb/s x 1024 bits).
  double dram_phy_mm2_per_TBps = 11.0 / 0.819;

  // --- power ---
  // What the wafer's power delivery can bring to one die. An estimate: Tesla's Dojo training
  // tile brings 15 kW to 25 dies (Hot Chips 34, 2022), i.e. 600 W per die.
  double power_limit_W_per_die = 600;
  // Heat the cooling removes per mm² of tile (die + its DRAM). Cerebras CS-3 cools a ~15 kW
  // wafer of 46,225 mm² (~0.33 W/mm²); Dojo's tile ~15 kW over 25 x 645 mm² (~0.93 W/mm²).
  double cooling_W_per_mm2 = 0.6;

  bool operator==(const Wafer&) const = default;
};

// The reticle field (ASML/ITRS 26 x 33 mm).
inline constexpr double kReticleWidthMm = 26;
inline constexpr double kReticleHeightMm = 33;
// The whole of a 300 mm wafer (SEMI M1: 300 mm diameter), pi x 150² mm²: no usable area is
// larger.
inline constexpr double kMaxUsableAreaMm2 = 3.141592653589793 * 150 * 150;
// Dies of one grid: the serving and placement searches grow with them (WSE-3 has 84).
inline constexpr int kMaxWaferDies = 1024;
// Power delivery per die: from a small chiplet to ten times an H100 SXM's 700 W board power.
inline constexpr double kMinDiePowerW = 1;
inline constexpr double kMaxDiePowerW = 10'000;
// Heat removal per mm²: 0.01 (passive) to 10 W/mm² (beyond the ~1 W/mm² of the water-cooled
// wafers above and the few W/mm² of microfluidic cooling demonstrations, e.g. van Erp et al.,
// Nature 585, 2020: 17 W/mm² on hot spots).
inline constexpr double kMinCoolingWPerMm2 = 0.01;
inline constexpr double kMaxCoolingWPerMm2 = 10;
// Die yield below which a wafer is refused: one working die in a thousand. (A reticle-sized
// 858 mm² die yields 42 % at 0.1 defects per cm²; this floor needs 8 per cm².)
inline constexpr double kMinDieYield = 1e-3;

// What a wafer's numbers come to. Every area is per die unless named otherwise.
struct WaferLayout {
  int dies_x = 0, dies_y = 0;
  int dies = 0;         // dies_x x dies_y
  int usable_dies = 0;  // dies - spare_dies
  double die_mm2 = 0;
  double tile_width_mm = 0, tile_height_mm = 0;  // die + its edge DRAM strip
  double tile_mm2 = 0;
  double grid_mm2 = 0;  // dies x tile area: at most usable_area_mm2
  // Blocks of one die (sum <= die_mm2 when it fits).
  int cores = 0;
  double compute_mm2 = 0, sram_mm2 = 0, d2d_phy_mm2 = 0, dram_phy_mm2 = 0, other_mm2 = 0;
  double free_mm2 = 0;  // die area left (negative: over budget)
  double shared_sram_MiB = 0;
  double d2d_shoreline_mm = 0;    // per side
  double dram_footprint_mm2 = 0;  // wafer area of the die's edge DRAM
  // Yield: die yield, the chance that at most spare_dies dies are defective, expected good dies.
  double die_yield = 1, wafer_yield = 1, expected_good_dies = 0;
  double tdp_W_per_die = 0;  // min(power limit, cooling x tile area)
  // Totals over the usable dies.
  double peak_fp16_PFLOPS = 0, dram_TB = 0, sram_GB = 0;
  std::vector<Issue> issues;  // empty = the wafer is physical
};

// The layout of `wafer` with dies of `technology`. Issues are at "<root>/<field>": the die
// above the reticle, fractions out of [0, 1] or over 1 together, blocks over the die area,
// a D2D shoreline longer than the die edge, the grid over the usable area, spares >= dies,
// non-positive rates, the area off a 300 mm wafer, more than kMaxWaferDies dies, power and
// cooling out of their ranges, a die yield under kMinDieYield. Never throws.
WaferLayout wafer_layout(const Wafer& wafer, const Hardware& technology,
                         const std::string& root = "/wafer");

// The die as a device: `technology` with the wafer's cores, SRAM, DRAM and power limit set. The
// result does not depend on what technology held for those fields, so die_hardware(w,
// die_hardware(w, t)) == die_hardware(w, t). `technology.id` is kept and the name says
// "<wafer name> die".
Hardware die_hardware(const Wafer& wafer, const Hardware& technology);

// The D2D mesh of the whole grid: dies_x x dies_y devices, one mesh2d level of the D2D links.
System wafer_system(const Wafer& wafer, const WaferLayout& layout);
// A rectangular region of w x h dies as its own system (an instance's collectives stay inside
// its rectangle under dimension-order routing).
System region_system(const Wafer& wafer, int w, int h);
// The D2D mesh level of the wafer (size w x h).
NetworkLevel d2d_level(const Wafer& wafer, int w, int h);

// The die and the D2D mesh in place of `hardware` and `system` (hardware is the technology, or
// an earlier die of the same technology: die_hardware() is idempotent). A wafer that is not
// physical still gets its device and system; wafer_layout() holds the issues.
void apply_wafer(const Wafer& wafer, Hardware& hardware, System& system);

// Binomial tail: the chance that at most `spares` of `dies` dies are defective, each with
// probability 1 - die_yield.
double wafer_yield(int dies, int spares, double die_yield);

}  // namespace stackscope::hw
