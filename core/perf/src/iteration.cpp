// SPDX-License-Identifier: GPL-3.0-or-later
// Cost of one serving iteration (docs/model.md §11.3) from the evaluator's operator blocks
// (evaluator_blocks.cpp). See iteration.hpp for the contract.
//
// Attention data parallelism as slowest_stage splits sequences: a stage has stage_devices /
// attention_tp attention groups. Decode sequences go to the groups round-robin in batch order
// (SGLang's data-parallel controller assigns requests round-robin by default); prefill chunks go
// round-robin to runs of cp consecutive groups, each group taking the chunk's 1/cp share of
// queries (slowest_stage's prefill). Per group, one kernel runs the decode sequences and one the
// prefill chunks (TensorRT-LLM's generation and context attention): their work adds over
// sequences and the roofline is taken over the sum, so N decode sequences at contexts c_i cost
// exactly one attention_op() of N sequences at the mean of c_i + 1. The slowest group sets the
// layer's attention time (the MoE all-to-alls synchronise the groups every layer). GEMMs, norms,
// MoE, collectives and the LM head (emitting sequences) see token counts only.
//
// Pipeline stages run one after the other for the batch (time = sum over stages): a serving
// iteration's tokens depend on the previous iteration's, and the scheduler runs one batch per
// replica at a time. The static evaluator's decode step is instead max(micro-batches, pp) passes
// of its slowest stage; with one micro-batch the two differ by the stages' imbalance.
#include "stackscope/perf/iteration.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "evaluator_detail.hpp"
#include "stackscope/common/units.hpp"
#include "stackscope/compute/noc.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/perf/evaluator.hpp"

