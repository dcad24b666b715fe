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

}  // namespace
}  // namespace stackscope::parallel
