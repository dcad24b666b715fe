// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/hw/wafer.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "stackscope/hw/derived.hpp"

namespace stackscope::hw {
namespace {

std::string num(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

// HBM3 organisation of the die's DRAM: 32 pseudo-channels of 32 bits, DDR (JESD238). The clock
// is set so that the peak is dram_GBps.
constexpr int kDramChannels = 32;

double dram_footprint(const Wafer& w) {
  return w.dram == WaferDram::edge ? w.dram_GB * w.dram_footprint_mm2_per_GB : 0.0;
}

}  // namespace

double wafer_yield(int dies, int spares, double die_yield) {
  if (dies <= 0) return 1.0;
  const double p = std::clamp(1.0 - die_yield, 0.0, 1.0);
  if (p == 0) return 1.0;
  if (p == 1) return spares >= dies ? 1.0 : 0.0;
  // sum_{k<=spares} C(n,k) p^k (1-p)^(n-k), in logs to stay finite for large n.
  double sum = 0;
  const int top = std::min(spares, dies);
  for (int k = 0; k <= top; ++k) {
    const double log_term = std::lgamma(dies + 1.0) - std::lgamma(k + 1.0) -
                            std::lgamma(dies - k + 1.0) + k * std::log(p) +
                            (dies - k) * std::log1p(-p);
    sum += std::exp(log_term);
  }
  return std::min(1.0, sum);
}

WaferLayout wafer_layout(const Wafer& w, const Hardware& t, const std::string& root) {
  WaferLayout l;
  auto bad = [&](const std::string& key, const std::string& message, double value,
                 const std::string& allowed) {
    l.issues.push_back({root + "/" + key, message, num(value), allowed});
  };
  auto positive = [&](const std::string& key, double v) {
    if (!(v > 0) || !std::isfinite(v)) bad(key, "must be a positive number", v, "> 0");
  };
  auto within = [&](const std::string& key, double v, double lo, double hi,
                    const std::string& unit) {
    if (!(v >= lo && v <= hi))
      bad(key, "out of range", v, num(lo) + " .. " + num(hi) + " " + unit);
  };
  if (!(w.usable_area_mm2 > 0) || !(w.usable_area_mm2 <= kMaxUsableAreaMm2))
    bad("usable_area_mm2", "the usable area must lie on one 300 mm wafer", w.usable_area_mm2,
        "(0, " + num(kMaxUsableAreaMm2) + "] mm² (pi x 150²)");
  positive("d2d_GBps", w.d2d_GBps);
  positive("d2d_shoreline_GBps_per_mm", w.d2d_shoreline_GBps_per_mm);
  within("power_limit_W_per_die", w.power_limit_W_per_die, kMinDiePowerW, kMaxDiePowerW, "W");
  within("cooling_W_per_mm2", w.cooling_W_per_mm2, kMinCoolingWPerMm2, kMaxCoolingWPerMm2,
         "W/mm²");
  if (!(w.die_width_mm > 0) || w.die_width_mm > kReticleWidthMm)
    bad("die_width_mm", "a die is one exposure: its width must lie within the reticle field",
        w.die_width_mm, "(0, 26] mm");
  if (!(w.die_height_mm > 0) || w.die_height_mm > kReticleHeightMm)
    bad("die_height_mm", "a die is one exposure: its height must lie within the reticle field",
        w.die_height_mm, "(0, 33] mm");
  for (auto [key, v] : {std::pair{"compute_fraction", w.compute_fraction},
                        std::pair{"sram_fraction", w.sram_fraction}})
    if (!(v >= 0 && v <= 1)) bad(key, "an area fraction must lie in [0, 1]", v, "[0, 1]");
  if (!(w.d2d_efficiency > 0 && w.d2d_efficiency <= 1))
    bad("d2d_efficiency", "must be a fraction of line rate", w.d2d_efficiency, "(0, 1]");
  for (auto [key, v] : {std::pair{"d2d_phy_depth_mm", w.d2d_phy_depth_mm},
                        std::pair{"d2d_hop_latency_ns", w.d2d_hop_latency_ns},
                        std::pair{"d2d_message_latency_us", w.d2d_message_latency_us},
                        std::pair{"d2d_pJ_per_bit", w.d2d_pJ_per_bit},
                        std::pair{"defect_density_per_cm2", w.defect_density_per_cm2},
                        std::pair{"dram_footprint_mm2_per_GB", w.dram_footprint_mm2_per_GB},
                        std::pair{"dram_phy_mm2_per_TBps", w.dram_phy_mm2_per_TBps},
                        std::pair{"dram_pJ_per_bit", w.dram_pJ_per_bit}})
    if (!(v >= 0) || !std::isfinite(v)) bad(key, "must be a finite number >= 0", v, ">= 0");
  if (w.dram != WaferDram::none) {
    positive("dram_GB", w.dram_GB);
    positive("dram_GBps", w.dram_GBps);
    positive("dram_latency_ns", w.dram_latency_ns);
  }
  if (w.dies_x < 0 || w.dies_x > 1024)
    bad("dies_x", "die columns out of range (0 = as many as fit)", w.dies_x, "0..1024");
  if (w.dies_y < 0 || w.dies_y > 1024)
    bad("dies_y", "die rows out of range (0 = as many as fit)", w.dies_y, "0..1024");
  if (!l.issues.empty()) return l;

  l.die_mm2 = w.die_width_mm * w.die_height_mm;
  l.dram_footprint_mm2 = dram_footprint(w);
  // Edge DRAM sits in a strip beside the die along its height, so it widens the tile.
  l.tile_width_mm = w.die_width_mm + l.dram_footprint_mm2 / w.die_height_mm;
  l.tile_height_mm = w.die_height_mm;
  l.tile_mm2 = l.tile_width_mm * l.tile_height_mm;
  const double side = std::sqrt(w.usable_area_mm2);
  // In doubles first: tiny dies on a large area would overflow an int.
  const double fit_xd = std::floor(side / l.tile_width_mm + 1e-9);
  const double fit_yd = std::floor(side / l.tile_height_mm + 1e-9);
  const double grid = (w.dies_x > 0 ? w.dies_x : fit_xd) * (w.dies_y > 0 ? w.dies_y : fit_yd);
  if (grid > kMaxWaferDies) {
    const bool automatic = w.dies_x == 0 || w.dies_y == 0;
    bad(w.dies_x == 0 ? "dies_x" : "dies_y",
        std::string(automatic ? "the automatic grid (dies_x or dies_y 0) of " : "the grid of ") +
            num(grid) + " dies is too large to simulate",
        grid,
        "at most " + std::to_string(kMaxWaferDies) +
            " dies: give dies_x and dies_y, or larger dies");
    return l;
  }
  const int fit_x = static_cast<int>(std::min(fit_xd, double{kMaxWaferDies}));
  const int fit_y = static_cast<int>(std::min(fit_yd, double{kMaxWaferDies}));
  l.dies_x = w.dies_x > 0 ? w.dies_x : fit_x;
  l.dies_y = w.dies_y > 0 ? w.dies_y : fit_y;
  l.dies = l.dies_x * l.dies_y;
  l.grid_mm2 = l.dies * l.tile_mm2;
  if (l.dies < 1)
    bad("dram_GB", "not one die and its DRAM fit the usable wafer area", w.dram_GB,
        "a tile of at most " + num(side) + " x " + num(side) + " mm");
  else if (l.dies_x > fit_x || l.dies_y > fit_y)
    bad(w.dies_x > fit_x ? "dies_x" : "dies_y",
        "the die grid " + std::to_string(l.dies_x) + " x " + std::to_string(l.dies_y) + " of " +
            num(l.tile_width_mm) + " x " + num(l.tile_height_mm) +
            " mm tiles (die + edge DRAM) does not fit the usable " + num(side) + " x " + num(side) +
            " mm square",
        w.dies_x > fit_x ? w.dies_x : w.dies_y,
        "at most " + std::to_string(fit_x) + " x " + std::to_string(fit_y) + " dies");
  if (w.spare_dies < 0 || (l.dies > 0 && w.spare_dies >= l.dies))
    bad("spare_dies", "spares must leave at least one die to serve", w.spare_dies,
        "0.." + std::to_string(std::max(0, l.dies - 1)));
  l.usable_dies = std::max(0, l.dies - std::max(0, w.spare_dies));

  // The die's blocks.
  l.compute_mm2 = w.compute_fraction * l.die_mm2;
  l.cores = t.compute.area_per_core_mm2 > 0
                ? static_cast<int>(std::floor(l.compute_mm2 / t.compute.area_per_core_mm2 + 1e-9))
                : 0;
  l.sram_mm2 = w.sram_fraction * l.die_mm2;
  l.shared_sram_MiB = t.area.sram_mm2_per_MiB > 0 ? l.sram_mm2 / t.area.sram_mm2_per_MiB : 0;
  l.d2d_shoreline_mm = w.d2d_GBps / w.d2d_shoreline_GBps_per_mm;
  // Four sides, one link each. A mm of edge carries d2d_shoreline_GBps_per_mm out and as much
  // in (UCIe modules put TX and RX lanes side by side), so a side needs d2d_GBps / density mm.
  l.d2d_phy_mm2 = 4 * l.d2d_shoreline_mm * w.d2d_phy_depth_mm;
  l.dram_phy_mm2 = w.dram == WaferDram::none ? 0.0 : w.dram_GBps / 1000 * w.dram_phy_mm2_per_TBps;
  l.other_mm2 = t.area.other_mm2;
  l.free_mm2 = l.die_mm2 - (l.cores * t.compute.area_per_core_mm2 + l.sram_mm2 + l.d2d_phy_mm2 +
                            l.dram_phy_mm2 + l.other_mm2);
  if (l.cores < 1)
    bad("compute_fraction", "the compute area holds no core of the technology device",
        w.compute_fraction, ">= " + num(t.compute.area_per_core_mm2 / l.die_mm2) + " (one core)");
  if (l.free_mm2 < -1e-9)
    bad("compute_fraction",
        "the die's blocks need " + num(l.die_mm2 - l.free_mm2) + " mm² of its " + num(l.die_mm2) +
            " mm² (compute " + num(l.cores * t.compute.area_per_core_mm2) + ", SRAM " +
            num(l.sram_mm2) + ", D2D PHYs " + num(l.d2d_phy_mm2) + ", DRAM PHY " +
            num(l.dram_phy_mm2) + ", uncore " + num(l.other_mm2) + ")",
        w.compute_fraction, "fractions and PHYs that fit the die");
  const double short_side = std::min(w.die_width_mm, w.die_height_mm);
  if (l.d2d_shoreline_mm > short_side)
    bad("d2d_GBps",
        "a link of this bandwidth needs " + num(l.d2d_shoreline_mm) +
            " mm of die edge per side; the die's shorter side is " + num(short_side) + " mm",
        w.d2d_GBps, "<= " + num(short_side * w.d2d_shoreline_GBps_per_mm) + " GB/s");

  // Yield: Poisson per die (A in cm²), binomial over the grid with the spares.
  l.die_yield = std::exp(-l.die_mm2 / 100.0 * w.defect_density_per_cm2);
  l.wafer_yield = wafer_yield(l.dies, std::max(0, w.spare_dies), l.die_yield);
  l.expected_good_dies = l.dies * l.die_yield;
  // Dies of which almost none works (a 0 % yield): every figure of such a wafer would describe
  // a machine that is never built. Below kMinDieYield it is refused; above, the wafer yield is
  // reported with its figures.
  if (l.die_yield < kMinDieYield)
    bad("defect_density_per_cm2",
        "the die yield exp(-area x defect density) is " + num(100 * l.die_yield) +
            " %: almost no die of this size works",
        w.defect_density_per_cm2,
        "a defect density and die size giving a die yield of at least " +
            num(100 * kMinDieYield) + " %");
  l.tdp_W_per_die = std::min(w.power_limit_W_per_die, w.cooling_W_per_mm2 * l.tile_mm2);

  const Hardware die = die_hardware(w, t);
  l.peak_fp16_PFLOPS = l.usable_dies * matrix_peak_flops(die.compute, Precision::fp16) / 1e15;
  l.dram_TB = w.dram == WaferDram::none ? 0.0 : l.usable_dies * w.dram_GB / 1000;
  l.sram_GB = l.usable_dies * total_sram_bytes(die.compute) / 1e9;
  return l;
}

Hardware die_hardware(const Wafer& w, const Hardware& t) {
  Hardware h = t;
  const double die_mm2 = w.die_width_mm * w.die_height_mm;
  h.name = (w.name.empty() ? std::string("wafer") : w.name) + " die";
  h.compute.die_area_mm2 = die_mm2;
  h.compute.cores =
      t.compute.area_per_core_mm2 > 0
          ? std::max(1, static_cast<int>(std::floor(
                            w.compute_fraction * die_mm2 / t.compute.area_per_core_mm2 + 1e-9)))
          : t.compute.cores;
  h.compute.shared_buffer_MiB =
      t.area.sram_mm2_per_MiB > 0 ? w.sram_fraction * die_mm2 / t.area.sram_mm2_per_MiB : 0;
  h.area.io_phy_mm2 = 4 * (w.d2d_GBps / w.d2d_shoreline_GBps_per_mm) * w.d2d_phy_depth_mm;
  h.area.reticle_mm2 = kReticleWidthMm * kReticleHeightMm;
  h.area.fit_cores = false;
  Memory& m = h.memory;
  if (w.dram == WaferDram::none) {
    m.kind = MemoryKind::sram_only;
    m.stacks = 0;
    m.layers_total = 0;
    m.layers_connected = 0;
    m.channels_per_layer = 0;
    m.capacity_per_layer_GiB = 0;
    m.energy_pJ_per_bit = 0;
    h.area.memory_phy_mm2 = 0;
  } else {
    // One HBM-like interface of kDramChannels channels whose clock gives dram_GBps, holding
    // dram_GB; edge and stacked DRAM are costed alike once on the die (their difference is the
    // wafer area and is in wafer_layout()).
    m.kind = MemoryKind::hbm;
    m.stacks = 1;
    m.layers_total = 1;
    m.layers_connected = 1;
    m.channels_per_layer = kDramChannels;
    const double per_clock = kDramChannels * m.bytes_per_transfer * m.transfers_per_clock;
    m.clock_MHz = per_clock > 0 ? w.dram_GBps * 1e9 / per_clock / 1e6 : 0;
    m.capacity_per_layer_GiB = w.dram_GB * 1e9 / (1024.0 * 1024.0 * 1024.0);
    m.bit_density_Gb_per_mm2 = 0;
    m.reserved_GiB = 0;
    m.round_trip_latency_ns = w.dram_latency_ns;
    m.energy_pJ_per_bit = w.dram_pJ_per_bit;
    h.area.memory_phy_mm2 = w.dram_GBps / 1000 * w.dram_phy_mm2_per_TBps;
  }
  // Power: what delivery and cooling allow; static power in proportion to the die area.
  const double tile_mm2 = die_mm2 + dram_footprint(w);
  const double tdp = std::min(w.power_limit_W_per_die, w.cooling_W_per_mm2 * tile_mm2);
  h.energy.tdp_W = tdp;
  // The technology's static share of its TDP, kept (idempotent: the share is static/tdp).
  if (t.energy.tdp_W > 0) h.energy.static_power_W = t.energy.static_power_W / t.energy.tdp_W * tdp;
  return h;
}

NetworkLevel d2d_level(const Wafer& w, int x, int y) {
  NetworkLevel l;
  l.name = "die-to-die mesh";
  l.topology = Topology::mesh2d;
  l.size = x * y;
  l.dims_x = x;
  l.dims_y = y;
  l.link_GBps = w.d2d_GBps;
  l.latency_us = w.d2d_message_latency_us;
  l.hop_latency_ns = w.d2d_hop_latency_ns;
  l.efficiency = w.d2d_efficiency;
  l.energy_pJ_per_bit = w.d2d_pJ_per_bit;
  l.in_network_reduction = false;
  return l;
}

System wafer_system(const Wafer& w, const WaferLayout& layout) {
  System s;
  s.id = w.id.empty() ? "wafer" : w.id;
  s.name = (w.name.empty() ? std::string("wafer") : w.name) + " (" + std::to_string(layout.dies_x) +
           " x " + std::to_string(layout.dies_y) + " dies)";
  s.devices = std::max(1, layout.dies);
  if (s.devices > 1) s.levels = {d2d_level(w, layout.dies_x, layout.dies_y)};
  return s;
}

System region_system(const Wafer& w, int x, int y) {
  System s;
  s.id = "wafer-region";
  s.name = std::to_string(x) + " x " + std::to_string(y) + " dies";
  s.devices = std::max(1, x * y);
  if (s.devices > 1) s.levels = {d2d_level(w, x, y)};
  return s;
}

void apply_wafer(const Wafer& w, Hardware& hardware, System& system) {
  const WaferLayout layout = wafer_layout(w, hardware);
  hardware = die_hardware(w, hardware);
  system = wafer_system(w, layout);
  system.hardware = hardware.id;
}

}  // namespace stackscope::hw
