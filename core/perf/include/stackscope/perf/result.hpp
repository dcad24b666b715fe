// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the evaluator returns. Fixed-size value types only, so evaluate() does not allocate.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/compute/noc.hpp"

namespace stackscope::perf {

// Operator classes of the per-operator breakdown.
enum class OpClass : std::uint8_t {
  norm,            // RMSNorm/LayerNorm, residual adds
  qkv_proj,        // Q/K/V (or MLA down/up) projections
  attention,       // score, softmax, value (FlashAttention-style in prefill; KV read in decode)
  o_proj,          // attention output projection
  ffn,             // dense FFN GEMMs + activation
  router,          // MoE gate GEMM + top-k
  moe_experts,     // routed experts
  shared_experts,  // shared experts
  lm_head,         // final norm + vocabulary projection
  tp_comm,         // tensor-parallel all-reduce
  ep_comm,         // expert-parallel dispatch/combine all-to-all
  pp_comm,         // pipeline stage-to-stage transfer
  count
};
inline constexpr std::size_t kOpClasses = static_cast<std::size_t>(OpClass::count);

// Resources of the per-resource breakdown: each operator's time is charged to the resource
// that bounds it (compute or memory), its fixed overhead, or the network.
enum class Resource : std::uint8_t {
  compute,        // matrix/vector units
  dram,           // DRAM bandwidth (incl. activation and buffering limits)
  vertical_link,  // TSV / hybrid-bond bandwidth (3D stacks)
  noc,            // on-die network
  interchip,      // system network (collectives, PP transfers)
  overhead,       // kernel launch / synchronisation
  count
};
inline constexpr std::size_t kResources = static_cast<std::size_t>(Resource::count);

std::string_view to_string(OpClass c);
std::string_view to_string(Resource r);

// Reasons a design is infeasible (bit flags).
enum Infeasibility : std::uint32_t {
  kOk = 0,
  kMemoryCapacity = 1u << 0,    // weights + KV + activations exceed device memory
  kZeroBatch = 1u << 1,         // batch auto found no batch that fits
  kPowerOverTdp = 1u << 2,      // reported; clocks are lowered (docs/model.md §13.2) instead
  kAreaOverDie = 1u << 3,       // cores + SRAM + NoC + PHYs + vertical field exceed the die
  kDieOverReticle = 1u << 4,    // the die exceeds the lithography reticle
  kDramTooHot = 1u << 5,        // DRAM above 95 C (refresh doubles above 85 C)
  kThermalThrottled = 1u << 6,  // reported; clock and DRAM rate throttled to hold DRAM at 95 C
  kEvaluationFailed = 1u << 7,  // the evaluator threw (out of memory); metrics are not valid
};
std::vector<std::string> describe(std::uint32_t reasons);

struct PhaseBreakdown {
  double time_s = 0;                      // wall time of the phase (prefill pass / one decode step)
  std::array<double, kOpClasses> op_s{};  // summed time per operator class
  std::array<double, kResources> resource_s{};  // summed time per bounding resource
  double flops = 0;                             // per device
  double dram_bytes = 0;                        // per device
  double comm_bytes = 0;                        // per device, sent over the system network
  compute::NocTraffic noc;   // per device, on the on-die mesh (compute/noc.hpp: per-link loads)
  double energy_J = 0;       // per device, dynamic + static over time_s
  double clock_scale = 1.0;  // logic clock the phase ran at, relative to compute.clock_GHz
  double power_W = 0;        // per device: energy_J / time_s
  // GEMM and attention kernels the phase evaluated, and how many of them took their time from
  // the device's measured kernel table (hw::Hardware::kernel_times; 0 without one).
  int kernels = 0;
  int measured_kernels = 0;
};

struct MemoryFootprint {  // bytes per device (the fullest device)
  double weights = 0;
  double kv_cache = 0;
  double activations = 0;
  double reserved = 0;
  double capacity = 0;
  double total() const { return weights + kv_cache + activations + reserved; }
};

struct Metrics {
  double ttft_s = 0;  // prefill of the whole static batch (= first token of every request)
  double tpot_s = 0;  // decode step seen by one request, at the mean decode context
  double utps = 0;    // 1 / tpot
  double stps = 0;    // decode tokens/s over all replicas
  double e2e_output_tokens_per_s = 0;     // B*output_len*dp / (prefill + (output_len-1) steps)
  double energy_per_token_j = 0;          // system energy per output token over the static run
  double prefill_energy_per_token_j = 0;  // system energy of the prefill per prompt token
  double decode_energy_per_token_j = 0;   // system energy of one decode step per token it emits
  double power_w = 0;                     // mean power per device over the static run
  double memory_bytes_per_device = 0;
};

struct AreaSummary {  // mm^2 per die
  double cores = 0, shared_sram = 0, noc = 0, phy = 0, vertical = 0, other = 0;
  double used = 0, die = 0, reticle = 0;
};

struct ThermalSummary {
  bool modelled = false;   // DRAM stacked on the logic die (stacked_3d); 2.5D HBM and SRAM-only
                           // designs keep their memory off the hot die and are not coupled
  double dram_peak_C = 0;  // compact model: ambient + P (r_base + r_layer L)
  bool refresh_doubled = false;
  double throttle = 1.0;      // < 1: clock and DRAM command rate held the DRAM at 95 C
  double r_base_K_per_W = 0;  // compact resistances used (given or from the die geometry)
  double r_layer_K_per_W = 0;
};

// Share of the device's static power attributed to DRAM refresh and background (standby)
// power when DRAM is stacked on the logic die. An assumption, not a fitted value: HBM-class
// standby + refresh is of order 10% of a device's idle power.
inline constexpr double kDramBackgroundShare = 0.10;

// Decode-phase (steady-state) mean power of one device by where it is dissipated, in W
// (docs/model.md §13.1). total_W = the sum of the parts = decode.energy_J / decode.time_s.
struct PowerSummary {
  double total_W = 0;
  double logic_dynamic_W = 0;    // matrix/vector FLOPs, SRAM staging and any other op energy
  double logic_static_W = 0;     // leakage etc. of the logic die
  double noc_W = 0;              // on-die network, in the uncore of the logic die
  double vertical_W = 0;         // TSV / hybrid-bond links (stacked_3d), in the bond layers
  double dram_access_W = 0;      // DRAM core + I/O for the bytes moved
  double dram_background_W = 0;  // refresh + standby, kDramBackgroundShare x static (stacked_3d)
  int dram_layers = 0;           // DRAM dies on the logic die (0: HBM beside it, or SRAM only)
  int connected_layers = 0;      // dies that carry the channels
  // Which dies own a vertical link, bottom first, for a per-layer stack whose connected dies are
  // not the bottom ones (docs/model.md §4.8); empty: the connected_layers dies nearest the
  // logic die.
  std::vector<bool> die_connected;
  double logic_die_W() const { return logic_dynamic_W + logic_static_W + noc_W; }
  bool die_is_connected(int j) const {
    return die_connected.empty() ? j <= connected_layers
                                 : j >= 1 && j <= static_cast<int>(die_connected.size()) &&
                                       die_connected[static_cast<std::size_t>(j - 1)];
  }
  // DRAM die j = 1..dram_layers (1 = next to the logic die): background on every die, access
  // power on the connected ones.
  double dram_die_W(int j) const {
    if (j < 1 || j > dram_layers) return 0.0;
    return dram_background_W / dram_layers +
           (die_is_connected(j) ? dram_access_W / connected_layers : 0.0);
  }
  // Bond layer k = 1..dram_layers (below DRAM die k): traffic to die j crosses bonds 1..j, so
  // bond k carries the connected dies at or above it, each an equal share of vertical_W: its
  // weight is their count over the sum of the connected dies' positions (c (c + 1) / 2 for the
  // bottom c).
  double bond_W(int k) const {
    const int c = connected_layers;
    if (die_connected.empty()) {
      if (k < 1 || k > c) return 0.0;
      return vertical_W * (c - k + 1) / (c * (c + 1) / 2.0);
    }
    if (k < 1 || k > dram_layers) return 0.0;
    int above = 0;
    double positions = 0;
    for (int j = 1; j <= dram_layers; ++j)
      if (die_is_connected(j)) {
        positions += j;
        if (j >= k) ++above;
      }
    return positions > 0 ? vertical_W * above / positions : 0.0;
  }
};

struct Result {
  bool feasible = false;
  std::uint32_t reasons = kOk;
  int batch = 0;             // requests per replica actually evaluated
  double clock_scale = 1.0;  // the decode phase's clock (prefill.clock_scale: the prefill's);
                             // < 1 when the power cap or the thermal throttle lowered it
  Metrics metrics;
  MemoryFootprint memory;
  AreaSummary area;
  ThermalSummary thermal;
  PowerSummary power;
  PhaseBreakdown prefill;
  PhaseBreakdown decode;
};

}  // namespace stackscope::perf
