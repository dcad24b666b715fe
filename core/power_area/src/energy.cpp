// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/power_area/energy.hpp"

#include <cmath>

#include "stackscope/common/units.hpp"
#include "stackscope/hw/derived.hpp"

namespace stackscope::power_area {

EnergyRates energy_rates(const hw::Hardware& hw, Precision p) noexcept {
  using units::kPico;
  EnergyRates e;
  e.matrix_J_per_flop = hw::energy_per_flop_J(hw.energy, hw.compute, p);
  e.vector_J_per_flop = hw.energy.pJ_per_flop_fp32 * kPico;
  const double bits = units::kBitsPerByte;
  if (hw.memory.kind != hw::MemoryKind::sram_only) {
    e.dram_J_per_byte = hw.memory.energy_pJ_per_bit * kPico * bits;
    if (hw.memory.kind == hw::MemoryKind::stacked_3d)
      e.dram_J_per_byte += hw.memory.vertical.energy_pJ_per_bit * kPico * bits;
    e.sram_J_per_byte = 2.0 * hw.energy.sram_pJ_per_byte * kPico;
  } else {
    e.sram_J_per_byte = hw.energy.sram_pJ_per_byte * kPico;
  }
  e.noc_J_per_byte_hop = hw.energy.noc_pJ_per_bit_per_hop * kPico * bits;
  e.static_W = hw.energy.static_power_W;
  return e;
}

double op_energy_J(const EnergyRates& e, double matrix_flops, double vector_flops,
                   double dram_bytes, double noc_byte_hops) noexcept {
  return matrix_flops * e.matrix_J_per_flop + vector_flops * e.vector_J_per_flop +
         dram_bytes * (e.dram_J_per_byte + e.sram_J_per_byte) +
         noc_byte_hops * e.noc_J_per_byte_hop;
}

double power_wall_clock_scale(double power_W, double tdp_W) noexcept {
  if (tdp_W <= 0 || power_W <= tdp_W) return 1.0;
  return std::pow(power_W / tdp_W, -1.0 / 3.0);
}

}  // namespace stackscope::power_area
