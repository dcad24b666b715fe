// SPDX-License-Identifier: GPL-3.0-or-later
// The analytic DRAM model within 10 % of the bank-level reference on
// every shipped hardware preset with a DRAM, every pattern of the agreement table, and the
// stack-height and all-connected variants of the 3D-stacked presets (docs/model.md §4.6).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/memory/bank_sim.hpp"

namespace stackscope::memory {
namespace {

// docs/model.md §18.3: the simulator and the model agree within 10 %.
constexpr double kTolerance = 0.10;

std::vector<std::pair<std::string, hw::Memory>> shipped_memories() {
  io::PresetRegistry presets;
  presets.register_builtins();
  std::vector<std::pair<std::string, hw::Memory>> out;
  for (const auto& info : presets.list(io::PresetKind::hardware))
    for (auto& m : agreement_memories(info.id, presets.hardware(info.id).memory))
      out.push_back(std::move(m));
  return out;
}

TEST(DramPresets, EveryShippedMemoryHasRowsIncludingStackVariants) {
  const auto memories = shipped_memories();
  auto has = [&](const std::string& name) {
    for (const auto& [n, m] : memories)
      if (n == name) return true;
    return false;
  };
  for (const char* id : {"deepstack-3d", "hdmoe-node", "h100-sxm", "h200", "b200", "a100-sxm-40gb",
                         "a100-sxm-80gb", "mi300x", "hbm2-8gb-x128", "hbm3-stack"})
    EXPECT_TRUE(has(id)) << id;
  EXPECT_TRUE(has("deepstack-3d L8/C8"));  // the preset's stack, every layer connected
  EXPECT_TRUE(has("hdmoe-node L4/C4"));
  EXPECT_TRUE(has("deepstack-3d L16/C16"));
  EXPECT_FALSE(has("wafer-scale"));  // SRAM only: no DRAM to compare
}

TEST(DramPresets, ModelWithinTenPercentOfBankLevelReference) {
  // A 40 us window (10 refresh intervals) after 5 us of warm-up keeps the table to seconds;
  // the CLI table (stackscope-cli dram --table) uses the simulator's default 100 us.
  BankSimConfig cfg;
  cfg.warmup_us = 5;
  cfg.window_us = 40;
  double worst = 0;
  std::string worst_case;
  int rows = 0;
  for (const auto& [name, mem] : shipped_memories()) {
    for (const auto& pattern : agreement_patterns()) {
      const AgreementRow r = agreement_row(name, mem, pattern, cfg);
      ASSERT_GT(r.reference_Bps, 0) << name << " " << pattern;
      ASSERT_GT(r.model_Bps, 0) << name << " " << pattern;
      EXPECT_LE(std::fabs(r.error), kTolerance)
          << name << " " << pattern << ": model " << r.model_Bps / 1e9 << " GB/s, reference "
          << r.reference_Bps / 1e9 << " GB/s";
      if (std::fabs(r.error) > worst) {
        worst = std::fabs(r.error);
        worst_case = name + " " + pattern;
      }
      ++rows;
    }
  }
  std::printf("%d rows, worst |error| %.1f %% (%s)\n", rows, 100 * worst, worst_case.c_str());
  EXPECT_GT(rows, 100);
}

}  // namespace
}  // namespace stackscope::memory
