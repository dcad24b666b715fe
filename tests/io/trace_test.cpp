// SPDX-License-Identifier: GPL-3.0-or-later
// io::load_trace: request traces read from files (bounded by io/limits.hpp), parsed by
// core/serving; every error names the file.
#include <filesystem>
#include <fstream>

#include "stackscope/io/limits.hpp"
#include "test_support.hpp"

namespace stackscope::io {
namespace {

using testing::contains;

std::vector<Issue> load_issues(const std::filesystem::path& file) {
  try {
    (void)load_trace(file);
  } catch (const ConfigError& e) {
    return e.issues();
  }
  ADD_FAILURE() << "no ConfigError for " << file;
  return {};
}

// 19366 rows: `wc -l` + 1 (no final newline); last row 58 min 21.721937 s after the first.
TEST(LoadTrace, ReadsTheShippedAzureTrace) {
  serving::TraceStats stats;
  const auto file =
      std::filesystem::path(STACKSCOPE_DATA_DIR) / "azure-llm-2023" / "conv.csv.gz";
  const auto requests = load_trace(file, serving::TraceFormat::automatic, &stats);
  EXPECT_EQ(requests.size(), 19366u);
  EXPECT_EQ(stats.rows, 19366u);
  EXPECT_DOUBLE_EQ(stats.duration_s, 3501.721937);
}

TEST(LoadTrace, MissingFileNamesThePath) {
  testing::TempDir dir("io-request-trace");
  const auto file = dir.path() / "no-such-trace.csv";
  const auto issues = load_issues(file);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, file.string());
  EXPECT_TRUE(contains(issues[0].message, "not found")) << issues[0].message;
  EXPECT_TRUE(contains(issues[0].message, file.string())) << issues[0].message;
}

TEST(LoadTrace, DirectoriesAndOversizedFilesAreRefused) {
  testing::TempDir dir("io-request-trace");
  auto issues = load_issues(dir.path());
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_TRUE(contains(issues[0].message, "a directory")) << issues[0].message;

  const auto big = dir.path() / "big.csv";  // sparse: no disk space used
  { std::ofstream(big) << "TIMESTAMP,ContextTokens,GeneratedTokens\n"; }
  std::filesystem::resize_file(big, limits::kMaxTraceFileBytes + 1);
  issues = load_issues(big);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_TRUE(contains(issues[0].message, "larger than the limit")) << issues[0].message;
  EXPECT_TRUE(contains(issues[0].allowed, std::to_string(limits::kMaxTraceFileBytes)));
}

TEST(LoadTrace, ParseErrorsNameFileAndLine) {
  testing::TempDir dir("io-request-trace");
  const auto file = dir.path() / "bad.csv";
  { std::ofstream(file) << "arrival_s,input_tokens,output_tokens\r\n0,10,1\r\n1,-4,1\r\n"; }
  const auto issues = load_issues(file);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, file.string() + ":3");
  EXPECT_TRUE(contains(issues[0].message, "input_tokens")) << issues[0].message;
}

}  // namespace
}  // namespace stackscope::io
