// SPDX-License-Identifier: GPL-3.0-or-later
// Property tests (docs/architecture.md §8.3): more bandwidth or FLOPs is never slower; a bigger
// batch never lowers STPS until memory runs out; energy is never negative.
#include <gtest/gtest.h>

#include <vector>

#include "stackscope/perf/evaluator.hpp"
#include "test_designs.hpp"

namespace stackscope::perf {
namespace {

std::vector<Design> designs() {
  std::vector<Design> v;
  for (int batch : {1, 16, 128}) {
    for (int in : {128, 2048}) {
      auto d = testing::small_dense();
      d.workload.batch = batch;
      d.workload.input_len = in;
      v.push_back(d);
    }
  }
  auto m = testing::moe_ep8();
  v.push_back(m);
  auto ds = testing::deepseek_v3_32();
  v.push_back(ds);
  return v;
}

void expect_not_slower(const Result& faster, const Result& base, const char* what) {
  EXPECT_LE(faster.metrics.ttft_s, base.metrics.ttft_s * (1 + 1e-12)) << what;
  EXPECT_LE(faster.metrics.tpot_s, base.metrics.tpot_s * (1 + 1e-12)) << what;
}

TEST(Property, MoreDramBandwidthIsNeverSlower) {
  for (auto d : designs()) {
    const auto base = evaluate(d);
    d.hardware.memory.clock_MHz *= 1.5;
    expect_not_slower(evaluate(d), base, d.name.c_str());
  }
}

TEST(Property, MoreFlopsIsNeverSlower) {
  for (auto d : designs()) {
    const auto base = evaluate(d);
    d.hardware.compute.matrix_flops_per_cycle_fp16 *= 2;
    d.hardware.compute.matrix_flops_per_cycle_fp8 *= 2;
    d.hardware.compute.vector_flops_per_cycle *= 2;
    expect_not_slower(evaluate(d), base, d.name.c_str());
  }
}

TEST(Property, MoreNetworkBandwidthIsNeverSlower) {
  for (auto d : designs()) {
    if (d.system.levels.empty()) continue;
    const auto base = evaluate(d);
    for (auto& l : d.system.levels) l.link_GBps *= 2;
    expect_not_slower(evaluate(d), base, d.name.c_str());
  }
}

TEST(Property, BiggerBatchNeverLowersStpsUntilMemoryRunsOut) {
  for (auto d : {testing::small_dense(), testing::moe_ep8()}) {
    const int max_b = max_batch_that_fits(d);
    ASSERT_GT(max_b, 4);
    double prev = 0;
    for (int b = 1; b <= max_b; b = b < 8 ? b + 1 : b * 2) {
      d.workload.batch = b;
      const auto r = evaluate(d);
      ASSERT_TRUE(r.feasible) << b;
      EXPECT_GE(r.metrics.stps, prev * (1 - 1e-9)) << d.name << " batch " << b;
      prev = r.metrics.stps;
    }
    d.workload.batch = max_b + 1;
    EXPECT_FALSE(evaluate(d).feasible);
  }
}

TEST(Property, EnergyIsNeverNegative) {
  for (const auto& d : designs()) {
    const auto r = evaluate(d);
    EXPECT_GE(r.prefill.energy_J, 0.0);
    EXPECT_GE(r.decode.energy_J, 0.0);
    EXPECT_GT(r.metrics.energy_per_token_j, 0.0);
    for (double t : r.decode.op_s) EXPECT_GE(t, 0.0);
  }
}

}  // namespace
}  // namespace stackscope::perf
