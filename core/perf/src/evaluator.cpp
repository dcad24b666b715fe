// SPDX-License-Identifier: GPL-3.0-or-later
// The single-design evaluator (MODEL.md §1-5, §8). See evaluator.hpp for the contract.
#include "stackscope/perf/evaluator.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "stackscope/common/units.hpp"
#include "stackscope/compute/roofline.hpp"
#include "stackscope/hw/derived.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/network/collective.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/power_area/energy.hpp"

namespace stackscope::perf {
namespace {

using compute::OpCost;
using network::Collective;

// KV cache page: TensorRT-LLM's default tokens_per_block (paged KV cache) is 64.
constexpr double kKvPageTokens = 64.0;
// Collectives move activations in 16-bit even when GEMMs run in FP8/FP4 (TensorRT-LLM and
// NCCL reduce in fp16/bf16).
constexpr double kMinCommBytes = 2.0;
// Embedding and LM head stay 16-bit in FP8/FP4 deployments (TensorRT-LLM quantisation
// excludes lm_head by default).
constexpr double kMinEmbeddingBytes = 2.0;

// Cost of a block of operators on one device, summed.
struct Block {
  std::array<double, kOpClasses> op{};
  std::array<double, kResources> res{};
  double time = 0, flops = 0, dram_bytes = 0, comm_bytes = 0, energy = 0;

