// SPDX-License-Identifier: GPL-3.0-or-later
// Token-level routing traces, their statistics and the next-layer predictor (core/moe trace.hpp,
// stats.hpp, predictor.hpp). Golden values are worked out by hand on
// traces small enough to count.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "stackscope/moe/predictor.hpp"
#include "stackscope/moe/routing.hpp"
#include "stackscope/moe/stats.hpp"
#include "stackscope/moe/trace.hpp"

namespace stackscope::moe {
namespace {

RoutingTrace make(int experts, int k, std::vector<std::vector<std::uint16_t>> layers) {
  RoutingTrace t;
  t.experts = experts;
  t.top_k = k;
  t.layers = std::move(layers);
  t.source = "'hand'";
  return t;
}

void expect_invalid(const RoutingTrace& t, const std::string& part) {
  try {
    check(t);
    ADD_FAILURE() << "accepted; expected an error containing " << part;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(RoutingTrace, CheckNamesTheLayerAndToken) {
  EXPECT_NO_THROW(check(make(4, 2, {{0, 1, 2, 3}, {3, 0, 1, 2}})));
  expect_invalid(make(4, 2, {}), "no layers");
  expect_invalid(make(4, 2, {{0, 1}, {}}), "layer 1 has no tokens");
  expect_invalid(make(4, 2, {{0, 1, 2}}), "not a whole number of tokens of 2");
  expect_invalid(make(4, 2, {{0, 1, 2, 4}}), "layer 0 token 1: expert id 4 out of range");
  expect_invalid(make(4, 2, {{0, 1}, {2, 2}}), "layer 1 token 0: expert 2 selected twice");
  expect_invalid(make(4, 5, {{0, 1, 2, 3, 0}}), "selects 5 experts per token (allowed: 1..4)");
  expect_invalid(make(0, 1, {{0}}), "has 0 experts");
}

TEST(RoutingTrace, LayerStatsCountFrequenciesPairsAndSets) {
  // Four tokens of top-2 over 4 experts: {0,1}, {1,0}, {0,2}, {3,1}.
  const auto t = make(4, 2, {{0, 1, 1, 0, 0, 2, 3, 1}});
  const LayerStats s = layer_stats(t, 0);
  EXPECT_EQ(s.tokens, 4u);
  // Expert 0 in 3 of 4 tokens, 1 in 3, 2 in 1, 3 in 1: 0.75, 0.75, 0.25, 0.25 (sum 2 = k).
  EXPECT_DOUBLE_EQ(s.frequency[0], 0.75);
  EXPECT_DOUBLE_EQ(s.frequency[1], 0.75);
  EXPECT_DOUBLE_EQ(s.frequency[2], 0.25);
  EXPECT_DOUBLE_EQ(s.frequency[3], 0.25);
  // Pairs: {0,1} twice of 4 tokens, {0,2} once, {1,3} once; symmetric.
  EXPECT_DOUBLE_EQ(s.pair[0 * 4 + 1], 0.5);
  EXPECT_DOUBLE_EQ(s.pair[1 * 4 + 0], 0.5);
  EXPECT_DOUBLE_EQ(s.pair[0 * 4 + 2], 0.25);
  EXPECT_DOUBLE_EQ(s.pair[3 * 4 + 1], 0.25);
  EXPECT_DOUBLE_EQ(s.pair[2 * 4 + 3], 0.0);
  // Row 0 sums to frequency[0] * k = 1.5 (diagonal 0.75 + 0.5 + 0.25).
  EXPECT_DOUBLE_EQ(s.pair[0] + s.pair[1] + s.pair[2] + s.pair[3], 1.5);
  ASSERT_EQ(s.sets.size(), 3u);
  EXPECT_EQ(s.sets[0].experts, (std::vector<std::uint16_t>{0, 1}));
  EXPECT_EQ(s.sets[0].tokens, 2u);
  EXPECT_EQ(s.sets[1].experts, (std::vector<std::uint16_t>{0, 2}));  // tie: lexicographic
  EXPECT_EQ(s.sets[2].experts, (std::vector<std::uint16_t>{1, 3}));
  // Imbalance: max 0.75 over the mean k / E = 0.5.
  EXPECT_DOUBLE_EQ(s.imbalance, 1.5);
  EXPECT_THROW((void)layer_stats(t, 1), std::out_of_range);
}

TEST(RoutingTrace, SyntheticTraceIsSeededAndFollowsTheFrequencies) {
  workload::Routing zipf;
  zipf.kind = workload::RoutingKind::zipf;
  zipf.zipf_s = 1.2;
  zipf.seed = 3;
  const auto a = synthetic_trace(zipf, 16, 2, 3, 20'000, 7);
  const auto b = synthetic_trace(zipf, 16, 2, 3, 20'000, 7);
  EXPECT_EQ(a.layers, b.layers);
  EXPECT_NE(synthetic_trace(zipf, 16, 2, 3, 20'000, 8).layers, a.layers);
  EXPECT_NO_THROW(check(a));
  // The empirical frequencies approach expert_frequency()'s: successive sampling without
  // replacement is not exactly proportional for k > 1, but for k = 1 it is, so check k = 1
  // to 3 standard errors (sqrt(f (1 - f) / n) <= 0.0036 at n = 20,000).
  const auto one = synthetic_trace(zipf, 16, 1, 1, 20'000, 11);
  double f[16];
  expert_frequency(zipf, 16, 1, 0, f);
  const auto s = layer_stats(one, 0);
  for (int e = 0; e < 16; ++e) EXPECT_NEAR(s.frequency[e], f[e], 0.011) << e;
  // With k = 2 every token still selects two distinct experts and the frequencies sum to 2.
  double sum = 0;
  for (double x : layer_stats(a, 0).frequency) sum += x;
  EXPECT_NEAR(sum, 2.0, 1e-12);
  EXPECT_THROW((void)synthetic_trace(zipf, 16, 17, 1, 1, 1), std::invalid_argument);
  EXPECT_THROW((void)synthetic_trace(zipf, 16, 2, 0, 1, 1), std::invalid_argument);
}

TEST(NextLayerPredictor, LearnsADeterministicTransitionExactly) {
  // Top-2 of 4: layer 1's experts are layer 0's plus one (mod 4), the pair {a, b} with a = t mod
  // 4 and b = a + 1 + (t / 4 mod 3) (mod 4), never a. A token holding 0 always moves to 1, so
  // P(1 | 0) ~ 1 while every other P(j | 0) ~ 1/3: the top-2 of the
  // scores of {a, b} is {a + 1, b + 1}.
  std::vector<std::uint16_t> l0, l1;
  for (int t = 0; t < 400; ++t) {
    const int a = t % 4, b = (a + 1 + (t / 4) % 3) % 4;
    l0.insert(l0.end(), {static_cast<std::uint16_t>(a), static_cast<std::uint16_t>(b)});
    l1.insert(l1.end(),
              {static_cast<std::uint16_t>((a + 1) % 4), static_cast<std::uint16_t>((b + 1) % 4)});
  }
  const RoutingTrace t = make(4, 2, {l0, l1});
  const NextLayerPredictor p(std::span<const RoutingTrace>(&t, 1));
  EXPECT_EQ(p.layer_pairs(), 1u);
  const std::uint16_t cur[2] = {0, 2};
  auto next = p.predict(0, cur);
  std::sort(next.begin(), next.end());
  EXPECT_EQ(next, (std::vector<std::uint16_t>{1, 3}));
  // The smoothed conditionals sum to k per current expert: the scores of a set of 2 sum to 4.
  double s[4];
  p.scores(0, cur, s);
  EXPECT_NEAR(s[0] + s[1] + s[2] + s[3], 4.0, 1e-12);
  const auto acc = evaluate(p, t, 8);
  EXPECT_EQ(acc.tokens, 400u);
  EXPECT_EQ(acc.batches, 50u);
  EXPECT_DOUBLE_EQ(acc.token_recall, 1.0);
  // Every expert is equally frequent, so the baseline's fixed top-2 ({0, 1}) holds on average
  // half of a token's next experts.
  EXPECT_NEAR(acc.baseline_token_recall, 0.5, 0.01);
}

TEST(NextLayerPredictor, PredictsTheBatchsHottestExpert) {
  // Top-1 of 4, layer 1 = layer 0 (identity). Batches of 3 tokens (0,0,1), (2,2,3), (1,1,0),
  // (3,3,2), 25 times: the hottest next expert is 0, 2, 1, 3 in turn. Every expert is equally
  // frequent, so the baseline always names expert 0 (ties: lower id) and hits 1 batch in 4; the
  // transition model (P(i | i) = (75 + 1/4) / 76) hits all of them.
  std::vector<std::uint16_t> l0;
  for (int r = 0; r < 25; ++r) l0.insert(l0.end(), {0, 0, 1, 2, 2, 3, 1, 1, 0, 3, 3, 2});
  const RoutingTrace t = make(4, 1, {l0, l0});
  const NextLayerPredictor p(std::span<const RoutingTrace>(&t, 1));
  const auto acc = evaluate(p, t, 3);
  EXPECT_EQ(acc.batches, 100u);
  EXPECT_DOUBLE_EQ(acc.hottest_hit, 1.0);
  EXPECT_DOUBLE_EQ(acc.baseline_hottest_hit, 0.25);
  EXPECT_DOUBLE_EQ(acc.token_recall, 1.0);
  EXPECT_DOUBLE_EQ(acc.baseline_token_recall, 0.25);
}

TEST(NextLayerPredictor, AddsNothingWhereLayersAreIndependent) {
  // Independent synthetic layers: on held-out tokens the transition model can only match the
  // frequency baseline (within sampling noise), never beat it by much.
  workload::Routing zipf;
  zipf.kind = workload::RoutingKind::zipf;
  zipf.zipf_s = 1.0;
  const auto fit = synthetic_trace(zipf, 8, 2, 4, 20'000, 1);
  const auto eval = synthetic_trace(zipf, 8, 2, 4, 5'000, 2);
  const NextLayerPredictor p(std::span<const RoutingTrace>(&fit, 1));
  const auto acc = evaluate(p, eval, 32);
  EXPECT_NEAR(acc.token_recall, acc.baseline_token_recall, 0.02);
  EXPECT_GT(acc.baseline_token_recall, 0.25);  // above the uniform guess k / E = 0.25
}

TEST(NextLayerPredictor, RefusesMismatchedTraces) {
  const RoutingTrace a = make(4, 2, {{0, 1, 2, 3}, {1, 2, 3, 0}});
  const RoutingTrace ragged = make(4, 2, {{0, 1, 2, 3}, {1, 2}});
  const RoutingTrace other = make(8, 2, {{0, 1}, {1, 2}});
  const RoutingTrace one_layer = make(4, 2, {{0, 1}});
  EXPECT_THROW(NextLayerPredictor(std::span<const RoutingTrace>(&ragged, 1)),
               std::invalid_argument);
  EXPECT_THROW(NextLayerPredictor(std::span<const RoutingTrace>(&one_layer, 1)),
               std::invalid_argument);
  const RoutingTrace both[2] = {a, other};
  EXPECT_THROW(NextLayerPredictor(std::span<const RoutingTrace>(both, 2)), std::invalid_argument);
  const NextLayerPredictor p(std::span<const RoutingTrace>(&a, 1));
  EXPECT_THROW((void)evaluate(p, other, 1), std::invalid_argument);
  EXPECT_THROW((void)evaluate(p, a, 3), std::invalid_argument);  // 2 tokens
  EXPECT_THROW((void)evaluate(p, a, 0), std::invalid_argument);
}

}  // namespace
}  // namespace stackscope::moe