namespace stackscope::perf {

using namespace detail;

namespace {

// Memo tables are dropped when they reach this many entries (a simulator sweeping every
// (chunk, context) pair of a long trace would otherwise grow them without bound).
constexpr std::size_t kMaxMemoEntries = std::size_t{1} << 20;

struct Cost {
  double time = 0;
  double energy = 0;   // dynamic, per device
  double kernels = 0;  // kernels launched (Block::kernels)
};

// Memo key of up to three values, compared bitwise.
struct Key {
  double a = 0, b = 0, c = 0;
  bool operator==(const Key& o) const {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(o.a) &&
           std::bit_cast<std::uint64_t>(b) == std::bit_cast<std::uint64_t>(o.b) &&
           std::bit_cast<std::uint64_t>(c) == std::bit_cast<std::uint64_t>(o.c);
  }
};

struct KeyHash {
  std::size_t operator()(const Key& k) const {
    // splitmix64 finaliser over the combined bits.
    auto mix = [](std::uint64_t x) {
      x ^= x >> 30;
      x *= 0xbf58476d1ce4e5b9ULL;
      x ^= x >> 27;
      x *= 0x94d049bb133111ebULL;
      return x ^ (x >> 31);
    };
    std::uint64_t h = mix(std::bit_cast<std::uint64_t>(k.a));
    h = mix(h ^ std::bit_cast<std::uint64_t>(k.b));
    h = mix(h ^ std::bit_cast<std::uint64_t>(k.c));
    return static_cast<std::size_t>(h);
  }
};

template <class V>
using Memo = std::unordered_map<Key, V, KeyHash>;

// Work of one attention kernel summed over sequences: compute::attention is linear in FLOPs
// and bytes, and its mesh traffic (compute::relayout_traffic) is linear in the query/output
// and DRAM bytes, so one kernel over several sequences is the roofline of the summed work.
struct KernelSum {
  double flops = 0, dram = 0, t_compute = 0, t_memory = 0, t_overhead = 0;
  compute::NocTraffic noc;
  void add(const OpCost& c, double sign = 1.0) {
    flops += sign * c.flops;
    dram += sign * c.dram_bytes;
    t_compute += sign * c.t_compute;
    t_memory += sign * c.t_memory;
    noc += c.noc.scaled(sign);
    t_overhead = c.t_overhead;  // launch + mesh fill, the same for every shape
  }
  void add(const KernelSum& k) {
    flops += k.flops;
    dram += k.dram;
    t_compute += k.t_compute;
    t_memory += k.t_memory;
    noc += k.noc;
    t_overhead = k.t_overhead;
  }
  OpCost finish(const compute::MeshRates& mesh) const {
    OpCost o;
    o.flops = flops;
    o.dram_bytes = dram;
    o.t_compute = t_compute;
    o.t_memory = t_memory;
    o.noc = noc;
    o.t_noc = compute::noc_time_s(mesh, noc);
    o.t_overhead = t_overhead;
    o.time = o.busy() + o.t_overhead;
    return o;
  }
};

// One prefill chunk's share on one device of its group.
struct PrefillItem {
  KernelSum kernel;          // its part of the group's prefill attention kernel
  KernelSum kernel_sliding;  // the same in a sliding-window layer (Model::sliding_window)
  Cost extra;        // MLA: the prefix's latent up-projection
};

// What one attention group (attention_tp devices) runs in one layer, per device. Decode
// tokens are decode sequences (one each); the prefill part lives in Impl::pre when present.
struct Group {
  // Decode: sequences (= their new tokens, MLA's absorbed path), their keys (context + 1) and
  // emitting ones, counted in integers (exact, and the hot loop has no floating-point chain).
  std::int64_t dec_seqs = 0, dec_kv = 0, dec_emits = 0;
  std::int64_t dec_kv_sliding = 0;  // keys a sliding-window layer reads: min(context + 1, window)
  double pre_tokens = 0;  // prefill tokens (the group's 1/cp share of its chunks)
  double pre_emits = 0;
  int pre = -1;  // index into Impl::pre, -1: no prefill work
  double seqs() const { return static_cast<double>(dec_seqs); }
  double tokens() const { return seqs() + pre_tokens; }
  double emits() const { return static_cast<double>(dec_emits) + pre_emits; }
};

// A group's prefill work: its chunks' share of the prefill kernel and their extra operators.
struct PrefillWork {
  KernelSum kernel;
  KernelSum kernel_sliding;
  Cost extra;
};

}  // namespace

struct IterationModel::Impl {
  Design d;
  NetState net;
  Operating op;
  Ctx c;
  int stage = 1, tp_a = 1, cp = 1;
  int groups = 1;      // attention groups per stage (decode)
  int cp_groups = 1;   // groups of cp attention groups (prefill)
  int layers = 0;      // all layers, every one with an attention block
  int max_layers = 0;  // layers of the fullest stage
  int sliding = 0;     // of `layers`, sliding-window layers (Model::sliding_window)
  int max_full = 0;    // full-attention layers of the stage with the most of them
  int max_sliding = 0; // sliding layers of the stage with the most of them
  std::int64_t window = 0;  // Model::sliding_window when some layer slides, else 0
  double overhead_s = 0;
  double mixed_efficiency = 1;  // runtime::Profile::mixed_iteration_efficiency
  double eager_launch_s = 0;    // runtime::Profile::eager_launch_us
  std::vector<Group> g;
  int used = 0;  // groups the last cost() touched (a prefix of g)
  std::vector<PrefillWork> pre;
  Memo<Cost> io_memo;    // attention projections: (tokens, absorbed)
  Memo<Cost> rest_memo;  // FFN/MoE/LM head/pp hop over all stages: (tokens, attn tokens, emits)
  Memo<PrefillItem> pre_memo;  // prefill chunk: (new tokens, context)

  Impl(const Design& design, const Operating& at) : d(design), op(at), c(make_ctx(d, op, &net)) {
    stage = c.place.stage_devices();
    tp_a = c.place.attention_tp();
    cp = c.place.degree(parallel::Dim::cp);
    groups = std::max(1, stage / tp_a);
    cp_groups = std::max(1, stage / (tp_a * cp));
    for (int s = 0; s < c.pp; ++s) {
      const auto st = parallel::stage_layers(d.model, c.pp, s);
      layers += st.dense + st.moe;
      max_layers = std::max(max_layers, st.dense + st.moe);
      sliding += st.sliding;
      max_full = std::max(max_full, st.dense + st.moe - st.sliding);
      max_sliding = std::max(max_sliding, st.sliding);
    }
    window = sliding > 0 ? d.model.sliding_window : 0;
    overhead_s = d.runtime.iteration_overhead_us * units::kMicro;
    mixed_efficiency = d.runtime.mixed_iteration_efficiency;
    eager_launch_s = d.runtime.eager_launch_us * units::kMicro;
    g.resize(static_cast<std::size_t>(groups));
  }