  void add(const Block& b, double times) {
    for (std::size_t i = 0; i < kOpClasses; ++i) op[i] += b.op[i] * times;
    for (std::size_t i = 0; i < kResources; ++i) res[i] += b.res[i] * times;
    time += b.time * times;
    flops += b.flops * times;
    dram_bytes += b.dram_bytes * times;
    comm_bytes += b.comm_bytes * times;
    energy += b.energy * times;
  }
};

// Everything resolved once per evaluation.
struct Ctx {
  const Design& d;
  hw::ComputeDie die;  // with the power-wall clock applied
  compute::Rates stream;  // weights and activations: long sequential runs
  compute::Rates kv;      // KV cache: pages of kKvPageTokens tokens
  power_area::EnergyRates energy;
  double w_bytes = 2, a_bytes = 2, kv_bytes = 2, comm_bytes = 2;
  double attention_eff = 0.5;
  int tp = 1, pp = 1, ep = 1;
  parallel::ParamCounts params;
};

void charge_op(Block& b, OpClass cls, const OpCost& c, const Ctx& ctx, bool vector) {
  const double busy = std::max(c.t_compute, c.t_memory);
  b.op[static_cast<std::size_t>(cls)] += c.time;
  b.res[static_cast<std::size_t>(c.memory_bound() ? Resource::dram : Resource::compute)] += busy;
  b.res[static_cast<std::size_t>(Resource::overhead)] += c.t_overhead;
  b.time += c.time;
  b.flops += c.flops;
  b.dram_bytes += c.dram_bytes;
  b.energy += power_area::op_energy_J(ctx.energy, vector ? 0.0 : c.flops, vector ? c.flops : 0.0,
                                      c.dram_bytes);
}

// A collective is a kernel too: it pays the per-operator launch/sync overhead on top of its
// network time.
void charge_comm(Block& b, OpClass cls, const network::CollectiveCost& c, const Ctx& ctx) {
  const double launch = ctx.stream.launch_s;
  b.op[static_cast<std::size_t>(cls)] += c.time_s + launch;
  b.res[static_cast<std::size_t>(Resource::interchip)] += c.time_s;
  b.res[static_cast<std::size_t>(Resource::overhead)] += launch;
  b.time += c.time_s + launch;
  b.comm_bytes += c.bytes_per_device;
  b.energy += c.energy_J;
}

OpCost gemm(const Ctx& c, double m, double n, double k, double count = 1.0) {
  return compute::gemm(c.die, c.stream, m, n, k, {c.a_bytes, c.w_bytes, c.a_bytes}, count);
}

OpCost vec(const Ctx& c, double flops, double bytes) {
  return compute::vector_op(c.stream, flops, bytes);
}

network::CollectiveCost tp_all_reduce(const Ctx& c, double tokens) {
  return network::collective(c.d.system, Collective::all_reduce,
                             tokens * c.d.model.hidden * c.comm_bytes, c.tp, 1);
}

// Norm (+ fused residual add): read x and residual, write both; ~8 FLOP per element.
void add_norm(Block& b, const Ctx& c, double tokens) {
  const double elems = tokens * c.d.model.hidden;
  charge_op(b, OpClass::norm, vec(c, 8.0 * elems, 4.0 * elems * c.a_bytes), c, true);
}

// Attention block of one layer on one device: `seqs` sequences of q_len new tokens attending
// to kv_len keys. Decode (q_len == 1) uses MLA weight absorption (DeepSeek-V2 §2.1.2).
Block attention_block(const Ctx& c, double seqs, double q_len, double kv_len) {
  Block b;
  const auto& m = c.d.model;
  const double tokens = seqs * q_len;
  const double h = m.hidden;
  const double heads = static_cast<double>(m.heads) / c.tp;
  const bool decode = q_len <= 1.0;
  add_norm(b, c, tokens);
  if (m.attention == workload::AttentionKind::mla) {
    const auto& a = m.mla;
    const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    // Down projections are small and replicated on every TP rank.
    if (a.q_lora_rank > 0) {
      charge_op(b, OpClass::qkv_proj, gemm(c, tokens, a.q_lora_rank, h), c, false);
      charge_op(b, OpClass::qkv_proj, gemm(c, tokens, heads * qk, a.q_lora_rank), c, false);
    } else {
      charge_op(b, OpClass::qkv_proj, gemm(c, tokens, heads * qk, h), c, false);
    }
    charge_op(b, OpClass::qkv_proj, gemm(c, tokens, a.kv_lora_rank + a.qk_rope_head_dim, h), c,
              false);
    if (decode) {
      // q_nope . W_UK per head (absorbed), then attention over the latent cache.
      charge_op(b, OpClass::qkv_proj, gemm(c, tokens, a.kv_lora_rank, a.qk_nope_head_dim, heads),
                c, false);
    } else {
      // Materialise per-head keys and values from the latent.
      charge_op(b, OpClass::qkv_proj,
                gemm(c, tokens, heads * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank), c,
                false);
    }
  } else {
    const double kv_heads = std::max(1.0, static_cast<double>(m.kv_heads) / c.tp);
    charge_op(b, OpClass::qkv_proj, gemm(c, tokens, (heads + 2.0 * kv_heads) * m.head_dim, h), c,
              false);
  }

  const auto dims = parallel::head_dims(m, decode);
  compute::AttentionShape s;
  s.sequences = seqs;
  s.q_len = q_len;
  s.kv_len = kv_len;
  s.heads = heads;
  s.qk_dim = dims.qk;
  s.v_dim = dims.v;
  s.kv_bytes_per_token = parallel::kv_bytes_per_token_layer(m, c.kv_bytes, c.tp);
  s.q_bytes = c.a_bytes;
  s.causal = true;
  if (m.attention != workload::AttentionKind::mla) {
    const double group = static_cast<double>(m.heads) / std::max(1, m.kv_heads);
    s.kv_reads = 1.0 + (group - 1.0) * c.die.decode_kv_reread_fraction;
  }
  charge_op(b, OpClass::attention,
            compute::attention(c.die, decode ? c.kv : c.stream, c.attention_eff, s), c, false);

  if (m.attention == workload::AttentionKind::mla && decode) {
    // Latent output . W_UV per head, then the output projection.
    charge_op(b, OpClass::o_proj, gemm(c, tokens, m.mla.v_head_dim, m.mla.kv_lora_rank, heads), c,
              false);
  }
  const double v_dim =
      m.attention == workload::AttentionKind::mla ? m.mla.v_head_dim : static_cast<double>(m.head_dim);
  charge_op(b, OpClass::o_proj, gemm(c, tokens, h, heads * v_dim), c, false);
  if (c.tp > 1 && !m.parallel_attention) charge_comm(b, OpClass::tp_comm, tp_all_reduce(c, tokens), c);
  return b;
}

// Gated (SwiGLU) or plain (GELU) FFN of intermediate size `inter` split over tp.
void add_ffn(Block& b, const Ctx& c, OpClass cls, double tokens, double inter, double count) {
  const auto& m = c.d.model;
  const double in_mats = m.ffn == workload::FfnKind::swiglu ? 2.0 : 1.0;
  const double local = inter / c.tp;
  charge_op(b, cls, gemm(c, tokens, in_mats * local, m.hidden, count), c, false);
  // Activation (SiLU x gate or GELU): ~8 FLOP per element, read in_mats, write 1.
  const double elems = tokens * local * count;
  charge_op(b, cls, vec(c, 8.0 * elems, (in_mats + 1.0) * elems * c.a_bytes), c, true);
  charge_op(b, cls, gemm(c, tokens, m.hidden, local, count), c, false);
}

Block dense_ffn_block(const Ctx& c, double tokens) {
  Block b;
  if (!c.d.model.parallel_attention) add_norm(b, c, tokens);
  add_ffn(b, c, OpClass::ffn, tokens, c.d.model.ffn_dim, 1.0);
  if (c.tp > 1) charge_comm(b, OpClass::tp_comm, tp_all_reduce(c, tokens), c);
  return b;
}

// MoE FFN of one layer on the busiest device. `tokens_dev`: tokens of this device's attention
// group; `tokens_group`: tokens of the whole EP group (routed over all ep ranks).
Block moe_block(const Ctx& c, double tokens_dev, double tokens_group, const double* freq) {
  Block b;
  const auto& m = c.d.model;
  const auto& e = m.moe;
  const double h = m.hidden;
  add_norm(b, c, tokens_dev);
  charge_op(b, OpClass::router, gemm(c, tokens_dev, e.experts, h), c, false);
  // Softmax/sigmoid + top-k over the expert scores: ~(5 + log2 E) FLOP per score.
  const double scores = tokens_dev * e.experts;
  charge_op(b, OpClass::router,
            vec(c, scores * (5.0 + std::log2(std::max(2, e.experts))), scores * 4.0 * 2.0), c,
            true);
  const double dispatch = tokens_dev * e.top_k * h * c.comm_bytes;
  if (c.ep > 1) {
    charge_comm(b, OpClass::ep_comm, network::collective(c.d.system, Collective::all_to_all, dispatch, c.ep, c.tp), c);
  }
  const moe::RankLoad load = moe::busiest_rank(freq, e.experts, c.ep, tokens_group);
  if (load.active_experts > 0 && load.tokens > 0) {
    const double per_expert = std::max(1.0, load.tokens / load.active_experts);
    add_ffn(b, c, OpClass::moe_experts, per_expert, e.expert_ffn_dim, load.active_experts);
  }
  if (e.shared_experts > 0) {
    const double sdim = e.shared_expert_ffn_dim > 0 ? e.shared_expert_ffn_dim : e.expert_ffn_dim;
    add_ffn(b, c, OpClass::shared_experts, tokens_dev, sdim * e.shared_experts, 1.0);
  }
  if (c.ep > 1) {
    charge_comm(b, OpClass::ep_comm, network::collective(c.d.system, Collective::all_to_all, dispatch, c.ep, c.tp), c);
  }
  if (c.tp > 1) charge_comm(b, OpClass::tp_comm, tp_all_reduce(c, tokens_dev), c);
  return b;
}

// Final norm + LM head for the last token of each sequence (logits only where sampled).
Block lm_head_block(const Ctx& c, double seqs) {
  Block b;
  add_norm(b, c, seqs);
  const auto& m = c.d.model;
  compute::GemmBytes bytes{c.a_bytes, std::max(c.w_bytes, kMinEmbeddingBytes), 4.0};
  charge_op(b, OpClass::lm_head,
            compute::gemm(c.die, c.stream, seqs, static_cast<double>(m.vocab) / c.tp, m.hidden,
                          bytes),
            c, false);
  if (c.tp > 1) {
    charge_comm(b, OpClass::tp_comm, network::collective(c.d.system, Collective::all_gather,
                                    seqs * static_cast<double>(m.vocab) * 4.0, c.tp, 1), c);
  }
  return b;
}

// One pipeline-stage pass of a micro-batch of `mb` sequences (q_len new tokens each, kv_len
// keys) on the slowest stage, plus the hop to the next stage. Returns the stage block.
Block slowest_stage(const Ctx& c, double mb, double q_len, double kv_len) {
  const auto& m = c.d.model;
  const double seqs_dev = std::ceil(mb / c.ep);  // attention data-parallel over ep ranks
  const double tokens_dev = seqs_dev * q_len;
  const double tokens_group = mb * q_len;

  const Block attn = attention_block(c, seqs_dev, q_len, kv_len);
  const Block dense = dense_ffn_block(c, tokens_dev);
  const Block head = lm_head_block(c, seqs_dev);

  // MoE layers: one routing row for synthetic distributions (costed once); a trace has a row
  // per MoE layer, costed where the layer sits (each MoE layer is in exactly one stage).
  const bool has_moe = parallel::is_moe(m);
  const int rows = has_moe ? moe::frequency_rows(c.d.workload.routing) : 0;
  double freq[moe::kMaxExperts];
  auto moe_layer = [&](int row) {
    moe::expert_frequency(c.d.workload.routing, m.moe.experts, m.moe.top_k, row, freq);
    return moe_block(c, tokens_dev, tokens_group, freq);
  };
  Block moe_single;
  if (rows == 1) moe_single = moe_layer(0);

  Block worst;
  worst.time = -1;
  for (int s = 0; s < c.pp; ++s) {
    const auto st = parallel::stage_layers(m, c.pp, s);
    Block b;
    b.add(attn, st.dense + st.moe);
    b.add(dense, st.dense);
    if (rows == 1) {
      b.add(moe_single, st.moe);
    } else {
      for (int j = 0; j < st.moe; ++j) b.add(moe_layer((st.first_moe + j) % std::max(1, rows)), 1.0);
    }
    if (st.lm_head) b.add(head, 1.0);
    if (c.pp > 1) {
      const double bytes = tokens_dev * m.hidden * c.comm_bytes;
      charge_comm(b, OpClass::pp_comm, network::collective(c.d.system, Collective::point_to_point, bytes, 2,
                                      c.tp * c.ep), c);
    }
    if (b.time > worst.time) worst = b;
  }
  return worst;
}

PhaseBreakdown to_phase(const Block& stage, double passes, double static_W) {
  PhaseBreakdown p;
  for (std::size_t i = 0; i < kOpClasses; ++i) p.op_s[i] = stage.op[i] * passes;
  for (std::size_t i = 0; i < kResources; ++i) p.resource_s[i] = stage.res[i] * passes;
  p.time_s = stage.time * passes;
  p.flops = stage.flops * passes;
  p.dram_bytes = stage.dram_bytes * passes;
  p.comm_bytes = stage.comm_bytes * passes;
  p.energy_J = stage.energy * passes + static_W * p.time_s;
  return p;
}

double capacity_bytes(const hw::Hardware& h) {
  if (h.memory.kind == hw::MemoryKind::sram_only) return hw::total_sram_bytes(h.compute);
  return hw::memory_capacity_bytes(h.memory);
}

Ctx make_ctx(const Design& d, double clock_scale) {
  Ctx c{d, d.hardware.compute, {}, {}, {}, 2, 2, 2, 2, 0.5, 1, 1, 1, {}};
  c.die.clock_GHz *= clock_scale;
  const auto& nm = d.workload.numerics;
  c.w_bytes = bytes_per_element(nm.weights);
  c.a_bytes = bytes_per_element(nm.activations);
  c.kv_bytes = bytes_per_element(nm.kv_cache);
  c.comm_bytes = std::max(c.a_bytes, kMinCommBytes);
  c.tp = std::max(1, d.parallel.tp);
  c.pp = std::max(1, d.parallel.pp);
  c.ep = std::max(1, d.parallel.ep);
  c.attention_eff = d.hardware.compute.attention_efficiency;
  c.params = parallel::param_counts(d.model);

  const Precision mm = wider(nm.weights, nm.activations);
  const double launch = d.hardware.compute.kernel_launch_us * units::kMicro;
  const double mat = hw::matrix_peak_flops(c.die, mm);
  const double vect = hw::vector_peak_flops(c.die);
  const auto bw_stream = memory::effective_bandwidth(d.hardware.memory, c.die, {});
  memory::AccessPattern page;
  page.kind = memory::PatternKind::chunk;
  page.chunk_bytes =
      kKvPageTokens * parallel::kv_bytes_per_token_layer(d.model, c.kv_bytes, c.tp);
  const auto bw_kv = memory::effective_bandwidth(d.hardware.memory, c.die, page);
  c.stream = {mat, vect, bw_stream.effective_Bps, launch};
  c.kv = {mat, vect, bw_kv.effective_Bps, launch};
  c.energy = power_area::energy_rates(d.hardware, mm);
  return c;
}

int micro_batches(const Design& d, int batch) {
  const int pp = std::max(1, d.parallel.pp);
  const int m = d.parallel.micro_batches > 0 ? d.parallel.micro_batches : pp;
  return std::clamp(m, 1, std::max(1, batch));
}

Result evaluate_at(const Design& d, int batch, double clock_scale) {
  Result r;
  r.batch = batch;
  r.clock_scale = clock_scale;
  r.memory = memory_footprint(d, batch);
  const Ctx c = make_ctx(d, clock_scale);
  const auto& w = d.workload;
  const double dp = std::max(1, d.parallel.dp);
  const int m = micro_batches(d, batch);
  const double mb = std::ceil(static_cast<double>(batch) / m);

  // Prefill: the static batch in m micro-batches through pp stages: (m + pp - 1) passes.
  const Block pre = slowest_stage(c, mb, w.input_len, w.input_len);
  r.prefill = to_phase(pre, m + c.pp - 1.0, c.energy.static_W);

  // Decode at the mean context of the decode span; each request gets a token every
  // max(m, pp) stage passes (DeepStack: UTPS = 1 / (t_step * PP)).
  const double ctx_len = w.input_len + w.output_len / 2.0;
  const Block dec = slowest_stage(c, mb, 1.0, ctx_len);
  r.decode = to_phase(dec, std::max<double>(m, c.pp), c.energy.static_W);

  auto& mt = r.metrics;
  mt.ttft_s = r.prefill.time_s;
  mt.tpot_s = r.decode.time_s;
  mt.utps = mt.tpot_s > 0 ? 1.0 / mt.tpot_s : 0.0;
  mt.stps = mt.tpot_s > 0 ? batch * dp / mt.tpot_s : 0.0;
  const double steps = std::max(0, w.output_len - 1);
  const double total_s = r.prefill.time_s + steps * r.decode.time_s;
  const double tokens = static_cast<double>(batch) * w.output_len * dp;
  mt.e2e_output_tokens_per_s = total_s > 0 ? tokens / total_s : 0.0;
  const double devices = parallel::devices(d.parallel);
  const double energy_dev = r.prefill.energy_J + steps * r.decode.energy_J;
  mt.energy_per_token_j = tokens > 0 ? energy_dev * devices / tokens : 0.0;
  mt.power_w = total_s > 0 ? energy_dev / total_s : 0.0;
  mt.memory_bytes_per_device = r.memory.total();

  r.reasons = kOk;
  if (r.memory.total() > r.memory.capacity) r.reasons |= kMemoryCapacity;
  if (mt.power_w > d.hardware.energy.tdp_W * (1.0 + 1e-9)) r.reasons |= kPowerOverTdp;
  r.feasible = (r.reasons & kMemoryCapacity) == 0;
  return r;
}

}  // namespace

MemoryFootprint memory_footprint(const Design& d, int batch) noexcept {
  MemoryFootprint f;
  const auto& m = d.model;
  const auto& w = d.workload;
  const auto& nm = w.numerics;
  const int tp = std::max(1, d.parallel.tp), pp = std::max(1, d.parallel.pp);
  const int ep = std::max(1, d.parallel.ep);
  const auto p = parallel::param_counts(m);
  const double wb = bytes_per_element(nm.weights);
  const double eb = std::max(wb, kMinEmbeddingBytes);
  const double ab = std::max(bytes_per_element(nm.activations), kMinCommBytes);
  const double kvb = parallel::kv_bytes_per_token_layer(m, bytes_per_element(nm.kv_cache), tp);
  const double seqs = std::ceil(static_cast<double>(std::max(0, batch)) / ep);
  const double ctx = static_cast<double>(w.input_len) + w.output_len;

  // The fullest pipeline stage.
  for (int s = 0; s < pp; ++s) {
    const auto st = parallel::stage_layers(m, pp, s);
    const int layers = st.dense + st.moe;
    double weights = layers * (p.attention_per_layer + p.norms_per_layer) / tp * wb +
                     st.dense * p.dense_ffn_per_layer / tp * wb +
                     st.moe * ((p.expert * m.moe.experts / ep + p.shared_per_layer) / tp +
                               p.router_per_layer) * wb;
    if (st.embedding) weights += p.embedding / tp * eb;
    if (st.lm_head) weights += p.lm_head / tp * eb;
    const double kv = seqs * ctx * layers * kvb;
    if (weights + kv > f.weights + f.kv_cache) {
      f.weights = weights;
      f.kv_cache = kv;
    }
  }
  // Peak prefill activations on one device: hidden states (input, residual, output), the
  // widest intermediate of the FFN/experts, and fp32 logits of the last token per sequence.
  const int mbs = micro_batches(d, std::max(1, batch));
  const double tokens = std::ceil(seqs / mbs) * w.input_len;
  double inter = static_cast<double>(m.ffn_dim) / tp;
  if (parallel::is_moe(m)) {
    inter = std::max(inter, static_cast<double>(m.moe.expert_ffn_dim) * m.moe.top_k / tp);
  }
  f.activations = tokens * (3.0 * m.hidden + 2.0 * inter) * ab +
                  seqs * static_cast<double>(m.vocab) / tp * 4.0;
  f.reserved = d.hardware.runtime_reserved_GiB * units::kGiB;
  f.capacity = capacity_bytes(d.hardware);
  return f;
}

int max_batch_that_fits(const Design& d) noexcept {
  auto fits = [&](int b) {
    const auto f = memory_footprint(d, b);
    return f.total() <= f.capacity;
  };
  if (!fits(1)) return 0;
  int lo = 1, hi = 2;
  constexpr int kMaxBatch = 1 << 24;
  while (hi < kMaxBatch && fits(hi)) { lo = hi; hi *= 2; }
  if (hi >= kMaxBatch && fits(kMaxBatch)) return kMaxBatch;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

Result evaluate(const Design& d) noexcept {
  int batch = d.workload.batch;
  if (d.workload.batch_auto) {
    batch = max_batch_that_fits(d);
    if (batch == 0) {
      Result r = evaluate_at(d, 1, 1.0);
      r.batch = 0;
      r.feasible = false;
      r.reasons |= kZeroBatch | kMemoryCapacity;
      return r;
    }
  }
  Result r = evaluate_at(d, batch, 1.0);
  // Power wall (MODEL.md §8): throttle clocks by the cubic law and re-evaluate once.
  const double scale = power_area::power_wall_clock_scale(r.metrics.power_w, d.hardware.energy.tdp_W);
  if (scale < 1.0) {
    r = evaluate_at(d, batch, scale);
    r.reasons |= kPowerOverTdp;
  }
  return r;
}

}  // namespace stackscope::perf
