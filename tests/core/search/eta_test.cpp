// SPDX-License-Identifier: GPL-3.0-or-later
// search::EtaEstimator on synthetic progress sequences with explicit timestamps (no clock).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "stackscope/search/eta.hpp"

namespace stackscope::search {
namespace {

using Options = EtaEstimator::Options;

TEST(EtaEstimator, UnknownBeforeEnoughSamplesAndProgress) {
  EtaEstimator e(Options{.window_s = 10, .min_work = 1, .min_samples = 3});
  EXPECT_FALSE(e.eta_s());
  e.update(0, 0, 100);
  EXPECT_FALSE(e.eta_s());
  EXPECT_FALSE(e.rate_per_s());
  e.update(1, 5, 100);
  EXPECT_FALSE(e.eta_s()) << "two samples are fewer than min_samples";
  e.update(2, 10, 100);
  ASSERT_TRUE(e.eta_s());
  EXPECT_NEAR(*e.rate_per_s(), 5.0, 1e-12);
  EXPECT_NEAR(*e.eta_s(), 90.0 / 5.0, 1e-12);

  // Samples without progress give no rate: min_work is not reached.
  EtaEstimator idle(Options{.window_s = 10, .min_work = 1, .min_samples = 3});
  for (int t = 0; t < 50; ++t) idle.update(t, 0, 100);
  EXPECT_FALSE(idle.eta_s());
  EXPECT_FALSE(idle.rate_per_s());
}

TEST(EtaEstimator, DoneRunHasZeroEta) {
  EtaEstimator e;
  e.update(0, 0, 0);
  ASSERT_TRUE(e.eta_s());
  EXPECT_EQ(*e.eta_s(), 0.0);
  EtaEstimator f;
  f.update(0, 0, 10);
  f.update(1, 10, 10);
  ASSERT_TRUE(f.eta_s());
  EXPECT_EQ(*f.eta_s(), 0.0);
}

// Constant rate: once known, the ETA is the true time left and falls by the time that passed.
TEST(EtaEstimator, ConstantRateFallsLinearlyToZero) {
  const double rate = 12.5, total = 1000, dt = 0.5;
  EtaEstimator e(Options{.window_s = 20, .min_work = 1, .min_samples = 3});
  std::optional<double> prev;
  int known = 0;
  for (int k = 0;; ++k) {
    const double t = k * dt, done = std::min(total, rate * t);
    e.update(t, done, total);
    const auto eta = e.eta_s();
    if (k >= 2) {
      ASSERT_TRUE(eta) << "update " << k;
      EXPECT_NEAR(*eta, (total - done) / rate, 1e-9) << "update " << k;
      if (prev) {
        EXPECT_NEAR(*prev - *eta, std::min(dt, *prev), 1e-9) << "update " << k;
      }
      ++known;
    }
    prev = eta;
    if (done >= total) break;
  }
  EXPECT_GT(known, 100);
  EXPECT_EQ(*prev, 0.0);
}

// The pace halves at t_change and stays there. Window 30 s, one update a second: the ETA may
// climb only while the window still holds time before the change (at most 30 updates), is the
// true time left within 0.1 % from 31 updates after the change, and never climbs again. The mean
// rate since the start, the old ETA, is still far off at that point.
TEST(EtaEstimator, HalvedRateConvergesAndStopsClimbing) {
  const double r1 = 10, r2 = 5, t_change = 60, total = 3000, dt = 1, window = 30;
  EtaEstimator e(Options{.window_s = window, .min_work = 1, .min_samples = 3});
  const auto done_at = [&](double t) {
    return std::min(total, t < t_change ? r1 * t : r1 * t_change + r2 * (t - t_change));
  };
  const int converge_updates = static_cast<int>(window / dt) + 1;
  std::optional<double> prev;
  int climbs_after_change = 0, run = 0, longest_climb = 0;
  bool checked_mean = false;
  for (int k = 0;; ++k) {
    const double t = k * dt, done = done_at(t);
    e.update(t, done, total);
    const auto eta = e.eta_s();
    ASSERT_TRUE(k < 2 || eta.has_value()) << "update " << k;
    const int since = static_cast<int>(std::lround((t - t_change) / dt));
    if (since >= converge_updates && done < total) {
      const double truth = (total - done) / r2;
      EXPECT_NEAR(*eta, truth, 1e-3 * truth) << "update " << since << " after the change";
      if (!checked_mean) {
        const double mean_eta = (total - done) / (done / t);
        EXPECT_GT(std::abs(mean_eta - truth), 0.2 * truth)
            << "the mean-rate ETA would already be right: the test shows nothing";
        checked_mean = true;
      }
    }
    if (since > 0 && prev && eta) {
      if (*eta > *prev + 1e-9) {
        ++climbs_after_change;
        longest_climb = std::max(longest_climb, ++run);
        EXPECT_LE(since, converge_updates) << "the ETA climbed after the rate was stable";
      } else {
        run = 0;
      }
    }
    if (k >= 2 && since <= 0) {
      EXPECT_NEAR(*eta, (total - done) / r1, 1e-9);
    }
    prev = eta;
    if (done >= total) break;
  }
  EXPECT_TRUE(checked_mean);
  EXPECT_GT(climbs_after_change, 0) << "a halved pace must raise the ETA for a while";
  EXPECT_LE(longest_climb, converge_updates);
  EXPECT_EQ(*prev, 0.0);
}

// An exhaustive search's shape: the first fifth of the work units are pruned for almost nothing,
// the rest cost the same each. The ETA from the recent rate reaches the truth one window after the
// cheap part; the mean-rate ETA would still be under half of it.
TEST(EtaEstimator, CheapStartIsForgottenAfterOneWindow) {
  const double total = 2000, cheap = 400, fast = 200, slow = 4, dt = 0.1, window = 30;
  const double t_cheap = cheap / fast;
  EtaEstimator e(Options{.window_s = window, .min_work = 1, .min_samples = 3});
  bool checked = false;
  for (int k = 0; k < 100000; ++k) {
    const double t = k * dt;
    const double done =
        std::min(total, t < t_cheap ? fast * t : cheap + std::floor(slow * (t - t_cheap)));
    e.update(t, done, total);
    if (t >= t_cheap + window + 1 && done < total - 100 && !checked) {
      const double truth = (total - done) / slow;
      ASSERT_TRUE(e.eta_s());
      EXPECT_NEAR(*e.eta_s(), truth, 0.02 * truth);
      EXPECT_LT((total - done) / (done / t), 0.5 * truth);
      checked = true;
    }
    if (done >= total) break;
  }
  EXPECT_TRUE(checked);
}

// Units finishing at irregular times (deterministic jitter of +-40 % of a unit's time), sampled
// every 0.1 s: after the first window the ETA stays within 3 % of the true time left.
TEST(EtaEstimator, JitteredCompletionsStayClose) {
  const double rate = 8, total = 4000, dt = 0.1, window = 30;
  std::vector<double> finish(static_cast<std::size_t>(total));
  std::uint64_t x = 12345;
  for (std::size_t i = 0; i < finish.size(); ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;                   // Knuth's MMIX LCG
    const double u = static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5;  // [-0.5, 0.5)
    finish[i] = (static_cast<double>(i) + 1 + 0.8 * u) / rate;
  }
  EtaEstimator e(Options{.window_s = window, .min_work = 1, .min_samples = 3});
  std::size_t done = 0;
  int checked = 0;
  for (int k = 0; done < finish.size(); ++k) {
    const double t = k * dt;
    while (done < finish.size() && finish[done] <= t) ++done;
    e.update(t, static_cast<double>(done), total);
    if (t > window && done < finish.size() - 8) {
      const double truth = (total - static_cast<double>(done)) / rate;
      ASSERT_TRUE(e.eta_s());
      EXPECT_NEAR(*e.eta_s(), truth, 0.03 * truth + 0.5) << "t " << t;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

// A stall: no unit finishes for 40 s. The ETA falls with the clock for the time one step should
// take (1 s at 2 units/s), then holds still rather than claim the old pace; the late completion
// lowers the measured rate and the ETA jumps up once; a window of the old pace later it is the
// truth again.
TEST(EtaEstimator, StallHoldsTheEtaThenTheRateFollows) {
  EtaEstimator e(Options{.window_s = 10, .min_work = 1, .min_samples = 3});
  for (int t = 0; t <= 20; ++t) e.update(t, 2.0 * t, 1000);
  EXPECT_NEAR(*e.eta_s(), (1000 - 40) / 2.0, 1e-9);
  for (int t = 21; t <= 60; ++t) {
    e.update(t, 40, 1000);
    ASSERT_TRUE(e.eta_s());
    EXPECT_NEAR(*e.eta_s(), (1000 - 40) / 2.0 - 1, 1e-9) << "t " << t;
  }
  e.update(61, 42, 1000);
  EXPECT_GT(*e.eta_s(), 5 * (1000 - 42) / 2.0) << "41 s for 2 units is a much lower rate";
  for (int t = 62; t <= 80; ++t) e.update(t, 42 + 2.0 * (t - 61), 1000);
  EXPECT_NEAR(*e.eta_s(), (1000 - 80) / 2.0, 1e-9);
}

// Work found to be skipped (units an earlier run finished) lowers total: the ETA follows the work
// left, not the work of the whole run.
TEST(EtaEstimator, TotalMayShrink) {
  EtaEstimator e(Options{.window_s = 10, .min_work = 1, .min_samples = 3});
  for (int t = 0; t <= 10; ++t) e.update(t, t, 100);
  EXPECT_NEAR(*e.eta_s(), 90, 1e-9);
  e.update(11, 11, 60);
  EXPECT_NEAR(*e.eta_s(), 49, 1e-9);
}

// Coarse work: one unit a minute, sampled every 5 s, with a 30 s window. The rate is measured
// completion to completion and the time since the last completion counts as time spent, so the
// ETA is the truth at every sample, not a slowdown between completions.
TEST(EtaEstimator, CoarseUnitsAreMeasuredBetweenCompletions) {
  EtaEstimator e(Options{.window_s = 30, .min_work = 1, .min_samples = 3});
  for (int t = 0; t < 1200; t += 5) {
    e.update(t, std::floor(t / 60.0), 20);
    if (t >= 60) {
      ASSERT_TRUE(e.eta_s()) << "t " << t;
      EXPECT_NEAR(*e.eta_s(), 20 * 60.0 - t, 1e-9) << "t " << t;
    }
  }
}

// window_fraction: the window is at least that share of the time since the first sample. One
// unit per second up to t = 100, two after; at t = 150 a 10 s window sees only the new pace,
// a half-run window (75 s, from t = 75) sees 25 s at the old and 50 s at the new one.
TEST(EtaEstimator, WindowFractionGrowsTheWindowWithTheRun) {
  EtaEstimator fixed(Options{.window_s = 10, .min_work = 1, .min_samples = 3});
  EtaEstimator grows(
      Options{.window_s = 10, .min_work = 1, .min_samples = 3, .window_fraction = 0.5});
  for (int t = 0; t <= 150; ++t) {
    const double done = t <= 100 ? t : 100 + 2.0 * (t - 100);
    fixed.update(t, done, 1000);
    grows.update(t, done, 1000);
  }
  EXPECT_NEAR(*fixed.rate_per_s(), 2.0, 1e-12);
  EXPECT_NEAR(*grows.rate_per_s(), (25.0 + 100.0) / 75.0, 1e-12);
  EXPECT_NEAR(*grows.eta_s(), (1000.0 - 200.0) / ((25.0 + 100.0) / 75.0), 1e-9);
}

TEST(EtaEstimator, LongRunsKeepBoundedHistory) {
  EtaEstimator e(Options{.window_s = 1e9, .min_work = 1, .min_samples = 3});
  const int n = static_cast<int>(EtaEstimator::kMaxSamples) * 3;
  for (int k = 0; k < n; ++k) e.update(k, k, 10.0 * n);
  ASSERT_TRUE(e.eta_s());
  EXPECT_NEAR(*e.rate_per_s(), 1.0, 1e-12);
  EXPECT_NEAR(*e.eta_s(), 10.0 * n - (n - 1), 1e-6);
}

TEST(EtaEstimator, BadInputIsRefusedAndLeavesTheEstimate) {
  EtaEstimator e(Options{.window_s = 10, .min_work = 1, .min_samples = 3});
  for (int t = 0; t <= 5; ++t) e.update(t, t, 50);
  const double eta = *e.eta_s();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THROW(e.update(nan, 6, 50), std::invalid_argument);
  EXPECT_THROW(e.update(6, inf, 50), std::invalid_argument);
  EXPECT_THROW(e.update(6, 6, nan), std::invalid_argument);
  EXPECT_THROW(e.update(4, 6, 50), std::invalid_argument);   // time backwards
  EXPECT_THROW(e.update(6, 4, 50), std::invalid_argument);   // done backwards
  EXPECT_THROW(e.update(6, 60, 50), std::invalid_argument);  // done > total
  EXPECT_THROW(e.update(6, -1, 50), std::invalid_argument);
  EXPECT_EQ(*e.eta_s(), eta);
  try {
    e.update(4, 6, 50);
  } catch (const std::invalid_argument& ex) {
    EXPECT_NE(std::string(ex.what()).find("backwards"), std::string::npos) << ex.what();
  }
  EXPECT_THROW(EtaEstimator(Options{.window_s = 0}), std::invalid_argument);
  EXPECT_THROW(EtaEstimator(Options{.window_s = nan}), std::invalid_argument);
  EXPECT_THROW(EtaEstimator(Options{.min_work = 0}), std::invalid_argument);
  EXPECT_THROW(EtaEstimator(Options{.min_samples = 1}), std::invalid_argument);
  EXPECT_THROW(EtaEstimator(Options{.window_fraction = -0.1}), std::invalid_argument);
  EXPECT_THROW(EtaEstimator(Options{.window_fraction = 1}), std::invalid_argument);
  EXPECT_THROW(EtaEstimator(Options{.window_fraction = nan}), std::invalid_argument);
  e.reset();
  EXPECT_FALSE(e.eta_s());
}

}  // namespace
}  // namespace stackscope::search
