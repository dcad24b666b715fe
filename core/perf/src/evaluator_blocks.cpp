// SPDX-License-Identifier: GPL-3.0-or-later
// The per-device operator blocks of the evaluator (docs/model.md §3-§8): attention, FFN, MoE, LM
// head and a pipeline stage of them, the network state they cost collectives on, and the
// evaluation context. Shared by evaluator.cpp and iteration.cpp through evaluator_detail.hpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <vector>

#include "evaluator_detail.hpp"
#include "stackscope/common/units.hpp"
#include "stackscope/compute/roofline.hpp"
#include "stackscope/hw/derived.hpp"
#include "stackscope/hw/stack_layers.hpp"
#include "stackscope/kernels/table.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/network/model.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/perf/expert_placement.hpp"
#include "stackscope/perf/overlap.hpp"
#include "stackscope/power_area/area.hpp"
#include "stackscope/power_area/energy.hpp"
#include "stackscope/runtime/profile.hpp"

namespace stackscope::perf::detail {

namespace {

// Tile counts tried by automatic overlap (docs/model.md §8).
constexpr int kAutoTiles[] = {1, 2, 4, 8, 16, 32, 64};

int kind_index(GroupKind k) {
  return static_cast<int>(k);
}

// The resource that bounds an operator's busy time.
Resource bounding(const OpCost& c) {
  if (c.noc_bound()) return Resource::noc;
  return c.memory_bound() ? Resource::dram : Resource::compute;
}

}  // namespace

// Cost of a collective on the group of `kind` that holds device 0 (all groups of a kind are
// alike under the placement's symmetry; network_report covers every group).
network::CollectiveCost comm_cost(const Ctx& c, GroupKind kind, Collective op, double bytes) {
  if (!c.net || bytes <= 0) return {};
  const auto& ranks = c.net->groups[kind_index(kind)];
  if (ranks.size() <= 1) return {};
  network::CollectiveRequest req;
  req.op = op;
  req.bytes = bytes;
  req.ranks = ranks;
  return c.net->model->cost(req);
}

void charge_op(Block& b, OpClass cls, const OpCost& c, const Ctx& ctx, bool vector) {
  b.op[static_cast<std::size_t>(cls)] += c.time;
  b.res[static_cast<std::size_t>(bounding(c))] += c.busy();
  b.res[static_cast<std::size_t>(Resource::overhead)] += c.t_overhead;
  b.time += c.time;
  b.kernels += ctx.kernels_per_op;
  b.flops += c.flops;
  b.dram_bytes += c.dram_bytes;
  b.noc += c.noc;
  b.energy += power_area::op_energy_J(ctx.energy, vector ? 0.0 : c.flops, vector ? c.flops : 0.0,
                                      c.dram_bytes, compute::byte_hops(ctx.stream.mesh, c.noc));
}

// A collective pays its network time (whose alpha is its own synchronisation) and, when the
// runtime runs it as a kernel of its own, one kernel's dispatch/launch on top
// (runtime::collective_overhead_s). Returns the network time (without that overhead) for
// overlap accounting.
double charge_comm(Block& b, OpClass cls, const Ctx& ctx, GroupKind kind, Collective op,
                   double bytes) {
  const network::CollectiveCost c = comm_cost(ctx, kind, op, bytes);
  if (c.time_s <= 0) return 0.0;
  const double launch = ctx.collective_s;
  b.op[static_cast<std::size_t>(cls)] += c.time_s + launch;
  b.res[static_cast<std::size_t>(Resource::interchip)] += c.time_s;
  b.res[static_cast<std::size_t>(Resource::overhead)] += launch;
  b.time += c.time_s + launch;
  b.kernels += ctx.collective_kernels;
  b.comm_bytes += c.bytes_per_device;
  b.energy += c.energy_J;
  b.record(kind, op, bytes, 1.0);
  return c.time_s;
}

// Tile-level overlap of a producer with its collective (docs/model.md §8; the pipeline, what it
// hides and what it cannot are argued in perf/overlap.hpp): lat, the collective's latency part
// (its cost at a vanishing message, network::CollectiveCost: per-step alpha + hops), is paid
// once; bw = t_comm - lat is tiled; each extra tile issues its `calls` collectives again at
// one command each (runtime::collective_overhead_s when collectives are kernels, else the
// front end's op_dispatch_ns). `independent` is work that neither feeds nor needs the
// collective and so may hide even its latency. The saving against sequential execution is
// taken off the collective's share (its exposed time).
void overlap(Block& b, const Ctx& c, OpClass comm_cls, const OpCost& producer, double t_comm,
             double lat, double comm_bytes, double calls, const OpCost* independent) {
  const auto mode = c.d.parallel.overlap;
  if (mode == parallel::Overlap::off || t_comm <= 0 || producer.time <= 0) return;
  OverlapInputs in;
  in.producer = {producer.t_compute, producer.t_memory, producer.t_noc};
  if (independent) in.independent = {independent->t_compute, independent->t_memory, 0.0};
  in.lat = std::min(lat, t_comm);
  in.bw = t_comm - in.lat;
  in.calls = calls;
  in.issue_s = c.collective_s > 0 ? c.collective_s : c.die.op_dispatch_ns * units::kNano;
  in.dram_s = 2.0 * comm_bytes / c.stream.dram_Bps;
  const double sequential = overlap_sequential(in);
  double best = sequential;
  if (mode == parallel::Overlap::fixed) {
    best = overlap_tiled(in, std::max(1, c.d.parallel.overlap_tiles));
  } else {
    for (int t : kAutoTiles) best = std::min(best, overlap_tiled(in, t));
  }
  const double saving = sequential - best;  // may be negative with a poor fixed tile count
  b.op[static_cast<std::size_t>(comm_cls)] -= saving;
  b.res[static_cast<std::size_t>(Resource::interchip)] -= saving;
  b.time -= saving;
}

// Latency part of a collective (its cost as the message size goes to zero).
double comm_latency(const Ctx& c, GroupKind kind, Collective op) {
  return comm_cost(c, kind, op, 1.0).time_s;
}

// A kernel's time from a measured table (docs/model.md §3.5) in place of the roofline's: the
// rows are back-to-back replays, so the time holds the kernel's own launch gap, which the
// runtime's per-operator overhead charges again; the busy time is the rest. Measured at the top
// clock: a compute-bound kernel slows with the DVFS clock, a memory-bound one does not.
OpCost measured(const Ctx& c, OpCost op, double time_s, double count) {
  const double own_gap = op.t_overhead / std::max(1.0, c.d.runtime.kernels_per_op);
  const double busy = std::max(0.0, time_s - own_gap) * count;
  const double clock = c.die.clock_GHz / std::max(1e-12, c.d.hardware.compute.clock_GHz);
  if (!op.memory_bound()) {
    op.t_compute = busy / clock;
    op.t_memory = std::min(op.t_memory, op.t_compute);
  } else {
    op.t_memory = busy;
    op.t_compute = std::min(op.t_compute, op.t_memory);
  }
  op.t_noc = std::min(op.t_noc, op.busy());
  op.time = op.busy() + op.t_overhead;
  ++c.measured_kernels;
  return op;
}

OpCost gemm(const Ctx& c, double m, double n, double k, double count) {
  OpCost op = compute::gemm(c.die, c.stream, m, n, k, {c.a_bytes, c.w_bytes, c.a_bytes}, count);
  const auto& table = c.d.hardware.kernel_times;
  if (count > 0) ++c.table_kernels;
  if (!table || count <= 0) return op;
  const auto t = kernels::gemm_time(
      *table, wider(c.d.workload.numerics.weights, c.d.workload.numerics.activations), m, n, k);
  return t ? measured(c, op, *t, count) : op;
}

OpCost vec(const Ctx& c, double flops, double bytes) {
  return compute::vector_op(c.stream, flops, bytes);
}

// Norm (+ fused residual add): read x and residual, write both; ~8 FLOP per element.
void add_norm(Block& b, const Ctx& c, double tokens) {
  const double elems = tokens * c.d.model.hidden;
  charge_op(b, OpClass::norm, vec(c, 8.0 * elems, 4.0 * elems * c.a_bytes * c.elementwise), c,
            true);
}

// The all-reduce after a tensor-parallel block; with sequence parallelism a reduce-scatter
// and an all-gather (same bytes on a ring; Korthikanti et al. 2022). Returns network time.
double tp_reduce(Block& b, const Ctx& c, GroupKind kind, double tokens, double* lat) {
  const double bytes = tokens * c.d.model.hidden * c.comm_bytes;
  if (c.d.parallel.sequence_parallel) {
    double t = charge_comm(b, OpClass::tp_comm, c, kind, Collective::reduce_scatter, bytes);
    t += charge_comm(b, OpClass::tp_comm, c, kind, Collective::all_gather, bytes);
    if (lat)
      *lat = comm_latency(c, kind, Collective::reduce_scatter) +
             comm_latency(c, kind, Collective::all_gather);
    return t;
  }
  if (lat) *lat = comm_latency(c, kind, Collective::all_reduce);
  return charge_comm(b, OpClass::tp_comm, c, kind, Collective::all_reduce, bytes);
}

// Collective calls of one TP reduction (tp_reduce).
double tp_calls(const Ctx& c) {
  return c.d.parallel.sequence_parallel ? 2.0 : 1.0;
}

// Attention core of `seqs` sequences of q_len new tokens attending to kv_len keys on one device
// (causal over the new tokens; causal = false: every query sees all kv_len keys, a chunk's
// prefix). Decode (q_len == 1) reads the paged KV cache, and MLA attends in the latent space.
OpCost attention_op(const Ctx& c, double seqs, double q_len, double kv_len, bool causal) {
  const auto& m = c.d.model;
  const int tp = c.place.attention_tp();
  const bool decode = q_len <= 1.0 && kv_len > 1.0;
  const auto dims = parallel::head_dims(m, decode);
  compute::AttentionShape s;
  s.sequences = seqs;
  s.q_len = q_len;
  s.kv_len = kv_len;
  s.heads = static_cast<double>(m.heads) / tp;
  s.qk_dim = dims.qk;
  s.v_dim = dims.v;
  s.kv_bytes_per_token = parallel::kv_bytes_per_token_layer(m, c.kv_bytes, tp);
  s.q_bytes = c.a_bytes;
  s.causal = causal;
  s.kv_reads = parallel::decode_kv_reads(m, c.kv_reread);
  compute::Rates rates = decode ? c.attention_kv : c.attention_stream;
  if (decode && !c.d.runtime.decode_attention_split_kv) {
    // One block per (sequence, KV head): the blocks occupy that many cores, each streaming at
    // the device's per-core share of the DRAM rate (runtime::Profile::decode_attention_split_kv).
    const double kv_heads = m.attention == workload::AttentionKind::mla
                                ? 1.0
                                : std::max(1.0, static_cast<double>(m.kv_heads) / tp);
    rates.dram_Bps *= std::min(1.0, seqs * kv_heads / std::max(1, c.die.cores));
  }
  const OpCost op = compute::attention(c.die, rates, c.attention_eff, s);
  ++c.table_kernels;
  const auto& table = c.d.hardware.kernel_times;
  if (!table || m.attention == workload::AttentionKind::mla || !(seqs > 0)) return op;
  // A measured table answers decode, and causal prefill without a cached prefix, for the head
  // layout this device runs (heads and KV heads after the attention TP split).
  const kernels::HeadLayout heads{s.heads, std::max(1.0, static_cast<double>(m.kv_heads) / tp),
                                  static_cast<double>(m.head_dim)};
  const Precision p = c.d.workload.numerics.kv_cache;
  if (decode) {
    const auto t = kernels::decode_attention_time(*table, p, heads, seqs, kv_len);
    return t ? measured(c, op, t->time_s, 1.0) : op;
  }
  if (causal && q_len == kv_len) {
    const auto t = kernels::prefill_attention_time(*table, p, heads, seqs, q_len);
    return t ? measured(c, op, t->time_s, 1.0) : op;
  }
  return op;
}

// Norm and projections in front of the attention core for `tokens` new tokens on one device, of
// which `absorbed` are decode tokens: MLA decode uses weight absorption (DeepSeek-V2 §2.1.2),
// its prefill materialises per-head keys and values.
void attention_in(Block& b, const Ctx& c, double tokens, double absorbed) {
  const auto& m = c.d.model;
  const int tp = c.place.attention_tp();
  const double h = m.hidden;
  const double heads = static_cast<double>(m.heads) / tp;
  // With sequence parallelism norms and residuals work on 1/tp of the tokens.
  add_norm(b, c, c.d.parallel.sequence_parallel ? tokens / tp : tokens);
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
    if (absorbed > 0) {
      // q_nope . W_UK per head (absorbed), then attention over the latent cache.
      charge_op(b, OpClass::qkv_proj, gemm(c, absorbed, a.kv_lora_rank, a.qk_nope_head_dim, heads),
                c, false);
    }
    if (tokens - absorbed > 0) {
      // Materialise per-head keys and values from the latent.
      charge_op(
          b, OpClass::qkv_proj,
          gemm(c, tokens - absorbed, heads * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank),
          c, false);
    }
  } else {
    const double kv_heads = std::max(1.0, static_cast<double>(m.kv_heads) / tp);
    charge_op(b, OpClass::qkv_proj, gemm(c, tokens, (heads + 2.0 * kv_heads) * m.head_dim, h), c,
              false);
  }
}

