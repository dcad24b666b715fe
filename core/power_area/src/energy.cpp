// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/power_area/energy.hpp"

#include <algorithm>
#include <cmath>

#include "stackscope/common/units.hpp"
#include "stackscope/hw/derived.hpp"

namespace stackscope::power_area {

double dvfs_voltage(const hw::Energy& e, double s) noexcept {
  const double s0 = std::clamp(e.dvfs_min_clock, 1e-6, 1.0 - 1e-6);
  const double v0 = std::clamp(e.dvfs_min_voltage, 1e-6, 1.0);
  if (s >= 1.0) return 1.0;
  if (s <= s0) return v0;
  return v0 + (1.0 - v0) * (s - s0) / (1.0 - s0);
}

double reported_clock_MHz(const hw::Hardware& hw, double s) noexcept {
  const double top =
      hw.energy.dvfs_top_clock_MHz > 0 ? hw.energy.dvfs_top_clock_MHz : hw.compute.clock_GHz * 1e3;
  return top * s;
}

EnergyRates energy_rates(const hw::Hardware& hw, Precision p, double s) noexcept {
  using units::kPico;
  EnergyRates e;
  const double v = dvfs_voltage(hw.energy, s), v2 = v * v;
  e.matrix_J_per_flop = hw::energy_per_flop_J(hw.energy, hw.compute, p) * v2;
  e.vector_J_per_flop = hw.energy.pJ_per_flop_fp32 * kPico * v2;
  const double bits = units::kBitsPerByte;
  if (hw.memory.kind != hw::MemoryKind::sram_only) {
    e.dram_J_per_byte = hw.memory.energy_pJ_per_bit * kPico * bits;
    if (hw.memory.kind == hw::MemoryKind::stacked_3d)
      e.dram_J_per_byte += hw.memory.vertical.energy_pJ_per_bit * kPico * bits;
    e.path_J_per_byte = hw.energy.memory_path_pJ_per_bit * kPico * bits * v2;
    e.sram_J_per_byte = 2.0 * hw.energy.sram_pJ_per_byte * kPico * v2;
  } else {
    e.sram_J_per_byte = hw.energy.sram_pJ_per_byte * kPico * v2;
  }
  e.noc_J_per_byte_hop = hw.energy.noc_pJ_per_bit_per_hop * kPico * bits * v2;
  e.idle_W = hw.energy.static_power_W;
  e.static_W = hw.energy.static_power_W + hw.energy.busy_power_W * std::min(1.0, s) * v2;
  return e;
}

double op_energy_J(const EnergyRates& e, double matrix_flops, double vector_flops,
                   double dram_bytes, double noc_byte_hops) noexcept {
  return matrix_flops * e.matrix_J_per_flop + vector_flops * e.vector_J_per_flop +
         dram_bytes * (e.dram_J_per_byte + e.path_J_per_byte + e.sram_J_per_byte) +
         noc_byte_hops * e.noc_J_per_byte_hop;
}

double capped_clock_step(double s0, double p0, double s1, double p1, double cap_W,
                         double lowest) noexcept {
  double next;
  if (s0 != s1 && p0 != p1 && std::isfinite(p0) && std::isfinite(p1)) {
    next = s1 + (cap_W - p1) * (s1 - s0) / (p1 - p0);
  } else {
    next = s1 * power_wall_clock_scale(p1, cap_W);
  }
  if (!std::isfinite(next)) next = lowest;
  return std::clamp(next, lowest, 1.0);
}

double power_wall_clock_scale(double power_W, double tdp_W) noexcept {
  if (tdp_W <= 0 || power_W <= tdp_W) return 1.0;
  return std::pow(power_W / tdp_W, -1.0 / 3.0);
}

}  // namespace stackscope::power_area
