// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How a model's parameters and KV cache split over a plan (docs/model.md §7.1, §10.1). Pure
// arithmetic.
#include "stackscope/parallel/plan.hpp"
#include "stackscope/workload/model.hpp"

namespace stackscope::parallel {

// Parameter counts (elements) of the model's parts.
struct ParamCounts {
  double attention_per_layer = 0;  // Q, K, V, O (or MLA projections)
  double dense_ffn_per_layer = 0;  // dense FFN (dense layers of MoE models too)
  double expert = 0;               // one routed expert
  double shared_per_layer = 0;     // all shared experts of one MoE layer
  double router_per_layer = 0;     // gate matrix
  double norms_per_layer = 0;
  double embedding = 0;
  double lm_head = 0;           // 0 when tied to the embedding
  double total = 0;             // whole model
  double active_per_token = 0;  // parameters touched per token (MoE: shared + top-k)
};
ParamCounts param_counts(const workload::Model& m) noexcept;

bool is_moe(const workload::Model& m) noexcept;
int moe_layers(const workload::Model& m) noexcept;  // layers with an MoE FFN

// Layers held by pipeline stage `stage` of `pp`: layers split as evenly as possible, earlier
// stages take the remainder; the model's first layers (dense in MoE models) go to stage 0.
struct StageLayers {
  int first = 0;      // index of the first layer
  int dense = 0;      // layers with a dense FFN
  int moe = 0;        // layers with an MoE FFN
  int first_moe = 0;  // index among MoE layers of the stage's first MoE layer
  int sliding = 0;    // of dense + moe, layers with sliding-window attention
  bool embedding = false;
  bool lm_head = false;
};
StageLayers stage_layers(const workload::Model& m, int pp, int stage) noexcept;

// Sliding-window attention (workload::Model::sliding_window): how many of the `count` layers from
// index `first` slide, and the keys a sliding layer's decode query reads at `kv_len` keys of
// context (min(kv_len, window); kv_len when the model has no window).
int sliding_layers(const workload::Model& m, int first, int count) noexcept;
double window_keys(const workload::Model& m, double kv_len) noexcept;
// Key visits per query of a causal prefill of q_len tokens after `context` cached ones in a
// sliding layer: the mean over the chunk's queries of min(position + 1, window), where position
// counts from the prompt's start. A full-attention layer's chunk has context + (q_len + 1) / 2.
double window_prefill_keys(const workload::Model& m, double q_len, double context) noexcept;

// KV-cache bytes per token per layer held by one tensor-parallel rank. MHA/GQA: K and V of
// max(1, kv_heads / tp) heads (KV heads are replicated when tp > kv_heads). MLA: the latent
// (kv_lora_rank + qk_rope_head_dim), which every TP rank needs whole.
double kv_bytes_per_token_layer(const workload::Model& m, double kv_element_bytes, int tp) noexcept;

// Query/key dims used by attention: per-head q.k and v dims (MLA: nope+rope and v_head_dim;
// absorbed decode uses kv_lora_rank + rope for q.k and kv_lora_rank for v).
struct HeadDims {
  double qk = 128;
  double v = 128;
};
HeadDims head_dims(const workload::Model& m, bool absorbed_mla) noexcept;

// Times a decode step reads each KV head's cache (compute::AttentionShape::kv_reads): once per
// GQA group, plus `reread_fraction` of the group's other query heads for kernels that do not
// share KV across the group (runtime::Profile::decode_kv_reread_fraction). MLA reads its latent
// cache once.
double decode_kv_reads(const workload::Model& m, double reread_fraction) noexcept;

}  // namespace stackscope::parallel