// The attention core `attn` of `tokens` new tokens; in prefill with context parallelism, ring
// attention (Liu et al. 2023): the K/V chunk of every rank visits all cp ranks (cp - 1 hops, an
// all-gather's traffic), overlapped block by block with the attention of the chunk at hand, so
// the cp steps are the natural tiles.
void attention_core(Block& b, const Ctx& c, const OpCost& attn, double tokens, bool decode) {
  charge_op(b, OpClass::attention, attn, c, false);
  const int cp = c.place.degree(parallel::Dim::cp);
  if (decode || cp <= 1) return;
  const double kv_chunk =
      tokens * parallel::kv_bytes_per_token_layer(c.d.model, c.kv_bytes, c.place.attention_tp());
  const double t =
      charge_comm(b, OpClass::tp_comm, c, GroupKind::cp, Collective::all_gather, kv_chunk * cp);
  const double lat = comm_latency(c, GroupKind::cp, Collective::all_gather);
  const double tc = attn.busy();
  const double hidden = std::min(tc, std::max(0.0, t - lat));
  b.op[static_cast<std::size_t>(OpClass::tp_comm)] -= hidden;
  b.res[static_cast<std::size_t>(Resource::interchip)] -= hidden;
  b.time -= hidden;
}

// Output side of the attention block (see attention_in): MLA's latent output . W_UV per head
// for the absorbed tokens, the output projection and the TP reduction after it.
void attention_out(Block& b, const Ctx& c, double tokens, double absorbed) {
  const auto& m = c.d.model;
  const int tp = c.place.attention_tp();
  const double h = m.hidden;
  const double heads = static_cast<double>(m.heads) / tp;
  if (m.attention == workload::AttentionKind::mla && absorbed > 0) {
    charge_op(b, OpClass::o_proj, gemm(c, absorbed, m.mla.v_head_dim, m.mla.kv_lora_rank, heads), c,
              false);
  }
  const double v_dim = m.attention == workload::AttentionKind::mla
                           ? m.mla.v_head_dim
                           : static_cast<double>(m.head_dim);
  const OpCost o = gemm(c, tokens, h, heads * v_dim);
  charge_op(b, OpClass::o_proj, o, c, false);
  if (tp > 1 && !m.parallel_attention) {
    double lat = 0;
    const double t = tp_reduce(b, c, GroupKind::attention_tp, tokens, &lat);
    overlap(b, c, OpClass::tp_comm, o, t, lat, tokens * h * c.comm_bytes, tp_calls(c));
  }
}

