// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "stackscope/moe/routing.hpp"

namespace stackscope::moe {
namespace {

std::vector<double> freq(const workload::Routing& r, int e, int k, int layer = 0) {
  std::vector<double> f(e);
  expert_frequency(r, e, k, layer, f.data());
  return f;
}

TEST(Routing, EveryKindSumsToTopKAndStaysAtMostOne) {
  for (auto kind : {workload::RoutingKind::uniform, workload::RoutingKind::zipf,
                    workload::RoutingKind::dirichlet}) {
    workload::Routing r;
    r.kind = kind;
    r.zipf_s = 1.5;
    r.dirichlet_alpha = 0.3;
    const auto f = freq(r, 64, 6);
    EXPECT_NEAR(std::accumulate(f.begin(), f.end(), 0.0), 6.0, 1e-9);
    for (double x : f) {
      EXPECT_GE(x, 0.0);
      EXPECT_LE(x, 1.0 + 1e-12);
    }
  }
}

TEST(Routing, UniqueTokensCountEachTokenOncePerRank) {
  // A rank with every selection receives every token once, whatever top_k is.
  EXPECT_DOUBLE_EQ(unique_tokens(100, 8, 800), 100.0);
  EXPECT_DOUBLE_EQ(unique_tokens(100, 1, 100), 100.0);
  // One of 8 EP ranks under uniform routing holds 1/8 of the selections: a token with 8 picks
  // misses it with probability (7/8)^8.
  EXPECT_NEAR(unique_tokens(100, 8, 100), 100.0 * (1.0 - std::pow(7.0 / 8.0, 8)), 1e-9);
  // Never more than the tokens or the selections (top_k 1: one pick per token).
  EXPECT_DOUBLE_EQ(unique_tokens(100, 1, 30), 30.0);
  EXPECT_LE(unique_tokens(100, 4, 30), 30.0);
  EXPECT_EQ(unique_tokens(100, 8, 0), 0.0);
  EXPECT_EQ(unique_tokens(0, 8, 10), 0.0);
}

TEST(Routing, UniformIsBalanced) {
  const auto f = freq({}, 256, 8);
  EXPECT_NEAR(imbalance(f.data(), 256, 32), 1.0, 1e-12);
}

TEST(Routing, SkewRaisesImbalanceAndIsSeeded) {
  workload::Routing r;
  r.kind = workload::RoutingKind::zipf;
  r.zipf_s = 1.2;
  r.seed = 7;
  const auto a = freq(r, 64, 2);
  const auto b = freq(r, 64, 2);
  EXPECT_EQ(a, b);  // deterministic
  EXPECT_GT(imbalance(a.data(), 64, 8), 1.2);
  r.seed = 8;
  EXPECT_NE(freq(r, 64, 2), a);  // the seed moves the hot experts
}

TEST(Routing, BusiestRankActiveExperts) {
  const auto f = freq({}, 64, 8);  // f = 1/8 each
  // One token: each rank of 8 experts expects 1 - (7/8)^1 = 1/8 per expert -> 1 active.
  const auto one = busiest_rank(f.data(), 64, 8, 1.0);
  EXPECT_NEAR(one.active_experts, 1.0, 1e-12);
  EXPECT_NEAR(one.tokens, 1.0, 1e-12);
  // Many tokens: every expert is used.
  const auto many = busiest_rank(f.data(), 64, 8, 4096.0);
  EXPECT_NEAR(many.active_experts, 8.0, 1e-9);
}

TEST(Routing, TraceRowsAreNormalisedAndCycled) {
  workload::Routing r;
  r.kind = workload::RoutingKind::trace;
  r.expert_frequency = {{1, 1, 0, 0}, {0, 0, 1, 1}};
  EXPECT_EQ(frequency_rows(r), 2);
  const auto l0 = freq(r, 4, 1, 0);
  const auto l3 = freq(r, 4, 1, 3);
  EXPECT_NEAR(l0[0], 0.5, 1e-12);
  EXPECT_NEAR(l3[2], 0.5, 1e-12);  // layer 3 uses row 1
}

}  // namespace
}  // namespace stackscope::moe
