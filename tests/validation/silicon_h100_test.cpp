// SPDX-License-Identifier: GPL-3.0-or-later
// The serving model on AIConfigurator's measured H100 deployments (data/aic-silicon), the rows
// the backend runtime profiles were fitted on (docs/validation.md): each aggregated partition's
// TTFT and TPOT MAPE must stay within its bound. The bounds are the figures of the fitted
// profiles (presets/runtimes/*-2025.json, docs/validation.md §4) plus about two points, so a
// change that makes the model worse on these rows fails here; they are not the tool's goal
// (10 %), which the TTFT columns do not meet yet.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <thread>

#include "stackscope/io/project.hpp"
#include "stackscope/io/silicon_sample.hpp"
#include "stackscope/validate/run.hpp"

namespace stackscope {
namespace {

TEST(SiliconH100, AggregatedPartitionsStayWithinTheirFittedErrors) {
  const auto rows = io::load_silicon_sample(std::string(STACKSCOPE_SOURCE_DIR) +
                                            "/data/aic-silicon/h100_sxm.csv.gz");
  const auto catalog = io::silicon_catalog(io::builtin_presets());
  std::vector<validate::Case> cases;
  for (const auto& r : rows)
    if (r.mode == "agg") cases.push_back(validate::map_row(r, catalog));
  // As validate does: a row repeating an earlier row's measurement counts once.
  validate::mark_duplicates(cases);
  std::vector<std::size_t> selected;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (cases[i].unmapped.empty()) selected.push_back(i);
  validate::RunOptions opt;
  opt.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const auto results = validate::run_cases(
      cases, selected, std::vector<validate::Group>(selected.size(), validate::Group::reported),
      opt);
  for (const auto& r : results) EXPECT_TRUE(r.ran) << cases[r.index].row.id << ": " << r.failure;
  std::map<std::string, validate::PartitionStats> by;
  for (const auto& p : validate::summarise(cases, results)) {
    by[p.partition] = p;
    std::printf("%-58s %4zu rows  TTFT %5.1f %%  TPOT %5.1f %%\n", p.partition.c_str(),
                p.ttft.rows, 100 * p.ttft.mape, 100 * p.tpot.mape);
  }
  struct Bound {
    const char* partition;
    std::size_t rows;
    double ttft, tpot;
  };
  // Rows: the sample's aggregated H100 rows with a preset that a shipped profile was fitted on.
  static constexpr Bound kBounds[] = {
      {"meta-llama/Llama-3.1-8B-Instruct|h100_sxm|trtllm|agg", 177, 0.47, 0.14},
      {"Qwen/Qwen3-32B|h100_sxm|trtllm|agg", 180, 0.40, 0.17},
      {"Qwen/Qwen3-235B-A22B-FP8|h100_sxm|trtllm|agg", 127, 0.495, 0.175},
      {"Qwen/Qwen3-32B|h100_sxm|vllm|agg", 93, 0.29, 0.12},
      // With the FP8 KV cache of the InferenceX launch scripts (15.6 / 9.9 %; 8.1 / 4.9 % when
      // they were run with a BF16 one, which let three KV-bound rows preempt as measured).
      {"meta-llama/Llama-3.1-70B|h100_sxm|vllm|agg", 45, 0.165, 0.105},
      {"Qwen/Qwen3-32B|h100_sxm|sglang|agg", 84, 0.18, 0.085},
      // In the H100 set but not fitted on: vllm-2025 was fitted on the Qwen3-32B and
      // Llama-3.1-70B rows.
      {"MiniMaxAI/MiniMax-M2.5|h100_sxm|vllm|agg", 30, 0.48, 0.09},
  };
  for (const auto& b : kBounds) {
    ASSERT_TRUE(by.contains(b.partition)) << b.partition;
    const auto& p = by[b.partition];
    EXPECT_EQ(p.ttft.rows, b.rows) << b.partition;
    EXPECT_LE(p.ttft.mape, b.ttft) << b.partition;
    EXPECT_LE(p.tpot.mape, b.tpot) << b.partition;
  }
}

}  // namespace
}  // namespace stackscope