// Attention block of one layer on one device: `seqs` sequences of q_len new tokens (q_len of
// this device's context-parallel chunk in prefill) attending to kv_len keys.
Block attention_block(const Ctx& c, double seqs, double q_len, double kv_len, bool sliding) {
  Block b;
  const double tokens = seqs * q_len;
  const bool decode = q_len <= 1.0 && kv_len > 1.0;
  const double absorbed = decode ? tokens : 0.0;
  attention_in(b, c, tokens, absorbed);
  attention_core(b, c,
                 sliding ? sliding_attention_op(c, seqs, q_len, kv_len)
                         : attention_op(c, seqs, q_len, kv_len),
                 tokens, decode);
  attention_out(b, c, tokens, absorbed);
  return b;
}

OpCost sliding_attention_op(const Ctx& c, double seqs, double q_len, double kv_len) {
  const auto& m = c.d.model;
  const double w = static_cast<double>(m.sliding_window);
  if (!(w > 0) || kv_len <= w) return attention_op(c, seqs, q_len, kv_len);
  if (q_len <= 1.0) return attention_op(c, seqs, q_len, w);
  // A prompt of kv_len tokens (this device's q_len of them under context parallelism): each
  // query sees at most the window, so the work is that of every query seeing the mean count.
  return attention_op(c, seqs, q_len, parallel::window_prefill_keys(m, kv_len, 0.0), false);
}

