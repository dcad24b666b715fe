// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Board power of one device (docs/model.md §13.1-§13.2). A phase of length t at clock scale s
// (relative to the top of the DVFS range) draws
//   E = t x floor(s) + v(s)^2 x (FLOPs x pJ/FLOP + DRAM bytes x (path + 2 x SRAM) + NoC byte-hops)
//       + DRAM bytes x DRAM core/IO energy,
// floor(s) = static_power_W + busy_power_W x s x v(s)^2, v(s) the voltage-frequency curve.
// Network link energy is charged by core/network. SI units (J, W, s).
#include "stackscope/common/precision.hpp"
#include "stackscope/hw/hardware.hpp"

namespace stackscope::power_area {

// Per-byte/per-FLOP energies of one device at one clock, resolved once per evaluation.
struct EnergyRates {
  double matrix_J_per_flop = 0;
  double vector_J_per_flop = 0;
  double dram_J_per_byte = 0;     // DRAM core + I/O (+ vertical link for 3D stacks): the DRAM
                                  // side, not scaled by the logic voltage
  double path_J_per_byte = 0;     // on-die memory path: PHY, controller, L2, load path
  double sram_J_per_byte = 0;     // each DRAM byte is staged through SRAM twice
  double noc_J_per_byte_hop = 0;  // one byte over one on-die mesh link
                                  // (compute::byte_hops gives the hops of an operator)
  double static_W = 0;            // board floor while a phase runs (idle + busy at the clock)
  double idle_W = 0;              // board power while nothing runs
};

// Voltage relative to the top of the range at clock scale s (hw::Energy's linear V/f curve,
// held at dvfs_min_voltage below dvfs_min_clock).
double dvfs_voltage(const hw::Energy& e, double clock_scale) noexcept;

// The clock a phase at clock scale s runs at as the device reports it, MHz.
double reported_clock_MHz(const hw::Hardware& hw, double clock_scale) noexcept;

// The rates at clock scale s: the logic-die terms (FLOPs, memory path, SRAM, NoC) scale by
// v(s)^2 (E = C V^2), the busy floor by s v(s)^2, the DRAM side and idle power not at all.
EnergyRates energy_rates(const hw::Hardware& hw, Precision matrix_precision,
                         double clock_scale = 1.0) noexcept;

// Dynamic energy of an operator on one device: its FLOPs, its DRAM bytes (through the memory
// path, staged through SRAM) and its on-die mesh byte-hops.
double op_energy_J(const EnergyRates& e, double matrix_flops, double vector_flops,
                   double dram_bytes, double noc_byte_hops) noexcept;

// DVFS under a power cap (docs/model.md §13.2): the next clock scale to try for a phase that
// drew power_W at clock scale s against cap_W, from two points of its power-versus-clock curve
// (secant), or the cubic law from one. Stays within [lowest, 1].
double capped_clock_step(double s0, double p0, double s1, double p1, double cap_W,
                         double lowest) noexcept;

// The first guess for a phase at power_W > tdp_W at the top clock: clocks scale by
// (P / TDP)^(-1/3), as dynamic power goes as f V^2 with V ~ f. Returns 1 when under the TDP.
double power_wall_clock_scale(double power_W, double tdp_W) noexcept;

}  // namespace stackscope::power_area
