// SPDX-License-Identifier: GPL-3.0-or-later
// Replays every fuzz target's seeds (tests/fuzz/seeds/<target>.seeds) and regression inputs
// (tests/data/fuzz/<target>/, crashes found by fuzzing) through the targets' entry functions, in
// the normal build: a fixed crash that comes back fails here even without clang.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "stackscope/io/limits.hpp"
#include "stackscope/io/read_file.hpp"
#include "targets.hpp"

namespace stackscope::fuzz {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = STACKSCOPE_SOURCE_DIR;

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Input {
  fs::path file;
  bool must_accept = false;  // a shipped preset or recorded data: must be accepted, not refused
};

// A seed's text: the shipped data sets are gzip files (data/), which the targets' readers get
// decompressed, as every reader of files does (io::read_text_file).
std::string read_seed(const fs::path& file) {
  return file.extension() == ".gz"
             ? io::read_text_file(file, file.string(), io::limits::kMaxTraceFileBytes)
             : read(file);
}

// "dir/*suffix" or a file, relative to the source tree.
std::vector<fs::path> expand(const std::string& pattern) {
  const fs::path p = kSource / pattern;
  const std::string name = p.filename().string();
  if (name.empty() || name[0] != '*') return {p};
  const std::string suffix = name.substr(1);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(p.parent_path())) {
    const std::string f = e.path().filename().string();
    if (e.is_regular_file() && f.size() >= suffix.size() &&
        f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
      files.push_back(e.path());
  }
  return files;
}

std::vector<Input> seeds(std::string_view target) {
  std::ifstream list(kSource / "tests/fuzz/seeds" / (std::string(target) + ".seeds"));
  std::vector<Input> inputs;
  std::string expect, pattern;
  for (std::string line; std::getline(list, line);) {
    std::istringstream words(line);
    if (!(words >> expect >> pattern) || expect[0] == '#') continue;
    const auto files = expand(pattern);
    EXPECT_FALSE(files.empty()) << target << ".seeds: '" << pattern << "' names no file";
    for (const auto& f : files) inputs.push_back({f, expect != "any"});
  }
  return inputs;
}

class Replay : public testing::TestWithParam<Target> {};

TEST_P(Replay, SeedsAreReadAndPresetsAccepted) {
  const Target& t = GetParam();
  const auto inputs = seeds(t.name);
  ASSERT_FALSE(inputs.empty()) << "no seeds for " << t.name;
  for (const auto& in : inputs) {
    SCOPED_TRACE(in.file.string());
    const Outcome outcome = t.run(read_seed(in.file));
    if (in.must_accept) {
      EXPECT_EQ(outcome, Outcome::accepted);
    }
  }
}

// Regression inputs only have to come back without a crash, a sanitizer report or an exception
// other than ConfigError (most are refused; that is the fix).
TEST_P(Replay, RegressionInputsDoNotCrash) {
  const Target& t = GetParam();
  const fs::path dir = kSource / "tests/data/fuzz" / std::string(t.name);
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no regression inputs for " << t.name;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    SCOPED_TRACE(e.path().string());
    (void)t.run(read(e.path()));
  }
}

TEST(FuzzTargets, EveryTargetHasSeedsAndADictionary) {
  for (const Target& t : targets()) {
    EXPECT_TRUE(fs::is_regular_file(kSource / "tests/fuzz/dict" / (std::string(t.name) + ".dict")))
        << t.name;
    EXPECT_EQ(find_target(t.name), &t);
  }
  EXPECT_EQ(find_target("no-such-target"), nullptr);
}

// Refusal is a real answer: an empty document is refused by the readers that need content.
TEST(FuzzTargets, EmptyInputIsRefused) {
  for (const char* name : {"project", "search_space", "routing_trace", "search_points", "request_trace",
                           "coexplore", "wafer", "serving", "experts", "cli_options"})
    EXPECT_EQ(find_target(name)->run(""), Outcome::refused) << name;
}

// The CLI target runs the read-only commands for real and keeps mutants away from the disk.
TEST(FuzzTargets, CliOptionsRunsReadOnlyCommandsAndRefusesPaths) {
  const Target* cli = find_target("cli_options");
  ASSERT_NE(cli, nullptr);
  EXPECT_EQ(cli->run("evaluate\n--model\nllama-3-8b\n--tp\n1"), Outcome::accepted);
  EXPECT_EQ(cli->run("evaluate\n--tp\nabc"), Outcome::refused);            // exit 2, error: line
  EXPECT_EQ(cli->run("evaluate\n--no-such-option"), Outcome::refused);
  EXPECT_EQ(cli->run("serve\n--rate\n5\n--requests\n10"), Outcome::accepted);  // parsed only
  EXPECT_EQ(cli->run("serve\n--rate\n5\n--rate\n6"), Outcome::refused);  // repeated option
  EXPECT_EQ(cli->run("validate-project\n/etc/passwd"), Outcome::refused);   // a path: not run
  EXPECT_EQ(cli->run("serve\n--per-request\nx.csv"), Outcome::refused);    // an output: not run
}

INSTANTIATE_TEST_SUITE_P(Targets, Replay, testing::ValuesIn(targets().begin(), targets().end()),
                         [](const testing::TestParamInfo<Target>& param) {
                           return std::string(param.param.name);
                         });

}  // namespace
}  // namespace stackscope::fuzz