// Gated (SwiGLU) or plain (GELU) FFN of intermediate size `inter` split over tp. Returns the
// cost of the last GEMM (the producer of the following collective).
OpCost add_ffn(Block& b, const Ctx& c, OpClass cls, double tokens, double inter, double count,
               int tp) {
  const auto& m = c.d.model;
  const double in_mats = m.ffn == workload::FfnKind::swiglu ? 2.0 : 1.0;
  const double local = inter / tp;
  charge_op(b, cls, gemm(c, tokens, in_mats * local, m.hidden, count), c, false);
  // Activation (SiLU x gate or GELU): ~8 FLOP per element, read in_mats, write 1.
  const double elems = tokens * local * count;
  charge_op(b, cls, vec(c, 8.0 * elems, (in_mats + 1.0) * elems * c.a_bytes * c.elementwise), c,
            true);
  const OpCost down = gemm(c, tokens, m.hidden, local, count);
  charge_op(b, cls, down, c, false);
  return down;
}

Block dense_ffn_block(const Ctx& c, double tokens) {
  Block b;
  const int tp = c.place.ffn_tp();
  if (!c.d.model.parallel_attention)
    add_norm(b, c, c.d.parallel.sequence_parallel ? tokens / tp : tokens);
  const OpCost down = add_ffn(b, c, OpClass::ffn, tokens, c.d.model.ffn_dim, 1.0, tp);
  if (tp > 1) {
    double lat = 0;
    const double t = tp_reduce(b, c, GroupKind::ffn_tp, tokens, &lat);
    overlap(b, c, OpClass::tp_comm, down, t, lat, tokens * c.d.model.hidden * c.comm_bytes,
            tp_calls(c));
  }
  return b;
}

