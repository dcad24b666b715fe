// SPDX-License-Identifier: GPL-3.0-or-later
// The model against measured H100 inference (reference/measured-gpu.json: TensorRT-LLM
// tables). Prints the per-row error table; fails if the mean absolute percentage error
// exceeds 15% or any single row is off by more than 35%.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "stackscope/io/reference.hpp"

namespace stackscope::io {
namespace {

TEST(Validation, MeasuredGpuRows) {
  PresetRegistry presets;
  presets.register_builtins();
  const auto rows = load_measured_rows(STACKSCOPE_REFERENCE_DIR "/measured-gpu.json");
  ASSERT_GE(rows.size(), 12u);
  const auto checks = check_measured_rows(rows, presets);
  std::cout << format_checks(checks);
  EXPECT_LE(mean_abs_error(checks), 0.15);
  for (const auto& c : checks) EXPECT_LE(std::abs(c.error), 0.35) << c.row.id;
}

}  // namespace
}  // namespace stackscope::io
