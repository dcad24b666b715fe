// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// LLM architecture and workload descriptions (docs/model.md §6). JSON keys = member names.
#include <cstdint>
#include <string>
#include <vector>

#include "stackscope/common/precision.hpp"

namespace stackscope::workload {

enum class AttentionKind { mha, gqa, mla };
enum class FfnKind { swiglu, gelu };  // swiglu: gate+up+down; gelu: up+down

// Multi-head latent attention (DeepSeek-V2/V3). q_lora_rank 0 = queries projected directly.
struct Mla {
  int q_lora_rank = 0;
  int kv_lora_rank = 512;
  int qk_nope_head_dim = 128;
  int qk_rope_head_dim = 64;
  int v_head_dim = 128;
};

// Mixture of experts. experts == 0 means a dense model.
struct Moe {
  int experts = 0;             // routed experts per MoE layer
  int top_k = 0;               // routed experts per token
  int shared_experts = 0;      // always-active experts per MoE layer
  int expert_ffn_dim = 0;      // intermediate size of one routed expert
  int shared_expert_ffn_dim = 0;  // intermediate size of one shared expert (0 = expert_ffn_dim)
  int first_dense_layers = 0;  // leading layers with a dense FFN of size Model::ffn_dim
};

struct Model {
  std::string id;
  std::string name;
  std::string source;  // config file / paper the numbers come from
  int layers = 32;
  int hidden = 4096;
  int heads = 32;
  int kv_heads = 32;
  int head_dim = 128;
  int ffn_dim = 11008;  // dense FFN intermediate size
  int vocab = 32000;
  AttentionKind attention = AttentionKind::mha;
  FfnKind ffn = FfnKind::swiglu;
  bool parallel_attention = false;  // attention and FFN read the same input (Falcon)
  bool tied_embeddings = false;
  // Longest sequence (prompt + generated tokens) the model takes: its config's
  // max_position_embeddings or its card's context length. 0 = not stated (no limit). vLLM's
  // max_model_len defaults to it; a serving request beyond it is rejected, a workload beyond it
  // is refused.
  int max_context_tokens = 0;
  // Sliding-window attention (Beltagy et al. 2020, "Longformer"; Mistral 7B; gpt-oss's
  // config.json `sliding_window` and `layer_types`): a sliding layer's query sees only the last
  // `sliding_window` keys, so its attention work and its KV cache stop growing there (vLLM's
  // hybrid KV cache manager and TensorRT-LLM's per-layer max_attention_window free the keys
  // that left the window). 0 = every layer attends to the whole context.
  int sliding_window = 0;
  // Which layers slide when sliding_window > 0: layer i (from 0) attends to the whole context
  // when full_attention_interval > 0 and (i + 1) is a multiple of it, else it slides; 0 = every
  // layer slides. gpt-oss alternates sliding and full layers, the first sliding: interval 2.
  int full_attention_interval = 0;
  Mla mla;
  Moe moe;
};

enum class RoutingKind { uniform, zipf, dirichlet, trace };

// How tokens spread over experts. The hottest expert group sets an MoE layer's time under EP.
struct Routing {
  RoutingKind kind = RoutingKind::uniform;
  double zipf_s = 1.0;          // exponent for zipf
  double dirichlet_alpha = 1.0; // concentration for dirichlet (small = skewed)
  std::uint64_t seed = 1;
  std::string trace;            // path to a routing trace (the format of data/mixtral-routing)
  // Expert activation frequency per MoE layer, filled by core/io from `trace` (or left empty
  // to be generated from kind/seed). Each inner vector has Model::moe.experts entries summing to
  // top_k (expected experts per token).
  std::vector<std::vector<double>> expert_frequency;
};

struct Numerics {
  Precision weights = Precision::bf16;
  Precision activations = Precision::bf16;
  Precision kv_cache = Precision::bf16;
};

// One inference workload: static batching — `batch` requests per model replica are prefilled
// together and then decoded for output_len steps.
struct Workload {
  int batch = 1;             // requests per replica (ignored when batch_auto)
  bool batch_auto = false;   // use the largest batch that fits memory
  int input_len = 2048;      // prompt tokens
  int output_len = 128;      // generated tokens (the first comes from prefill)
  Numerics numerics;
  Routing routing;
};

}  // namespace stackscope::workload