// MoE FFN of one layer on the busiest device (docs/model.md §6-§7). `tokens_attn`: tokens of this
// device's attention group; `tokens_stage`: tokens of the whole stage, routed over the
// moe_ep expert-parallel ranks (each an moe_tp-way split of its experts).
Block moe_block(const Ctx& c, double tokens_attn, double tokens_stage, const double* freq,
                int row) {
  Block b;
  const auto& m = c.d.model;
  const auto& e = m.moe;
  const double h = m.hidden;
  add_norm(b, c, tokens_attn);
  charge_op(b, OpClass::router, gemm(c, tokens_attn, e.experts, h), c, false);
  // Softmax/sigmoid + top-k over the expert scores: ~(5 + log2 E) FLOP per score.
  const double scores = tokens_attn * e.experts;
  charge_op(b, OpClass::router,
            vec(c, scores * (5.0 + std::log2(std::max(2, e.experts))), scores * 4.0 * 2.0), c,
            true);
  if (simulated_on_mesh(c.d)) {
    mesh_routed_experts(b, c, tokens_stage, row);
  } else {
    plan_routed_experts(b, c, tokens_stage, freq);
  }
  // Back to the attention layout: the attention TP group gathers the hidden states.
  if (c.place.attention_tp() > 1) {
    charge_comm(b, OpClass::tp_comm, c, GroupKind::attention_tp, Collective::all_gather,
                tokens_attn * h * c.comm_bytes);
  }
  return b;
}

// The routed experts (and shared experts) of one MoE layer on a mesh system, by the placement
// strategy's mesh simulation (perf/expert_placement.hpp): the busiest node's expert compute is
// the moe_experts operator, the rest of the simulated layer (dispatch and combine on the mesh
// links, broadcasts not hidden) is its exposed ep_comm. Shared experts run on the stage's
// tokens split over all its devices, after the layer (the simulator has no idle slot to hide
// them in).
void mesh_routed_experts(Block& b, const Ctx& c, double tokens_stage, int row) {
  const auto& m = c.d.model;
  const auto& e = m.moe;
  const auto mesh = expert_mesh(c.d.system, c.stream.matrix_flops * c.stream.matmul_efficiency,
                                c.stream.dram_Bps, c.comm_bytes);
  const MeshMoeCost mc = mesh_moe_layer(c.d, mesh, row, tokens_stage, c.w_bytes);
  compute::OpCost routed;
  routed.flops = mc.flops;
  routed.dram_bytes = mc.weight_bytes;
  routed.t_compute = mc.flops / mesh.node_flops;
  routed.t_memory = mc.weight_bytes / mesh.mem_Bps;
  routed.time = mc.compute_s;
  charge_op(b, OpClass::moe_experts, routed, c, false);
  const double exposed = std::max(0.0, mc.time_s - mc.compute_s);
  b.op[static_cast<std::size_t>(OpClass::ep_comm)] += exposed;
  b.res[static_cast<std::size_t>(Resource::interchip)] += exposed;
  b.time += exposed;
  b.comm_bytes += mc.bytes_sent;
  const auto& level = c.d.system.levels.front();
  // Link energy: every byte × hop crosses one link (energy_pJ_per_bit per bit), shared over
  // the mesh's nodes (the block is one device's).
  b.energy +=
      (mc.link_bytes + mc.broadcast_bytes) * 8.0 * level.energy_pJ_per_bit * 1e-12 / mesh.nodes();
  if (e.shared_experts > 0) {
    const double sdim = e.shared_expert_ffn_dim > 0 ? e.shared_expert_ffn_dim : e.expert_ffn_dim;
    add_ffn(b, c, OpClass::shared_experts, tokens_stage / c.place.stage_devices(),
            sdim * e.shared_experts, 1.0, 1);
  }
}

