// SPDX-License-Identifier: GPL-3.0-or-later
// The DeepStack reproduction (docs/reproduction/deepstack.md, written by
// `stackscope-cli reproduce deepstack --out docs/reproduction`) rerun and held to the figures
// it prints, with the tolerances the report states: the paper's designs' STPS within +-5 % and
// their step gains within +-3 %, the stack-height peak exactly, the GPU anchors' mean error
// within 2 points. The golden values are the report's (generated 2026-12-02 under
// modern-gpu-2025); the paper's values are DeepStack's (tile-ai/DeepStack
// data/table4/fixed_configs.csv, data/table4/search_reference/ablation_summary.csv). A model
// change that moves them regenerates the report and these values together.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "deepstack_test_support.hpp"

namespace stackscope::repro {
namespace {

using testing::catalogue;
using testing::kPaperBand;
using testing::paper_gain;

// The report's Table 4, "Paper's design in StackScope" column, and the paper's STPS.
struct Golden {
  int batch, step;
  double stps, gain, paper;
};
constexpr Golden kTable4[] = {
    {4, 1, 582.6, 1.0, 177.06},           {4, 2, 488.9, 0.8392, 256.37},
    {4, 3, 488.9, 1.0, 256.37},           {4, 4, 488.9, 1.0, 314.16},
    {4, 5, 514.7, 1.0527, 340.53},        {4, 6, 637.3, 1.2381, 493.29},
    {4, 7, 586.1, 0.9197, 494.12},        {1024, 1, 6252.2, 1.0, 5729.18},
    {1024, 2, 24544.6, 3.9258, 21252.31}, {1024, 3, 28325.1, 1.154, 24487.83},
    {1024, 4, 28325.1, 1.0, 31349.86},    {1024, 5, 28565.6, 1.0085, 38061.04},
    {1024, 6, 48936.6, 1.7131, 51094.46}, {1024, 7, 49015.7, 1.0016, 54280.33},
};
constexpr double kStpsTolerance = 0.05;
constexpr double kGainTolerance = 0.03;

TEST(Reproduction, PaperDesignsHoldTheReportedFigures) {
  Options opt;
  opt.quick = true;
  const Report r = deepstack(catalogue(), opt);
  EXPECT_EQ(r.runtime, "modern-gpu-2025");
  ASSERT_EQ(r.table4.size(), std::size(kTable4));
  int in_band = 0;
  for (std::size_t i = 0; i < r.table4.size(); ++i) {
    const auto& t = r.table4[i];
    const auto& g = kTable4[i];
    SCOPED_TRACE("BS " + std::to_string(t.batch) + " step " + std::to_string(t.step));
    ASSERT_EQ(t.batch, g.batch);
    ASSERT_EQ(t.step, g.step);
    EXPECT_NEAR(t.paper_stps, g.paper, 0.01);
    ASSERT_TRUE(t.paper_design.valid) << t.paper_design.note;
    EXPECT_NEAR(t.paper_design.stps / g.stps, 1.0, kStpsTolerance) << t.paper_design.stps;
    const double gain = step_gain(r.table4, i, false);
    EXPECT_NEAR(gain / g.gain, 1.0, kGainTolerance) << gain;
    if (t.step > 1 && std::abs(gain / paper_gain(r.table4, i) - 1) <= kPaperBand) ++in_band;
    // Only our area model's SM count may make the paper's designs infeasible.
    EXPECT_TRUE(t.paper_design.feasible || t.paper_design.area_over_die)
        << t.paper_design.infeasible;
  }
  // The report's claim: 11 of the 12 step gains within +-30 % of the paper's (the miss is BS 4
  // step 2, after a TP256 that StackScope cannot express and that is not slow here).
  EXPECT_GE(in_band, 11);
  // Expert parallelism at BS 1024, the paper's largest step, within the band.
  EXPECT_NEAR(step_gain(r.table4, 8, false) / paper_gain(r.table4, 8), 1.0, kPaperBand);

  // Fig. 17's shape with deepstack-paper: the peak at 9 layers, about 39 % lower at 12.
  ASSERT_GE(r.stack_paper.size(), 12u);
  std::size_t peak = 0;
  for (std::size_t i = 0; i < r.stack_paper.size(); ++i)
    if (r.stack_paper[i].fits && r.stack_paper[i].bw_GBps > r.stack_paper[peak].bw_GBps) peak = i;
  EXPECT_EQ(r.stack_paper[peak].layers, 9);
  EXPECT_NEAR(1 - r.stack_paper[11].bw_GBps / r.stack_paper[peak].bw_GBps, 0.389, 0.02);
  EXPECT_GT(r.stack_paper[peak].stps, 0);
  // deepstack-3d: no interior optimum (bandwidth never falls with height).
  for (std::size_t i = 1; i < r.stack_own.size(); ++i)
    EXPECT_GE(r.stack_own[i].bw_GBps, r.stack_own[i - 1].bw_GBps * (1 - 1e-12));

  // GPU anchors: the report's 6.2 % mean absolute error against current measurements (the
  // explicit power cap turned the H200 Llama-3-70B rows from 7-12 % fast to 6-12 % slow; the
  // h200 preset's measured FP8 GEMMs of the 70B took them to 1-13 % slow).
  double mape = 0;
  for (const auto& a : r.gpu_anchors) {
    ASSERT_GT(a.ours, 0) << a.id;
    mape += std::abs(a.ours / a.measured - 1);
  }
  mape /= static_cast<double>(r.gpu_anchors.size());
  std::printf("GPU anchors: %zu rows, mean absolute error %.1f %%\n", r.gpu_anchors.size(),
              100 * mape);
  EXPECT_NEAR(mape, 0.062, 0.02);
}

}  // namespace
}  // namespace stackscope::repro
