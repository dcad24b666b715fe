// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Optimistic bounds used for pruning (docs/model.md §16.2: "roofline with perfect overlap"). Each
// is a bound of what perf::Evaluator computes (core/perf/src/evaluator.cpp) for EVERY point that
// shares the design's hardware, parallel plan and batch, whatever its sequence_parallel and
// overlap settings, its power-wall clock scale and its DRAM temperature. Argument, per
// evaluator.cpp:
//  - a stage pass is a sum of operator times, each max(t_compute, t_memory) + launch
//    (compute/roofline.cpp), plus collectives; the bound keeps that structure operator by
//    operator (a sum of per-operator maxima, not the max of sums);
//  - t_compute >= useful FLOPs / (matrix peak at the nominal clock x matmul_efficiency, or
//    attention_efficiency for attention, or the vector peak for vector ops): wave efficiency
//    is <= 1, padded FLOPs >= useful FLOPs, the power wall and the throttle only lower the clock;
//  - t_memory >= the bytes every operator moves at least once / effective bandwidth at the
//    nominal DRAM rate and 50 C (a GEMM reads A and B and writes C at least once, whatever its
//    blocking; attention reads queries, outputs and the KV cache once - KV re-reads of grouped
//    heads are a hardware fraction >= 0 -; vector ops as the evaluator charges them; decode
//    attention at the KV-page bandwidth). Throttling lowers the SRAM cap and the command rate,
//    heat doubles refresh: all only lower bandwidth;
//  - operators counted: norms (on tokens / tp, the fewer of either sequence-parallel
//    setting), every GEMM (Q/K/V or MLA projections, o_proj, dense FFN, MoE router, shared and
//    routed experts - the larger bound of the two candidate ranks moe::ep_load gives, of which
//    the evaluator costs the slower; synthetic routing only -, LM head), activations, router
//    top-k and attention; one launch per operator with non-zero dimensions;
//  - collectives (attention/FFN TP reductions - all-reduce, or reduce-scatter + all-gather with
//    sequence parallelism, the cheaper with its launches -, MoE dispatch/combine all-to-all and
//    expert-TP gather/scatter, the attention all-gather after MoE, LM-head all-gather,
//    pipeline hop) cost what network::NetworkModel says for device 0's group, as in the
//    evaluator, plus one launch per call. An exposed collective adds its time; an overlapped
//    (collective, producer) pair - o_proj and the attention reduction, the FFN down
//    projection and its reduction, the experts and the MoE all-to-alls - takes
//    t(T) = max(tc', m) + min(tc', m) / T + lat >= max(producer busy time, collective time)
//    (perf/overlap.hpp: m = bandwidth part + issue costs >= bw, lat + bw = the collective
//    time, tc' >= tc; the producer's busy time is >= its bound); the MoE shared experts are
//    independent work beside it, t >= max(chain, producer + shared busy time), still
//    >= max(P, c); ring attention's prefill all-gather is left out (it adds >= 0 after hiding);
//  - the slowest stage's time is >= every stage's bound (max over stages); its energy is >= the
//    smallest stage energy bound (min over stages);
//  - energy per token >= devices x [prefill passes x stage DRAM energy + static power x TTFT +
//    (output_len - 1) x (decode passes x stage DRAM energy + static power x TPOT)] /
//    (batch x output_len x dp) (logic energies scale with clock^2 under DVFS and
//    are left out); mean and decode power >= static power;
//  - peak DRAM temperature (compact model) >= ambient + static power x (r_base + r_layer x
//    layers); the thermal throttle cannot go below it, so above 95 C the design is infeasible.
// Bounds are relaxed by a relative 1e-9 against rounding.
#include <array>
#include <cstdint>
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

// One operator's work on one device, independent of the hardware. The evaluator's time for it
// is >= max(compute, memory) + launch at any hardware's rates (compute/roofline.cpp: wave
// efficiency <= 1, padded FLOPs >= useful FLOPs, a GEMM reads A and B and writes C at least
// once, attention reads the KV cache at least once).
struct WorkOp {
  double mm_flops = 0;    // GEMM FLOPs (matrix peak x matmul_efficiency)
  double attn_flops = 0;  // attention FLOPs (matrix peak x attention_efficiency)
  double vec_flops = 0;   // vector-unit FLOPs (vector peak)
  double bytes = 0;       // DRAM bytes read/written in long runs (streaming bandwidth)
  double kv_bytes = 0;    // DRAM bytes of decode attention (KV-page bandwidth)
  // Hardware work only (hardware_decode_work): the evaluator's own busy time of this operator
  // (compute, memory and on-die mesh) at the nominal clock and 50 C plus its mesh fill
  // (compute::fill_time_s), >= the two above; 0 = not known.
  double busy_s = 0;
};

// The operators of one layer kind (attention, dense FFN, MoE FFN, LM head) on one device in
// one stage pass. Roles: plain operators; the producer a collective may overlap with (its
// time pairs with the collective's as max(producer, collective), evaluator.cpp overlap());
// the routed experts' two candidate ranks (moe::ep_load), of which the evaluator costs the
// slower: they join the producer as the larger of the two candidates' bounds.
struct LayerWork {
  static constexpr int kMaxOps = 16;
  enum Role : std::uint8_t { plain, producer, candidate0, candidate1 };
  std::array<WorkOp, kMaxOps> op{};
  std::array<Role, kMaxOps> role{};
  int n = 0;
  double launches = 0;  // kernel launches other than collectives' (fewest of the candidates)
};

