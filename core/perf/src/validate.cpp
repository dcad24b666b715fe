// SPDX-License-Identifier: GPL-3.0-or-later
// Semantic validation of a design (see validate.hpp). Paths are JSON pointers into the
// project file written by core/io (keys = member names), so the GUI can show an issue beside
// its field and the CLI can print it.
#include "stackscope/perf/validate.hpp"

#include <map>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "stackscope/common/units.hpp"
#include "stackscope/experts/compare.hpp"
#include "stackscope/hw/stack_layers.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/expert_placement.hpp"
#include "stackscope/perf/limits.hpp"

namespace stackscope::perf {
namespace {

using namespace limits;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string num(int v) {
  return std::to_string(v);
}

// Appends piecewise: GCC 12 reports a -Wrestrict false positive for "'" + s + "'".
std::string quoted(std::string_view s) {
  std::string q;
  q.reserve(s.size() + 2);
  q += '\'';
  q += s;
  q += '\'';
  return q;
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / units::kGiB);
  return buf;
}

class Checker {
 public:
  std::vector<Issue> issues;
  // When set, every range check records its field's allowed range here (field_ranges()).
  std::map<std::string, FieldRange>* ranges = nullptr;

  void record(const std::string& path, FieldRange r) {
    if (ranges) (*ranges)[path] = r;
  }

  void add(std::string path, std::string message, std::string value, std::string allowed) {
    issues.push_back({std::move(path), std::move(message), std::move(value), std::move(allowed)});
  }

  // Sizes and counts: integer >= min, and at most `max` (limits.hpp).
  bool at_least(const std::string& path, int v, int min = 1, std::int64_t max = kMaxInt) {
    record(path, {static_cast<double>(min), static_cast<double>(max), true, false});
    if (v >= min) return at_most(path, v, min, max);
    add(path, min == 1 ? "must be at least 1" : "must be at least " + num(min), num(v),
        "integer >= " + num(min));
    return false;
  }

  bool at_most(const std::string& path, std::int64_t v, std::int64_t min, std::int64_t max) {
    if (v <= max) return true;
    add(path, "must be at most " + std::to_string(max) + ", the largest modelled",
        std::to_string(v), "integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]");
    return false;
  }

  // Rates and sizes: finite and > 0, within [min, max] when a physical bound is given.
  bool positive(const std::string& path, double v, double min = 0, double max = kMaxQuantity) {
    record(path, {min, max, false, !(min > 0)});
    if (!(std::isfinite(v) && v > 0)) {
      add(path, std::isfinite(v) ? "must be positive" : "must be a finite number", num(v),
          "finite number > 0");
      return false;
    }
    const std::string range = min > 0 ? "number in [" + num(min) + ", " + num(max) + "]"
                                      : "number in (0, " + num(max) + "]";
    if (v < min) {
      add(path, "must be at least " + num(min) + " (smaller rates make times overflow)", num(v),
          range);
      return false;
    }
    if (v > max) {
      add(path, "must be at most " + num(max) + ", the largest modelled", num(v), range);
      return false;
    }
    return true;
  }

  bool non_negative(const std::string& path, double v, double max = kMaxQuantity) {
    record(path, {0, max, false, false});
    if (!(std::isfinite(v) && v >= 0)) {
      add(path, std::isfinite(v) ? "must not be negative" : "must be a finite number", num(v),
          "finite number >= 0");
      return false;
    }
    if (v > max) {
      add(path, "must be at most " + num(max) + ", the largest modelled", num(v),
          "number in [0, " + num(max) + "]");
      return false;
    }
    return true;
  }

  // Achieved fractions of a peak: 0 would make times infinite, > 1 would beat the peak.
  bool fraction(const std::string& path, double v) {
    record(path, {kMinFraction, 1, false, false});
    if (!(std::isfinite(v) && v > 0 && v <= 1)) {
      add(path, "must be a fraction in (0, 1]", num(v), "number in (0, 1]");
      return false;
    }
    if (v < kMinFraction) {
      add(path, "must be at least " + num(kMinFraction) + " (0.1 % of the peak)", num(v),
          "number in [" + num(kMinFraction) + ", 1]");
      return false;
    }
    return true;
  }