  template <class V, class F>
  const V& memo(Memo<V>& m, const Key& k, F&& compute) {
    if (auto it = m.find(k); it != m.end()) return it->second;
    if (m.size() >= kMaxMemoEntries) m.clear();
    return m.emplace(k, compute()).first->second;
  }

  const Cost& io(double tokens, double absorbed) {
    return memo(io_memo, {tokens, absorbed, 0}, [&] {
      Block b;
      attention_in(b, c, tokens, absorbed);
      attention_out(b, c, tokens, absorbed);
      return Cost{b.time, b.energy, b.kernels};
    });
  }

  // A chunk of n new tokens after `context` cached ones, on one device of its cp group: causal
  // attention over the chunk plus full attention over the prefix (the chunk's queries see every
  // cached key, FlashAttention's paged prefill). compute::attention's causal count is for a
  // chunk that starts the prompt, so the prefix is its own non-causal shape; the query/output
  // traffic counted by both is taken off once (the shape with no keys).
  const PrefillItem& prefill_item(double n, double context) {
    return memo(pre_memo, {n, context, 0}, [&] {
      PrefillItem it;
      const double q = n / cp;
      // A sliding layer: each query sees at most the window of prompt and prefix keys (as a
      // full layer while the chunk ends inside the window; evaluator's sliding_attention_op).
      const bool windowed = window > 0 && context + n > static_cast<double>(window);
      if (windowed)
        it.kernel_sliding.add(
            attention_op(c, 1.0, q, parallel::window_prefill_keys(d.model, n, context), false));
      it.kernel.add(attention_op(c, 1.0, q, n));
      if (context > 0) {
        it.kernel.add(attention_op(c, 1.0, q, context, false));
        it.kernel.add(attention_op(c, 1.0, q, 0.0, false), -1.0);
        const auto& m = d.model;
        if (m.attention == workload::AttentionKind::mla) {
          // The cached prefix is latent: its per-head keys and values are up-projected for the
          // chunk (vLLM's MLA backend, _compute_prefill_context).
          const double heads = static_cast<double>(m.heads) / tp_a;
          Block b;
          charge_op(b, OpClass::qkv_proj,
                    gemm(c, context, heads * (m.mla.qk_nope_head_dim + m.mla.v_head_dim),
                         m.mla.kv_lora_rank),
                    c, false);
          it.extra = {b.time, b.energy, b.kernels};
        }
      }
      if (window > 0 && !windowed) it.kernel_sliding = it.kernel;
      return it;
    });
  }

  // Everything but attention, summed over the stages: dense FFN, MoE, LM head, the hop to the
  // next stage (slowest_stage's blocks).
  const Cost& rest(double tokens, double tokens_attn, double emits) {
    return memo(rest_memo, {tokens, tokens_attn, emits}, [&] {
      const auto& m = d.model;
      const Block dense = dense_ffn_block(c, tokens * c.place.ffn_tp() / stage);
      const Block head = emits > 0 ? lm_head_block(c, emits) : Block{};
      Block hop;
      if (c.pp > 1) {
        charge_comm(hop, OpClass::pp_comm, c, GroupKind::pp_next, Collective::point_to_point,
                    tokens_attn * m.hidden * c.comm_bytes);
      }
      const StageMoe moe(c, tokens_attn, tokens);
      Cost r;
      for (int s = 0; s < c.pp; ++s) {
        const auto st = parallel::stage_layers(m, c.pp, s);
        Block b;
        b.add(dense, st.dense);
        moe.add(b, st);
        if (st.lm_head) b.add(head, 1.0);
        b.add(hop, 1.0);  // every stage, the last one's back to the first, as slowest_stage
        r.time += b.time;
        r.energy += b.energy;
        r.kernels += b.kernels;
      }
      return r;
    });
  }

