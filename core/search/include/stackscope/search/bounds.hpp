// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Optimistic bounds used for pruning (MODEL.md §12: "roofline with perfect overlap"). Each is a
// bound of what perf::Evaluator computes (core/perf/src/evaluator.cpp) for EVERY point that
// shares the design's hardware, parallel plan and batch, whatever its sequence_parallel and
// overlap settings, its power-wall clock scale and its DRAM temperature. Argument, per
// evaluator.cpp:
//  - a stage pass is a sum of operator times, each max(t_compute, t_memory) + launch
//    (compute/roofline.cpp), so it is >= launches x launch + max(sum t_compute, sum t_memory)
//    over any subset of its operators; collectives add time >= 0 and tile overlap only hides
//    collective time (its saving is <= the collective's time: the pipelined time is >= the
//    producer's max(t_compute, t_memory)), ring attention hides only prefill time;
//  - t_compute >= useful FLOPs / (matrix peak at the nominal clock x matmul_efficiency, or
//    attention_efficiency for attention): wave efficiency is <= 1, padded FLOPs >= useful
//    FLOPs, the power wall only lowers the clock;
//  - t_memory >= weight bytes read once / effective stream bandwidth at the nominal clock and
//    50 C (a GEMM reads its B operand at least once; throttling lowers the SRAM cap, heat
//    doubles refresh; both only lower bandwidth), plus decode KV bytes / the KV-page bandwidth;
//  - operators counted: every GEMM (Q/K/V or MLA projections, o_proj, dense FFN, MoE router,
//    shared and routed experts - the routed rank's tokens and experts as moe::ep_load gives
//    them, synthetic routing only -, LM head) and attention; one launch per GEMM with non-zero
//    dimensions, per vector op (norms, activations, top-k) and per attention;
//  - collectives (attention/FFN TP reductions - the cheaper of all-reduce and reduce-scatter +
//    all-gather, so either sequence-parallel setting -, MoE dispatch/combine all-to-all, the
//    attention all-gather after MoE, LM-head all-gather, pipeline hop) cost what
//    network::NetworkModel says for device 0's group, as in the evaluator. An exposed
//    collective adds its time; an overlapped (collective, producer) pair takes
//    max(T max(c, m) ...) >= max(producer busy time, collective time), since a tile count T >= 1
//    pays the latency at least once; ring attention hides at most min(attention, collective).
//    So a stage pass >= launches x launch + max(sum t_compute, sum t_memory, sum collectives);
//  - the slowest stage's time is >= every stage's bound (max over stages); its energy is >= the
//    smallest stage energy bound (min over stages);
//  - energy per token >= devices x [prefill passes x stage DRAM energy + static power x TTFT +
//    (output_len - 1) x (decode passes x stage DRAM energy + static power x TPOT)] /
//    (batch x output_len x dp) (logic energies scale with clock^2 under DVFS and
//    are left out); mean and decode power >= static power;
//  - peak DRAM temperature (compact model) >= ambient + static power x (r_base + r_layer x
//    layers); the thermal throttle cannot go below it, so above 95 C the design is infeasible.
// Bounds are relaxed by a relative 1e-9 against rounding.
#include <vector>

#include "stackscope/network/model.hpp"
#include "stackscope/perf/design.hpp"

namespace stackscope::search {

struct Optimistic {
  double tpot_s = 0;              // lower bound
  double ttft_s = 0;              // lower bound
  double stps = 0;                // upper bound
  double utps = 0;                // upper bound
  double energy_per_token_j = 0;  // lower bound
  double power_w = 0;             // lower bound (static power)
  double dram_peak_C = 0;         // lower bound (-inf when the DRAM is not modelled)
};

// Lower bound of the compact-model DRAM peak of any design on this hardware (-inf when the
// memory is not stacked on the logic die).
double dram_peak_floor_C(const hw::Hardware& hardware) noexcept;

// The decode work of one (plan, batch) of a design that the collective-free TPOT bound is made
// of: per pipeline stage, kernel launches, GEMM and attention FLOPs, weight and KV bytes per
// device. It depends on the model, workload, plan and batch only, never on the hardware, so one
// DecodeWork bounds the decode step on every hardware point with the same device count.
struct DecodeWork {
  struct Stage {
    double launches = 0, mm_flops = 0, attn_flops = 0, weight_bytes = 0, kv_bytes = 0;
  };
  std::vector<Stage> stages;
  double passes = 1;         // stage passes per decode step: max(micro-batches, pp)
  double kv_page_bytes = 0;  // bytes of a 64-token KV page (the KV-read access pattern)
  int batch = 1;
  double dp = 1;
};

// The hardware rates DecodeWork is divided by (nominal clock, 50 C, as in optimistic()).
struct DecodeRates {
  double mm_flops_per_s = 0;    // matrix peak x matmul_efficiency
  double attn_flops_per_s = 0;  // matrix peak x attention_efficiency
  double bw_Bps = 0;            // streaming DRAM bandwidth
  double kv_bw_Bps = 0;         // KV-page bandwidth for the work's kv_page_bytes
  double launch_s = 0;
};
// Rates of `design.hardware` with its workload's numerics; the KV-page bandwidth for pages of
// `kv_page_bytes`.
DecodeRates decode_rates(const perf::Design& design, double kv_page_bytes) noexcept;
double kv_page_bandwidth(const perf::Design& design, double kv_page_bytes) noexcept;

// Collective-free optimistic TPOT, STPS and UTPS of `work` at `rates` (other fields: the
// weakest bound, 0 or -inf): equal to optimistic(design, batch, nullptr) in those fields.
Optimistic decode_optimistic(const DecodeWork& work, const DecodeRates& rates) noexcept;

// `design` has its plan set; `batch` is the batch the evaluator will use (the fixed batch, or
// perf::max_batch_that_fits() for batch_auto), >= 1. The design must pass perf::validate()
// apart from the batch fitting memory.
// `network`: a model of design.system (its memoised costs are reused; not thread-safe), or null
// to leave collectives out of the bounds. `work`, when given, receives the decode work.
Optimistic optimistic(const perf::Design& design, int batch,
                      network::NetworkModel* network = nullptr,
                      DecodeWork* work = nullptr) noexcept;

}  // namespace stackscope::search
