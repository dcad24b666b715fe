// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/parallel/sharding.hpp"

#include <algorithm>

namespace stackscope::parallel {

bool is_moe(const workload::Model& m) noexcept { return m.moe.experts > 0 && m.moe.top_k > 0; }

int moe_layers(const workload::Model& m) noexcept {
  return is_moe(m) ? std::max(0, m.layers - m.moe.first_dense_layers) : 0;
}

ParamCounts param_counts(const workload::Model& m) noexcept {
  ParamCounts p;
  const double h = m.hidden;
  if (m.attention == workload::AttentionKind::mla) {
    // DeepSeek-V2 (arXiv 2405.04434) eq. 9-14: q down/up (or direct q), kv down (+ rope key),
    // kv up to per-head nope keys and values, output projection.
    const auto& a = m.mla;
    const double qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    const double q = a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank * m.heads * qk
                                       : h * m.heads * qk;
    const double kv_down = h * (a.kv_lora_rank + a.qk_rope_head_dim);
    const double kv_up = a.kv_lora_rank * m.heads * (a.qk_nope_head_dim + a.v_head_dim);
    const double o = m.heads * a.v_head_dim * h;
    p.attention_per_layer = q + kv_down + kv_up + o;
  } else {
    p.attention_per_layer = h * m.heads * m.head_dim + 2.0 * h * m.kv_heads * m.head_dim +
                            m.heads * m.head_dim * h;
  }
  const double mats = m.ffn == workload::FfnKind::swiglu ? 3.0 : 2.0;
  p.dense_ffn_per_layer = mats * h * m.ffn_dim;
  if (is_moe(m)) {
    p.expert = mats * h * m.moe.expert_ffn_dim;
    const double shared_dim =
        m.moe.shared_expert_ffn_dim > 0 ? m.moe.shared_expert_ffn_dim : m.moe.expert_ffn_dim;
    p.shared_per_layer = m.moe.shared_experts * mats * h * shared_dim;
    p.router_per_layer = h * m.moe.experts;
  }
  p.norms_per_layer = 2.0 * h;
  p.embedding = static_cast<double>(m.vocab) * h;
  p.lm_head = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * h;

  const int n_moe = moe_layers(m);
  const int n_dense = m.layers - n_moe;
  const double moe_layer = p.expert * m.moe.experts + p.shared_per_layer + p.router_per_layer;
  p.total = m.layers * (p.attention_per_layer + p.norms_per_layer) +
            n_dense * p.dense_ffn_per_layer + n_moe * moe_layer + p.embedding + p.lm_head + h;
  const double moe_active = p.expert * m.moe.top_k + p.shared_per_layer + p.router_per_layer;
  p.active_per_token = m.layers * (p.attention_per_layer + p.norms_per_layer) +
                       n_dense * p.dense_ffn_per_layer + n_moe * moe_active + p.lm_head +
                       (m.tied_embeddings ? p.embedding : 0.0);
  return p;
}

StageLayers stage_layers(const workload::Model& m, int pp, int stage) noexcept {
  StageLayers s;
  pp = std::clamp(pp, 1, std::max(1, m.layers));
  stage = std::clamp(stage, 0, pp - 1);
  const int base = m.layers / pp;
  const int extra = m.layers % pp;
  s.first = stage * base + std::min(stage, extra);
  const int count = base + (stage < extra ? 1 : 0);
  const int dense_end = is_moe(m) ? m.moe.first_dense_layers : m.layers;
  const int last = s.first + count;
  s.dense = std::max(0, std::min(last, dense_end) - s.first);
  s.moe = count - s.dense;
  s.first_moe = std::max(0, s.first - dense_end);
  s.sliding = sliding_layers(m, s.first, count);
  s.embedding = stage == 0;
  s.lm_head = stage == pp - 1;
  return s;
}

int sliding_layers(const workload::Model& m, int first, int count) noexcept {
  if (m.sliding_window <= 0 || count <= 0) return 0;
  const int k = m.full_attention_interval;
  if (k <= 0) return count;
  // Full layers among [first, first + count): indices i with (i + 1) % k == 0.
  const int full = (first + count) / k - first / k;
  return count - full;
}

double window_keys(const workload::Model& m, double kv_len) noexcept {
  return m.sliding_window > 0 ? std::min(kv_len, static_cast<double>(m.sliding_window)) : kv_len;
}

double window_prefill_keys(const workload::Model& m, double q_len, double context) noexcept {
  if (!(q_len > 0)) return 0.0;
  const double w = m.sliding_window > 0 ? static_cast<double>(m.sliding_window) : 0.0;
  // Query j (1-based) of the chunk sees min(context + j, w) keys; sum over j = 1..q_len.
  const double a = context + 1.0, b = context + q_len;  // first and last query's key count
  if (w <= 0 || b <= w) return (a + b) / 2.0;
  if (a >= w) return w;
  const double below = w - a;  // queries whose count is still under the window: a .. w - 1
  const double sum = below * (a + w - 1.0) / 2.0 + (q_len - below) * w;
  return sum / q_len;
}

double kv_bytes_per_token_layer(const workload::Model& m, double kv_bytes, int tp) noexcept {
  if (m.attention == workload::AttentionKind::mla)
    return (m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * kv_bytes;
  const double heads = std::max(1.0, static_cast<double>(m.kv_heads) / std::max(1, tp));
  return 2.0 * heads * m.head_dim * kv_bytes;
}

HeadDims head_dims(const workload::Model& m, bool absorbed_mla) noexcept {
  if (m.attention != workload::AttentionKind::mla) return {double(m.head_dim), double(m.head_dim)};
  if (absorbed_mla)
    return {double(m.mla.kv_lora_rank + m.mla.qk_rope_head_dim), double(m.mla.kv_lora_rank)};
  return {double(m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim), double(m.mla.v_head_dim)};
}

double decode_kv_reads(const workload::Model& m, double reread_fraction) noexcept {
  if (m.attention == workload::AttentionKind::mla) return 1.0;
  const double group = static_cast<double>(m.heads) / std::max(1, m.kv_heads);
  return 1.0 + (group - 1.0) * reread_fraction;
}

}  // namespace stackscope::parallel