  // One layer's attention block on a device of group `x` (a sliding-window layer's if sliding).
  Cost attention(const Group& x, bool sliding_layer = false) {
    const Cost& p = io(x.tokens(), x.seqs());
    Cost a = p;
    Block b;
    if (x.dec_seqs > 0) {
      const double seqs = x.seqs();
      const auto keys = static_cast<double>(sliding_layer ? x.dec_kv_sliding : x.dec_kv);
      attention_core(b, c, attention_op(c, seqs, 1.0, keys / seqs), seqs, true);
    }
    if (x.pre >= 0) {
      const PrefillWork& w = pre[static_cast<std::size_t>(x.pre)];
      attention_core(b, c, (sliding_layer ? w.kernel_sliding : w.kernel).finish(c.stream.mesh),
                     x.pre_tokens, false);
      a.time += w.extra.time;
      a.energy += w.extra.energy;
      a.kernels += w.extra.kernels;
    }
    a.time += b.time;
    a.energy += b.energy;
    a.kernels += b.kernels;
    return a;
  }

  IterationCost cost(std::span<const SequenceChunk> batch) {
    // Round-robin fills groups from the first, so the previous call touched a prefix of them.
    std::fill(g.begin(), g.begin() + used, Group{});
    pre.clear();
    used = 0;
    // Decode sequences first (a pass without calls, the hot loop), then the prefill chunks.
    // Token and key counts are integers, exact in any order.
    double tokens = 0;
    bool any_prefill = false;
    std::int64_t decodes = 0;
    if (groups == 1) {
      std::int64_t seqs = 0, kv = 0, kv_sliding = 0, emitting = 0;
      for (const SequenceChunk& s : batch) {
        if (s.new_tokens == 1 && s.context > 0) {
          seqs += 1;
          kv += s.context + 1;
          if (window > 0) kv_sliding += std::min<std::int64_t>(s.context + 1, window);
          emitting += s.emits ? 1 : 0;
        } else {
          any_prefill = any_prefill || s.new_tokens > 0;
        }
      }
      g[0].dec_seqs = seqs;
      g[0].dec_kv = kv;
      g[0].dec_kv_sliding = kv_sliding;
      g[0].dec_emits = emitting;
      decodes = seqs;
      used = seqs > 0 ? 1 : 0;
      tokens = static_cast<double>(seqs);
    } else {
      int next = 0;
      for (const SequenceChunk& s : batch) {
        if (s.new_tokens == 1 && s.context > 0) {
          Group& x = g[static_cast<std::size_t>(next)];
          x.dec_seqs += 1;
          x.dec_kv += s.context + 1;
          if (window > 0) x.dec_kv_sliding += std::min<std::int64_t>(s.context + 1, window);
          x.dec_emits += s.emits ? 1 : 0;
          decodes += 1;
          next = next + 1 == groups ? 0 : next + 1;
        } else {
          any_prefill = any_prefill || s.new_tokens > 0;
        }
      }
      tokens = static_cast<double>(decodes);
      used = static_cast<int>(std::min<std::int64_t>(decodes, groups));
    }
    int next_pre = 0;
    for (const SequenceChunk& s : batch) {
      if (!any_prefill) break;
      if (s.new_tokens <= 0 || (s.new_tokens == 1 && s.context > 0)) continue;
      const double n = s.new_tokens, context = std::max(0, s.context);
      tokens += n;
      const PrefillItem& it = prefill_item(n, context);
      const int first = next_pre * cp;
      used = std::max(used, first + cp);
      next_pre = next_pre + 1 == cp_groups ? 0 : next_pre + 1;
      for (int j = 0; j < cp; ++j) {
        Group& x = g[static_cast<std::size_t>(first + j)];
        if (x.pre < 0) {
          x.pre = static_cast<int>(pre.size());
          pre.emplace_back();
        }
        PrefillWork& w = pre[static_cast<std::size_t>(x.pre)];
        w.kernel.add(it.kernel);
        w.kernel_sliding.add(it.kernel_sliding);
        w.extra.time += it.extra.time;
        w.extra.energy += it.extra.energy;
        w.extra.kernels += it.extra.kernels;
        x.pre_tokens += n / cp;
        x.pre_emits += s.emits ? 1.0 : 0.0;
      }
    }
    if (tokens <= 0) return {};

    // The slowest group: every group with prefill work, and of the decode-only ones (whose
    // decode counts differ by at most one under round-robin) the one with the most keys at
    // each of the two counts.
    double tokens_attn = 0, emits = 0, top_seqs = 0;
    for (int i = 0; i < used; ++i) {
      const Group& x = g[static_cast<std::size_t>(i)];
      tokens_attn = std::max(tokens_attn, x.tokens());
      emits = std::max(emits, x.emits());
      if (x.pre < 0) top_seqs = std::max(top_seqs, x.seqs());
    }
    // A group's attention over all layers: full-attention layers and sliding-window ones.
    Cost attn{-1, 0};
    auto consider = [&](const Group& x) {
      Cost a = attention(x);
      a.time *= layers - sliding;
      a.energy *= layers - sliding;
      a.kernels *= layers - sliding;
      if (sliding > 0) {
        const Cost w = attention(x, true);
        a.time += sliding * w.time;
        a.energy += sliding * w.energy;
        a.kernels += sliding * w.kernels;
      }
      if (a.time > attn.time) attn = a;
    };
    int top = -1, second = -1;
    for (int i = 0; i < used; ++i) {
      const Group& x = g[static_cast<std::size_t>(i)];
      if (x.pre >= 0) {
        consider(x);
      } else if (x.dec_seqs > 0 && x.seqs() == top_seqs) {
        if (top < 0 || x.dec_kv > g[static_cast<std::size_t>(top)].dec_kv) top = i;
      } else if (x.dec_seqs > 0 && x.seqs() == top_seqs - 1) {
        if (second < 0 || x.dec_kv > g[static_cast<std::size_t>(second)].dec_kv) second = i;
      }
    }
    if (top >= 0) consider(g[static_cast<std::size_t>(top)]);
    if (second >= 0) consider(g[static_cast<std::size_t>(second)]);

    // As evaluate(): the busiest device's dynamic energy stands for every device of a stage, and
    // every device draws static power for the whole iteration.
    const Cost& r = rest(tokens, tokens_attn, emits);
    IterationCost out;
    // A mixed iteration (prefill chunks and decode steps together) stretches its whole device
    // time, not the host's per-iteration overhead: the efficiency is one factor on every
    // kernel's achieved rate, kept uniform because the rows do not resolve GEMM from attention.
    // Its dynamic energy (the work done) is unchanged; static power runs over the longer time.
    const bool mixed = any_prefill && decodes > 0;
    double device_s = (attn.time + r.time) / (mixed ? mixed_efficiency : 1.0);
    // An iteration with a prefill chunk runs outside a CUDA graph: its host issues every kernel
    // (runtime::Profile::eager_launch_us) while the device works through the queue, so the
    // iteration ends no earlier than the host's last launch (plus the last kernel, which the
    // floor neglects). Static power runs over the whole time; the dynamic energy is unchanged.
    if (any_prefill) {
      out.host_floor_s = (attn.kernels + r.kernels) * eager_launch_s;
      device_s = std::max(device_s, out.host_floor_s);
    }
    out.time_s = device_s + overhead_s;
    const double devices = static_cast<double>(stage) * c.pp;
    out.energy_J = stage * (attn.energy + r.energy) + devices * c.energy.static_W * out.time_s;
    return out;
  }
};

// DVFS per iteration (docs/model.md §13.2): an iteration runs at the top clock (times any
// thermal throttle evaluate() settles on) unless its power per device exceeds the cap; then at
// the highest clock step of kClockSteps per unit that meets it, as a GPU's power controller
// settles a steady mix of iterations. Each step is an Impl of its own with its own memos, made
// when first needed.
namespace {
constexpr int kClockSteps = 64;
constexpr double kCapTolerance = 0.005;
}  // namespace

IterationModel::IterationModel(const Design& design) : design_(design) {
  NetState net;
  const Operating op = operating_point(design, &net);
  base_clock_ = op.memory;  // the thermal throttle's share of the clock (1 without it)
  base_memory_ = op.memory;
  base_dram_C_ = op.dram_C;
  impl_ = std::make_unique<Impl>(design,
                                 Operating{base_clock_, base_memory_, base_dram_C_, base_clock_});
  cap_W_ = design.hardware.energy.tdp_W * (1.0 + kCapTolerance);
  const double lowest = std::clamp(design.hardware.energy.dvfs_min_clock, 1e-3, 1.0);
  steps_.resize(static_cast<std::size_t>(std::max(0.0, std::floor((1.0 - lowest) * kClockSteps))));
}
IterationModel::~IterationModel() = default;
IterationModel::IterationModel(IterationModel&&) noexcept = default;
IterationModel& IterationModel::operator=(IterationModel&&) noexcept = default;

IterationCost IterationModel::cost(std::span<const SequenceChunk> batch) {
  const IterationCost top = impl_->cost(batch);
  const double devices = static_cast<double>(this->devices());
  const auto over = [&](const IterationCost& c) {
    return c.time_s > 0 && c.energy_J > cap_W_ * devices * c.time_s;
  };
  if (!over(top) || steps_.empty()) return top;
  const auto at = [&](std::size_t k) {  // step k + 1: clock 1 - (k + 1) / kClockSteps
    auto& m = steps_[k];
    if (!m) {
      const double clock = base_clock_ * (1.0 - static_cast<double>(k + 1) / kClockSteps);
      m = std::make_unique<Impl>(design_, Operating{clock, base_memory_, base_dram_C_, clock});
    }
    return m->cost(batch);
  };
  // The power falls as the clock does: bisect for the first step at or under the cap.
  std::size_t lo = 0, hi = steps_.size() - 1;
  IterationCost best = at(hi);
  if (over(best)) return best;  // over the cap even at the lowest clock
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    const IterationCost c = at(mid);
    if (over(c)) {
      lo = mid + 1;
    } else {
      hi = mid;
      best = c;
    }
  }
  return best;  // the step hi ended at
}