// The routed experts (and shared experts) of one MoE layer under the plan's moe tp x ep layout
// or, on a non-mesh system, eplb / balanced ranks (placed_ep_load).
void plan_routed_experts(Block& b, const Ctx& c, double tokens_stage, const double* freq) {
  const auto& m = c.d.model;
  const auto& e = m.moe;
  const double h = m.hidden;
  const int ep = c.place.moe_ep();
  const int tp = c.place.moe_tp();
  const int stage = c.place.stage_devices();
  // Each device dispatches its 1/stage share of the stage's tokens to the top-k experts'
  // ranks and gets the results back (all-to-all over the EP group).
  const double dispatch = tokens_stage / stage * e.top_k * h * c.comm_bytes;
  double t_comm = 0, lat = 0, calls = 0;
  if (ep > 1) {
    t_comm +=
        charge_comm(b, OpClass::ep_comm, c, GroupKind::moe_ep, Collective::all_to_all, dispatch);
    lat += comm_latency(c, GroupKind::moe_ep, Collective::all_to_all);
    calls += 1;
  }
  const moe::EpLoad loads = c.d.parallel.experts.strategy == parallel::ExpertStrategy::plan
                                ? moe::ep_load_memo(freq, e.experts, ep, tokens_stage,
                                                    c.d.parallel.redundant_experts_per_rank)
                                : placed_ep_load(c.d, freq, ep, tokens_stage);
  // Routed experts on the slower of the two candidate ranks (most tokens / most experts used).
  Block routed;
  moe::RankLoad load;
  for (const moe::RankLoad& cand : {loads.most_tokens, loads.most_experts}) {
    if (cand.active_experts <= 0 || cand.tokens <= 0) continue;
    Block tmp;
    const double per_expert = std::max(1.0, cand.tokens / cand.active_experts);
    add_ffn(tmp, c, OpClass::moe_experts, per_expert, e.expert_ffn_dim, cand.active_experts, tp);
    if (tmp.time > routed.time) {
      routed = tmp;
      load = cand;
    }
  }
  if (tp > 1 && load.tokens > 0) {
    // The tokens reaching an EP rank go to all tp shards of its experts, and the partial outputs
    // are reduce-scattered back. Both move each token once, however many of its top-k experts
    // the rank holds (moe::unique_tokens): a shard sums a token's local experts before the
    // reduction (vLLM's and SGLang's fused MoE, TensorRT-LLM's MoE finalize). With a single EP
    // rank whose tp group is the attention TP group, every device already holds every token
    // after the attention all-reduce, so nothing is gathered in.
    const double bytes = moe::unique_tokens(tokens_stage, e.top_k, load.tokens) * h * c.comm_bytes;
    if (!(ep == 1 && c.place.attention_tp() == tp)) {
      t_comm +=
          charge_comm(b, OpClass::ep_comm, c, GroupKind::moe_tp, Collective::all_gather, bytes);
      lat += comm_latency(c, GroupKind::moe_tp, Collective::all_gather);
      calls += 1;
    }
    t_comm +=
        charge_comm(b, OpClass::ep_comm, c, GroupKind::moe_tp, Collective::reduce_scatter, bytes);
    lat += comm_latency(c, GroupKind::moe_tp, Collective::reduce_scatter);
    calls += 1;
  }
  b.add(routed, 1.0);
  // The routed experts as the producer for overlap() (they consume the dispatch and produce
  // the combine; both ride the same links, so the two all-to-alls are one serial
  // communication stage): busy for the sum of their operators' busy times (whichever resource
  // bounds each), of which t_memory is DRAM-bound (it competes with the all-to-all's DRAM
  // traffic).
  constexpr auto kOverhead = static_cast<std::size_t>(Resource::overhead);
  constexpr auto kDram = static_cast<std::size_t>(Resource::dram);
  OpCost experts;
  experts.time = routed.time;
  experts.t_compute = routed.time - routed.res[kOverhead];
  experts.t_memory = routed.res[kDram];
  OpCost shared;
  if (e.shared_experts > 0) {
    // Shared experts run on the tokens this EP rank holds, split tp ways; they neither feed
    // nor need the all-to-alls, so they are overlap()'s independent work and may run while
    // dispatch and combine are in flight (Megatron-Core's moe_shared_expert_overlap).
    const double sdim = e.shared_expert_ffn_dim > 0 ? e.shared_expert_ffn_dim : e.expert_ffn_dim;
    Block tmp;
    add_ffn(tmp, c, OpClass::shared_experts, tokens_stage / ep, sdim * e.shared_experts, 1.0, tp);
    b.add(tmp, 1.0);
    shared.time = tmp.time;
    shared.t_compute = tmp.time - tmp.res[kOverhead];
    shared.t_memory = tmp.res[kDram];
  }
  if (ep > 1) {
    t_comm +=
        charge_comm(b, OpClass::ep_comm, c, GroupKind::moe_ep, Collective::all_to_all, dispatch);
    lat += comm_latency(c, GroupKind::moe_ep, Collective::all_to_all);
    calls += 1;
  }
  overlap(b, c, OpClass::ep_comm, experts, t_comm, lat, 2.0 * dispatch, calls, &shared);
}

