// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/moe/ep_placement.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

namespace stackscope::moe {
namespace {

// Hand-derived: f = {1, 0.5, 0.3, 0.2} (top-2), ep 2, 10 tokens, 1 redundant slot per rank.
// Both slots go to expert 0 (1/1 > 0.5, then 1/2 = 0.5 ties expert 1 and the lower index wins):
// 3 copies of 10/3 tokens. Homes: {0, 1} -> rank 0 (10/3 + 5), {2, 3} -> rank 1 (3 + 2).
// Replicas go to the least-loaded rank with a free slot: rank 1 (5 -> 25/3), then rank 0
// (25/3 -> 35/3). Each rank: 2 originals + 1 replica.
TEST(EpRanks, HandDerivedRedundantPlacement) {
  const double f[] = {1.0, 0.5, 0.3, 0.2};
  RankShare r[2];
  ASSERT_EQ(ep_ranks(f, 4, 2, 10.0, 1, r), 2);
  EXPECT_EQ(r[0].experts, 3);
  EXPECT_EQ(r[0].replicas, 1);
  EXPECT_EQ(r[1].experts, 3);
  EXPECT_EQ(r[1].replicas, 1);
  EXPECT_NEAR(r[0].tokens, 35.0 / 3.0, 1e-12);
  EXPECT_NEAR(r[1].tokens, 25.0 / 3.0, 1e-12);
}

// DeepSeek-V3 (arXiv 2412.19437 §2.1.2: 256 routed experts, top-8) over EP 32, uniform routing:
// 256 / 32 = 8 experts per rank and 512 x 8 / 32 = 128 token selections each.
TEST(EpRanks, UniformDeepSeekV3OverEp32) {
  std::vector<double> f(256);
  expert_frequency({}, 256, 8, 0, f.data());
  std::vector<RankShare> r(kMaxExperts);
  ASSERT_EQ(ep_ranks(f.data(), 256, 32, 512.0, 0, r.data()), 32);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(r[static_cast<std::size_t>(i)].experts, 8);
    EXPECT_EQ(r[static_cast<std::size_t>(i)].replicas, 0);
    EXPECT_NEAR(r[static_cast<std::size_t>(i)].tokens, 128.0, 1e-9);
  }
}

// Conservation (every selection lands on one rank; every slot is filled) and agreement with
// the busiest rank ep_load() costs, over skewed routings and redundancy.
TEST(EpRanks, ConservesTokensAndSlotsAndMatchesEpLoad) {
  workload::Routing zipf;
  zipf.kind = workload::RoutingKind::zipf;
  zipf.zipf_s = 1.2;
  std::vector<double> f(64);
  expert_frequency(zipf, 64, 6, 0, f.data());
  std::vector<RankShare> r(kMaxExperts);
  for (int ep : {1, 4, 8, 16}) {
    for (int red : {0, 1, 2}) {
      const int n = ep_ranks(f.data(), 64, ep, 300.0, red, r.data());
      ASSERT_EQ(n, ep);
      double tokens = 0, busiest = 0;
      int slots = 0;
      for (int i = 0; i < n; ++i) {
        tokens += r[static_cast<std::size_t>(i)].tokens;
        busiest = std::max(busiest, r[static_cast<std::size_t>(i)].tokens);
        slots += r[static_cast<std::size_t>(i)].experts;
      }
      EXPECT_NEAR(tokens, 300.0 * 6, 1e-9) << "ep " << ep << " redundant " << red;
      EXPECT_EQ(slots, 64 + ep * red);
      EXPECT_DOUBLE_EQ(busiest, ep_load(f.data(), 64, ep, 300.0, red).most_tokens.tokens);
    }
  }
}

}  // namespace
}  // namespace stackscope::moe
