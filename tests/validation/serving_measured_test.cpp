// SPDX-License-Identifier: GPL-3.0-or-later
// The serving simulator against measured in-flight batching
// (data/trtllm-measured/serving-measured.json: trtllm-bench throughput runs at maximum load, H100 /
// H200 / B200): each row's exact lengths, plan and precision, its requests all sent at once, the
// benchmark's own scheduler settings, one runtime profile (trtllm-2025, fitted on these rows).
// Prints the per-row error table and fails above 10 % MAPE (6.2 % when fitted) or any row beyond 20
// % (17.1 %).
//
// Held out: tests/validation/data/serving-holdout.json, the other dense columns of the same
// TensorRT-LLM tables (other models, TP degrees and devices), never used to fit the profile.
// Its table is printed as an out-of-sample check (9.6 % MAPE at the fit; bound 15 %).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "stackscope/io/reference.hpp"

namespace stackscope::io {
namespace {

// The built-in presets. For refits: STACKSCOPE_REFIT_DIR=DIR adds DIR/runtime/*.json and
// DIR/hardware/*.json over the built-ins of the same id (the file name), so a changed profile
// or device can be scored without a rebuild.
const PresetRegistry& presets() {
  static const PresetRegistry reg = [] {
    PresetRegistry r = builtin_presets();
    if (const char* dir = std::getenv("STACKSCOPE_REFIT_DIR")) {
      for (auto [kind, sub] : {std::pair{PresetKind::runtime, "runtime"},
                               std::pair{PresetKind::hardware, "hardware"}}) {
        const std::filesystem::path folder = std::filesystem::path(dir) / sub;
        if (!std::filesystem::is_directory(folder)) continue;
        for (const auto& f : std::filesystem::directory_iterator(folder)) {
          std::ifstream in(f.path());
          std::stringstream text;
          text << in.rdbuf();
          r.add_json(kind, f.path().stem().string(), text.str());
        }
      }
    }
    return r;
  }();
  return reg;
}

TEST(Validation, ServingMeasuredRows) {
  const auto rows =
      load_measured_rows(STACKSCOPE_DATA_DIR "/trtllm-measured/serving-measured.json");
  ASSERT_GE(rows.size(), 30u);
  const auto checks = check_serving_rows(rows, presets());
  std::cout << format_checks(checks);
  const double mape = mean_abs_error(checks);
  std::cout << "serving rows: MAPE " << 100 * mape << " %\n";
  EXPECT_LE(mape, 0.10);
  // Every row within 20 % (the worst, Llama-3-70B FP8 on one H200 under the explicit power cap,
  // docs/model.md §13.2, at -17 % with the h200 preset's measured FP8 GEMMs; -18 to -22 % on
  // the flat efficiencies, docs/validation.md §8).
  for (const auto& c : checks) EXPECT_LE(std::abs(c.error), 0.20) << c.row.id;
}

TEST(Validation, ServingHeldOutRows) {
  const auto rows = load_measured_rows(STACKSCOPE_TEST_DATA_DIR "/serving-holdout.json");
  ASSERT_GE(rows.size(), 50u);
  const auto checks = check_serving_rows(rows, presets());
  std::cout << format_checks(checks);
  const double mape = mean_abs_error(checks);
  std::cout << "held-out serving rows: MAPE " << 100 * mape << " %\n";
  EXPECT_LE(mape, 0.15);
}

}  // namespace
}  // namespace stackscope::io
