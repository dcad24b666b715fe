// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/hw/derived.hpp"

#include "stackscope/common/units.hpp"
#include "stackscope/hw/stack_layers.hpp"

namespace stackscope::hw {
namespace {

double flops_per_cycle(const ComputeDie& c, Precision p) {
  switch (p) {
    case Precision::fp4:
      if (c.matrix_flops_per_cycle_fp4 > 0) return c.matrix_flops_per_cycle_fp4;
      [[fallthrough]];
    case Precision::fp8:
    case Precision::int8:
      if (c.matrix_flops_per_cycle_fp8 > 0) return c.matrix_flops_per_cycle_fp8;
      [[fallthrough]];
    case Precision::fp16:
    case Precision::bf16:
      if (c.matrix_flops_per_cycle_fp16 > 0) return c.matrix_flops_per_cycle_fp16;
      [[fallthrough]];
    case Precision::fp32:
      if (c.matrix_flops_per_cycle_fp32 > 0) return c.matrix_flops_per_cycle_fp32;
      return c.vector_flops_per_cycle;
  }
  return c.vector_flops_per_cycle;
}

// Which precision the matrix unit actually executes after fallback.
Precision effective_precision(const ComputeDie& c, Precision p) {
  if ((p == Precision::fp4) && c.matrix_flops_per_cycle_fp4 > 0) return Precision::fp4;
  if ((p == Precision::fp4 || p == Precision::fp8 || p == Precision::int8) &&
      c.matrix_flops_per_cycle_fp8 > 0)
    return Precision::fp8;
  if (p != Precision::fp32 && c.matrix_flops_per_cycle_fp16 > 0) return Precision::fp16;
  return Precision::fp32;
}

}  // namespace

double matrix_peak_flops(const ComputeDie& c, Precision p) {
  return c.cores * c.clock_GHz * units::kGiga * flops_per_cycle(c, p);
}

double vector_peak_flops(const ComputeDie& c) {
  return c.cores * c.clock_GHz * units::kGiga * c.vector_flops_per_cycle;
}

double energy_per_flop_J(const Energy& e, const ComputeDie& c, Precision p) {
  switch (effective_precision(c, p)) {
    case Precision::fp4: return e.pJ_per_flop_fp4 * units::kPico;
    case Precision::fp8:
    case Precision::int8: return e.pJ_per_flop_fp8 * units::kPico;
    case Precision::fp16:
    case Precision::bf16: return e.pJ_per_flop_fp16 * units::kPico;
    case Precision::fp32: return e.pJ_per_flop_fp32 * units::kPico;
  }
  return e.pJ_per_flop_fp16 * units::kPico;
}

double memory_capacity_bytes(const Memory& m) {
  if (m.kind == MemoryKind::sram_only) return 0.0;
  // A per-layer stack sums its dies (hw/stack_layers.hpp); equal dies take the product.
  const double raw = uniform_capacity(m)
                         ? m.stacks * stack_layer_count(m) * m.capacity_per_layer_GiB * units::kGiB
                         : m.stacks * stack_raw_bytes(m, m.capacity_per_layer_GiB * units::kGiB);
  const double usable = raw - m.reserved_GiB * units::kGiB;
  return usable > 0 ? usable : 0.0;
}

double total_sram_bytes(const ComputeDie& c) {
  return c.cores * c.sram_per_core_KiB * units::kKiB + c.shared_buffer_MiB * units::kMiB;
}

}  // namespace stackscope::hw