 private:
  static constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
};

// a x b for non-negative counts, saturating at INT64_MAX (the products compared with limits).
std::int64_t mul_sat(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (a < 0 || b < 0) return -1;
  if (__builtin_mul_overflow(a, b, &r)) return std::numeric_limits<std::int64_t>::max();
  return r;
}

void check_compute(Checker& c, const hw::ComputeDie& d) {
  const std::string p = "/hardware/compute";
  c.at_least(p + "/cores", d.cores, 1, kMaxCores);
  c.positive(p + "/clock_GHz", d.clock_GHz, kMinClockGHz, kMaxClockGHz);
  c.non_negative(p + "/matrix_flops_per_cycle_fp16", d.matrix_flops_per_cycle_fp16, kMaxPerCycle);
  c.non_negative(p + "/matrix_flops_per_cycle_fp8", d.matrix_flops_per_cycle_fp8, kMaxPerCycle);
  c.non_negative(p + "/matrix_flops_per_cycle_fp4", d.matrix_flops_per_cycle_fp4, kMaxPerCycle);
  c.non_negative(p + "/matrix_flops_per_cycle_fp32", d.matrix_flops_per_cycle_fp32, kMaxPerCycle);
  // The vector unit is the fallback for every unsupported matrix precision; below one FLOP per
  // thousand cycles nothing is computed.
  c.positive(p + "/vector_flops_per_cycle", d.vector_flops_per_cycle, 1e-3, kMaxPerCycle);
  c.positive(p + "/sram_per_core_KiB", d.sram_per_core_KiB);
  c.positive(p + "/sram_bw_bytes_per_cycle_per_core", d.sram_bw_bytes_per_cycle_per_core, 1e-3,
             kMaxPerCycle);
  c.non_negative(p + "/shared_buffer_MiB", d.shared_buffer_MiB);
  c.at_least(p + "/mma_tile_m", d.mma_tile_m, 1, kMaxTile);
  c.at_least(p + "/mma_tile_n", d.mma_tile_n, 1, kMaxTile);
  c.at_least(p + "/mma_min_n", d.mma_min_n, 0, kMaxTile);
  c.non_negative(p + "/op_dispatch_ns", d.op_dispatch_ns, kMaxOverheadUs * 1e3);
  c.positive(p + "/area_per_core_mm2", d.area_per_core_mm2);
  c.positive(p + "/die_area_mm2", d.die_area_mm2);
}

void check_runtime(Checker& c, const runtime::Profile& r) {
  const std::string p = "/runtime";
  c.fraction(p + "/matmul_efficiency", r.matmul_efficiency);
  c.fraction(p + "/attention_efficiency", r.attention_efficiency);
  // 0 = matmul_efficiency; otherwise a fraction like it.
  if (r.matmul_efficiency_fp4 != 0)
    c.fraction(p + "/matmul_efficiency_fp4", r.matmul_efficiency_fp4);
  if (!std::isfinite(r.decode_kv_reread_fraction) || r.decode_kv_reread_fraction < 0 ||
      r.decode_kv_reread_fraction > 1)
    c.add(p + "/decode_kv_reread_fraction", "must be a fraction in [0, 1]",
          num(r.decode_kv_reread_fraction), "number in [0, 1]");
  c.non_negative(p + "/kernels_per_op", r.kernels_per_op, kMaxKernelsPerOp);
  c.non_negative(p + "/host_launch_us", r.host_launch_us, kMaxOverheadUs);
  c.non_negative(p + "/eager_launch_us", r.eager_launch_us, kMaxOverheadUs);
  c.non_negative(p + "/kernel_gap_us", r.kernel_gap_us, kMaxOverheadUs);
  c.non_negative(p + "/iteration_overhead_us", r.iteration_overhead_us, kMaxOverheadUs);
  c.non_negative(p + "/request_latency_us", r.request_latency_us, kMaxOverheadUs);
  c.non_negative(p + "/memory_reserved_GiB", r.memory_reserved_GiB);
  c.fraction(p + "/mixed_iteration_efficiency", r.mixed_iteration_efficiency);
  if (c.positive(p + "/elementwise_traffic", r.elementwise_traffic, 0, kMaxKernelsPerOp) &&
      r.elementwise_traffic < 1)
    c.add(p + "/elementwise_traffic", "must be at least 1 (one fused kernel)",
          num(r.elementwise_traffic), "number in [1, " + num(kMaxKernelsPerOp) + "]");
}

// A per-layer stack (hw::Memory::layers, docs/model.md §4.8) is the stack: the uniform counts
// must mirror it, and a zero value takes the uniform one.
void check_layers(Checker& c, const hw::Memory& m, const std::string& p) {
  const std::string l = p + "/layers";
  if (m.layers.empty()) {
    // A uniform stack has no rows yet; an editor adding the first one offers these ranges.
    if (m.kind == hw::MemoryKind::stacked_3d) {
      c.record(l + "/0/thickness_um", {0, kMaxDramDieThicknessUm, false, false});
      c.record(l + "/0/capacity_GiB", {0, kMaxQuantity, false, false});
      c.record(l + "/0/pitch_um", {0, kMaxVerticalPitchUm, false, false});
    }
    return;
  }
  const auto n = static_cast<std::int64_t>(m.layers.size());
  if (m.kind != hw::MemoryKind::stacked_3d) {
    c.add(l, "per-layer stacks describe DRAM stacked on the logic die (kind stacked_3d) only",
          num(static_cast<double>(n)) + " layers", "empty unless kind is stacked_3d");
    return;
  }
  if (n > kMaxMemoryLayers) {
    c.add(l, "more layers than the largest modelled stack", num(static_cast<double>(n)) + " layers",
          "1 to " + num(kMaxMemoryLayers) + " layers");
    return;
  }
  const int connected = hw::stack_connected_count(m);
  if (m.layers_total != n)
    c.add(p + "/layers_total", "must equal the number of entries in layers", num(m.layers_total),
          "integer = " + num(static_cast<double>(n)) + " (the entries of layers)");
  if (connected == 0)
    c.add(l, "at least one layer must be connected (own a vertical link)", "0 connected",
          "at least one entry with connected = true");
  else if (m.layers_connected != connected)
    c.add(p + "/layers_connected", "must equal the number of connected entries in layers",
          num(m.layers_connected),
          "integer = " + num(connected) + " (the entries of layers with connected = true)");
  for (std::size_t k = 0; k < m.layers.size(); ++k) {
    const std::string e = l + "/" + std::to_string(k);
    const hw::DramLayer& d = m.layers[k];
    // 0 = the uniform stack's value.
    c.non_negative(e + "/thickness_um", d.thickness_um, kMaxDramDieThicknessUm);
    c.non_negative(e + "/capacity_GiB", d.capacity_GiB);
    c.non_negative(e + "/pitch_um", d.pitch_um, kMaxVerticalPitchUm);
  }
}

void check_memory(Checker& c, const hw::Memory& m, const std::string& prefix = "/hardware") {
  const std::string p = prefix + "/memory";
  c.non_negative(p + "/reserved_GiB", m.reserved_GiB);
  // SRAM-only devices (wafer-scale) have no DRAM: its fields are unused.
  if (m.kind == hw::MemoryKind::sram_only) return;
  c.at_least(p + "/stacks", m.stacks, 1, kMaxStacks);
  const bool total_ok = c.at_least(p + "/layers_total", m.layers_total, 1, kMaxMemoryLayers);
  if (c.at_least(p + "/layers_connected", m.layers_connected, 1, kMaxMemoryLayers) && total_ok &&
      m.layers_connected > m.layers_total) {
    c.add(p + "/layers_connected", "more connected layers than layers in the stack",
          num(m.layers_connected), "integer in [1, layers_total = " + num(m.layers_total) + "]");
  }
  c.at_least(p + "/channels_per_layer", m.channels_per_layer, 1, kMaxChannels);
  c.at_least(p + "/banks_per_channel", m.banks_per_channel, 1, kMaxBanks);
  // At least one bit per transfer and one transfer per thousand clocks.
  c.positive(p + "/bytes_per_transfer", m.bytes_per_transfer, 0.125, 1 << 20);
  c.positive(p + "/transfers_per_clock", m.transfers_per_clock, 1e-3, 64);
  c.positive(p + "/clock_MHz", m.clock_MHz, kMinMemoryClockMHz, kMaxMemoryClockMHz);
  const bool row_ok = c.positive(p + "/row_bytes", m.row_bytes, 0, 1 << 30);
  if (c.positive(p + "/sector_bytes", m.sector_bytes) && row_ok && m.sector_bytes > m.row_bytes)
    c.add(p + "/sector_bytes", "a sector cannot be larger than a row", num(m.sector_bytes),
          "number in (0, row_bytes = " + num(m.row_bytes) + "]");
  c.positive(p + "/cycles_per_sector", m.cycles_per_sector, 0, 1e6);
  const std::string t = p + "/timing";
  c.positive(t + "/tRCD_ns", m.timing.tRCD_ns, 0, kMaxTimingNs);
  c.positive(t + "/tRP_ns", m.timing.tRP_ns, 0, kMaxTimingNs);
  c.positive(t + "/tRAS_ns", m.timing.tRAS_ns, 0, kMaxTimingNs);
  c.positive(t + "/tFAW_ns", m.timing.tFAW_ns, 0, kMaxTimingNs);
  c.positive(t + "/tRRD_ns", m.timing.tRRD_ns, 0, kMaxTimingNs);
  const bool refi_ok = c.positive(t + "/tREFI_ns", m.timing.tREFI_ns, 0, kMaxTimingNs);
  // Refresh overhead is tRFC/tREFI; at >= 1 the device would do nothing but refresh.
  if (c.non_negative(t + "/tRFC_ns", m.timing.tRFC_ns, kMaxTimingNs) && refi_ok &&
      m.timing.tRFC_ns >= m.timing.tREFI_ns)
    c.add(t + "/tRFC_ns", "refresh would take the whole refresh interval", num(m.timing.tRFC_ns),
          "number in [0, tREFI_ns = " + num(m.timing.tREFI_ns) + ")");
  c.non_negative(t + "/tWTR_ns", m.timing.tWTR_ns, kMaxTimingNs);
  c.non_negative(t + "/tCCD_ns", m.timing.tCCD_ns, kMaxTimingNs);
  c.positive(p + "/capacity_per_layer_GiB", m.capacity_per_layer_GiB);
  c.non_negative(p + "/bit_density_Gb_per_mm2", m.bit_density_Gb_per_mm2);
  c.non_negative(p + "/round_trip_latency_ns", m.round_trip_latency_ns);
  c.fraction(p + "/utilisation_cap", m.utilisation_cap);
  c.non_negative(p + "/energy_pJ_per_bit", m.energy_pJ_per_bit);
  if (m.kind == hw::MemoryKind::stacked_3d) {
    const std::string v = p + "/vertical";
    c.positive(v + "/pitch_um", m.vertical.pitch_um);
    c.fraction(v + "/signal_fraction", m.vertical.signal_fraction);
    c.positive(v + "/gbps_per_link", m.vertical.gbps_per_link, kMinLinkGBps, kMaxLinkGBps);
    c.non_negative(v + "/energy_pJ_per_bit", m.vertical.energy_pJ_per_bit);
    c.non_negative(v + "/keepout_um2", m.vertical.keepout_um2);
    c.non_negative(v + "/supply_links_per_layer", m.vertical.supply_links_per_layer);
  }
  check_layers(c, m, p);
}

void check_hardware(Checker& c, const hw::Hardware& h) {
  check_compute(c, h.compute);
  check_memory(c, h.memory);
  const std::string n = "/hardware/noc";
  c.at_least(n + "/mesh_x", h.noc.mesh_x, 1, kMaxMeshSide);
  c.at_least(n + "/mesh_y", h.noc.mesh_y, 1, kMaxMeshSide);
  c.positive(n + "/link_GBps", h.noc.link_GBps, kMinLinkGBps, kMaxLinkGBps);
  c.non_negative(n + "/hop_latency_ns", h.noc.hop_latency_ns);
  const std::string e = "/hardware/energy";
  c.non_negative(e + "/pJ_per_flop_fp16", h.energy.pJ_per_flop_fp16);
  c.non_negative(e + "/pJ_per_flop_fp8", h.energy.pJ_per_flop_fp8);
  c.non_negative(e + "/pJ_per_flop_fp4", h.energy.pJ_per_flop_fp4);
  c.non_negative(e + "/pJ_per_flop_fp32", h.energy.pJ_per_flop_fp32);
  c.non_negative(e + "/sram_pJ_per_byte", h.energy.sram_pJ_per_byte);
  c.non_negative(e + "/noc_pJ_per_bit_per_hop", h.energy.noc_pJ_per_bit_per_hop);
  const bool tdp_ok = c.positive(e + "/tdp_W", h.energy.tdp_W);
  // The power wall scales clocks (cubic law), which cannot remove static power.
  if (c.non_negative(e + "/static_power_W", h.energy.static_power_W) && tdp_ok &&
      h.energy.static_power_W >= h.energy.tdp_W)
    c.add(e + "/static_power_W", "static power alone reaches the TDP", num(h.energy.static_power_W),
          "number in [0, tdp_W = " + num(h.energy.tdp_W) + ")");
  c.non_negative(e + "/memory_path_pJ_per_bit", h.energy.memory_path_pJ_per_bit);
  c.non_negative(e + "/busy_power_W", h.energy.busy_power_W);
  if (c.positive(e + "/dvfs_min_clock", h.energy.dvfs_min_clock) && h.energy.dvfs_min_clock >= 1)
    c.add(e + "/dvfs_min_clock", "the lowest DVFS clock must be below the top one",
          num(h.energy.dvfs_min_clock), "number in (0, 1)");
  if (c.positive(e + "/dvfs_min_voltage", h.energy.dvfs_min_voltage) &&
      h.energy.dvfs_min_voltage > 1)
    c.add(e + "/dvfs_min_voltage", "the voltage at the lowest clock exceeds the top voltage",
          num(h.energy.dvfs_min_voltage), "number in (0, 1]");
  c.non_negative(e + "/dvfs_top_clock_MHz", h.energy.dvfs_top_clock_MHz, 1e5);
  const std::string a = "/hardware/area";
  c.non_negative(a + "/sram_mm2_per_MiB", h.area.sram_mm2_per_MiB);
  c.non_negative(a + "/router_mm2", h.area.router_mm2);
  c.non_negative(a + "/memory_phy_mm2", h.area.memory_phy_mm2);
  c.non_negative(a + "/io_phy_mm2", h.area.io_phy_mm2);
  c.non_negative(a + "/other_mm2", h.area.other_mm2);
  c.positive(a + "/reticle_mm2", h.area.reticle_mm2);
  const std::string th = "/hardware/thermal";
  // Ambient (coolant/air inlet) must lie below the 95 C DRAM limit for any design to be feasible.
  if (!std::isfinite(h.thermal.ambient_C) || h.thermal.ambient_C < -60 || h.thermal.ambient_C >= 95)
    c.add(th + "/ambient_C", "ambient temperature out of range", num(h.thermal.ambient_C),
          "number in [-60, 95) deg C");
  c.non_negative(th + "/r_base_K_per_W", h.thermal.r_base_K_per_W);
  c.non_negative(th + "/r_layer_K_per_W", h.thermal.r_layer_K_per_W);
  c.non_negative("/hardware/runtime_reserved_GiB", h.runtime_reserved_GiB);
}

constexpr std::size_t kMaxLevels = 3;
// network::Topology builds every device position of the levels (limits.hpp).
constexpr double kMaxPositions = static_cast<double>(kMaxDevices);
// Past ~1000 tiles the per-tile sync cost dominates any overlap gain (docs/model.md §8).
constexpr int kMaxOverlapTiles = 1024;

// Grid shape of a mesh/torus level: both dims or neither (0 = squarest factorisation), and
// the shape must hold exactly `size` devices (network::Topology builds the grid from it).
void check_grid_dims(Checker& c, const hw::NetworkLevel& l, const std::string& p) {
  const bool x_ok = c.at_least(p + "/dims_x", l.dims_x, 0, kMaxDevices);
  const bool y_ok = c.at_least(p + "/dims_y", l.dims_y, 0, kMaxDevices);
  if (!x_ok || !y_ok || (l.dims_x == 0 && l.dims_y == 0)) return;
  const bool grid = l.topology == hw::Topology::mesh2d || l.topology == hw::Topology::torus2d;
  if (!grid) {
    c.add(p + (l.dims_x != 0 ? "/dims_x" : "/dims_y"),
          "grid dimensions apply to mesh2d and torus2d levels only",
          num(l.dims_x != 0 ? l.dims_x : l.dims_y), "0 for this topology");
    return;
  }
  if (l.dims_x == 0 || l.dims_y == 0) {
    const bool x_missing = l.dims_x == 0;
    c.add(p + (x_missing ? "/dims_x" : "/dims_y"),
          "give both dims_x and dims_y, or neither (squarest grid)", "0",
          "integer >= 1 with dims_x x dims_y == size");
    return;
  }
  const long long cells = 1LL * l.dims_x * l.dims_y;
  // size 0 (outermost, "as many as needed") takes its size from the dims.
  if (cells != l.size && l.size != 0)
    c.add(p + "/dims_x",
          "dims_x x dims_y = " + num(l.dims_x) + " x " + num(l.dims_y) + " = " +
              std::to_string(cells) + " does not match size = " + num(l.size),
          num(l.dims_x), "dims_x x dims_y == size = " + num(l.size));
}

void check_system(Checker& c, const hw::System& s) {
  const bool devices_ok = c.at_least("/system/devices", s.devices, 1, kMaxDevices);
  double capacity = 1;
  bool unbounded = false;
  // Past kMaxLevels only the count is reported: a file with 10^5 levels gets one line, not
  // 10^5 times each field's problems.
  for (std::size_t i = 0; i < s.levels.size() && i <= kMaxLevels; ++i) {
    const auto& l = s.levels[i];
    const std::string p = "/system/levels/" + std::to_string(i);
    const bool outermost = i + 1 == s.levels.size();
    const bool grid = l.topology == hw::Topology::mesh2d || l.topology == hw::Topology::torus2d;
    if (outermost && l.size == 0 && grid && l.dims_x > 0 && l.dims_y > 0) {
      capacity *= 1.0 * l.dims_x * l.dims_y;  // "as many as needed" on a grid of given shape
    } else if (outermost && l.size == 0) {
      unbounded = true;  // "as many as needed"
    } else if (l.size < 1) {
      c.add(p + "/size",
            outermost ? "must be at least 1, or 0 for 'as many as needed'"
                      : "must be at least 1 (only the outermost level may be 0)",
            num(l.size), outermost ? "integer >= 0" : "integer >= 1");
      unbounded = true;  // capacity unknown; do not pile a second issue on it
    } else if (!c.at_most(p + "/size", l.size, 1, kMaxDevices)) {
      unbounded = true;
    } else {
      capacity *= l.size;
    }
    check_grid_dims(c, l, p);
    c.positive(p + "/link_GBps", l.link_GBps, kMinLinkGBps, kMaxLinkGBps);
    c.non_negative(p + "/latency_us", l.latency_us);
    c.non_negative(p + "/hop_latency_ns", l.hop_latency_ns);
    c.fraction(p + "/efficiency", l.efficiency);
    c.non_negative(p + "/energy_pJ_per_bit", l.energy_pJ_per_bit);
    c.fraction(p + "/in_network_efficiency", l.in_network_efficiency);
  }
  // docs/model.md §5.1: hierarchies of up to 3 levels (package mesh -> board torus -> rack switch).
  if (s.levels.size() > kMaxLevels) unbounded = true;  // the capacity is not meaningful
  if (s.levels.size() > kMaxLevels)
    c.add("/system/levels",
          "at most " + num(static_cast<int>(kMaxLevels)) + " network levels are modelled, got " +
              std::to_string(s.levels.size()),
          std::to_string(s.levels.size()),
          "1 to " + num(static_cast<int>(kMaxLevels)) + " levels, innermost first");
  // network::Topology builds every device position of the levels; past 2^30 it refuses.
  if (!unbounded && capacity > kMaxPositions)
    c.add("/system/levels",
          "the network levels describe " + num(capacity) + " device positions, more than the " +
              num(kMaxPositions) + " modelled",
          num(capacity), "product of level sizes <= " + num(kMaxPositions));
  if (devices_ok && !unbounded && capacity < s.devices) {
    c.add(s.levels.empty() ? "/system/devices" : "/system/levels",
          s.levels.empty() ? "no network levels connect the " + num(s.devices) + " devices"
                           : "the network levels connect at most " + num(capacity) +
                                 " devices, not " + num(s.devices),
          num(s.devices),
          "product of level sizes >= devices (or outermost size 0 = as many as needed)");
  }
}

bool is_moe(const workload::Model& m) {
  return m.moe.experts > 0;
}

// Tensor/expert degrees each module actually uses (parallel/plan.hpp: 0 = derived), with the
// path of the field that set them, so a split problem is reported where the user chose it.
// One pipeline stage has G = tp x ep x cp devices; every module re-partitions all of them.
struct Degrees {
  bool valid = false;   // tp, ep, cp >= 1 and module fields >= 0 (else the rest is meaningless)
  long long stage = 1;  // G
  int attention_tp = 1;
  std::string attention_path = "/parallel/tp";
  int ffn_tp = 1;
  std::string ffn_path = "/parallel/tp";
  int moe_tp = 1;
  std::string moe_tp_path = "/parallel/tp";
  long long moe_ep = 1;
  std::string moe_ep_path = "/parallel/ep";
};

Degrees module_degrees(const parallel::Plan& p) {
  Degrees g;
  const auto degree_ok = [](int v, int min) { return v >= min && v <= kMaxDegree; };
  g.valid = degree_ok(p.tp, 1) && degree_ok(p.ep, 1) && degree_ok(p.cp, 1) &&
            degree_ok(p.attention.tp, 0) && degree_ok(p.dense_ffn.tp, 0) &&
            degree_ok(p.moe.tp, 0) && degree_ok(p.moe.ep, 0);
  if (!g.valid) return g;
  g.stage = mul_sat(mul_sat(p.tp, p.ep), p.cp);  // each <= 2^20: exact
  g.attention_tp = p.tp;
  if (p.attention.tp > 0) {
    g.attention_tp = p.attention.tp;
    g.attention_path = "/parallel/attention/tp";
  }
  g.ffn_tp = p.tp;
  if (p.dense_ffn.tp > 0) {
    g.ffn_tp = p.dense_ffn.tp;
    g.ffn_path = "/parallel/dense_ffn/tp";
  }
  g.moe_tp = p.tp;
  if (p.moe.tp > 0) {
    g.moe_tp = p.moe.tp;
    g.moe_tp_path = "/parallel/moe/tp";
  }
  // Expert parallelism takes the stage devices the expert's tp leaves (ep x cp by default:
  // context-parallel ranks hold experts too).
  g.moe_ep = g.stage / g.moe_tp;
  if (p.moe.ep > 0) {
    g.moe_ep = p.moe.ep;
    g.moe_ep_path = "/parallel/moe/ep";
  } else if (p.moe.tp > 0) {
    g.moe_ep_path = "/parallel/moe/tp";
  } else if (p.cp > 1) {
    g.moe_ep_path = "/parallel/cp";
  }
  return g;
}

void check_model(Checker& c, const workload::Model& m, const Degrees& g) {
  const std::string p = "/model";
  c.at_least(p + "/layers", m.layers, 1, kMaxLayers);
  c.at_least(p + "/hidden", m.hidden, 1, kMaxHidden);
  const bool heads_ok = c.at_least(p + "/heads", m.heads, 1, kMaxHeads);
  const bool kv_ok = c.at_least(p + "/kv_heads", m.kv_heads, 1, kMaxHeads);
  c.at_least(p + "/head_dim", m.head_dim, 1, kMaxHidden);
  c.at_least(p + "/vocab", m.vocab, 1, kMaxVocab);
  const bool moe = is_moe(m);
  // Pure-MoE models (no leading dense layers) never use the dense FFN size.
  const bool dense_ffn_used = !moe || m.moe.first_dense_layers > 0;
  c.at_least(p + "/ffn_dim", m.ffn_dim, dense_ffn_used ? 1 : 0, kMaxHidden);
  c.at_least(p + "/max_context_tokens", m.max_context_tokens, 0, kMaxTokens);
  c.at_least(p + "/sliding_window", m.sliding_window, 0, kMaxTokens);
  c.at_least(p + "/full_attention_interval", m.full_attention_interval, 0, kMaxLayers);

  // Global tp keeps its historical wording; a per-module tp names the module.
  const auto tp_name = [](const std::string& path) {
    return path == "/parallel/tp" ? std::string("tp")
                                  : path.substr(std::string("/parallel/").size());
  };
  using workload::AttentionKind;
  if (heads_ok && kv_ok) {
    if (m.attention == AttentionKind::mha && m.kv_heads != m.heads)
      c.add(p + "/kv_heads", "multi-head attention has one KV head per query head", num(m.kv_heads),
            "heads = " + num(m.heads) + " (use attention \"gqa\" for fewer)");
    if (m.attention == AttentionKind::gqa && m.heads % m.kv_heads != 0)
      c.add(p + "/kv_heads", "query heads must divide evenly into KV-head groups", num(m.kv_heads),
            "a divisor of heads = " + num(m.heads));
  }
  if (g.valid) {
    const int tp = g.attention_tp;
    const std::string& at = g.attention_path;
    const std::string name = tp_name(at);
    if (heads_ok && m.heads % tp != 0)
      c.add(at, "tensor parallelism splits attention heads: heads % " + name + " != 0", num(tp),
            "a divisor of heads = " + num(m.heads));
    // KV heads are split over TP ranks, or replicated when tp > kv_heads (Megatron GQA).
    // MLA's latent KV is shared by all heads, so kv_heads does not constrain tp.
    if (kv_ok && m.attention != AttentionKind::mla && m.kv_heads % tp != 0 && tp % m.kv_heads != 0)
      c.add(at, "KV heads can be neither split nor replicated evenly over " + name + " ranks",
            num(tp), "a divisor or multiple of kv_heads = " + num(m.kv_heads));
  }
  if (g.valid && dense_ffn_used && m.ffn_dim >= 1 && m.ffn_dim % g.ffn_tp != 0)
    c.add(g.ffn_path,
          "tensor parallelism splits FFN columns: ffn_dim % " + tp_name(g.ffn_path) + " != 0",
          num(g.ffn_tp), "a divisor of ffn_dim = " + num(m.ffn_dim));

  if (m.attention == AttentionKind::mla) {
    const std::string a = p + "/mla";
    c.at_least(a + "/q_lora_rank", m.mla.q_lora_rank, 0, kMaxHidden);
    c.at_least(a + "/kv_lora_rank", m.mla.kv_lora_rank, 1, kMaxHidden);
    c.at_least(a + "/qk_nope_head_dim", m.mla.qk_nope_head_dim, 1, kMaxHidden);
    c.at_least(a + "/qk_rope_head_dim", m.mla.qk_rope_head_dim, 1, kMaxHidden);
    c.at_least(a + "/v_head_dim", m.mla.v_head_dim, 1, kMaxHidden);
  }

  const std::string e = p + "/moe";
  if (!c.at_least(e + "/experts", m.moe.experts, 0, kMaxExperts) || !moe) return;
  if (m.moe.top_k < 1 || m.moe.top_k > m.moe.experts)
    c.add(e + "/top_k", "each token must select between 1 and all experts", num(m.moe.top_k),
          "integer in [1, experts = " + num(m.moe.experts) + "]");
  c.at_least(e + "/shared_experts", m.moe.shared_experts, 0, kMaxExperts);
  // Experts and the shared experts of an MoE layer are split the MoE module's tp ways.
  const std::string mtp = tp_name(g.moe_tp_path);
  if (c.at_least(e + "/expert_ffn_dim", m.moe.expert_ffn_dim, 1, kMaxHidden) && g.valid &&
      m.moe.expert_ffn_dim % g.moe_tp != 0)
    c.add(g.moe_tp_path, "each expert is split " + mtp + " ways: expert_ffn_dim % " + mtp + " != 0",
          num(g.moe_tp), "a divisor of expert_ffn_dim = " + num(m.moe.expert_ffn_dim));
  if (c.at_least(e + "/shared_expert_ffn_dim", m.moe.shared_expert_ffn_dim, 0, kMaxHidden) &&
      g.valid && m.moe.shared_experts > 0 && m.moe.shared_expert_ffn_dim % g.moe_tp != 0)
    c.add(g.moe_tp_path,
          "shared experts are split " + mtp + " ways: shared_expert_ffn_dim % " + mtp + " != 0",
          num(g.moe_tp),
          "a divisor of shared_expert_ffn_dim = " + num(m.moe.shared_expert_ffn_dim));
  if (m.layers >= 1 && (m.moe.first_dense_layers < 0 || m.moe.first_dense_layers >= m.layers))
    c.add(e + "/first_dense_layers", "an MoE model needs at least one MoE layer",
          num(m.moe.first_dense_layers), "integer in [0, layers - 1 = " + num(m.layers - 1) + "]");
}

// The rank-placement order: a permutation of the five dimension names, innermost first
// (parallel::parse_placement reads the same form: comma-separated, no spaces).
void check_placement(Checker& c, const std::string& placement) {
  static constexpr std::array<std::string_view, 5> kNames = {"tp", "ep", "cp", "pp", "dp"};
  const std::string allowed =
      "a permutation of tp, ep, cp, pp, dp, comma-separated, innermost first "
      "(default \"tp,ep,cp,pp,dp\")";
  std::array<int, 5> seen{};
  std::string problem;
  std::size_t pos = 0;
  while (problem.empty()) {
    const std::size_t comma = placement.find(',', pos);
    const std::string token =
        placement.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const auto it = std::find(kNames.begin(), kNames.end(), token);
    if (it == kNames.end())
      problem = token.empty() ? "an empty name" : "unknown dimension " + quoted(token);
    else if (seen[static_cast<std::size_t>(it - kNames.begin())]++ > 0)
      problem = quoted(token) + " given twice";
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  for (std::size_t i = 0; problem.empty() && i < kNames.size(); ++i)
    if (seen[i] == 0) problem = quoted(kNames[i]) + " missing";
  if (!problem.empty())
    c.add("/parallel/placement", "placement must order every parallel dimension once: " + problem,
          "\"" + placement + "\"", allowed);
}

void check_module_plans(Checker& c, const parallel::Plan& plan, const workload::Model& m,
                        const Degrees& g) {
  const std::string stage = "stage devices tp x ep x cp = " + num(plan.tp) + " x " + num(plan.ep) +
                            " x " + num(plan.cp) + " = " + std::to_string(g.stage);
  const auto divides_stage = [&](const std::string& path, int v, const std::string& module) {
    if (v > 0 && g.stage % v != 0)
      c.add(path,
            module + " must use all " + std::to_string(g.stage) +
                " devices of a pipeline stage: the rest of its tp is data parallel",
            num(v), "a divisor of " + stage);
  };
  divides_stage("/parallel/attention/tp", plan.attention.tp, "attention");
  divides_stage("/parallel/dense_ffn/tp", plan.dense_ffn.tp, "the dense FFN");
  // Only MoE layers have experts to spread.
  if (plan.attention.ep > 0)
    c.add("/parallel/attention/ep", "expert parallelism applies to MoE layers only",
          num(plan.attention.ep), "0");
  if (plan.dense_ffn.ep > 0)
    c.add("/parallel/dense_ffn/ep", "expert parallelism applies to MoE layers only",
          num(plan.dense_ffn.ep), "0");

  if (!is_moe(m)) {
    for (const auto& [path, v] :
         {std::pair<std::string, int>{"/parallel/moe/tp", plan.moe.tp},
          {"/parallel/moe/ep", plan.moe.ep},
          {"/parallel/redundant_experts_per_rank", plan.redundant_experts_per_rank}})
      if (v > 0)
        c.add(path, "the model has no MoE layers (model.moe.experts = 0)", num(v),
              "0 for a dense model");
    return;
  }
  if (plan.moe.ep > 0) {
    if (1LL * g.moe_tp * plan.moe.ep != g.stage)
      c.add("/parallel/moe/ep",
            "MoE layers must use all devices of a pipeline stage: moe tp x moe ep = " +
                num(g.moe_tp) + " x " + num(plan.moe.ep) + " = " +
                std::to_string(1LL * g.moe_tp * plan.moe.ep) + ", not " + std::to_string(g.stage),
            num(plan.moe.ep),
            "moe.ep = " + stage + " / moe tp " + num(g.moe_tp) +
                (g.stage % g.moe_tp == 0 ? " = " + std::to_string(g.stage / g.moe_tp) : ""));
  } else {
    divides_stage("/parallel/moe/tp", plan.moe.tp, "MoE layers");
  }
  // The global ep is checked against experts in check_plan; report the derived MoE degree
  // only when it differs (cp > 1 or a module plan) and is a whole number.
  if (g.moe_ep != plan.ep && g.moe_ep >= 1 && 1LL * g.moe_tp * g.moe_ep == g.stage &&
      m.moe.experts % g.moe_ep != 0)
    c.add(g.moe_ep_path,
          "MoE layers spread experts over " + std::to_string(g.moe_ep) +
              " expert-parallel ranks: experts % " + std::to_string(g.moe_ep) + " != 0",
          num(g.moe_ep_path == "/parallel/moe/ep"   ? plan.moe.ep
              : g.moe_ep_path == "/parallel/moe/tp" ? plan.moe.tp
                                                    : plan.cp),
          "a value giving a divisor of experts = " + num(m.moe.experts) + " expert-parallel ranks");
}

// The expert placement (parallel::ExpertPlacement). Limits: compare.cpp's.
void check_expert_placement(Checker& c, const parallel::Plan& plan, const workload::Model& m,
                            const hw::System& s, const Degrees& g) {
  const auto& e = plan.experts;
  const std::string p = "/parallel/experts";
  c.at_least(p + "/eplb_groups", e.eplb_groups, 1, kMaxDegree);
  c.positive(p + "/hd_time_limit_s", e.hd_time_limit_s, 1e-3, 1e5);
  c.at_least(p + "/hd_max_sets", e.hd_max_sets, 1, 100000);
  c.at_least(p + "/link_iterations", e.link_iterations, 0, experts::kMaxLinkIterations);
  c.at_least(p + "/fit_tokens", e.fit_tokens, 0, 65536);
  if (e.strategy == parallel::ExpertStrategy::plan) return;
  const std::string name(parallel::to_string(e.strategy));
  if (!is_moe(m)) {
    c.add(p + "/strategy", "the model has no MoE layers to place (model.moe.experts = 0)",
          "\"" + name + "\"", "\"plan\" for a dense model");
    return;
  }
  if (!g.valid) return;
  if (parallel::mesh_only(e.strategy)) {
    const std::string why = expert_mesh_unfit(s, static_cast<int>(g.stage));
    if (!why.empty())
      c.add(p + "/strategy", "strategy '" + name + "' places experts on a mesh of nodes: " + why,
            "\"" + name + "\"", "plan, eplb or balanced on this system");
  } else if (e.strategy == parallel::ExpertStrategy::eplb && e.eplb_groups > 1) {
    // On a mesh the ranks are its nodes (the stage's devices), elsewhere the moe ep ranks.
    const bool mesh = expert_mesh_unfit(s, static_cast<int>(g.stage)).empty();
    const long long ranks = mesh ? g.stage : g.moe_ep;
    if (ranks >= 1 && (ranks % e.eplb_groups != 0 || m.moe.experts % e.eplb_groups != 0))
      c.add(p + "/eplb_groups",
            "hierarchical EPLB splits the " + std::to_string(ranks) + " ranks and the " +
                num(m.moe.experts) + " experts into equal groups",
            num(e.eplb_groups),
            "a common divisor of " + std::to_string(ranks) + " and " + num(m.moe.experts));
  }
}

void check_plan(Checker& c, const parallel::Plan& plan, const workload::Model& m,
                const hw::System& s, const workload::Workload& w, const Degrees& g) {
  // Every degree is checked (and reported), not only up to the first bad one.
  bool ok = c.at_least("/parallel/tp", plan.tp, 1, kMaxDegree);
  ok = c.at_least("/parallel/pp", plan.pp, 1, kMaxDegree) && ok;
  ok = c.at_least("/parallel/dp", plan.dp, 1, kMaxDegree) && ok;
  ok = c.at_least("/parallel/ep", plan.ep, 1, kMaxDegree) && ok;
  ok = c.at_least("/parallel/cp", plan.cp, 1, kMaxDegree) && ok;
  c.at_least("/parallel/micro_batches", plan.micro_batches, 0, kMaxBatch);
  check_placement(c, plan.placement);
  bool modules_ok = c.at_least("/parallel/attention/tp", plan.attention.tp, 0, kMaxDegree);
  modules_ok = c.at_least("/parallel/attention/ep", plan.attention.ep, 0, kMaxDegree) && modules_ok;
  modules_ok = c.at_least("/parallel/dense_ffn/tp", plan.dense_ffn.tp, 0, kMaxDegree) && modules_ok;
  modules_ok = c.at_least("/parallel/dense_ffn/ep", plan.dense_ffn.ep, 0, kMaxDegree) && modules_ok;
  modules_ok = c.at_least("/parallel/moe/tp", plan.moe.tp, 0, kMaxDegree) && modules_ok;
  modules_ok = c.at_least("/parallel/moe/ep", plan.moe.ep, 0, kMaxDegree) && modules_ok;
  c.at_least("/parallel/redundant_experts_per_rank", plan.redundant_experts_per_rank, 0,
             kMaxExperts);
  if (plan.overlap_tiles < 1 || plan.overlap_tiles > kMaxOverlapTiles)
    c.add("/parallel/overlap_tiles", "tile count for compute/communication overlap out of range",
          num(plan.overlap_tiles), "integer in [1, " + num(kMaxOverlapTiles) + "]");
  if (!ok) return;
  // Each degree is <= 2^20, so five of them can reach 2^100: checked, saturating products.
  const std::int64_t product =
      mul_sat(mul_sat(mul_sat(mul_sat(plan.tp, plan.pp), plan.dp), plan.ep), plan.cp);
  const std::string product_text =
      product > kMaxDevices ? "more than " + std::to_string(kMaxDevices) : std::to_string(product);
  if (product != s.devices)
    c.add("/parallel",
          "tp x pp x dp x ep x cp = " + num(plan.tp) + " x " + num(plan.pp) + " x " + num(plan.dp) +
              " x " + num(plan.ep) + " x " + num(plan.cp) + " = " + product_text +
              " does not match system.devices = " + num(s.devices),
          product_text, "tp x pp x dp x ep x cp == system.devices = " + num(s.devices));
  if (m.layers >= 1 && plan.pp > m.layers)
    c.add("/parallel/pp", "more pipeline stages than layers", num(plan.pp),
          "integer in [1, layers = " + num(m.layers) + "]");
  if (plan.ep > 1 && !is_moe(m))
    c.add("/parallel/ep", "expert parallelism needs an MoE model (model.moe.experts > 0)",
          num(plan.ep), "1 for a dense model");
  if (plan.ep > 1 && is_moe(m) && m.moe.experts % plan.ep != 0)
    c.add("/parallel/ep", "experts must spread evenly over ep ranks: experts % ep != 0",
          num(plan.ep), "a divisor of experts = " + num(m.moe.experts));
  // Ring attention gives every cp rank an equal block of the prompt.
  if (plan.cp > 1 && w.input_len >= 1 && w.input_len % plan.cp != 0)
    c.add("/parallel/cp",
          "context parallelism splits the prompt into equal blocks: input_len % cp != 0",
          num(plan.cp), "a divisor of workload.input_len = " + num(w.input_len));
  if (modules_ok && g.valid) check_module_plans(c, plan, m, g);
  check_expert_placement(c, plan, m, s, g);
}

void check_workload(Checker& c, const workload::Workload& w, const workload::Model& m) {
  const std::string p = "/workload";
  if (!w.batch_auto) c.at_least(p + "/batch", w.batch, 1, kMaxBatch);
  c.at_least(p + "/input_len", w.input_len, 1, kMaxTokens);
  c.at_least(p + "/output_len", w.output_len, 1, kMaxTokens);
  // The model cannot take a longer sequence (its position embeddings end there).
  const long long sequence = static_cast<long long>(w.input_len) + w.output_len;
  if (m.max_context_tokens > 0 && sequence > m.max_context_tokens)
    c.add(p + "/input_len",
          "input_len + output_len = " + std::to_string(sequence) +
              " tokens is over the context of " + (m.id.empty() ? std::string("the model") : m.id) +
              " (" + num(m.max_context_tokens) + " tokens)",
          std::to_string(w.input_len),
          "input_len + output_len <= " + num(m.max_context_tokens) +
              " (the model's max_context_tokens)");
  // Routing only matters for MoE models.
  if (!is_moe(m)) return;
  const auto& r = w.routing;
  const std::string rp = p + "/routing";
  using workload::RoutingKind;
  // Zipf exponents past 100 put every token on expert 0 already; Dirichlet concentrations
  // below 1e-3 underflow the gamma draws.
  if (r.kind == RoutingKind::zipf) c.positive(rp + "/zipf_s", r.zipf_s, 0, 100);
  if (r.kind == RoutingKind::dirichlet)
    c.positive(rp + "/dirichlet_alpha", r.dirichlet_alpha, 1e-3, 1e6);
  if (r.kind != RoutingKind::trace) return;
  const auto& f = r.expert_frequency;
  const int moe_layers = m.layers - std::max(0, m.moe.first_dense_layers);
  if (f.empty()) {
    c.add(rp + "/trace", "routing kind 'trace' but no expert frequencies were loaded",
          "\"" + r.trace + "\"", "a routing trace file (the format of data/mixtral-routing)");
    return;
  }
  if (f.size() != 1 && static_cast<int>(f.size()) != moe_layers)
    c.add(rp + "/trace",
          "the trace has " + std::to_string(f.size()) + " layers, the model " + num(moe_layers) +
              " MoE layers",
          std::to_string(f.size()), "1 or " + num(moe_layers) + " layers");
  for (std::size_t i = 0; i < f.size(); ++i) {
    const auto& row = f[i];
    const std::string at = " (trace layer " + std::to_string(i) + ")";
    if (static_cast<int>(row.size()) != m.moe.experts) {
      c.add(rp + "/trace", "wrong number of experts" + at, std::to_string(row.size()),
            "experts = " + num(m.moe.experts));
      return;
    }
    double sum = 0;
    bool finite = true;
    for (double v : row) {
      finite = finite && std::isfinite(v) && v >= 0;
      sum += v;
    }
    if (!finite) {
      c.add(rp + "/trace", "expert frequencies must be finite and >= 0" + at, "", ">= 0");
      return;
    }
    // Each token selects top_k experts, so the fractions of tokens per expert sum to top_k.
    if (std::abs(sum - m.moe.top_k) > 1e-6 * std::max(1, m.moe.top_k)) {
      c.add(rp + "/trace", "expert frequencies sum to " + num(sum) + " instead of top_k" + at,
            num(sum), "top_k = " + num(m.moe.top_k));
      return;
    }
  }
}

void check_memory_fit(Checker& c, const Design& d) {
  if (d.workload.batch_auto) return;  // evaluate() picks the batch and flags kZeroBatch
  const MemoryFootprint f = memory_footprint(d, d.workload.batch);
  if (!(f.total() > f.capacity)) return;
  const int fits = max_batch_that_fits(d);
  const std::string need = "batch " + num(d.workload.batch) + " needs " + gib(f.total()) +
                           " per device (weights " + gib(f.weights) + ", KV cache " +
                           gib(f.kv_cache) + ", activations " + gib(f.activations) + ", reserved " +
                           gib(f.reserved) + ") but a device holds " + gib(f.capacity);
  if (fits >= 1)
    c.add("/workload/batch", need + "; the largest batch that fits is " + num(fits),
          num(d.workload.batch), "integer in [1, " + num(fits) + "] (or batch_auto)");
  else
    c.add("/workload/batch",
          need +
              "; not even batch 1 fits: add devices, use more tp/pp/ep, or a smaller "
              "precision",
          num(d.workload.batch), "no batch fits this design");
}

}  // namespace

std::vector<Issue> validate_memory(const hw::Hardware& h, const std::string& prefix) {
  Checker c;
  const std::string p = prefix + "/compute";
  c.at_least(p + "/cores", h.compute.cores, 1, kMaxCores);
  c.positive(p + "/clock_GHz", h.compute.clock_GHz, kMinClockGHz, kMaxClockGHz);
  c.positive(p + "/sram_bw_bytes_per_cycle_per_core", h.compute.sram_bw_bytes_per_cycle_per_core,
             1e-3, kMaxPerCycle);
  check_memory(c, h.memory, prefix);
  return std::move(c.issues);
}

std::vector<Issue> validate_base(const Design& d) {
  Checker c;
  check_runtime(c, d.runtime);
  check_model(c, d.model, Degrees{});  // Degrees::valid false: no plan, no split checks
  check_workload(c, d.workload, d.model);
  return std::move(c.issues);
}

namespace {

void check_all(Checker& c, const Design& d) {
  check_hardware(c, d.hardware);
  check_runtime(c, d.runtime);
  check_system(c, d.system);
  const Degrees degrees = module_degrees(d.parallel);
  check_model(c, d.model, degrees);
  check_plan(c, d.parallel, d.model, d.system, d.workload, degrees);
  check_workload(c, d.workload, d.model);
  if (d.wafer) {
    const auto layout = hw::wafer_layout(*d.wafer, d.hardware);
    c.issues.insert(c.issues.end(), layout.issues.begin(), layout.issues.end());
  }
  // The footprint model assumes everything above holds (e.g. no division by tp = 0).
  if (c.issues.empty()) check_memory_fit(c, d);
}

}  // namespace

std::vector<Issue> validate(const Design& d) {
  Checker c;
  check_all(c, d);
  return std::move(c.issues);
}

std::map<std::string, FieldRange> field_ranges(const Design& d) {
  std::map<std::string, FieldRange> ranges;
  Checker c;
  c.ranges = &ranges;
  check_all(c, d);
  return ranges;
}

}  // namespace stackscope::perf