// The decode work of one (plan, batch) of a design that the collective-free TPOT bound is made
// of: the operators of each layer kind and, per pipeline stage, how many layers of each kind
// it runs. It depends on the model, workload, plan and batch only, never on the hardware, so
// one DecodeWork bounds the decode step on every hardware point with the same device count.
struct DecodeWork {
  enum Kind { attention, dense, moe, lm_head, kinds };
  std::array<LayerWork, kinds> layer{};
  struct Stage {
    std::array<double, kinds> count{};  // layers of each kind (lm_head: 0 or 1)
  };
  std::vector<Stage> stages;
  double passes = 1;         // stage passes per decode step: max(micro-batches, pp)
  double kv_page_bytes = 0;  // bytes of a 64-token KV page (the KV-read access pattern)
  int batch = 1;
  double dp = 1;
};

// The decode collectives of one (plan, batch) on one system, per layer kind: the collective a
// producer may overlap (the cheaper of up to two ways to run it - all-reduce, or
// reduce-scatter + all-gather -, each with its number of calls) and the exposed ones, plus the
// pipeline hop per stage pass. Network seconds and call counts only (a call's launch is the
// hardware's), so one CommWork serves every hardware point with the same system.
struct CommWork {
  struct Way {
    double time = 0;
    double calls = 0;
  };
  struct Layer {
    std::array<Way, 2> pair{};
    int ways = 0;
    double exposed = 0, exposed_calls = 0;
  };
  std::array<Layer, DecodeWork::kinds> layer{};
  double hop_s = 0, hop_calls = 0;
};

// The decode work of `design`'s plan at `batch` with every GEMM and attention costed as the
// evaluator costs it on this hardware at the nominal clock and 50 C (compute::gemm and
// compute::attention: tile padding, wave quantisation, blocked re-reads, grouped KV re-reads),
// which only heat, the power wall and the throttle slow down. Tighter than the
// hardware-independent work, for this hardware point only; `comm`, when given, receives the
// decode collectives on `network` as optimistic() does.
DecodeWork hardware_decode_work(const perf::Design& design, int batch,
                                network::NetworkModel* network = nullptr,
                                CommWork* comm = nullptr) noexcept;

// The hardware rates DecodeWork is divided by (nominal clock, 50 C, as in optimistic()).
struct DecodeRates {
  double mm_flops_per_s = 0;    // matrix peak x the runtime's matmul_efficiency
  double attn_flops_per_s = 0;  // matrix peak x the runtime's attention_efficiency
  double vec_flops_per_s = 0;   // vector peak
  double bw_Bps = 0;            // streaming DRAM bandwidth
  double kv_bw_Bps = 0;         // KV-page bandwidth for the work's kv_page_bytes
  double launch_s = 0;          // per compute operator (runtime::op_overhead_s)
  double comm_launch_s = 0;     // per collective on top of its network time
                                // (runtime::collective_overhead_s)
};
// Rates of `design.hardware` with its workload's numerics; the KV-page bandwidth for pages of
// `kv_page_bytes`.
DecodeRates decode_rates(const perf::Design& design, double kv_page_bytes) noexcept;
double kv_page_bandwidth(const perf::Design& design, double kv_page_bytes) noexcept;

// The schedule settings a collective-aware decode bound may be specialised to (one point of a
// unit instead of all of them): the TP-reduction way (sequence parallelism off: all-reduce, on:
// reduce-scatter + all-gather) and the overlap mode. With T tiles the evaluator's pair time is
// max(tc', m) + min(tc', m) / T + lat >= max(P, c) + min(P, c) / T for producer busy time P
// <= tc' and collective time c = lat + bw <= lat + m (case by case: P >= c, bw <= P < c,
// P < bw); where part of P is independent work that may hide the latency too (the MoE layer's
// shared experts) only max(P, c) holds; overlap off (T = 1) pays P + c.
struct Schedule {
  bool sequence_parallel = false;
  parallel::Overlap overlap = parallel::Overlap::auto_tiles;
  int tiles = 1;  // Overlap::fixed
};

// Optimistic TPOT, STPS and UTPS of `work` at `rates` (other fields: the weakest bound, 0 or
// -inf): without `comm`, equal to optimistic(design, batch, nullptr) in those fields; with the
// CommWork optimistic() returned for a network model, equal to optimistic(design, batch, net);
// with `comm` and `schedule`, a bound of the points with that schedule only (>= the former).
Optimistic decode_optimistic(const DecodeWork& work, const DecodeRates& rates,
                             const CommWork* comm = nullptr,
                             const Schedule* schedule = nullptr) noexcept;

// `design` has its plan set; `batch` is the batch the evaluator will use (the fixed batch, or
// perf::max_batch_that_fits() for batch_auto), >= 1. The design must pass perf::validate()
// apart from the batch fitting memory.
// `network`: a model of design.system (its memoised costs are reused; not thread-safe), or null
// to leave collectives out of the bounds. `work`, when given, receives the decode work; `comm`
// the decode collectives (all zero without a network).
Optimistic optimistic(const perf::Design& design, int batch,
                      network::NetworkModel* network = nullptr, DecodeWork* work = nullptr,
                      CommWork* comm = nullptr) noexcept;

}  // namespace stackscope::search
