// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Energy per operation (docs/model.md §13.1): FLOPs x pJ/FLOP(precision) + bytes x pJ/B at each
// level (SRAM, DRAM, vertical link, NoC hops) + static power x time. Network link energy is
// charged by core/network. SI units (J, W, s).
#include "stackscope/common/precision.hpp"
#include "stackscope/hw/hardware.hpp"

namespace stackscope::power_area {

// Per-byte/per-FLOP energies of one device, resolved once per evaluation.
struct EnergyRates {
  double matrix_J_per_flop = 0;
  double vector_J_per_flop = 0;
  double dram_J_per_byte = 0;      // DRAM core + I/O (+ vertical link for 3D stacks)
  double sram_J_per_byte = 0;      // each DRAM byte is staged through SRAM twice
  double noc_J_per_byte_hop = 0;   // one byte over one on-die mesh link
                                   // (compute::byte_hops gives the hops of an operator)
  double static_W = 0;
};

EnergyRates energy_rates(const hw::Hardware& hw, Precision matrix_precision) noexcept;

// Dynamic energy of an operator on one device: its FLOPs, its DRAM bytes (staged through SRAM)
// and its on-die mesh byte-hops.
double op_energy_J(const EnergyRates& e, double matrix_flops, double vector_flops,
                   double dram_bytes, double noc_byte_hops) noexcept;

// Power wall (docs/model.md §13.2): if power exceeds TDP, clocks scale by (P / TDP)^(-1/3), since
// dynamic power goes as f V^2 with V proportional to f. Returns 1 when under the TDP.
double power_wall_clock_scale(double power_W, double tdp_W) noexcept;

}  // namespace stackscope::power_area