int IterationModel::devices() const {
  return impl_->stage * impl_->c.pp;
}

double IterationModel::idle_power_W() const {
  return static_cast<double>(impl_->stage) * impl_->c.pp * impl_->c.energy.idle_W;
}

double IterationModel::kv_bytes_per_token() const {
  const auto& d = impl_->d;
  const double kvb = parallel::kv_bytes_per_token_layer(
      d.model, bytes_per_element(d.workload.numerics.kv_cache), impl_->tp_a);
  // Sliding layers stop growing at the window: beyond it a token adds the full layers' KV only.
  const int growing = impl_->sliding < impl_->layers ? impl_->layers - impl_->sliding : impl_->layers;
  return kvb * impl_->tp_a * growing;
}

double IterationModel::kv_capacity_tokens(int max_batched_tokens, int max_seqs) const {
  const Impl& m = *impl_;
  // memory_footprint's weights at no KV (the fullest stage) and its peak activations for one
  // sequence of the tokens an attention group computes in the largest iteration.
  Design probe = m.d;
  probe.workload.batch_auto = false;
  probe.workload.output_len = 0;
  probe.workload.input_len = 0;
  const MemoryFootprint empty = memory_footprint(probe, 0);
  probe.workload.input_len =
      static_cast<int>(std::ceil(static_cast<double>(std::max(0, max_batched_tokens)) / m.groups));
  const MemoryFootprint busy = memory_footprint(probe, 1);
  const double free = empty.capacity - empty.weights - busy.activations - empty.reserved;
  if (!(free > 0) || m.max_layers <= 0) return 0.0;
  // Every device of a group holds the group's sequences' KV for its stage's layers; the fullest
  // stage bounds (with pp = 1 this is free x devices / kv_bytes_per_token()).
  const double kvb = parallel::kv_bytes_per_token_layer(
      m.d.model, bytes_per_element(m.d.workload.numerics.kv_cache), m.tp_a);
  // Sliding-window layers (with some full layers beside them and a known sequence cap): each
  // running sequence holds at most the window in them, set aside up front (vLLM's hybrid KV
  // cache manager frees the blocks that leave the window); the rest holds the full layers'
  // tokens. Otherwise every layer is counted per token, which never overstates the capacity.
  if (m.window > 0 && m.max_full > 0 && max_seqs > 0) {
    const double seqs_per_group = std::ceil(static_cast<double>(max_seqs) / m.groups);
    const double windows =
        seqs_per_group * static_cast<double>(m.window) * kvb * static_cast<double>(m.max_sliding);
    const double rest = free - windows;
    if (!(rest > 0)) return 0.0;
    return rest * m.groups / (kvb * m.max_full);
  }
  return free * m.groups / (kvb * m.max_layers);
}

}  // namespace stackscope::perf
