// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/serving/trtllm_bench.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "stackscope/hw/derived.hpp"
#include "stackscope/parallel/sharding.hpp"

namespace stackscope::serving {
namespace {

// Element bytes as the rule counts them: FP8 1, NVFP4 0.5, anything else 2 (its table).
double rule_bytes(Precision p) {
  switch (p) {
    case Precision::fp8:
    case Precision::int8: return 1.0;
    case Precision::fp4: return 0.5;
    default: return 2.0;
  }
}

double round_up(double x, double q) {
  return q * std::ceil(x / q);
}

}  // namespace

SchedulerConfig trtllm_bench_scheduler(const perf::Design& replica, int input_len, int output_len,
                                       double kv_cache_fraction) {
  if (input_len < 1 || output_len < 1)
    throw std::invalid_argument("trtllm-bench settings: input and output lengths must be >= 1");
  const auto& m = replica.model;
  const int tp = std::max(1, replica.parallel.tp);
  const int pp = std::max(1, replica.parallel.pp);
  // Attention data parallelism (the plan's ep ranks of an MoE model): TensorRT-LLM's
  // enable_attention_dp runs one batch per rank, each rank holding the KV cache of its own
  // sequences, and max_batch_size / max_num_tokens are per rank. The rule below sizes one
  // rank's batch from its share of the memory; the instance (all ranks) gets ranks times it.
  const int ranks = replica.model.moe.experts > 0 ? std::max(1, replica.parallel.ep) : 1;
  const auto& nm = replica.workload.numerics;
  // FP8 and NVFP4 checkpoints run an FP8 KV cache (general.py _KV_CACHE_MAP).
  const double kv_bytes = nm.kv_cache == Precision::fp4 ? 1.0 : rule_bytes(nm.kv_cache);
  // MLA caches the compressed latent and the RoPE key per token and layer (DeepSeek-V2/V3), not
  // per-head K and V.
  const double kv_per_token_layer =
      m.attention == workload::AttentionKind::mla
          ? parallel::kv_bytes_per_token_layer(m, kv_bytes, tp)
          : 2.0 * std::max(tp, m.kv_heads) * m.head_dim * kv_bytes;
  // Sliding-window layers hold the window at most (workload::Model::sliding_window).
  const int sliding = parallel::sliding_layers(m, 0, m.layers);
  const double length = static_cast<double>(input_len) + output_len;
  const double kv_per_request =
      kv_per_token_layer * ((m.layers - sliding) * length + sliding * parallel::window_keys(m, length));
  const double engine = parallel::param_counts(m).total * rule_bytes(nm.weights);
  const double memory = hw::memory_capacity_bytes(replica.hardware.memory) * tp * pp * ranks;
  const double cache = std::max(0.0, memory - engine) * kv_cache_fraction;
  const double requests = cache / kv_per_request / ranks;

  const double raw_bs = std::min(requests, 4096.0) / pp;
  const double raw_tokens =
      std::min(raw_bs * (1.0 + static_cast<double>(input_len) / output_len), 32768.0);
  double bs = 0;
  if (raw_bs < 256)
    bs = std::max(64.0, round_up(raw_bs, 32));
  else if (raw_bs < 1024)
    bs = round_up(raw_bs, 128);
  else
    bs = round_up(raw_bs, 256);
  double tokens = 0;
  if (raw_tokens < 4096)
    tokens = std::max(2048.0, round_up(raw_tokens, 256));
  else if (raw_tokens < 8192)
    tokens = round_up(raw_tokens, 512);
  else
    tokens = round_up(raw_tokens, 1024);
  tokens = std::max(tokens, static_cast<double>(input_len) + bs);  // chunked prefill off

  SchedulerConfig s;
  s.max_num_seqs = static_cast<int>(bs) * ranks;
  s.max_num_batched_tokens = static_cast<int>(tokens) * ranks;
  s.chunked_prefill = false;
  s.block_size = 32;
  s.kv_policy = KvPolicy::guaranteed_no_evict;
  s.kv_cache_fraction = kv_cache_fraction;
  // Graph sizes are per rank; the simulator pads the instance's whole decode batch, so each
  // size is scaled by the ranks (every rank padded to the same size).
  const int cap = static_cast<int>(std::min(bs, tokens));
  for (int b : {1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192}) {
    if (b <= cap) {
      s.cuda_graph_batch_sizes.push_back(b * ranks);
    } else {
      if (s.cuda_graph_batch_sizes.back() != cap * ranks)
        s.cuda_graph_batch_sizes.push_back(cap * ranks);
      break;
    }
  }
  return s;
}

}  // namespace stackscope::serving
