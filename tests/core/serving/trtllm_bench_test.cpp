// SPDX-License-Identifier: GPL-3.0-or-later
// trtllm-bench's own sizing rule (core/serving/trtllm_bench.hpp) on hand-computed cases. The
// expected values are worked out below from public figures (parameter counts from the models'
// Hugging Face cards, the presets' usable memory), not from the function.
#include <gtest/gtest.h>

#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/serving/trtllm_bench.hpp"

namespace stackscope::serving {
namespace {

perf::Design design(const char* hw, const char* model, Precision p, int tp) {
  const auto& r = io::builtin_presets();
  perf::Design d = r.project("default");
  d.hardware = r.hardware(hw);
  d.model = r.model(model);
  d.workload.numerics = {p, p, p == Precision::fp4 ? Precision::fp8 : p};
  d.parallel = {};
  d.parallel.tp = tp;
  return d;
}

// Llama 3 70B FP8 on one H200, ISL 128 / OSL 4096, 95 % of free memory:
// memory 6 stacks x 8 x 3 GiB - 3.6 = 140.4 GiB; engine 70.55e9 B = 65.71 GiB; cache
// (140.4 - 65.71) x 0.95 = 70.96 GiB; KV per token 2 x 80 x 8 x 128 x 1 B = 1.526e-4 GiB, per
// request x 4224 = 0.6445 GiB -> 110 requests -> batch 32 x ceil(110 / 32) = 128; tokens
// 110 x (1 + 128/4096) = 114 -> 2048 (the floor), >= 128 + 128; graphs 1..128.
TEST(TrtllmBench, SizesTheBatchFromTheKvCacheLikeTheBenchmark) {
  const auto s = trtllm_bench_scheduler(design("h200", "llama-3-70b", Precision::fp8, 1), 128,
                                        4096);
  EXPECT_EQ(s.max_num_seqs, 128);
  EXPECT_EQ(s.max_num_batched_tokens, 2048);
  EXPECT_FALSE(s.chunked_prefill);
  EXPECT_EQ(s.kv_policy, KvPolicy::guaranteed_no_evict);
  EXPECT_EQ(s.block_size, 32);
  EXPECT_DOUBLE_EQ(s.kv_cache_fraction, 0.95);
  EXPECT_EQ(s.cuda_graph_batch_sizes, (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128}));
}

// Llama 3.1 8B FP8 on one H100, 128 / 128: cache (79.65 - 8.03e9 B = 7.48 GiB) x 0.95 =
// 68.56 GiB over 6.1e-5 GiB x 256 per request = 4388 requests -> capped at 4096 (batch 4096);
// tokens min(4096 x 2, 32768) = 8192; graphs up to 2048, then 4096 (= the cap, listed).
TEST(TrtllmBench, CapsTheBatchAt4096) {
  const auto s = trtllm_bench_scheduler(design("h100-sxm", "llama-3.1-8b", Precision::fp8, 1),
                                        128, 128);
  EXPECT_EQ(s.max_num_seqs, 4096);
  EXPECT_EQ(s.max_num_batched_tokens, 8192);
  ASSERT_FALSE(s.cuda_graph_batch_sizes.empty());
  EXPECT_EQ(s.cuda_graph_batch_sizes.back(), 4096);
  EXPECT_EQ(s.cuda_graph_batch_sizes.size(), 14u);  // 1 .. 2048 (13 sizes) and 4096
}

// Llama 3 70B FP8 on one H200, 128 / 6500: 70.96 GiB / (1.526e-4 x 6628) = 70 requests ->
// batch 96, not a listed graph size: graphs 1..64 and then the cap 96 (padding to the cap); a
// 20000-token prompt without chunking raises the token budget to ISL + batch.
TEST(TrtllmBench, PadsToTheCapAndFitsTheLongestPrompt) {
  const auto d = design("h200", "llama-3-70b", Precision::fp8, 1);
  const auto s = trtllm_bench_scheduler(d, 128, 6500);
  EXPECT_EQ(s.max_num_seqs, 96);
  EXPECT_EQ(s.cuda_graph_batch_sizes, (std::vector<int>{1, 2, 4, 8, 16, 32, 64, 96}));
  const auto l = trtllm_bench_scheduler(d, 20000, 2000);
  EXPECT_GE(l.max_num_batched_tokens, 20000 + l.max_num_seqs);
  EXPECT_THROW(trtllm_bench_scheduler(d, 0, 10), std::invalid_argument);
}

}  // namespace
}  // namespace stackscope::serving
