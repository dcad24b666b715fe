// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The scheduler settings `trtllm-bench throughput --backend pytorch` runs with when the user
// gives no max_batch_size / max_num_tokens (TensorRT-LLM 0.19-1.0;
// data/trtllm-measured/serving-measured.json was measured this way): the benchmark's own sizing rule, so a
// simulated benchmark runs the batch the real one ran, not a default.
//
// The rule (NVIDIA/TensorRT-LLM tensorrt_llm/bench/build/tuning.py calc_engine_setting and
// finetune_setting, tensorrt_llm/bench/benchmark/utils/general.py get_settings; facts restated,
// not code):
//  - KV bytes per token = 2 x layers x max(tp, kv_heads) x head_dim x KV element bytes over the
//    whole TP group (FP8 and NVFP4 checkpoints keep an FP8 KV cache); MLA models (DeepSeek)
//    cache layers x (kv_lora_rank + qk_rope_head_dim) elements per token instead;
//  - attention data parallelism (an MoE plan's ep ranks, TensorRT-LLM enable_attention_dp):
//    the rule sizes one rank's batch and token budget from its share of the memory, and the
//    instance (all ranks) gets ranks x each, its CUDA-graph sizes ranks x the per-rank ones;
//  - KV memory = (devices x device memory - parameters x weight element bytes) x
//    kv_cache_free_gpu_mem_fraction; requests that fit = KV memory / (KV per token x (ISL + OSL));
//  - batch = min(requests, 4096) / pp, rounded up to 32 (at least 64) below 256, to 128 below
//    1024, else to 256; tokens = min(batch x (1 + ISL / OSL), 32768), rounded up to 256 (at
//    least 2048) below 4096, to 512 below 8192, else to 1024;
//  - chunked prefill off (the PyTorch backend's default), so max_num_tokens is raised to
//    ISL + max_batch_size;
//  - CUDA graphs with padding on the perf-overview's batch-size list (1, 2, 4, ..., 256, 384,
//    512, 1024, 2048, 4096, 8192) cut at min(max_batch_size, max_num_tokens), that cap added as
//    the last size when a listed size exceeds it (pyexecutor model_engine
//    _filter_cuda_graph_batch_sizes);
//  - GUARANTEED_NO_EVICT, 32 tokens per KV block (KvCacheConfig defaults).
// kv_cache_free_gpu_mem_fraction: 0.9 is trtllm-bench's default; the perf-overview says its
// tables were mostly run at 0.95.
#include "stackscope/perf/design.hpp"
#include "stackscope/serving/simulator.hpp"

namespace stackscope::serving {

inline constexpr double kTrtllmBenchKvFraction = 0.95;  // perf-overview.md, "in many cases"

// `replica` is one instance's design (its tp, pp, precision, device); lengths in tokens, >= 1.
SchedulerConfig trtllm_bench_scheduler(const perf::Design& replica, int input_len, int output_len,
                                       double kv_cache_fraction = kTrtllmBenchKvFraction);

}  // namespace stackscope::serving
