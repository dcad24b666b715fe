// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internals shared by the static evaluator (evaluator.cpp) and the serving iteration model
// (iteration.cpp): the per-device operator blocks of docs/model.md §3-§8, the network state, the
// resolved evaluation context. Private to core/perf.
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "stackscope/compute/roofline.hpp"
#include "stackscope/network/model.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/perf/result.hpp"
#include "stackscope/power_area/energy.hpp"

namespace stackscope::perf::detail {

using compute::OpCost;
using network::Collective;
using parallel::GroupKind;

// KV cache page: TensorRT-LLM's default tokens_per_block (paged KV cache) is 64.
constexpr double kKvPageTokens = 64.0;
// Collectives move activations in 16-bit even when GEMMs run in FP8/FP4 (TensorRT-LLM and
// NCCL reduce in fp16/bf16).
constexpr double kMinCommBytes = 2.0;
// Embedding and LM head stay 16-bit in FP8/FP4 deployments (TensorRT-LLM quantisation
// excludes lm_head by default).
constexpr double kMinEmbeddingBytes = 2.0;
constexpr int kGroupKinds = 6;
// Distinct collectives one block records (for link loads and the reference simulator).
constexpr int kMaxCalls = 12;

// A collective issued by a block: which group, what, how big, how often.
struct CommCall {
  GroupKind kind = GroupKind::attention_tp;
  Collective op = Collective::all_reduce;
  double bytes = 0;
  double count = 0;
};

// Cost of a block of operators on one device, summed.
struct Block {
  std::array<double, kOpClasses> op{};
  std::array<double, kResources> res{};
  double time = 0, flops = 0, dram_bytes = 0, comm_bytes = 0, energy = 0;
  // Kernels the block launches (runtime::Profile::kernels_per_op per operator, one per
  // collective run as a kernel): what an eager iteration's host issues one by one.
  double kernels = 0;
  compute::NocTraffic noc;  // on-die mesh traffic (compute/noc.hpp)
  std::array<CommCall, kMaxCalls> calls{};
  int n_calls = 0;

  void record(GroupKind kind, Collective op_, double bytes, double count) {
    for (int i = 0; i < n_calls; ++i) {
      auto& c = calls[i];
      if (c.kind == kind && c.op == op_ && c.bytes == bytes) {
        c.count += count;
        return;
      }
    }
    if (n_calls < kMaxCalls) calls[n_calls++] = {kind, op_, bytes, count};
  }