// Final norm + LM head for the last token of each sequence (logits only where sampled).
Block lm_head_block(const Ctx& c, double seqs) {
  Block b;
  add_norm(b, c, seqs);
  const auto& m = c.d.model;
  const int tp = c.place.attention_tp();
  compute::GemmBytes bytes{c.a_bytes, std::max(c.w_bytes, kMinEmbeddingBytes), 4.0};
  charge_op(
      b, OpClass::lm_head,
      compute::gemm(c.die, c.stream, seqs, static_cast<double>(m.vocab) / tp, m.hidden, bytes), c,
      false);
  if (tp > 1) {
    charge_comm(b, OpClass::tp_comm, c, GroupKind::attention_tp, Collective::all_gather,
                seqs * static_cast<double>(m.vocab) * 4.0);
  }
  return b;
}

StageMoe::StageMoe(const Ctx& c, double tokens_attn, double tokens_stage)
    : c_(c), tokens_attn_(tokens_attn), tokens_stage_(tokens_stage) {
  rows_ = parallel::is_moe(c.d.model) ? moe::frequency_rows(c.d.workload.routing) : 0;
  if (rows_ == 1) single_ = layer(0);
}

Block StageMoe::layer(int row) const {
  const auto& m = c_.d.model;
  double freq[moe::kMaxExperts];
  moe::expert_frequency(c_.d.workload.routing, m.moe.experts, m.moe.top_k, row, freq);
  return moe_block(c_, tokens_attn_, tokens_stage_, freq, row);
}

void StageMoe::add(Block& b, const parallel::StageLayers& st) const {
  if (rows_ == 1) {
    b.add(single_, st.moe);
    return;
  }
  for (int j = 0; j < st.moe; ++j) b.add(layer((st.first_moe + j) % std::max(1, rows_)), 1.0);
}

