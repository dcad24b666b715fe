// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include "stackscope/parallel/sharding.hpp"

namespace stackscope::parallel {
namespace {

// Architectures from the public Hugging Face config.json files.
workload::Model llama2_7b() {
  workload::Model m;  // defaults are LLaMA-2-7B
  return m;
}

workload::Model llama2_70b() {
  workload::Model m;
  m.layers = 80; m.hidden = 8192; m.heads = 64; m.kv_heads = 8; m.head_dim = 128;
  m.ffn_dim = 28672; m.vocab = 32000; m.attention = workload::AttentionKind::gqa;
  return m;
}

workload::Model mixtral() {
  workload::Model m = llama2_7b();
  m.kv_heads = 8; m.attention = workload::AttentionKind::gqa; m.ffn_dim = 14336;
  m.moe = {8, 2, 0, 14336, 0, 0};
  return m;
}

workload::Model deepseek_v3() {
  workload::Model m;
  m.layers = 61; m.hidden = 7168; m.heads = 128; m.kv_heads = 128; m.head_dim = 128;
  m.ffn_dim = 18432; m.vocab = 129280; m.attention = workload::AttentionKind::mla;
  m.mla = {1536, 512, 128, 64, 128};
  m.moe = {256, 8, 1, 2048, 0, 3};
  return m;
}

TEST(Params, DenseModelsMatchPublishedCounts) {
  // LLaMA-2-7B: 6,738,415,616 parameters; LLaMA-2-70B: 68,976,648,192 (HF model cards).
  EXPECT_NEAR(param_counts(llama2_7b()).total / 6738415616.0, 1.0, 1e-3);
  EXPECT_NEAR(param_counts(llama2_70b()).total / 68976648192.0, 1.0, 1e-3);
}

TEST(Params, MoeModelsMatchPublishedTotalAndActive) {
  // Mixtral 8x7B: 46.7B total, 12.9B active (Mistral AI, Mixtral of Experts, arXiv 2401.04088).
  const auto mx = param_counts(mixtral());
  EXPECT_NEAR(mx.total / 46.7e9, 1.0, 0.01);
  EXPECT_NEAR(mx.active_per_token / 12.9e9, 1.0, 0.02);
  // DeepSeek-V3: 671B total, 37B activated (arXiv 2412.19437; excludes the 14B MTP module).
  const auto ds = param_counts(deepseek_v3());
  EXPECT_NEAR(ds.total / 671e9, 1.0, 0.01);
  EXPECT_NEAR(ds.active_per_token / 37e9, 1.0, 0.03);
}

TEST(Stages, LayersSplitEvenlyAndDenseGoFirst) {
  const auto m = deepseek_v3();
  int total = 0, dense = 0;
  for (int s = 0; s < 4; ++s) {
    const auto st = stage_layers(m, 4, s);
    total += st.dense + st.moe;
    dense += st.dense;
    EXPECT_GE(st.dense + st.moe, 15);
    EXPECT_LE(st.dense + st.moe, 16);
  }
  EXPECT_EQ(total, 61);
  EXPECT_EQ(dense, 3);
  EXPECT_EQ(stage_layers(m, 4, 0).dense, 3);
  EXPECT_EQ(stage_layers(m, 4, 1).first_moe, 16 - 3);
  EXPECT_TRUE(stage_layers(m, 4, 3).lm_head);
}

TEST(Kv, GqaSplitsHeadsAndReplicatesBelowOne) {
  const auto m = llama2_70b();
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_layer(m, 2, 1), 2 * 8 * 128 * 2.0);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_layer(m, 2, 4), 2 * 2 * 128 * 2.0);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_layer(m, 2, 16), 2 * 1 * 128 * 2.0);
}

TEST(Kv, MlaLatentIsNotSplitByTp) {
  const auto m = deepseek_v3();
  EXPECT_DOUBLE_EQ(kv_bytes_per_token_layer(m, 1, 8), 576.0);  // 512 + 64 (DeepSeek-V2 §2.1)
}

// Sliding-window attention (workload::Model::sliding_window): which layers slide, and the keys
// a sliding layer's queries see, against sums worked out by hand.
TEST(SlidingWindow, LayersAndKeys) {
  workload::Model m;
  m.layers = 36;
  EXPECT_EQ(sliding_layers(m, 0, 36), 0);  // no window
  EXPECT_EQ(window_keys(m, 5000.0), 5000.0);
  EXPECT_DOUBLE_EQ(window_prefill_keys(m, 1024, 0), 512.5);  // causal: (1 + 1024) / 2
  m.sliding_window = 128;
  m.full_attention_interval = 2;  // gpt-oss: layer 0 slides, layer 1 is full, ...
  EXPECT_EQ(sliding_layers(m, 0, 36), 18);
  EXPECT_EQ(sliding_layers(m, 0, 1), 1);
  EXPECT_EQ(sliding_layers(m, 1, 1), 0);
  EXPECT_EQ(sliding_layers(m, 1, 3), 1);   // layers 1 (full), 2 (slides), 3 (full)
  EXPECT_EQ(sliding_layers(m, 17, 19), 9);  // layers 17..35: the even ones, 18..34
  m.full_attention_interval = 6;  // five sliding layers to one full (Gemma 3's pattern)
  EXPECT_EQ(sliding_layers(m, 0, 12), 10);
  m.full_attention_interval = 0;  // every layer slides (Mistral 7B v0.1)
  EXPECT_EQ(sliding_layers(m, 4, 8), 8);
  EXPECT_EQ(window_keys(m, 5000.0), 128.0);
  EXPECT_EQ(window_keys(m, 100.0), 100.0);
  // A 1024-token prompt: queries 1..128 see 1..128 keys, the other 896 see 128:
  // (128 x 129 / 2 + 896 x 128) / 1024 = 122944 / 1024.
  EXPECT_DOUBLE_EQ(window_prefill_keys(m, 1024, 0), 122944.0 / 1024.0);
  // Within the window it is the causal mean; after a cached prefix past it, the window.
  EXPECT_DOUBLE_EQ(window_prefill_keys(m, 100, 0), 50.5);
  EXPECT_DOUBLE_EQ(window_prefill_keys(m, 24, 1000), 128.0);
  // A chunk of 100 after 60 cached: queries see 61..127 (67 of them), then 33 x 128.
  EXPECT_DOUBLE_EQ(window_prefill_keys(m, 100, 60), (67.0 * (61 + 127) / 2 + 33 * 128) / 100);
}

}  // namespace
}  // namespace stackscope::parallel
