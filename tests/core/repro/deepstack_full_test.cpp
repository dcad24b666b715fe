// SPDX-License-Identifier: GPL-3.0-or-later
// The slow half of the DeepStack reproduction test: the whole DeepStack reproduction report
// (docs/reproduction/deepstack.md) with StackScope's own search per Table 4 step and the fig. 16
// rows, held to the claims the report makes about it.
#include <gtest/gtest.h>

#include <cstdio>

#include "deepstack_test_support.hpp"

namespace stackscope::repro {
namespace {

using testing::catalogue;
using testing::kPaperBand;
using testing::paper_gain;

// The whole report: StackScope's own search per step and fig. 16 (about 15 s in Release).
TEST(Reproduction, FullReport) {
  const Report r = deepstack(catalogue(), Options{});
  const auto& t = r.table4;
  ASSERT_EQ(t.size(), 14u);
  // The own ablation's whole gain (step 7 over step 1) within +-30 % of the paper's, at both
  // batches: 2.24 against 2.79 at BS 4 and 9.99 against 9.47 at BS 1024 in the report.
  for (const std::size_t first : {std::size_t{0}, std::size_t{7}}) {
    const double own = t[first + 6].own.stps / t[first].own.stps;
    const double paper = t[first + 6].paper_stps / t[first].paper_stps;
    std::printf("BS %d: own ablation %.2f, paper %.2f\n", t[first].batch, own, paper);
    EXPECT_NEAR(own / paper, 1.0, kPaperBand);
  }
  int own_in_band = 0;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i].step > 1 && std::abs(step_gain(t, i, true) / paper_gain(t, i) - 1) <= kPaperBand)
      ++own_in_band;
  // 9 of the 12 step gains in the report. The nearest miss is step 6 at BS 4: 1.92 against the
  // paper's 1.45, whose band ends at 1.885. It was 1.87 until the MoE-TP collectives stopped
  // carrying each token top_k times. Step 6's stacked design gained more from that (1,337 ->
  // 1,420 STPS) than step 5's (715 -> 741).
  EXPECT_GE(own_in_band, 9);
  // Fig. 16: DeepSeek-V3 at BS 1024 lands within the band against both GPUs (report: 1.19 vs
  // 1.36 and 1.06 vs 1.30); the other rows' misses are the GPU baseline (the report's reasons).
  ASSERT_EQ(r.fig16.size(), 5u);
  const auto& ds = r.fig16[0];
  EXPECT_NEAR(ds.own_3d.stps / ds.own_h100.stps / (ds.paper_3d / ds.paper_h100), 1.0, kPaperBand);
  EXPECT_NEAR(ds.own_3d.stps / ds.own_h200.stps / (ds.paper_3d / ds.paper_h200), 1.0, kPaperBand);
  for (const auto& f : r.fig16) {
    EXPECT_TRUE(f.own_3d.feasible && f.own_h100.feasible && f.own_h200.feasible) << f.model_id;
    // StackScope's GPUs are faster than the paper's by more than its stacked devices are: the
    // direction of every miss.
    EXPECT_GT(f.own_h100.stps / f.paper_h100, f.own_3d.stps / f.paper_3d * 0.999) << f.model_id;
  }
}

}  // namespace
}  // namespace stackscope::repro
