// SPDX-License-Identifier: GPL-3.0-or-later
// See bounds.hpp for why each term bounds the evaluator (core/perf/src/evaluator.cpp).
#include "stackscope/search/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "stackscope/common/units.hpp"
#include "stackscope/compute/roofline.hpp"
#include "stackscope/hw/derived.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/network/model.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/power_area/area.hpp"
#include "stackscope/power_area/energy.hpp"
#include "stackscope/runtime/profile.hpp"
#include "stackscope/thermal/compact.hpp"

namespace stackscope::search {
namespace {

// evaluator.cpp: KV pages of 64 tokens; embedding/LM head kept 16-bit.
constexpr double kKvPageTokens = 64.0;
constexpr double kMinEmbeddingBytes = 2.0;
constexpr double kMinCommBytes = 2.0;
constexpr double kLow = 1.0 - 1e-9;
constexpr double kHigh = 1.0 + 1e-9;

// Reciprocal rates (a bound is evaluated millions of times: multiply, do not divide). A rate
// that is not positive counts as unbounded (0 s): weaker, never wrong.
struct Inverse {
  double mm, attn, vec, bw, kv;
  static double inv(double rate) { return rate > 0 ? 1.0 / rate : 0.0; }
  explicit Inverse(const DecodeRates& r)
      : mm(inv(r.mm_flops_per_s)),
        attn(inv(r.attn_flops_per_s)),
        vec(inv(r.vec_flops_per_s)),
        bw(inv(r.bw_Bps)),
        kv(inv(r.kv_bw_Bps)) {}
};

// Busy time of one operator: >= max(t_compute, t_memory) (bounds.hpp). Work fields are >= 0.
inline double busy(const WorkOp& w, const Inverse& r) {
  const double comp = w.mm_flops * r.mm + w.attn_flops * r.attn + w.vec_flops * r.vec;
  const double mem = w.bytes * r.bw + w.kv_bytes * r.kv;
  return std::max({comp, mem, w.busy_s});
}

using LayerComm = CommWork::Layer;

// One layer of kind `w`: plain operators + launches + the producer paired with its collective.
double layer_time(const LayerWork& w, const DecodeRates& r, const Inverse& inv,
                  const LayerComm* comm, const Schedule* sched, bool independent) {
  double plain = 0, producer = 0, cand[2] = {0, 0};
  for (int i = 0; i < w.n; ++i) {
    const double t = busy(w.op[static_cast<std::size_t>(i)], inv);
    switch (w.role[static_cast<std::size_t>(i)]) {
      case LayerWork::plain: plain += t; break;
      case LayerWork::producer: producer += t; break;
      case LayerWork::candidate0: cand[0] += t; break;
      case LayerWork::candidate1: cand[1] += t; break;
    }
  }
  producer += std::max(cand[0], cand[1]);
  double t = plain + w.launches * r.launch_s;
  if (!comm) return t + producer;
  // The producer paired with its collective (bounds.hpp Schedule): the cheaper way unless the
  // schedule fixes it; max(P, c) for any overlap, plus min(P, c) / T with T tiles fixed
  // unless part of P is independent work (the MoE layer's shared experts), which may hide the
  // collective's latency as well and so leaves only max(P, c).
  auto pair = [&](const CommWork::Way& way) {
    double x = std::max(producer, way.time);
    const bool tiled = sched && sched->overlap == parallel::Overlap::fixed;
    if (sched && sched->overlap != parallel::Overlap::auto_tiles && !(tiled && independent)) {
      const int tiles = sched->overlap == parallel::Overlap::off ? 1 : std::max(1, sched->tiles);
      x += std::min(producer, way.time) / tiles;
    }
    return x + way.calls * r.comm_launch_s;
  };
  double paired = producer;
  if (comm->ways == 1) {
    paired = pair(comm->pair[0]);
  } else if (comm->ways == 2) {
    paired = sched ? pair(comm->pair[sched->sequence_parallel ? 1 : 0])
                   : std::min(pair(comm->pair[0]), pair(comm->pair[1]));
  }
  return t + paired + comm->exposed + comm->exposed_calls * r.comm_launch_s;
}

// The slowest stage pass: each layer kind's time once, then every stage's layers of each kind
// plus the pipeline hop.
double slowest_stage(const DecodeWork& w, const DecodeRates& r, const CommWork* comm,
                     const Schedule* sched = nullptr) {
  const Inverse inv(r);
  std::array<double, DecodeWork::kinds> lt{};
  for (std::size_t k = 0; k < lt.size(); ++k)
    if (w.layer[k].n > 0)
      lt[k] = layer_time(w.layer[k], r, inv, comm ? &comm->layer[k] : nullptr, sched,
                         k == DecodeWork::moe);
  const double hop = comm ? comm->hop_s + comm->hop_calls * r.comm_launch_s : 0.0;
  double worst = 0;
  for (const auto& st : w.stages) {
    double t = hop;
    for (std::size_t k = 0; k < lt.size(); ++k) t += st.count[k] * lt[k];
    worst = std::max(worst, t);
  }
  return worst;
}

// DRAM bytes of one layer (the fewer of the routed candidates').
double layer_bytes(const LayerWork& w) {
  double b = 0, cand[2] = {0, 0};
  for (int i = 0; i < w.n; ++i) {
    const auto& op = w.op[static_cast<std::size_t>(i)];
    const auto role = w.role[static_cast<std::size_t>(i)];
    const double x = op.bytes + op.kv_bytes;
    if (role == LayerWork::candidate0)
      cand[0] += x;
    else if (role == LayerWork::candidate1)
      cand[1] += x;
    else
      b += x;
  }
  const bool two = std::any_of(w.role.begin(), w.role.begin() + w.n,
                               [](auto r) { return r == LayerWork::candidate1; });
  return b + (two ? std::min(cand[0], cand[1]) : cand[0]);
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
  r.mm_flops_per_s = peak * d.runtime.matmul_efficiency;
  r.attn_flops_per_s = peak * d.runtime.attention_efficiency;
  r.vec_flops_per_s = hw::vector_peak_flops(die);
  r.bw_Bps = memory::effective_bandwidth(d.hardware.memory, die, {}, 50.0).effective_Bps;
  r.kv_bw_Bps = kv_page_bandwidth(d, kv_page_bytes);
  r.launch_s = runtime::op_overhead_s(d.runtime, die, d.hardware.noc);
  r.comm_launch_s = runtime::collective_overhead_s(d.runtime, die, d.hardware.noc);
  return r;
}

Optimistic decode_optimistic(const DecodeWork& work, const DecodeRates& rates, const CommWork* comm,
                             const Schedule* schedule) noexcept {
  Optimistic o;
  decode_rates_of(o, slowest_stage(work, rates, comm, comm ? schedule : nullptr), work.passes,
                  work.batch, work.dp);
  o.dram_peak_C = -std::numeric_limits<double>::infinity();
  return o;
}

namespace {

// optimistic() and hardware_decode_work(): `exact` costs GEMMs and attention on the design's die
// (decode phase only).
Optimistic optimistic_impl(const perf::Design& d, int batch, network::NetworkModel* net,
                           DecodeWork* work, CommWork* comm_out, bool exact) noexcept {
  Optimistic o;
  const auto& m = d.model;
  const auto& w = d.workload;
  const auto& nm = w.numerics;
  const parallel::Placement place(d.parallel);
  const int pp = std::max(1, d.parallel.pp);
  const double wb = bytes_per_element(nm.weights);
  const double ab = bytes_per_element(nm.activations);
  const double kv_el = bytes_per_element(nm.kv_cache);
  const Precision mm = wider(nm.weights, nm.activations);

  const int tp_a = place.attention_tp(), tp_f = place.ffn_tp();
  const int tp_m = place.moe_tp(), ep_m = place.moe_ep();
  const int stage = place.stage_devices();
  const int cp = place.degree(parallel::Dim::cp);
  const double kvb = parallel::kv_bytes_per_token_layer(m, kv_el, tp_a);
  const double page_bytes = kKvPageTokens * kvb;
  const DecodeRates dec_rates = decode_rates(d, page_bytes);
  DecodeRates pre_rates = dec_rates;
  pre_rates.kv_bw_Bps = dec_rates.bw_Bps;  // prefill attention streams (evaluator: c.stream)
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
  // charge_comm launches a collective only when it takes time.
  auto calls = [](double t) { return t > 0 ? 1.0 : 0.0; };
  // Tensor-parallel reduction: all-reduce, or reduce-scatter + all-gather with sequence
  // parallelism; both ways are kept and the layer takes the cheaper.
  auto tp_reduce = [&](parallel::GroupKind kind, double bytes, LayerComm& lc) {
    const double ar = comm(kind, network::Collective::all_reduce, bytes);
    const double rs = comm(kind, network::Collective::reduce_scatter, bytes);
    const double ag = comm(kind, network::Collective::all_gather, bytes);
    lc.pair[0] = {ar, calls(ar)};
    lc.pair[1] = {rs + ag, calls(rs) + calls(ag)};
    lc.ways = 2;
  };
  const double comm_bytes = std::max(ab, kMinCommBytes);

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

  // Builders of a layer's operator list (evaluator.cpp's operators, hardware-independent).
  auto add = [](LayerWork& lw, LayerWork::Role role, const WorkOp& op) {
    if (lw.n >= LayerWork::kMaxOps) return;  // never with the evaluator's operator lists
    lw.op[static_cast<std::size_t>(lw.n)] = op;
    lw.role[static_cast<std::size_t>(lw.n)] = role;
    ++lw.n;
  };
  // compute::gemm: nothing (not even a launch) when a dimension is 0.
  // The evaluator's rates at the nominal clock and 50 C (exact mode), with this die's mesh at
  // the nominal clock (a throttled or power-walled clock only slows its links and routers).
  const auto& die = d.hardware.compute;
  const compute::Rates stream{hw::matrix_peak_flops(die, mm),
                              dec_rates.vec_flops_per_s,
                              dec_rates.bw_Bps,
                              dec_rates.launch_s,
                              exact ? compute::mesh_rates(d.hardware) : compute::MeshRates{},
                              d.runtime.matmul_efficiency};
  // An operator's busy time in exact mode plus its mesh fill (part of its overhead, which is
  // never hidden; max(P + fill, c) <= fill + max(P, c) keeps the pairings below bounds).
  const double fill = compute::fill_time_s(stream.mesh);
  compute::Rates kv_rates = stream;
  kv_rates.dram_Bps = dec_rates.kv_bw_Bps;
  auto gemm = [&](LayerWork& lw, LayerWork::Role role, double gm, double gn, double gk,
                  double count = 1.0, double b_bytes = -1, double c_bytes = -1) {
    if (gm <= 0 || gn <= 0 || gk <= 0 || count <= 0) return 0.0;
    WorkOp op;
    const double bb = b_bytes >= 0 ? b_bytes : wb, cb = c_bytes >= 0 ? c_bytes : ab;
    op.mm_flops = 2.0 * gm * gn * gk * count;
    op.bytes = (gm * gk * ab + gk * gn * bb + gm * gn * cb) * count;
    if (exact) {
      const compute::OpCost c = compute::gemm(die, stream, gm, gn, gk, {ab, bb, cb}, count);
      op.busy_s = c.busy() + fill;
    }
    add(lw, role, op);
    return 1.0;
  };
  auto vec = [&](LayerWork& lw, LayerWork::Role role, double flops, double bytes) {
    WorkOp op;
    op.vec_flops = flops;
    op.bytes = bytes;
    add(lw, role, op);
    return 1.0;
  };
  auto norm = [&](LayerWork& lw, double tokens) {
    const double elems = tokens * h;
    lw.launches += vec(lw, LayerWork::plain, 8.0 * elems, 4.0 * elems * ab);
  };
  // evaluator.cpp add_ffn: up (+gate) GEMM, activation, down GEMM; returns launches.
  auto ffn = [&](LayerWork& lw, LayerWork::Role up_role, LayerWork::Role down_role, double tokens,
                 double inter, double count, int tp) {
    const double local = inter / tp;
    double n = gemm(lw, up_role, tokens, in_mats * local, h, count);
    const double elems = tokens * local * count;
    n += vec(lw, up_role, 8.0 * elems, (in_mats + 1.0) * elems * ab);
    n += gemm(lw, down_role, tokens, h, local, count);
    return n;
  };

  struct Phase {
    DecodeWork work;
    CommWork comm;
  };
  auto phase = [&](bool decode) {
    Phase p;
    auto& L = p.work.layer;
    const double q = decode ? 1.0 : static_cast<double>(w.input_len);
    const int seq_groups = decode ? std::max(1, stage / tp_a) : std::max(1, stage / (tp_a * cp));
    const double seqs_dev = std::ceil(mb / seq_groups);
    const double q_dev = decode ? 1.0 : q / cp;
    const double t_attn = seqs_dev * q_dev;
    const double t_stage = mb * q;
    const double t_ffn = t_stage * tp_f / stage;
    const double kv_len = decode ? ctx_len : static_cast<double>(w.input_len);
    const bool absorbed = q_dev <= 1.0 && kv_len > 1.0;
    using network::Collective;
    using parallel::GroupKind;

    // Attention layer (evaluator.cpp attention_block).
    {
      LayerWork& a = L[DecodeWork::attention];
      norm(a, tp_a > 1 ? t_attn / tp_a : t_attn);
      double n = 0;
      if (m.attention == workload::AttentionKind::mla) {
        const auto& ml = m.mla;
        const double qk = ml.qk_nope_head_dim + ml.qk_rope_head_dim;
        if (ml.q_lora_rank > 0) {
          n += gemm(a, LayerWork::plain, t_attn, ml.q_lora_rank, h);
          n += gemm(a, LayerWork::plain, t_attn, heads_loc * qk, ml.q_lora_rank);
        } else {
          n += gemm(a, LayerWork::plain, t_attn, heads_loc * qk, h);
        }
        n += gemm(a, LayerWork::plain, t_attn, ml.kv_lora_rank + ml.qk_rope_head_dim, h);
        if (absorbed)
          n += gemm(a, LayerWork::plain, t_attn, ml.kv_lora_rank, ml.qk_nope_head_dim, heads_loc);
        else
          n += gemm(a, LayerWork::plain, t_attn, heads_loc * (ml.qk_nope_head_dim + ml.v_head_dim),
                    ml.kv_lora_rank);
      } else {
        const double kv_heads = std::max(1.0, static_cast<double>(m.kv_heads) / tp_a);
        n += gemm(a, LayerWork::plain, t_attn, (heads_loc + 2.0 * kv_heads) * m.head_dim, h);
      }
      {
        const auto dims = parallel::head_dims(m, absorbed);
        double keys = q_dev > 1.0 ? (kv_len + 1.0) / 2.0 : kv_len;  // causal
        // Sliding-window layers (evaluator_blocks.cpp sliding_attention_op) do less attention
        // work than full ones; every layer is bounded by theirs, which stays optimistic.
        double kv_read = kv_len;
        bool causal = true;
        if (m.sliding_window > 0 && parallel::sliding_layers(m, 0, m.layers) > 0 &&
            kv_len > m.sliding_window) {
          if (q_dev > 1.0) {
            keys = kv_read = parallel::window_prefill_keys(m, kv_len, 0.0);
            causal = false;
          } else {
            keys = kv_read = parallel::window_keys(m, kv_len);
          }
        }
        WorkOp op;
        op.attn_flops = 2.0 * seqs_dev * heads_loc * q_dev * keys * (dims.qk + dims.v);
        const double io = 2.0 * seqs_dev * q_dev * heads_loc * std::max(dims.qk, dims.v) * ab +
                          seqs_dev * kv_read * kvb;
        (absorbed ? op.kv_bytes : op.bytes) = io;
        if (exact) {
          compute::AttentionShape sh;
          sh.sequences = seqs_dev;
          sh.q_len = q_dev;
          sh.kv_len = kv_read;
          sh.heads = heads_loc;
          sh.qk_dim = dims.qk;
          sh.v_dim = dims.v;
          sh.kv_bytes_per_token = kvb;
          sh.q_bytes = ab;
          sh.causal = causal;
          sh.kv_reads = parallel::decode_kv_reads(m, d.runtime.decode_kv_reread_fraction);
          const compute::OpCost c = compute::attention(die, absorbed ? kv_rates : stream,
                                                       d.runtime.attention_efficiency, sh);
          op.busy_s = c.busy() + fill;
        }
        add(a, LayerWork::plain, op);
        n += 1.0;
      }
      if (m.attention == workload::AttentionKind::mla && absorbed)
        n += gemm(a, LayerWork::plain, t_attn, m.mla.v_head_dim, m.mla.kv_lora_rank, heads_loc);
      const bool reduce = tp_a > 1 && !m.parallel_attention;
      n += gemm(a, reduce ? LayerWork::producer : LayerWork::plain, t_attn, h, heads_loc * v_dim);
      a.launches += n;
      if (reduce)
        tp_reduce(GroupKind::attention_tp, t_attn * h * comm_bytes,
                  p.comm.layer[DecodeWork::attention]);
    }
    // Dense FFN layer (dense_ffn_block).
    {
      LayerWork& f = L[DecodeWork::dense];
      if (!m.parallel_attention) norm(f, tp_f > 1 ? t_ffn / tp_f : t_ffn);
      f.launches += ffn(f, LayerWork::plain, tp_f > 1 ? LayerWork::producer : LayerWork::plain,
                        t_ffn, m.ffn_dim, 1.0, tp_f);
      if (tp_f > 1)
        tp_reduce(GroupKind::ffn_tp, t_ffn * h * comm_bytes, p.comm.layer[DecodeWork::dense]);
    }
    // MoE layer (moe_block): norm, router GEMM and top-k; shared and routed experts are the
    // producer of the dispatch/combine all-to-alls.
    if (moe) {
      LayerWork& x = L[DecodeWork::moe];
      norm(x, t_attn);
      x.launches += gemm(x, LayerWork::plain, t_attn, e.experts, h);
      const double scores = t_attn * e.experts;
      x.launches += vec(x, LayerWork::plain, scores * (5.0 + std::log2(std::max(2, e.experts))),
                        scores * 4.0 * 2.0);
      double t_comm = 0, n_comm = 0;
      const double dispatch = t_stage / stage * e.top_k * h * comm_bytes;
      // A placement strategy other than the plan's (parallel::ExpertStrategy) moves the routed
      // experts' work and traffic (perf/expert_placement.hpp): the bound then leaves both out,
      // as for a per-layer trace.
      const bool plan_layout = d.parallel.experts.strategy == parallel::ExpertStrategy::plan;
      if (ep_m > 1 && plan_layout) {
        const double a2a = comm(GroupKind::moe_ep, Collective::all_to_all, dispatch);
        t_comm += 2.0 * a2a;
        n_comm += 2.0 * calls(a2a);
      }
      // Routed experts on the two candidate ranks (synthetic routing: one frequency row, as
      // the evaluator costs it); the expert-TP gather/scatter of the cheaper one.
      if (moe::frequency_rows(w.routing) == 1 && plan_layout) {
        double freq[moe::kMaxExperts];
        moe::expert_frequency(w.routing, e.experts, e.top_k, 0, freq);
        const moe::EpLoad loads = moe::ep_load_memo(freq, e.experts, ep_m, t_stage,
                                                    d.parallel.redundant_experts_per_rank);
        double launches = std::numeric_limits<double>::infinity();
        double gather = std::numeric_limits<double>::infinity(), gather_calls = 0;
        int c = 0;
        for (const moe::RankLoad& cand : {loads.most_tokens, loads.most_experts}) {
          if (cand.active_experts <= 0 || cand.tokens <= 0) continue;
          const auto role = c == 0 ? LayerWork::candidate0 : LayerWork::candidate1;
          const double per_expert = std::max(1.0, cand.tokens / cand.active_experts);
          launches = std::min(launches, ffn(x, role, role, per_expert, e.expert_ffn_dim,
                                            cand.active_experts, tp_m));
          double t = 0, nc = 0;
          if (tp_m > 1) {
            // As plan_routed_experts: each unique token once; no gather when the one EP rank's
            // tp group is the attention TP group.
            const double bytes = moe::unique_tokens(t_stage, e.top_k, cand.tokens) * h * comm_bytes;
            const double ag = ep_m == 1 && tp_a == tp_m
                                  ? 0.0
                                  : comm(GroupKind::moe_tp, Collective::all_gather, bytes);
            const double rs = comm(GroupKind::moe_tp, Collective::reduce_scatter, bytes);
            t = ag + rs;
            nc = calls(ag) + calls(rs);
          }
          if (t < gather) {
            gather = t;
            gather_calls = nc;
          }
          ++c;
        }
        if (c > 0) {
          x.launches += launches;
          t_comm += gather;
          n_comm += gather_calls;
        }
      }
      if (e.shared_experts > 0)
        x.launches += ffn(x, LayerWork::producer, LayerWork::producer, t_stage / ep_m,
                          sdim * e.shared_experts, 1.0, tp_m);
      auto& lc = p.comm.layer[DecodeWork::moe];
      if (t_comm > 0 || n_comm > 0) {
        lc.pair[0] = {t_comm, n_comm};
        lc.ways = 1;
      }
      if (tp_a > 1) {
        const double ag =
            comm(GroupKind::attention_tp, Collective::all_gather, t_attn * h * comm_bytes);
        lc.exposed += ag;
        lc.exposed_calls += calls(ag);
      }
    }
    // Final norm + LM head (lm_head_block), 16-bit weights at least, fp32 logits.
    {
      LayerWork& lm = L[DecodeWork::lm_head];
      norm(lm, seqs_dev);
      const double cols = static_cast<double>(m.vocab) / tp_a;
      lm.launches +=
          gemm(lm, LayerWork::plain, seqs_dev, cols, h, 1.0, std::max(wb, kMinEmbeddingBytes), 4.0);
      if (tp_a > 1) {
        const double ag = comm(GroupKind::attention_tp, Collective::all_gather,
                               seqs_dev * static_cast<double>(m.vocab) * 4.0);
        p.comm.layer[DecodeWork::lm_head].exposed += ag;
        p.comm.layer[DecodeWork::lm_head].exposed_calls += calls(ag);
      }
    }
    if (pp > 1) {
      const double t =
          comm(GroupKind::pp_next, Collective::point_to_point, t_attn * h * comm_bytes);
      p.comm.hop_s = t;
      p.comm.hop_calls = calls(t);
    }
    // Stage layer counts.
    p.work.stages.resize(static_cast<std::size_t>(pp));
    for (int s = 0; s < pp; ++s) {
      const auto st = parallel::stage_layers(m, pp, s);
      auto& c = p.work.stages[static_cast<std::size_t>(s)].count;
      c[DecodeWork::attention] = st.dense + st.moe;
      c[DecodeWork::dense] = st.dense;
      c[DecodeWork::moe] = moe ? st.moe : 0;
      c[DecodeWork::lm_head] = st.lm_head ? 1.0 : 0.0;
    }
    return p;
  };

  // The slowest stage's time and the smallest stage DRAM energy of a phase. Only DRAM energy:
  // the logic die's per-FLOP, SRAM and NoC energies scale with clock^2 under DVFS (evaluator.cpp
  // make_ctx), and the thermal throttle may slow the clock to 1/64.
  const bool with_comm = networked;
  auto bound = [&](const Phase& p, const DecodeRates& r, double* energy) {
    double en = std::numeric_limits<double>::infinity();
    std::array<double, DecodeWork::kinds> bytes{};
    for (int k = 0; k < DecodeWork::kinds; ++k)
      bytes[static_cast<std::size_t>(k)] = layer_bytes(p.work.layer[static_cast<std::size_t>(k)]);
    const double t = slowest_stage(p.work, r, with_comm ? &p.comm : nullptr);
    for (const auto& st : p.work.stages) {
      double b = 0;
      for (std::size_t k = 0; k < bytes.size(); ++k) b += st.count[k] * bytes[k];
      en = std::min(en, b * er.dram_J_per_byte);
    }
    *energy = en;
    return t;
  };

  const Phase dec = phase(true);
  const Phase pre = exact ? Phase{} : phase(false);
  double dec_energy = 0, pre_energy = 0;
  const double dec_time = bound(dec, dec_rates, &dec_energy);
  const double pre_time = exact ? 0.0 : bound(pre, pre_rates, &pre_energy);
  const double dec_passes = std::max(mbs, pp);
  const double pre_passes = mbs + pp - 1.0;
  const double dp = std::max(1, d.parallel.dp);
  if (comm_out) *comm_out = dec.comm;
  if (work) {
    *work = dec.work;
    work->kv_page_bytes = page_bytes;
    work->batch = batch;
    work->dp = dp;
    work->passes = dec_passes;
  }
  decode_rates_of(o, dec_time, dec_passes, batch, dp);
  o.ttft_s = pre_time * pre_passes * kLow;
  const double devices = parallel::devices(d.parallel);
  const double steps = std::max(0, w.output_len - 1);
  const double tokens = static_cast<double>(batch) * w.output_len * dp;
  o.energy_per_token_j = tokens > 0
                             ? devices *
                                   (pre_passes * pre_energy + er.idle_W * o.ttft_s +
                                    steps * (dec_passes * dec_energy + er.idle_W * o.tpot_s)) /
                                   tokens * kLow
                             : 0.0;
  o.power_w = er.idle_W * kLow;
  o.dram_peak_C = dram_peak_floor_C(d.hardware);
  return o;
}

}  // namespace

Optimistic optimistic(const perf::Design& d, int batch, network::NetworkModel* net,
                      DecodeWork* work, CommWork* comm) noexcept {
  return optimistic_impl(d, batch, net, work, comm, false);
}

DecodeWork hardware_decode_work(const perf::Design& d, int batch, network::NetworkModel* net,
                                CommWork* comm) noexcept {
  DecodeWork work;
  optimistic_impl(d, batch, net, &work, comm, true);
  return work;
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
