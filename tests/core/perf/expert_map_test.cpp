// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/perf/expert_map.hpp"

#include <gtest/gtest.h>

namespace stackscope::perf {
namespace {

// 8 experts, top-2, on tp 2 x ep 4 x pp 2 = 16 devices, batch 64, uniform routing.
// Hand-derived: each stage has 8 devices = 4 EP ranks x 2 expert shards; the devices holding
// the same shard form one all-to-all group (parallel::Placement, GroupKind::moe_ep), so 2 EP
// groups per stage, 4 in all; 8 / 4 = 2 experts per device, 64 x 2 / 4 = 32 selections each.
Design small_moe() {
  Design d;
  d.model.layers = 4;
  d.model.moe.experts = 8;
  d.model.moe.top_k = 2;
  d.model.moe.expert_ffn_dim = 1024;
  d.workload.batch = 64;
  d.parallel.tp = 2;
  d.parallel.ep = 4;
  d.parallel.pp = 2;
  return d;
}

TEST(ExpertMap, HandDerivedPlacement) {
  const ExpertMap m = expert_map(small_moe());
  ASSERT_TRUE(m.moe);
  ASSERT_EQ(m.devices.size(), 16u);
  EXPECT_EQ(m.moe_ep, 4);
  EXPECT_EQ(m.moe_tp, 2);
  EXPECT_EQ(m.ep_groups, 4);
  EXPECT_DOUBLE_EQ(m.busiest_tokens, 32.0);
  for (const auto& x : m.devices) {
    EXPECT_EQ(x.experts, 2);
    EXPECT_EQ(x.replicas, 0);
    EXPECT_DOUBLE_EQ(x.tokens, 32.0);
  }
  // Placement tp,ep,cp,pp,dp: device 5 = tp 1, ep 2 of stage 0 (stage-local index 5: shard 1,
  // EP rank 2 of group 1); device 9 = stage 1, local index 1 (shard 1, rank 0 of group 3).
  // Groups are numbered by their first device: 0, 1, 8, 9.
  const auto& d5 = m.devices[5];
  EXPECT_EQ(d5.stage, 0);
  EXPECT_EQ(d5.tp, 1);
  EXPECT_EQ(d5.ep, 2);
  EXPECT_EQ(d5.ep_group, 1);
  EXPECT_EQ(d5.ep_rank, 2);
  EXPECT_EQ(d5.moe_tp_rank, 1);
  const auto& d9 = m.devices[9];
  EXPECT_EQ(d9.stage, 1);
  EXPECT_EQ(d9.ep_group, 3);
  EXPECT_EQ(d9.ep_rank, 0);
}

TEST(ExpertMap, PlacementOrderMovesRanks) {
  Design d = small_moe();
  d.parallel.placement = "pp,tp,ep,cp,dp";
  const ExpertMap m = expert_map(d);
  // pp innermost: even devices are stage 0, odd ones stage 1; device 2k + s is stage s's local
  // index k (shard k % 2, EP rank k / 2). Groups by first device: 0, 1, 2, 3.
  const int stage[] = {0, 1, 0, 1, 0};
  const int rank[] = {0, 0, 0, 0, 1};
  const int shard[] = {0, 0, 1, 1, 0};
  const int group[] = {0, 1, 2, 3, 0};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(m.devices[i].stage, stage[i]) << i;
    EXPECT_EQ(m.devices[i].ep_rank, rank[i]) << i;
    EXPECT_EQ(m.devices[i].moe_tp_rank, shard[i]) << i;
    EXPECT_EQ(m.devices[i].ep_group, group[i]) << i;
  }
}

TEST(ExpertMap, RedundantSlotsAndDenseModels) {
  Design d = small_moe();
  d.parallel.redundant_experts_per_rank = 1;
  for (const auto& x : expert_map(d).devices) {
    EXPECT_EQ(x.experts, 3);
    EXPECT_EQ(x.replicas, 1);
  }
  d.model.moe = {};
  const ExpertMap dense = expert_map(d);
  EXPECT_FALSE(dense.moe);
  EXPECT_TRUE(dense.devices.empty());
}

}  // namespace
}  // namespace stackscope::perf
