// SPDX-License-Identifier: GPL-3.0-or-later
// `search` and `merge` in-process (issue 5): the frontier of an interrupted + resumed run and of
// three merged shards equals the single uninterrupted run's; the log holds every point once.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "stackscope/cli/command.hpp"

namespace stackscope::cli {
namespace {

struct CliResult {
  int code = -1;
  std::string out, err;
};

CliResult cli(std::vector<std::string> args) {
  CommandRegistry commands;
  register_builtins(commands);
  std::ostringstream out, err;
  CliResult r;
  r.code = run(commands, args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// Dense and MoE models share the space shape: device count x stack shape x NoC, parallelism,
// batch and overlap (about 10^4 points; ~1 s per run on one core).
const char* kProject = R"({"schema_version": 1, "name": "search cli test",
  "hardware": "deepstack-3d", "system": "deepstack-3d-x64", "model": "llama-3-8b",
  "workload": {"batch": 8, "input_len": 1024, "output_len": 256},
  "parallel": {"tp": 1},
  "search": {
    "hardware": [{"knob": "devices", "values": [4, 8, 16]},
                 {"knob": "memory.layers_total", "values": [4, 8, 12, 16]},
                 {"knob": "memory.layers_connected", "values": [2, 4, 8]},
                 {"knob": "noc.link_GBps", "min": 100, "max": 400, "factor": 2}],
    "parallel": {"tp": [1, 2, 4, 8, 16], "pp": [1, 2, 4], "dp": [1, 2, 4, 8, 16]},
    "batch": {"min": 1, "max": 256, "factor": 4},
    "overlap": ["off", "auto"],
    "constraints": {"tpot_slo_s": 0.01},
    "objectives": ["stps_per_mm2", "utps", "energy_per_token_j"]}})";

class SearchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("stackscope_search_cli_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    project_ = (dir_ / "project.json").string();
    std::ofstream(project_) << kProject;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string project_;
};

// (hw, inner, objectives) of a frontier, in the file's canonical order.
std::vector<std::string> frontier_of(const nlohmann::json& points) {
  std::vector<std::string> v;
  for (const auto& p : points)
    v.push_back(std::to_string(p["hw"].get<std::uint64_t>()) + "/" +
                std::to_string(p["inner"].get<std::uint64_t>()) + " " + p["objectives"].dump());
  return v;
}

nlohmann::json read_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

TEST_F(SearchCli, JsonReportAndPruningNeverChangesTheFrontier) {
  const CliResult r = cli({"search", project_, "--json", "--threads", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["space_size"], "9720");
  EXPECT_EQ(j["complete"], true);
  for (const char* k : {"evaluated", "pruned", "evaluations_per_second", "frontier"})
    EXPECT_TRUE(j.contains(k)) << k;
  const auto evaluated = j["evaluated"].get<std::uint64_t>();
  const auto pruned = j["pruned"].get<std::uint64_t>();
  EXPECT_EQ(evaluated + pruned, 9720u);
  EXPECT_GT(pruned, 0u);
  ASSERT_FALSE(j["frontier"].empty());
  for (const auto& p : j["frontier"]) {
    EXPECT_LE(p["tpot_s"].get<double>(), 0.01);  // the SLO
    EXPECT_TRUE(p["design"].is_object());
  }
  const CliResult all = cli({"search", project_, "--json", "--threads", "1", "--no-bound-pruning"});
  ASSERT_EQ(all.code, 0) << all.err;
  const auto ja = nlohmann::json::parse(all.out);
  EXPECT_EQ(frontier_of(ja["frontier"]), frontier_of(j["frontier"]));
  EXPECT_GT(ja["evaluated"].get<std::uint64_t>(), evaluated);
}

TEST_F(SearchCli, InterruptedRunResumesToTheSameFrontierWithEveryPointLoggedOnce) {
  const CliResult full = cli({"search", project_, "--json", "--threads", "2"});
  ASSERT_EQ(full.code, 0) << full.err;
  const auto reference = frontier_of(nlohmann::json::parse(full.out)["frontier"]);

  const std::string out = (dir_ / "run").string();
  const CliResult part = cli(
      {"search", project_, "--out", out, "--max-evals", "700", "--threads", "2", "--log", "all"});
  ASSERT_EQ(part.code, 0) << part.err;
  EXPECT_NE(part.out.find("evaluation limit reached"), std::string::npos) << part.out;
  EXPECT_EQ(read_json(std::filesystem::path(out) / "summary.json")["complete"], false);
  // Starting over in the same directory would destroy the log: refused.
  const CliResult again = cli({"search", project_, "--out", out});
  EXPECT_EQ(again.code, kExitBadInput);
  EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;

  const CliResult resumed =
      cli({"search", project_, "--out", out, "--resume", "--threads", "2", "--log", "all"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming:"), std::string::npos);
  const auto fr = read_json(std::filesystem::path(out) / "frontier.json");
  EXPECT_EQ(frontier_of(fr["points"]), reference);
  const auto summary = read_json(std::filesystem::path(out) / "summary.json");
  EXPECT_EQ(summary["complete"], true);

  // Every logged point exactly once, and as many as the summary says were evaluated.
  std::ifstream log(std::filesystem::path(out) / "points.jsonl");
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  std::uint64_t points = 0;
  for (std::string line; std::getline(log, line);) {
    const auto j = nlohmann::json::parse(line);
    if (!j.contains("hw")) continue;
    ++points;
    const std::pair<std::uint64_t, std::uint64_t> id{j["hw"].get<std::uint64_t>(),
                                                     j["inner"].get<std::uint64_t>()};
    EXPECT_TRUE(seen.insert(id).second) << "duplicate " << line;
  }
  EXPECT_EQ(points, summary["evaluated"].get<std::uint64_t>());

  // The default log keeps only points that entered the frontier when found; a run interrupted
  // and resumed with it still ends at the exact frontier, with a much smaller log.
  const std::string small = (dir_ / "small").string();
  ASSERT_EQ(cli({"search", project_, "--out", small, "--max-evals", "900", "--threads", "2"}).code,
            0);
  ASSERT_EQ(cli({"search", project_, "--out", small, "--resume", "--threads", "2"}).code, 0);
  EXPECT_EQ(frontier_of(read_json(std::filesystem::path(small) / "frontier.json")["points"]),
            reference);
  EXPECT_LT(std::filesystem::file_size(std::filesystem::path(small) / "points.jsonl"),
            std::filesystem::file_size(std::filesystem::path(out) / "points.jsonl") / 2);
}

TEST_F(SearchCli, ThreeShardsMergeToTheSingleRunFrontier) {
  const CliResult full = cli({"search", project_, "--json"});
  ASSERT_EQ(full.code, 0) << full.err;
  const auto reference = frontier_of(nlohmann::json::parse(full.out)["frontier"]);
  std::vector<std::string> dirs;
  for (int k = 0; k < 3; ++k) {
    dirs.push_back((dir_ / ("shard" + std::to_string(k))).string());
    const CliResult r = cli({"search", project_, "--shard", std::to_string(k) + "/3", "--out",
                             dirs.back(), "--threads", "1"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  std::vector<std::string> args = {"merge"};
  args.insert(args.end(), dirs.begin(), dirs.end());
  args.insert(args.end(), {"--json", "--out", (dir_ / "merged").string()});
  const CliResult m = cli(args);
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(frontier_of(nlohmann::json::parse(m.out)["points"]), reference);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "merged" / "frontier.json"));
}

TEST_F(SearchCli, BadInputIsReportedNotGuessed) {
  auto bad = [&](std::vector<std::string> args, const std::string& expect) {
    const CliResult r = cli(args);
    EXPECT_EQ(r.code, kExitBadInput) << r.out << r.err;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
  };
  bad({"search", project_, "--shard", "3/3"}, "--shard K");
  bad({"search", project_, "--shard", "x"}, "K/N");
  bad({"search", project_, "--resume"}, "--out");
  bad({"search", project_, "--strategy", "greedy"}, "nsga2");
  bad({"search", project_, "--resume", "--out", (dir_ / "none").string()}, "no search log");
  bad({"search"}, "PROJECT.json");
  bad({"search", project_, "--out", project_}, "output directory");  // a file, not a directory
  bad({"merge", (dir_ / "nothing").string()}, "frontier.json");
  const std::string plain = (dir_ / "plain.json").string();
  std::ofstream(plain) << R"({"schema_version": 1, "hardware": "h100-sxm", "model": "llama-3-8b",
    "workload": {}, "parallel": {}})";
  bad({"search", plain}, "/search");
}

}  // namespace
}  // namespace stackscope::cli