// One pipeline-stage pass of a micro-batch of `mb` sequences with q_len new tokens each and
// kv_len keys, on the slowest stage, plus the hop to the next stage.
Block slowest_stage(const Ctx& c, double mb, double q_len, double kv_len) {
  const auto& m = c.d.model;
  const int stage = c.place.stage_devices();
  const int tp_a = c.place.attention_tp();
  const int cp = c.place.degree(parallel::Dim::cp);
  const bool prefill = q_len > 1.0;
  // Attention groups: tp_a devices each; in prefill the cp ranks of a group split the prompt.
  const int seq_groups = prefill ? std::max(1, stage / (tp_a * cp)) : std::max(1, stage / tp_a);
  const double seqs_dev = std::ceil(mb / seq_groups);
  const double q_dev = prefill ? q_len / cp : q_len;
  const double tokens_attn = seqs_dev * q_dev;
  const double tokens_stage = mb * q_len;

  const Block attn = attention_block(c, seqs_dev, q_dev, kv_len);
  // Sliding-window layers (workload::Model::sliding_window) see at most the window's keys
  // (costed only for a model with a window: st.sliding is 0 otherwise).
  Block attn_sliding;
  if (m.sliding_window > 0) attn_sliding = attention_block(c, seqs_dev, q_dev, kv_len, true);
  const Block dense = dense_ffn_block(c, tokens_stage * c.place.ffn_tp() / stage);
  const Block head = lm_head_block(c, seqs_dev);

  const StageMoe moe(c, tokens_attn, tokens_stage);

  Block worst;
  worst.time = -1;
  for (int s = 0; s < c.pp; ++s) {
    const auto st = parallel::stage_layers(m, c.pp, s);
    Block b;
    b.add(attn, st.dense + st.moe - st.sliding);
    if (st.sliding > 0) b.add(attn_sliding, st.sliding);
    b.add(dense, st.dense);
    moe.add(b, st);
    if (st.lm_head) b.add(head, 1.0);
    if (c.pp > 1) {
      charge_comm(b, OpClass::pp_comm, c, GroupKind::pp_next, Collective::point_to_point,
                  tokens_attn * m.hidden * c.comm_bytes);
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
  p.noc = stage.noc.scaled(passes);
  p.energy_J = stage.energy * passes + static_W * p.time_s;
  return p;
}

double capacity_bytes(const hw::Hardware& h) {
  if (h.memory.kind == hw::MemoryKind::sram_only) return hw::total_sram_bytes(h.compute);
  if (h.memory.kind == hw::MemoryKind::stacked_3d && h.memory.bit_density_Gb_per_mm2 > 0) {
    const double layer_bytes = power_area::area(h).dram_layer_capacity_bytes;
    const double raw = hw::uniform_capacity(h.memory)
                           ? layer_bytes * h.memory.stacks * hw::stack_layer_count(h.memory)
                           : h.memory.stacks * hw::stack_raw_bytes(h.memory, layer_bytes);
    return std::max(0.0, raw - h.memory.reserved_GiB * units::kGiB);
  }
  return hw::memory_capacity_bytes(h.memory);
}

// Builds (or reuses) the network model and this plan's representative rank groups.
NetState* prepare_network(const Design& d, const parallel::Placement& place, NetState& state) {
  if (d.system.levels.empty() || parallel::devices(d.parallel) <= 1) return nullptr;
  if (!state.model || !network::same_network(state.system, d.system)) {
    state.model = nullptr;
    for (auto& [system, model] : state.models)
      if (network::same_network(system, d.system)) state.model = model.get();
    if (!state.model) {
      if (state.models.size() >= NetState::kModels) state.models.erase(state.models.begin());
      state.models.emplace_back(d.system, std::make_unique<network::NetworkModel>(d.system));
      state.model = state.models.back().second.get();
    }
    state.system = d.system;
  }
  for (int k = 0; k < kGroupKinds; ++k) {
    const auto kind = static_cast<GroupKind>(k);
    auto& g = state.groups[k];
    g.resize(static_cast<std::size_t>(place.group_size(kind)));
    place.group(kind, 0, g.data());
  }
  return &state;
}

Ctx make_ctx(const Design& d, const Operating& op, NetState* net_state) {
  const double clock_scale = op.clock, dram_C = op.dram_C;
  Ctx c{d,       d.hardware.compute,
        {},      {},
        {},      2,
        2,       2,
        2,       0.5,
        0.0,     1.0,
        0.0,     parallel::Placement(d.parallel),
        nullptr, 1,
        {},      {}};
  c.die.clock_GHz *= clock_scale;
  // With hardware.area.fit_cores the die computes with the cores its area holds next to the
  // vertical-link field (power_area::area), which shrinks as DRAM layers are stacked or
  // connected; that also shrinks the SRAM that buffers DRAM reads (Little's law, docs/model.md
  // §4.5).
  c.die.cores = power_area::cores_on_die(d.hardware);
  const auto& nm = d.workload.numerics;
  c.w_bytes = bytes_per_element(nm.weights);
  c.a_bytes = bytes_per_element(nm.activations);
  c.kv_bytes = bytes_per_element(nm.kv_cache);
  c.comm_bytes = std::max(c.a_bytes, kMinCommBytes);
  c.pp = std::max(1, d.parallel.pp);
  c.attention_eff = d.runtime.attention_efficiency;
  c.kv_reread = d.runtime.decode_kv_reread_fraction;
  c.elementwise = d.runtime.elementwise_traffic;
  c.net = net_state ? prepare_network(d, c.place, *net_state) : nullptr;

  const Precision mm = wider(nm.weights, nm.activations);
  // Software overheads from the runtime profile, against this device's own dispatch and
  // mesh barrier (the dispatch time is fixed in ns: the front end is not power-walled here).
  const double launch = runtime::op_overhead_s(d.runtime, c.die, d.hardware.noc);
  c.collective_s = runtime::collective_overhead_s(d.runtime, c.die, d.hardware.noc);
  c.kernels_per_op = d.runtime.kernels_per_op;
  c.collective_kernels = d.runtime.collective_is_kernel ? 1.0 : 0.0;
  const double mat = hw::matrix_peak_flops(c.die, mm);
  const double vect = hw::vector_peak_flops(c.die);
  const auto bw_stream = memory::effective_bandwidth(d.hardware.memory, c.die, {}, dram_C);
  memory::AccessPattern page;
  page.kind = memory::PatternKind::chunk;
  page.chunk_bytes = kKvPageTokens * parallel::kv_bytes_per_token_layer(d.model, c.kv_bytes,
                                                                        c.place.attention_tp());
  const auto bw_kv = memory::effective_bandwidth(d.hardware.memory, c.die, page, dram_C);
  const compute::MeshRates mesh = compute::mesh_rates(d.hardware, clock_scale);
  const double mm_eff = mm == Precision::fp4 && d.runtime.matmul_efficiency_fp4 > 0
                            ? d.runtime.matmul_efficiency_fp4
                            : d.runtime.matmul_efficiency;
  c.stream = {mat, vect, bw_stream.effective_Bps * op.memory, launch, mesh, mm_eff};
  c.kv = {mat, vect, bw_kv.effective_Bps * op.memory, launch, mesh, mm_eff};
  c.attention_stream = c.stream;
  c.attention_kv = c.kv;
  c.attention_stream.matrix_flops = c.attention_kv.matrix_flops =
      hw::matrix_peak_flops(c.die, wider(nm.activations, nm.kv_cache));
  // DVFS (docs/model.md §13.2): the logic die's energy per operation at this clock's voltage;
  // the DRAM side keeps its own supply.
  c.energy = power_area::energy_rates(d.hardware, mm, clock_scale);
  return c;
}

int micro_batches(const Design& d, int batch) {
  const int pp = std::max(1, d.parallel.pp);
  const int m = d.parallel.micro_batches > 0 ? d.parallel.micro_batches : pp;
  return std::clamp(m, 1, std::max(1, batch));
}

}  // namespace stackscope::perf::detail
