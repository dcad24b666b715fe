// SPDX-License-Identifier: GPL-3.0-or-later
// See bounds.hpp for why each term bounds the evaluator (core/perf/src/evaluator.cpp).
#include "stackscope/search/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "stackscope/common/units.hpp"
#include "stackscope/hw/derived.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/network/model.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/power_area/area.hpp"
#include "stackscope/power_area/energy.hpp"
#include "stackscope/thermal/compact.hpp"

namespace stackscope::search {
namespace {

// evaluator.cpp: KV pages of 64 tokens; embedding/LM head kept 16-bit.
constexpr double kKvPageTokens = 64.0;
constexpr double kMinEmbeddingBytes = 2.0;
constexpr double kMinCommBytes = 2.0;
constexpr double kLow = 1.0 - 1e-9;
constexpr double kHigh = 1.0 + 1e-9;

struct StageBound {
  double time = 0;    // lower bound of one stage pass, s
  double energy = 0;  // lower bound of its dynamic energy, J
};

// A stage pass >= launches x launch + max(compute, memory, collective time) (bounds.hpp).
double stage_time(const DecodeWork::Stage& w, const DecodeRates& r, double t_comm) {
  const double t_mem =
      w.weight_bytes / r.bw_Bps + (w.kv_bytes > 0 ? w.kv_bytes / r.kv_bw_Bps : 0.0);
  const double t_comp = w.mm_flops / r.mm_flops_per_s + w.attn_flops / r.attn_flops_per_s;
  return w.launches * r.launch_s + std::max({t_comp, t_mem, t_comm});
}

// TPOT, UTPS and STPS bounds from the slowest stage pass.
void decode_rates_of(Optimistic& o, double stage_s, double passes, int batch, double dp) {
  o.tpot_s = stage_s * passes * kLow;
  const double inf = std::numeric_limits<double>::infinity();
  o.utps = o.tpot_s > 0 ? kHigh / o.tpot_s : inf;
  o.stps = o.tpot_s > 0 ? batch * dp / o.tpot_s * kHigh : inf;
}

memory::AccessPattern kv_page(double bytes) {
  memory::AccessPattern page;
  page.kind = memory::PatternKind::chunk;
  page.chunk_bytes = bytes;
  return page;
}

}  // namespace

double kv_page_bandwidth(const perf::Design& d, double kv_page_bytes) noexcept {
  return memory::effective_bandwidth(d.hardware.memory, d.hardware.compute, kv_page(kv_page_bytes),
                                     50.0)
      .effective_Bps;
}

DecodeRates decode_rates(const perf::Design& d, double kv_page_bytes) noexcept {
  const auto& die = d.hardware.compute;
  const auto& nm = d.workload.numerics;
  const double peak = hw::matrix_peak_flops(die, wider(nm.weights, nm.activations));
  DecodeRates r;
  r.mm_flops_per_s = peak * die.matmul_efficiency;
  r.attn_flops_per_s = peak * die.attention_efficiency;
  r.bw_Bps = memory::effective_bandwidth(d.hardware.memory, die, {}, 50.0).effective_Bps;
  r.kv_bw_Bps = kv_page_bandwidth(d, kv_page_bytes);
  r.launch_s = die.kernel_launch_us * units::kMicro;
  return r;
}

Optimistic decode_optimistic(const DecodeWork& work, const DecodeRates& rates) noexcept {
  Optimistic o;
  double t = 0;
  for (const auto& st : work.stages) t = std::max(t, stage_time(st, rates, 0.0));
  decode_rates_of(o, t, work.passes, work.batch, work.dp);
  o.dram_peak_C = -std::numeric_limits<double>::infinity();
  return o;
}

Optimistic optimistic(const perf::Design& d, int batch, network::NetworkModel* net,
                      DecodeWork* work) noexcept {
  Optimistic o;
  const auto& m = d.model;
  const auto& w = d.workload;
  const auto& die = d.hardware.compute;
  const auto& nm = w.numerics;
  const parallel::Placement place(d.parallel);
  const int pp = std::max(1, d.parallel.pp);
  const double wb = bytes_per_element(nm.weights);
  const double kv_el = bytes_per_element(nm.kv_cache);
  const Precision mm = wider(nm.weights, nm.activations);

  const double peak = hw::matrix_peak_flops(die, mm);
  const double bw = memory::effective_bandwidth(d.hardware.memory, die, {}, 50.0).effective_Bps;
  const int tp_a = place.attention_tp(), tp_f = place.ffn_tp();
  const int tp_m = place.moe_tp(), ep_m = place.moe_ep();
  const int stage = place.stage_devices();
  const int cp = place.degree(parallel::Dim::cp);
  const double kvb = parallel::kv_bytes_per_token_layer(m, kv_el, tp_a);
  const memory::AccessPattern page = kv_page(kKvPageTokens * kvb);
  const double bw_kv = kv_page_bandwidth(d, page.chunk_bytes);
  const double launch = die.kernel_launch_us * units::kMicro;
  const auto er = power_area::energy_rates(d.hardware, mm);

  // Collective time on the group of `kind` holding device 0, as evaluator.cpp comm_cost.
  const bool networked = net && !d.system.levels.empty() && parallel::devices(d.parallel) > 1;
  std::vector<int> ranks;
  auto comm = [&](parallel::GroupKind kind, network::Collective op, double bytes) {
    if (!networked || bytes <= 0) return 0.0;
    const int n = place.group_size(kind);
    if (n <= 1) return 0.0;
    ranks.resize(static_cast<std::size_t>(n));
    place.group(kind, 0, ranks.data());
    network::CollectiveRequest req;
    req.op = op;
    req.bytes = bytes;
    req.ranks = ranks;
    return std::max(0.0, net->cost(req).time_s);
  };
  // Tensor-parallel reduction: all-reduce, or reduce-scatter + all-gather with sequence
  // parallelism; the smaller of the two, so the bound holds for either setting.
  auto tp_reduce = [&](parallel::GroupKind kind, double bytes) {
    const double ar = comm(kind, network::Collective::all_reduce, bytes);
    const double rs_ag = comm(kind, network::Collective::reduce_scatter, bytes) +
                         comm(kind, network::Collective::all_gather, bytes);
    return std::min(ar, rs_ag);
  };
  const double comm_bytes = std::max(bytes_per_element(nm.activations), kMinCommBytes);

  const int mcfg = d.parallel.micro_batches > 0 ? d.parallel.micro_batches : pp;
  const int mbs = std::clamp(mcfg, 1, std::max(1, batch));
  const double mb = std::ceil(static_cast<double>(batch) / mbs);

  const double h = m.hidden;
  const double in_mats = m.ffn == workload::FfnKind::swiglu ? 2.0 : 1.0;
  const double heads_loc = static_cast<double>(m.heads) / tp_a;
  const double v_dim = m.attention == workload::AttentionKind::mla
                           ? m.mla.v_head_dim
                           : static_cast<double>(m.head_dim);
  const bool moe = parallel::is_moe(m);
  const auto& e = m.moe;
  const double sdim = e.shared_expert_ffn_dim > 0 ? e.shared_expert_ffn_dim : e.expert_ffn_dim;
  const double ctx_len = w.input_len + w.output_len / 2.0;

  // Routed experts on the busiest EP rank (synthetic routing: one frequency row, as the
  // evaluator costs it): the smallest FLOPs, weight bytes and expert-TP gather/scatter time of
  // the two candidate ranks, each a bound for whichever the evaluator picks.
  struct Routed {
    double flops = 0, bytes = 0, comm = 0;
  };
  auto routed = [&](double tokens_stage) {
    Routed r;
    if (!moe || moe::frequency_rows(w.routing) != 1) return r;
    // expert_frequency keeps the last generated row; ep_load_memo each (ep, tokens) result.
    double freq[moe::kMaxExperts];
    moe::expert_frequency(w.routing, e.experts, e.top_k, 0, freq);
    const moe::EpLoad loads = moe::ep_load_memo(freq, e.experts, ep_m, tokens_stage,
                                                d.parallel.redundant_experts_per_rank);
    const double inf = std::numeric_limits<double>::infinity();
    double f = inf, b = inf, c = inf;
    for (const moe::RankLoad& cand : {loads.most_tokens, loads.most_experts}) {
      if (cand.active_experts <= 0 || cand.tokens <= 0) continue;
      const double local = static_cast<double>(e.expert_ffn_dim) / tp_m;
      const double per_expert = std::max(1.0, cand.tokens / cand.active_experts);
      f = std::min(f, 2.0 * per_expert * cand.active_experts * (in_mats + 1.0) * local * h);
      b = std::min(b, cand.active_experts * (in_mats + 1.0) * local * h * wb);
      double t = 0;
      if (tp_m > 1) {
        const double bytes = cand.tokens * h * comm_bytes;
        t = comm(parallel::GroupKind::moe_tp, network::Collective::all_gather, bytes) +
            comm(parallel::GroupKind::moe_tp, network::Collective::reduce_scatter, bytes);
      }
      c = std::min(c, t);
    }
    if (std::isfinite(f)) r = {f, b, c};
    return r;
  };

  // Per-device work of one layer of each kind in one stage pass, and of the per-stage extras;
  // q tokens per sequence (1 in decode, input_len in prefill). Stage-independent, so costed
  // once per phase.
  struct Phase {
    double attn_flops = 0, attn_core = 0, attn_bytes = 0, attn_kv = 0, attn_launch = 0;
    double dense_flops = 0, dense_bytes = 0, dense_launch = 0;
    double moe_flops = 0, moe_bytes = 0, moe_launch = 0;
    double lm_flops = 0, lm_bytes = 0;
    double c_attn = 0, c_dense = 0, c_moe = 0, c_lm = 0, c_pp = 0;  // collective seconds
  };
  auto phase = [&](bool decode) {
    Phase p;
    const double q = decode ? 1.0 : static_cast<double>(w.input_len);
    const int seq_groups = decode ? std::max(1, stage / tp_a) : std::max(1, stage / (tp_a * cp));
    const double seqs_dev = std::ceil(mb / seq_groups);
    const double q_dev = decode ? 1.0 : q / cp;
    const double t_attn = seqs_dev * q_dev;
    const double t_stage = mb * q;
    const double t_ffn = t_stage * tp_f / stage;

    // A GEMM of `count` independent (m x k) . (k x n) products reading its weights once
    // (compute::gemm costs nothing, not even a launch, when a dimension is 0).
    double g_flops = 0, g_bytes = 0, g_launches = 0;
    auto gemm = [&](double gm, double gn, double gk, double count = 1.0) {
      if (gm <= 0 || gn <= 0 || gk <= 0 || count <= 0) return;
      g_flops += 2.0 * gm * gn * gk * count;
      g_bytes += gk * gn * wb * count;
      g_launches += 1.0;
    };
    // Attention block (evaluator.cpp attention_block): norm, Q/K/V (or MLA) projections,
    // attention, (MLA decode: W_UV), o_proj.
    const double kv_len = decode ? ctx_len : static_cast<double>(w.input_len);
    const bool absorbed = q_dev <= 1.0 && kv_len > 1.0;
    if (m.attention == workload::AttentionKind::mla) {
      const auto& a = m.mla;
      const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
      if (a.q_lora_rank > 0) {
        gemm(t_attn, a.q_lora_rank, h);
        gemm(t_attn, heads_loc * qk, a.q_lora_rank);
      } else {
        gemm(t_attn, heads_loc * qk, h);
      }
      gemm(t_attn, a.kv_lora_rank + a.qk_rope_head_dim, h);
      if (absorbed) {
        gemm(t_attn, a.kv_lora_rank, a.qk_nope_head_dim, heads_loc);
        gemm(t_attn, a.v_head_dim, a.kv_lora_rank, heads_loc);
      } else {
        gemm(t_attn, heads_loc * (a.qk_nope_head_dim + a.v_head_dim), a.kv_lora_rank);
      }
    } else {
      const double kv_heads = std::max(1.0, static_cast<double>(m.kv_heads) / tp_a);
      gemm(t_attn, (heads_loc + 2.0 * kv_heads) * m.head_dim, h);
    }
    gemm(t_attn, h, heads_loc * v_dim);
    p.attn_flops = g_flops;
    p.attn_bytes = g_bytes;
    p.attn_launch = g_launches + 2.0;  // + norm + attention
    {
      const auto dims = parallel::head_dims(m, absorbed);
      const double keys = q_dev > 1.0 ? (kv_len + 1.0) / 2.0 : kv_len;  // causal
      p.attn_core = 2.0 * seqs_dev * heads_loc * q_dev * keys * (dims.qk + dims.v);
      if (absorbed) p.attn_kv = seqs_dev * kv_len * kvb;
    }
    // Dense FFN layer.
    const double ffn_local = static_cast<double>(m.ffn_dim) / tp_f;
    p.dense_flops = 2.0 * t_ffn * (in_mats + 1.0) * ffn_local * h;
    p.dense_bytes = (in_mats + 1.0) * ffn_local * h * wb;
    p.dense_launch = m.parallel_attention ? 3.0 : 4.0;
    // MoE layer: router, shared and routed experts.
    if (moe) {
      p.moe_flops = 2.0 * t_attn * e.experts * h;
      p.moe_bytes = e.experts * h * wb;
      p.moe_launch = 3.0;
      if (e.shared_experts > 0) {
        const double local = sdim * e.shared_experts / tp_m;
        p.moe_flops += 2.0 * (t_stage / ep_m) * (in_mats + 1.0) * local * h;
        p.moe_bytes += (in_mats + 1.0) * local * h * wb;
        p.moe_launch += 3.0;
      }
      const Routed r = routed(t_stage);
      p.moe_flops += r.flops;
      p.moe_bytes += r.bytes;
      p.c_moe = r.comm;
    }
    const double cols = static_cast<double>(m.vocab) / tp_a;
    p.lm_flops = 2.0 * seqs_dev * cols * h;
    p.lm_bytes = cols * h * std::max(wb, kMinEmbeddingBytes);
    // Collectives (a subset of what a stage issues): exposed, or overlapped with a producer
    // whose pair then takes >= max(producer busy time, collective time).
    using network::Collective;
    using parallel::GroupKind;
    if (tp_a > 1 && !m.parallel_attention)
      p.c_attn = tp_reduce(GroupKind::attention_tp, t_attn * h * comm_bytes);
    if (tp_f > 1) p.c_dense = tp_reduce(GroupKind::ffn_tp, t_ffn * h * comm_bytes);
    if (moe) {
      if (ep_m > 1)
        p.c_moe += 2.0 * comm(GroupKind::moe_ep, Collective::all_to_all,
                              t_stage / stage * e.top_k * h * comm_bytes);
      if (tp_a > 1)
        p.c_moe += comm(GroupKind::attention_tp, Collective::all_gather, t_attn * h * comm_bytes);
    }
    if (tp_a > 1)
      p.c_lm = comm(GroupKind::attention_tp, Collective::all_gather,
                    seqs_dev * static_cast<double>(m.vocab) * 4.0);
    if (pp > 1)
      p.c_pp = comm(GroupKind::pp_next, Collective::point_to_point, t_attn * h * comm_bytes);
    return p;
  };

  // One stage pass from the per-layer work and the stage's layer counts.
  DecodeRates rates;
  rates.mm_flops_per_s = peak * die.matmul_efficiency;
  rates.attn_flops_per_s = peak * die.attention_efficiency;
  rates.bw_Bps = bw;
  rates.kv_bw_Bps = bw_kv;
  rates.launch_s = launch;
  auto stage_bound = [&](const Phase& p, int s, DecodeWork::Stage* out) {
    const auto st = parallel::stage_layers(m, pp, s);
    const double layers = st.dense + st.moe;
    const double dense = st.dense, moes = moe ? st.moe : 0, lm = st.lm_head ? 1.0 : 0.0;
    DecodeWork::Stage sw;
    sw.mm_flops =
        layers * p.attn_flops + dense * p.dense_flops + moes * p.moe_flops + lm * p.lm_flops;
    sw.weight_bytes =
        layers * p.attn_bytes + dense * p.dense_bytes + moes * p.moe_bytes + lm * p.lm_bytes;
    sw.kv_bytes = layers * p.attn_kv;
    sw.launches = layers * p.attn_launch + dense * p.dense_launch + moes * p.moe_launch + lm * 2.0;
    // GEMMs run at <= matmul_efficiency of peak, attention at <= attention_efficiency
    // (compute/roofline.cpp; both in (0, 1] by validation).
    sw.attn_flops = layers * p.attn_core;
    const double t_comm = layers * p.c_attn + (tp_f > 1 ? dense * p.c_dense : 0.0) +
                          moes * p.c_moe + lm * p.c_lm + p.c_pp;
    StageBound b;
    b.time = stage_time(sw, rates, t_comm);
    // Only DRAM energy: the logic die's per-FLOP, SRAM and NoC energies scale with clock^2
    // under DVFS (evaluator.cpp make_ctx), and the thermal throttle may slow the clock to 1/64.
    b.energy = (sw.weight_bytes + sw.kv_bytes) * er.dram_J_per_byte;
    if (out) *out = sw;
    return b;
  };

  const Phase dec = phase(true), pre = phase(false);
  if (work) {
    work->stages.resize(static_cast<std::size_t>(pp));
    work->kv_page_bytes = page.chunk_bytes;
    work->batch = batch;
    work->dp = std::max(1, d.parallel.dp);
  }
  double dec_time = 0, pre_time = 0;
  double dec_energy = std::numeric_limits<double>::infinity(), pre_energy = dec_energy;
  for (int s = 0; s < pp; ++s) {
    const StageBound dsb =
        stage_bound(dec, s, work ? &work->stages[static_cast<std::size_t>(s)] : nullptr);
    dec_time = std::max(dec_time, dsb.time);
    dec_energy = std::min(dec_energy, dsb.energy);
    const StageBound psb = stage_bound(pre, s, nullptr);
    pre_time = std::max(pre_time, psb.time);
    pre_energy = std::min(pre_energy, psb.energy);
  }
  const double dec_passes = std::max(mbs, pp);
  const double pre_passes = mbs + pp - 1.0;
  if (work) work->passes = dec_passes;
  const double dp = std::max(1, d.parallel.dp);
  decode_rates_of(o, dec_time, dec_passes, batch, dp);
  o.ttft_s = pre_time * pre_passes * kLow;
  const double devices = parallel::devices(d.parallel);
  const double steps = std::max(0, w.output_len - 1);
  const double tokens = static_cast<double>(batch) * w.output_len * dp;
  o.energy_per_token_j = tokens > 0
                             ? devices *
                                   (pre_passes * pre_energy + er.static_W * o.ttft_s +
                                    steps * (dec_passes * dec_energy + er.static_W * o.tpot_s)) /
                                   tokens * kLow
                             : 0.0;
  o.power_w = er.static_W * kLow;
  o.dram_peak_C = dram_peak_floor_C(d.hardware);
  return o;
}

double dram_peak_floor_C(const hw::Hardware& h) noexcept {
  if (h.memory.kind != hw::MemoryKind::stacked_3d) return -std::numeric_limits<double>::infinity();
  // The evaluator's resistances (geometry fit or given).
  const auto rc = thermal::compact_resistances(h.thermal, power_area::area(h).die_mm2);
  const double r = rc.r_base_K_per_W + rc.r_layer_K_per_W * h.memory.layers_total;
  if (!(r >= 0)) return -std::numeric_limits<double>::infinity();
  return (h.thermal.ambient_C + h.energy.static_power_W * r) * kLow;
}

}  // namespace stackscope::search
