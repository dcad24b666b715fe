// SPDX-License-Identifier: GPL-3.0-or-later
// search::UnitStrata and search::forecast_work, and the ETA they give a run whose unit costs
// drift, simulated with explicit timestamps (no clock).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "stackscope/search/eta.hpp"
#include "stackscope/search/forecast.hpp"

namespace stackscope::search {
namespace {

TEST(UnitStrata, PartitionsIntoRunsDifferingByAtMostOne) {
  const UnitStrata st(10, 3);
  EXPECT_EQ(st.begin(0), 0u);
  EXPECT_EQ(st.begin(1), 4u);
  EXPECT_EQ(st.begin(2), 7u);
  EXPECT_EQ(st.end(2), 10u);
  for (std::uint64_t u = 0; u < 10; ++u) {
    const std::uint64_t s = st.of(u);
    EXPECT_LE(st.begin(s), u);
    EXPECT_LT(u, st.end(s));
  }
  // Every unit count up to 200 and every stratum count: consecutive, covering, sizes +-1.
  for (std::uint64_t units = 1; units <= 200; units += 7) {
    for (std::uint64_t n = 1; n <= units; n += 3) {
      const UnitStrata s(units, n);
      std::uint64_t lo = units, hi = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t w = s.end(i) - s.begin(i);
        lo = std::min(lo, w);
        hi = std::max(hi, w);
        EXPECT_EQ(s.of(s.begin(i)), i);
        EXPECT_EQ(s.of(s.end(i) - 1), i);
      }
      EXPECT_EQ(s.begin(0), 0u);
      EXPECT_EQ(s.end(n - 1), units);
      EXPECT_LE(hi - lo, 1u);
    }
  }
}

TEST(UnitStrata, HugeUnitCountsDoNotOverflow) {
  const std::uint64_t units = std::numeric_limits<std::uint64_t>::max() - 5;
  const UnitStrata st(units, 1024);
  EXPECT_EQ(st.end(1023), units);
  EXPECT_EQ(st.of(units - 1), 1023u);
  EXPECT_EQ(st.of(st.begin(512)), 512u);
  const auto c = st.candidate(1023, 0, 7);
  ASSERT_TRUE(c);
  EXPECT_GE(*c, st.begin(1023));
}

TEST(UnitStrata, CandidatesAreDeterministicInsideTheirStratum) {
  const UnitStrata st(1000, 10);
  for (std::uint64_t s = 0; s < 10; ++s) {
    for (std::uint32_t a = 0; a < 4; ++a) {
      const auto c = st.candidate(s, a, 42);
      ASSERT_TRUE(c);
      EXPECT_GE(*c, st.begin(s));
      EXPECT_LT(*c, st.end(s));
      EXPECT_EQ(c, st.candidate(s, a, 42)) << "the same seed draws the same unit";
    }
  }
  // Draws spread over the stratum: 100 strata of 100 units, the first attempts' offsets are not
  // all in one half.
  const UnitStrata wide(10000, 100);
  int low = 0;
  for (std::uint64_t s = 0; s < 100; ++s) low += (*wide.candidate(s, 0, 1) - wide.begin(s)) < 50;
  EXPECT_GT(low, 30);
  EXPECT_LT(low, 70);
  // `from` (a resume watermark) restricts the draw; a stratum wholly below it has none.
  for (std::uint32_t a = 0; a < 20; ++a) EXPECT_GE(*st.candidate(3, a, 9, 380), 380u);
  EXPECT_FALSE(st.candidate(3, 0, 9, 400));
  EXPECT_THROW(st.candidate(10, 0, 9), std::invalid_argument);
}

TEST(UnitStrata, BadCountsAreRefused) {
  EXPECT_THROW(UnitStrata(10, 0), std::invalid_argument);
  EXPECT_THROW(UnitStrata(10, 11), std::invalid_argument);
  EXPECT_THROW(UnitStrata(0, 1), std::invalid_argument);
  const UnitStrata st(10, 3);
  EXPECT_THROW(st.of(10), std::invalid_argument);
  EXPECT_THROW(st.begin(4), std::invalid_argument);
}

TEST(ForecastWork, WeighsUnitsByTheirStratumsCost) {
  std::vector<StratumWork> w = {{.todo = 10, .done = 4, .cost_s = 1.0},
                                {.todo = 20, .done = 0, .cost_s = 3.0},
                                {.todo = 5, .done = 9, .cost_s = 0.5}};  // done clamped to 5
  ForecastWork f = forecast_work(w);
  EXPECT_DOUBLE_EQ(f.total, 10 * 1.0 + 20 * 3.0 + 5 * 0.5);
  EXPECT_DOUBLE_EQ(f.done, 4 * 1.0 + 0 + 5 * 0.5);
  // An unmeasured stratum weighs the mean of the measured ones ((1 + 3 + 0.5) / 3).
  w.push_back({.todo = 6, .done = 2, .cost_s = -1});
  f = forecast_work(w);
  EXPECT_DOUBLE_EQ(f.total, 72.5 + 6 * 1.5);
  EXPECT_DOUBLE_EQ(f.done, 6.5 + 2 * 1.5);
  // None measured: units are counted.
  const std::vector<StratumWork> none = {{.todo = 7, .done = 3}, {.todo = 2, .done = 1}};
  f = forecast_work(none);
  EXPECT_DOUBLE_EQ(f.total, 9);
  EXPECT_DOUBLE_EQ(f.done, 4);
  EXPECT_DOUBLE_EQ(forecast_work({}).total, 0);
  const std::vector<StratumWork> bad = {
      {.todo = 1, .done = 0, .cost_s = std::numeric_limits<double>::quiet_NaN()}};
  EXPECT_THROW(forecast_work(bad), std::invalid_argument);
}

// A run shaped like the shipped DeepStack space: its outer axis (devices 64, 128, 256) splits
// the units into thirds whose mean cost is 1, 3 and 9 ms (more plans, less pruning), with a
// log-normal spread of unit costs inside each (sigma 1: a unit can cost 10x its neighbour).
// The run is simulated on a clock of its own: probes first, then the units in order; the ETA
// is read when 20 %, 50 % and 80 % of the time has passed. Counting units (the ETA a unit
// count gives) is far from the time left; the forecast is close. Its error is the sampling
// noise of one probe per stratum (about 7 % for this spread, one standard deviation; the worst
// of these seeds is 15 %, at 50 % of seed 2's run): the bound is 20 %, about three deviations.
void drifting_run(std::uint64_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::uint64_t units = 300000, strata_n = 4096;
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> spread(-0.5, 1.0);  // mean exp(-0.5 + 0.5) = 1
  std::vector<double> cost(units);
  for (std::uint64_t j = 0; j < units; ++j)
    cost[j] = (j < units / 3 ? 1e-3 : j < 2 * units / 3 ? 3e-3 : 9e-3) * spread(rng);

  const UnitStrata st(units, strata_n);
  std::vector<StratumWork> w(strata_n);
  std::vector<bool> probe(units, false);
  double t = 0;
  for (std::uint64_t s = 0; s < strata_n; ++s) {
    const std::uint64_t j = *st.candidate(s, 0, seed);
    probe[j] = true;
    // A probe runs before most of the frontier is known and prunes less: it takes 1.5x what
    // its unit would in order. The rate absorbs any such common factor.
    t += 1.5 * cost[j];
    w[s].cost_s = 1.5 * cost[j];
    w[s].todo = st.end(s) - st.begin(s) - 1;
  }
  double total_time = t;
  for (std::uint64_t j = 0; j < units; ++j)
    if (!probe[j]) total_time += cost[j];

  EtaEstimator forecast(
      {.window_s = 30, .min_work = 1e-9, .min_samples = 3, .window_fraction = 0.5});
  EtaEstimator counted({.window_s = 30, .min_work = 1, .min_samples = 3});
  std::uint64_t done_units = 0;
  const std::uint64_t todo_units = units - strata_n;
  double next_report = t, next_check = 0.2;
  int checked = 0;
  for (std::uint64_t j = 0; j < units; ++j) {
    if (probe[j]) continue;
    t += cost[j];
    ++w[st.of(j)].done;
    ++done_units;
    if (t < next_report) continue;
    next_report = t + 0.1;  // a progress report every 0.1 s, as the engine's default
    const ForecastWork f = forecast_work(w);
    forecast.update(t, f.done, f.total);
    counted.update(t, static_cast<double>(done_units), static_cast<double>(todo_units));
    if (t >= next_check * total_time) {
      const double left = total_time - t;
      ASSERT_TRUE(forecast.eta_s() && counted.eta_s());
      std::printf("at %2.0f %% of %.0f s: %.0f s left, forecast ETA %.0f s, unit-count ETA %.0f s\n",
                  100 * t / total_time, total_time, left, *forecast.eta_s(), *counted.eta_s());
      EXPECT_NEAR(*forecast.eta_s(), left, 0.2 * left) << "at " << next_check * 100 << " %";
      // Counting units at 20 %: the cheap first third's pace (1 ms a unit) predicts the rest.
      if (next_check < 0.3) {
        EXPECT_LT(*counted.eta_s(), 0.5 * left);
      }
      next_check += 0.3;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3);
}

TEST(ForecastWork, EtaOfARunWhoseCostsDriftSettlesOnTheTimeLeft) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) drifting_run(seed);
}

}  // namespace
}  // namespace stackscope::search