  void add(const Block& b, double times) {
    if (times <= 0) return;
    for (std::size_t i = 0; i < kOpClasses; ++i) op[i] += b.op[i] * times;
    for (std::size_t i = 0; i < kResources; ++i) res[i] += b.res[i] * times;
    time += b.time * times;
    flops += b.flops * times;
    dram_bytes += b.dram_bytes * times;
    comm_bytes += b.comm_bytes * times;
    energy += b.energy * times;
    kernels += b.kernels * times;
    noc += b.noc.scaled(times);
    for (int i = 0; i < b.n_calls; ++i)
      record(b.calls[i].kind, b.calls[i].op, b.calls[i].bytes, b.calls[i].count * times);
  }
};

// Network state reused across evaluations (memoised collective shapes) plus the rank groups
// of the current plan.
struct NetState {
  network::NetworkModel* model = nullptr;  // of the current design's system
  hw::System system;                       // the system `model` was built for
  // Searches come back to a few systems (device count x link multipliers) over and over: the
  // models of the last kModels, with their memoised collective costs.
  static constexpr std::size_t kModels = 64;
  std::vector<std::pair<hw::System, std::unique_ptr<network::NetworkModel>>> models;
  std::array<std::vector<int>, kGroupKinds> groups;
};

// Everything resolved once per evaluation.
struct Ctx {
  const Design& d;
  hw::ComputeDie die;     // with the power-wall clock applied
  compute::Rates stream;  // weights and activations: long sequential runs
  compute::Rates kv;      // KV cache: pages of kKvPageTokens tokens
  power_area::EnergyRates energy;
  double w_bytes = 2, a_bytes = 2, kv_bytes = 2, comm_bytes = 2;
  double attention_eff = 0.5;
  double kv_reread = 0.0;     // runtime::Profile::decode_kv_reread_fraction
  double elementwise = 1.0;   // runtime::Profile::elementwise_traffic
  double collective_s = 0.0;  // runtime::collective_overhead_s
  parallel::Placement place;
  NetState* net = nullptr;  // null: single device or no network levels
  int pp = 1;
  // stream and kv with the matrix peak the attention kernels run at: the wider of the
  // activations and the KV cache. Q.K^T and P.V take the cache's elements as they are stored,
  // so FP4 weights with an FP8 cache (NVFP4 checkpoints) run FP8 attention (TensorRT-LLM's FP8
  // FMHA / XQA kernels); there is no FP4 attention path in the libraries.
  compute::Rates attention_stream, attention_kv;
  // GEMM and attention kernels costed with this context, and those a measured kernel table
  // answered (Result's PhaseBreakdown::kernels / measured_kernels).
  mutable int table_kernels = 0;
  mutable int measured_kernels = 0;
  double kernels_per_op = 1.0;      // runtime::Profile::kernels_per_op
  double collective_kernels = 1.0;  // 1 when runtime::Profile::collective_is_kernel, else 0
};

// Operating point of one evaluation: the logic clock and DRAM command rate relative to nominal,
// and the DRAM temperature that sets the refresh rate.
struct Operating {
  double clock = 1.0;   // logic-die clock of the decode phase (power cap x thermal throttle)
  double memory = 1.0;  // DRAM command rate (thermal throttle)
  double dram_C = 50.0;
  double prefill_clock = 1.0;  // logic-die clock of the prefill phase
};

network::CollectiveCost comm_cost(const Ctx& c, GroupKind kind, Collective op, double bytes);
void charge_op(Block& b, OpClass cls, const OpCost& c, const Ctx& ctx, bool vector);
double charge_comm(Block& b, OpClass cls, const Ctx& ctx, GroupKind kind, Collective op,
                   double bytes);
void overlap(Block& b, const Ctx& c, OpClass comm_cls, const OpCost& producer, double t_comm,
             double lat, double comm_bytes, double calls, const OpCost* independent = nullptr);
double comm_latency(const Ctx& c, GroupKind kind, Collective op);
OpCost gemm(const Ctx& c, double m, double n, double k, double count = 1.0);
OpCost vec(const Ctx& c, double flops, double bytes);
void add_norm(Block& b, const Ctx& c, double tokens);
double tp_reduce(Block& b, const Ctx& c, GroupKind kind, double tokens, double* lat);
double tp_calls(const Ctx& c);
// The attention block is attention_in + attention_core(attention_op) + attention_out; the
// iteration model composes the parts itself for mixed batches.
OpCost attention_op(const Ctx& c, double seqs, double q_len, double kv_len, bool causal = true);
void attention_in(Block& b, const Ctx& c, double tokens, double absorbed);
void attention_core(Block& b, const Ctx& c, const OpCost& attn, double tokens, bool decode);
void attention_out(Block& b, const Ctx& c, double tokens, double absorbed);
// sliding: a sliding-window layer's block (sliding_attention_op).
Block attention_block(const Ctx& c, double seqs, double q_len, double kv_len,
                      bool sliding = false);
// attention_op for a sliding-window layer (workload::Model::sliding_window): a decode query
// reads min(kv_len, window) keys; a prompt's causal pass of kv_len tokens (q_len of them on this
// device) visits parallel::window_prefill_keys per query.
OpCost sliding_attention_op(const Ctx& c, double seqs, double q_len, double kv_len);
OpCost add_ffn(Block& b, const Ctx& c, OpClass cls, double tokens, double inter, double count,
               int tp);
Block dense_ffn_block(const Ctx& c, double tokens);
// `row`: the MoE layer's routing row (moe::frequency_rows), whose placement a mesh strategy
// simulates; `freq` its expected loads.
Block moe_block(const Ctx& c, double tokens_attn, double tokens_stage, const double* freq, int row);
void mesh_routed_experts(Block& b, const Ctx& c, double tokens_stage, int row);
void plan_routed_experts(Block& b, const Ctx& c, double tokens_stage, const double* freq);
Block lm_head_block(const Ctx& c, double seqs);
// The MoE layers of a pipeline stage for tokens_attn tokens per attention group and
// tokens_stage over the stage: one routing row for a synthetic distribution (costed once), or a
// trace's row per MoE layer, costed where the layer sits (each MoE layer is in exactly one stage).
class StageMoe {
 public:
  StageMoe(const Ctx& c, double tokens_attn, double tokens_stage);
  // Adds the MoE layers of stage `st` to b.
  void add(Block& b, const parallel::StageLayers& st) const;

 private:
  Block layer(int row) const;
  const Ctx& c_;
  double tokens_attn_, tokens_stage_;
  int rows_ = 0;
  Block single_;
};
Block slowest_stage(const Ctx& c, double mb, double q_len, double kv_len);
PhaseBreakdown to_phase(const Block& stage, double passes, double static_W);
double capacity_bytes(const hw::Hardware& h);
NetState* prepare_network(const Design& d, const parallel::Placement& place, NetState& state);
Ctx make_ctx(const Design& d, const Operating& op, NetState* net_state);
int micro_batches(const Design& d, int batch);
// The operating point (power wall, thermal refresh and throttle) evaluate() settles on for the
// design's own workload (evaluator.cpp).
Operating operating_point(const Design& d, NetState* net);

}  // namespace stackscope::perf::detail
