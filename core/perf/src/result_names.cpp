// SPDX-License-Identifier: GPL-3.0-or-later
// Stable names of breakdown keys and infeasibility reasons: they are JSON keys of the CLI's
// --json output and column names in exports, so they equal the enumerator names.
#include "stackscope/perf/result.hpp"

namespace stackscope::perf {

std::string_view to_string(OpClass c) {
  switch (c) {
    case OpClass::norm: return "norm";
    case OpClass::qkv_proj: return "qkv_proj";
    case OpClass::attention: return "attention";
    case OpClass::o_proj: return "o_proj";
    case OpClass::ffn: return "ffn";
    case OpClass::router: return "router";
    case OpClass::moe_experts: return "moe_experts";
    case OpClass::shared_experts: return "shared_experts";
    case OpClass::lm_head: return "lm_head";
    case OpClass::tp_comm: return "tp_comm";
    case OpClass::ep_comm: return "ep_comm";
    case OpClass::pp_comm: return "pp_comm";
    case OpClass::count: break;
  }
  return "unknown";
}

std::string_view to_string(Resource r) {
  switch (r) {
    case Resource::compute: return "compute";
    case Resource::dram: return "dram";
    case Resource::vertical_link: return "vertical_link";
    case Resource::noc: return "noc";
    case Resource::interchip: return "interchip";
    case Resource::overhead: return "overhead";
    case Resource::count: break;
  }
  return "unknown";
}

std::vector<std::string> describe(std::uint32_t reasons) {
  std::vector<std::string> out;
  if (reasons & kMemoryCapacity)
    out.emplace_back("memory capacity: weights + KV cache + activations exceed device memory");
  if (reasons & kZeroBatch) out.emplace_back("zero batch: not even batch 1 fits device memory");
  if (reasons & kPowerOverTdp)
    out.emplace_back("power over TDP: clocks lowered along the DVFS curve to meet it");
  if (reasons & kAreaOverDie)
    out.emplace_back("area: cores, SRAM, NoC, PHYs and the vertical-link field exceed the die");
  if (reasons & kDieOverReticle) out.emplace_back("area: the die exceeds the lithography reticle");
  if (reasons & kDramTooHot)
    out.emplace_back("thermal: DRAM above 95 C (refresh already doubled above 85 C)");
  if (reasons & kThermalThrottled)
    out.emplace_back("thermal throttle: clock and DRAM rate lowered to hold DRAM at 95 C");
  if (reasons & kEvaluationFailed)
    out.emplace_back("evaluation failed: the evaluator ran out of memory; metrics are not valid");
  const std::uint32_t known = kMemoryCapacity | kZeroBatch | kPowerOverTdp | kAreaOverDie |
                              kDieOverReticle | kDramTooHot | kThermalThrottled | kEvaluationFailed;
  for (unsigned bit = 0; bit < 32; ++bit) {
    const std::uint32_t flag = 1u << bit;
    if ((reasons & flag) && !(known & flag))
      out.push_back("unknown reason (bit " + std::to_string(bit) + ")");
  }
  return out;
}

}  // namespace stackscope::perf
