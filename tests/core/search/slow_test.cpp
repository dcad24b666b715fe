// SPDX-License-Identifier: GPL-3.0-or-later
// Brute-force frontier equality on a space of ~10^6 points (label slow: ~10-20 s).
#include <gtest/gtest.h>

#include <cstdio>

#include "spaces.hpp"

namespace stackscope::search {
namespace {

using namespace testing;

TEST(SearchEngineSlow, MillionPointFrontierEqualsBruteForce) {
  Space s = dense_space();
  s.hardware.push_back({"compute.clock_GHz", {0.9, 1.2, 1.5}});
  s.hardware.push_back({"memory.clock_MHz", {1200, 1600}});
  s.hardware.push_back({"system.latency_scale", {0.5, 1, 2}});
  s.objectives = {objective(Metric::stps_per_mm2), objective(Metric::utps),
                  objective(Metric::energy_per_token_j)};
  s.constraints.tpot_slo_s = 0.1;
  const CompiledSpace cs(s);
  ASSERT_GT(cs.size(), Count{800000});
  std::uint64_t brute_evals = 0;
  const Archive brute = brute_force(cs, &brute_evals);
  RunOptions opt;
  opt.threads = 2;
  CountingSink sink;
  const Summary sum = run(cs, opt, sink);
  EXPECT_EQ(sink.records, sum.progress.evaluated);
  EXPECT_TRUE(sum.complete);
  expect_same_frontier(sum.archive, brute);
  std::printf(
      "space %s points: brute force evaluated %llu in one thread; engine evaluated %llu, "
      "pruned %.1f%% (by bounds %.1f%%) in %.2f s on 2 threads, frontier %zu\n",
      to_string(cs.size()).c_str(), static_cast<unsigned long long>(brute_evals),
      static_cast<unsigned long long>(sum.progress.evaluated),
      100.0 * static_cast<double>(sum.progress.pruned) / to_double(cs.size()),
      100.0 * static_cast<double>(sum.progress.pruned_bound) / to_double(cs.size()),
      sum.progress.elapsed_s, sum.archive.size());
}

TEST(SearchEngineSlow, DeepSeekV3FrontierEqualsBruteForce) {
  Space s = deepseek_space(true);
  s.objectives = {objective(Metric::stps_per_mm2), objective(Metric::utps),
                  objective(Metric::energy_per_token_j)};
  const CompiledSpace cs(s);
  const Archive brute = brute_force(cs);
  RunOptions opt;
  opt.threads = 2;
  CountingSink sink;
  const Summary sum = run(cs, opt, sink);
  expect_same_frontier(sum.archive, brute);
  std::printf("DeepSeek-V3 space %s points: pruned %.1f%% (by bounds %.1f%%), frontier %zu\n",
              to_string(cs.size()).c_str(),
              100.0 * static_cast<double>(sum.progress.pruned) / to_double(cs.size()),
              100.0 * static_cast<double>(sum.progress.pruned_bound) / to_double(cs.size()),
              sum.archive.size());
}

// The DeepSeek-V3 preset's axes at two to three values each (~10^6 points), 2 threads.
TEST(SearchEngineSlow, DeepSeekPresetShapeFrontierEqualsBruteForce) {
  const CompiledSpace cs(deepseek_preset_space(true));
  ASSERT_GT(cs.size(), Count{500000});
  std::uint64_t brute_evals = 0;
  const Archive brute = brute_force(cs, &brute_evals);
  RunOptions opt;
  opt.threads = 2;
  CountingSink sink;
  const Summary sum = run(cs, opt, sink);
  EXPECT_TRUE(sum.complete);
  EXPECT_EQ(Count{sum.progress.evaluated + sum.progress.pruned}, cs.size());
  expect_same_frontier(sum.archive, brute);
  std::printf(
      "DeepSeek-V3 preset shape %s points: brute force evaluated %llu; engine evaluated %llu, "
      "pruned %.2f%% (by bounds %.2f%%) in %.2f s, frontier %zu\n",
      to_string(cs.size()).c_str(), static_cast<unsigned long long>(brute_evals),
      static_cast<unsigned long long>(sum.progress.evaluated),
      100.0 * static_cast<double>(sum.progress.pruned) / to_double(cs.size()),
      100.0 * static_cast<double>(sum.progress.pruned_bound) / to_double(cs.size()),
      sum.progress.elapsed_s, sum.archive.size());
}

}  // namespace
}  // namespace stackscope::search
