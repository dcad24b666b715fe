// SPDX-License-Identifier: GPL-3.0-or-later
// What a DRAM layer costs: the stack-height curve (every layer
// connected, as DeepStack's fig. 17) of presets/hardware/deepstack-paper.json, whose cores are
// what the logic die holds next to the TSV field (hw::Area::fit_cores), against the paper's
// published shape (reference/deepstack-published.md: delivered bandwidth peaks at 9 layers and
// is 39.6 % lower at 12; 2 layers -> 7-9 SMs, 12 layers -> 2 SMs), and the same sweep of
// StackScope's own deepstack-3d, which has no interior optimum (a hybrid-bond field of
// 0.66 mm^2 per connected layer on a die with 188 mm^2 to spare).
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/power_area/area.hpp"

namespace stackscope::perf {
namespace {

constexpr int kMaxLayers = 16;

const io::PresetRegistry& presets() {
  return io::builtin_presets();
}

struct Point {
  int layers = 0;
  int cores = 0;
  double bw_GBps = 0;  // delivered stream bandwidth with the cores that fit
  memory::DramBound bound = memory::DramBound::none;
  bool fits = false;
};

hw::Hardware with_layers(hw::Hardware h, int layers, int connected) {
  h.memory.layers_total = layers;
  h.memory.layers_connected = connected;
  return h;
}

// DeepStack's fig. 17 evaluates the device alone (ae/fig17.py: max SM count, Little's law,
// L1 cap; no thermal scaling), so the curve here is the DRAM model with the fitted die.
std::vector<Point> curve(const hw::Hardware& base, bool all_connected) {
  std::vector<Point> out;
  for (int layers = 1; layers <= kMaxLayers; ++layers) {
    const auto h = with_layers(base, layers, all_connected ? layers : std::max(1, layers / 2));
    const auto a = power_area::area(h);
    hw::ComputeDie die = h.compute;
    die.cores = a.cores;
    const auto bw = memory::effective_bandwidth(h.memory, die, {});
    out.push_back({layers, a.cores, bw.effective_Bps / 1e9, bw.bound, a.fits_die()});
  }
  return out;
}

void print(const char* name, const std::vector<Point>& c) {
  std::printf("%s: layers, cores, delivered GB/s, bound, fits\n", name);
  for (const auto& p : c)
    std::printf("  %2d %4d %9.1f %-10s %s\n", p.layers, p.cores, p.bw_GBps,
                std::string(memory::to_string(p.bound)).c_str(), p.fits ? "yes" : "no");
}

std::size_t argmax(const std::vector<Point>& c) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c[i].fits && c[i].bw_GBps > c[best].bw_GBps) best = i;
  return best;
}

TEST(StackHeight, DeepstackPaperCoresFollowThePublishedCounts) {
  const auto c = curve(presets().hardware("deepstack-paper"), true);
  print("deepstack-paper", c);
  EXPECT_GE(c[1].cores, 7);  // 2 layers -> 7-9 SMs
  EXPECT_LE(c[1].cores, 9);
  EXPECT_EQ(c[11].cores, 2);  // 12 layers -> 2 SMs
  for (std::size_t i = 1; i < c.size(); ++i) EXPECT_LE(c[i].cores, c[i - 1].cores);
}

// Tolerance: the peak within one layer of the paper's 9, and the 12-layer fall-off within
// 10 points of the paper's 39.6 % (cores are whole numbers, so the curve moves in steps).
TEST(StackHeight, DeepstackPaperHasThePublishedInteriorOptimum) {
  const auto c = curve(presets().hardware("deepstack-paper"), true);
  const std::size_t peak = argmax(c);
  EXPECT_GE(c[peak].layers, 8);
  EXPECT_LE(c[peak].layers, 10);
  const double drop = 1.0 - c[11].bw_GBps / c[peak].bw_GBps;
  EXPECT_NEAR(drop, 0.396, 0.10) << "12-layer fall-off " << drop;
  // Below the peak the row cycle bounds (bandwidth grows with the layers); past it the
  // buffering of the cores that are left does (Little's law).
  EXPECT_EQ(c[peak].bound, memory::DramBound::row_cycle);
  EXPECT_EQ(c[11].bound, memory::DramBound::buffering);
  for (std::size_t i = 1; i <= peak; ++i) EXPECT_GT(c[i].bw_GBps, c[i - 1].bw_GBps);
  EXPECT_FALSE(c[kMaxLayers - 1].fits);  // 16 layers leave no room for one core
}

TEST(StackHeight, EvaluatorComputesWithTheCoresThatFit) {
  Design d = presets().project("deepseek-v3-deepstack-paper-256");
  auto at = [&](int layers) {
    Design x = d;
    x.hardware = with_layers(d.hardware, layers, layers);
    return evaluate(x);
  };
  const Result r9 = at(9), r12 = at(12);
  ASSERT_TRUE(r9.feasible);
  ASSERT_TRUE(r12.feasible);
  EXPECT_NEAR(r9.area.cores, 4 * 3.8, 1e-9);
  EXPECT_NEAR(r12.area.cores, 2 * 3.8, 1e-9);
  // Half the cores and two thirds of the bandwidth: decode at batch 1024 is slower.
  EXPECT_LT(r12.metrics.stps, 0.75 * r9.metrics.stps);
  std::printf("deepseek-v3-deepstack-paper-256 STPS: 9 layers %.0f, 12 layers %.0f\n",
              r9.metrics.stps, r12.metrics.stps);
}

TEST(StackHeight, Deepstack3dHasNoInteriorOptimum) {
  const auto own = presets().hardware("deepstack-3d");
  for (const bool all : {false, true}) {
    auto h = own;
    h.area.fit_cores = true;
    const auto c = curve(h, all);
    print(all ? "deepstack-3d, all connected" : "deepstack-3d, half connected", c);
    for (std::size_t i = 1; i < c.size(); ++i) {
      EXPECT_EQ(c[i].cores, own.compute.cores) << c[i].layers << " layers";
      EXPECT_GE(c[i].bw_GBps, c[i - 1].bw_GBps * (1 - 1e-12)) << c[i].layers << " layers";
    }
  }
}

}  // namespace
}  // namespace stackscope::perf
