// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Quantities derived from a Hardware description, in SI units. Pure functions.
#include "stackscope/common/precision.hpp"
#include "stackscope/hw/hardware.hpp"

namespace stackscope::hw {

// Dense matrix peak in FLOP/s at precision `p`; falls back to the next wider supported format,
// then to the vector unit. Never 0 for a validated device.
double matrix_peak_flops(const ComputeDie& c, Precision p);
// Vector-unit peak in FLOP/s.
double vector_peak_flops(const ComputeDie& c);
// Energy per FLOP in J for matrix work at precision p (after the same fallback).
double energy_per_flop_J(const Energy& e, const ComputeDie& c, Precision p);
// Total usable DRAM capacity in bytes (all stacks, minus reserved).
double memory_capacity_bytes(const Memory& m);
// Total on-die SRAM in bytes (cores + shared buffer).
double total_sram_bytes(const ComputeDie& c);

}  // namespace stackscope::hw
