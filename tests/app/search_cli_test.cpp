// SPDX-License-Identifier: GPL-3.0-or-later
// `search` and `merge` in-process: the frontier of an interrupted + resumed run and of
// three merged shards equals the single uninterrupted run's; the log holds every point once.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include "stackscope/cli/command.hpp"
#include "stackscope/io/search.hpp"

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
  bad({"search", project_, "--out", project_}, "is a file, not a folder");
  bad({"merge", (dir_ / "nothing").string()}, "frontier.json");
  const std::string plain = (dir_ / "plain.json").string();
  std::ofstream(plain) << R"({"schema_version": 1, "hardware": "h100-sxm", "model": "llama-3-8b",
    "workload": {}, "parallel": {}})";
  bad({"search", plain}, "/search");
}

// Damaged, empty, foreign and busy output directories.
std::vector<std::string> lines_of(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> v;
  for (std::string line; std::getline(in, line);) v.push_back(line);
  return v;
}

void write_lines(const std::filesystem::path& p, const std::vector<std::string>& lines) {
  std::ofstream out(p, std::ios::trunc);
  for (const auto& l : lines) out << l << '\n';
}

TEST_F(SearchCli, EveryLogLineCarriesAChecksumAndACorruptedWatermarkIsNotTrusted) {
  const CliResult full = cli({"search", project_, "--json", "--threads", "2"});
  ASSERT_EQ(full.code, 0) << full.err;
  const auto reference = frontier_of(nlohmann::json::parse(full.out)["frontier"]);
  const auto out = dir_ / "run";
  ASSERT_EQ(cli({"search", project_, "--out", out.string(), "--threads", "1", "--log", "all"}).code,
            0);
  auto lines = lines_of(out / "points.jsonl");
  ASSERT_GT(lines.size(), 3u);
  for (const auto& l : lines) EXPECT_TRUE(io::verify_log_line(l).has_value()) << l;
  // The last watermark says every unit is done; rewrite it as "done below 10^6" (past the end
  // of the space) without fixing the checksum, and drop the other watermarks and half the
  // points: trusted, it would end the run at once with half a frontier.
  ASSERT_NE(lines.back().find("\"done_below\":108,"), std::string::npos) << lines.back();
  auto& last = lines.back();
  last.replace(last.find("108"), 3, "1000000");
  std::vector<std::string> damaged = {lines.front()};
  for (std::size_t i = 1; i + 1 < lines.size(); i += 2)
    if (lines[i].find("done_below") == std::string::npos) damaged.push_back(lines[i]);
  damaged.push_back(last);
  write_lines(out / "points.jsonl", damaged);
  const CliResult r =
      cli({"search", project_, "--out", out.string(), "--resume", "--threads", "2"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("is damaged (checksum mismatch)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("resuming: 0 finished work units"), std::string::npos) << r.err;
  EXPECT_EQ(frontier_of(read_json(out / "frontier.json")["points"]), reference);

  // A watermark with a valid checksum but past the run's units is refused as well.
  lines = lines_of(out / "points.jsonl");
  auto body = *io::verify_log_line(lines.back());
  ASSERT_NE(body.find("\"done_below\":108,"), std::string::npos);
  body.replace(body.find("108"), 3, "1000000");
  lines.back() = io::seal_log_line(body);
  write_lines(out / "points.jsonl", lines);
  const CliResult forged =
      cli({"search", project_, "--out", out.string(), "--resume", "--threads", "2"});
  ASSERT_EQ(forged.code, 0) << forged.err;
  EXPECT_NE(forged.err.find("watermark 1000000 is past the run's 108 work units"),
            std::string::npos)
      << forged.err;
  EXPECT_EQ(frontier_of(read_json(out / "frontier.json")["points"]), reference);
}

TEST_F(SearchCli, EmptyGarbledFifoAndBusyLogsNeverLeaveTheFolderStuck) {
  // Empty: holds no result, so a new run and a resume both replace it.
  const auto empty = dir_ / "empty";
  std::filesystem::create_directories(empty);
  std::ofstream(empty / "points.jsonl").close();
  CliResult r = cli({"search", project_, "--out", empty.string(), "--max-evals", "50"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("held no record"), std::string::npos) << r.err;
  std::ofstream(empty / "points.jsonl", std::ios::trunc).close();
  r = cli({"search", project_, "--out", empty.string(), "--resume", "--max-evals", "50"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("starts from the beginning"), std::string::npos) << r.err;

  // Garbled header: refused by both, saying how to start over.
  const auto garbled = dir_ / "garbled";
  std::filesystem::create_directories(garbled);
  std::ofstream(garbled / "points.jsonl") << "garbage\nmore garbage\n";
  for (bool resume : {false, true}) {
    std::vector<std::string> args = {"search", project_, "--out", garbled.string()};
    if (resume) args.emplace_back("--resume");
    r = cli(args);
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("is not a readable search log"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("to start over: rm '" + (garbled / "points.jsonl").string() + "'"),
              std::string::npos)
        << r.err;
  }

  // A FIFO in place of the log: refused at once (opening it for reading would block).
  const auto fifo = dir_ / "fifo";
  std::filesystem::create_directories(fifo);
  ASSERT_EQ(::mkfifo((fifo / "points.jsonl").c_str(), 0644), 0);
  for (bool resume : {false, true}) {
    std::vector<std::string> args = {"search", project_, "--out", fifo.string()};
    if (resume) args.emplace_back("--resume");
    r = cli(args);
    EXPECT_EQ(r.code, kExitBadInput);
    EXPECT_NE(r.err.find("is a FIFO, not a search log"), std::string::npos) << r.err;
  }

  // A directory another search holds (here this process, through a second open file).
  const auto busy = dir_ / "busy";
  {
    auto log = io::SearchLog::create(busy, {"0123456789abcdef", "exhaustive", 0, 0, 0, 1, "", ""});
    for (bool resume : {false, true}) {
      std::vector<std::string> args = {"search", project_, "--out", busy.string()};
      if (resume) args.emplace_back("--resume");
      r = cli(args);
      EXPECT_EQ(r.code, kExitBadInput);
      EXPECT_NE(r.err.find("is in use by another search (pid " + std::to_string(::getpid()) + ")"),
                std::string::npos)
          << r.err;
    }
  }
  std::filesystem::remove(busy / "points.jsonl");
  r = cli({"search", project_, "--out", busy.string(), "--max-evals", "50"});
  EXPECT_EQ(r.code, 0) << r.err;  // the lock went with the log
}

TEST_F(SearchCli, ResumeRefusesAChangedSpaceNamingItButNotAReorderedOne) {
  const auto out = dir_ / "run";
  ASSERT_EQ(cli({"search", project_, "--out", out.string(), "--max-evals", "300"}).code, 0);
  // The same space with every key of the search section in reverse order and the batch range
  // spelled as its list: no change.
  auto j = nlohmann::ordered_json::parse(kProject);
  nlohmann::ordered_json reordered = nlohmann::ordered_json::object();
  const auto& section = j["search"];
  for (auto it = section.rbegin(); it != section.rend(); ++it) reordered[it.key()] = it.value();
  reordered["batch"] = {1, 4, 16, 64, 256};
  j["search"] = reordered;
  const auto same = (dir_ / "same.json").string();
  std::ofstream(same) << j.dump(1);
  CliResult r = cli({"search", same, "--out", out.string(), "--resume", "--max-evals", "300"});
  EXPECT_EQ(r.code, 0) << r.err;

  j["search"]["hardware"][1]["values"] = {4, 8};
  j["search"]["constraints"]["tpot_slo_s"] = 0.02;
  const auto changed = (dir_ / "changed.json").string();
  std::ofstream(changed) << j.dump(1);
  r = cli({"search", changed, "--out", out.string(), "--resume"});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_NE(r.err.find("belongs to a different search"), std::string::npos) << r.err;
  // (In the canonical spelling: a list that is a range is written as the range.)
  EXPECT_NE(r.err.find("/search/hardware/1: {\"knob\":\"memory.layers_total\",\"min\":4,"
                       "\"max\":16,\"step\":4} in the log, {\"knob\":\"memory.layers_total\","
                       "\"values\":[4,8]} now"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("/search/constraints/tpot_slo_s: 0.01 in the log, 0.02 now"),
            std::string::npos)
      << r.err;
}

// A log written before checksums (format 1: no "log_version", no "crc", the fingerprint of the
// file's spelling) resumes, and is rewritten in format 2.
TEST_F(SearchCli, AFormatOneLogIsResumedAndUpgraded) {
  const CliResult full = cli({"search", project_, "--json", "--threads", "2"});
  ASSERT_EQ(full.code, 0) << full.err;
  const auto reference = frontier_of(nlohmann::json::parse(full.out)["frontier"]);
  const auto out = dir_ / "old";
  ASSERT_EQ(cli({"search", project_, "--out", out.string(), "--max-evals", "2000", "--threads", "1",
                 "--log", "all"})
                .code,
            0);
  io::PresetRegistry presets;
  presets.register_builtins();
  const auto sp = io::load_search_project(project_, presets);
  std::vector<std::string> old;
  for (const auto& l : lines_of(out / "points.jsonl")) {
    auto j = nlohmann::ordered_json::parse(*io::verify_log_line(l));
    if (j.contains("kind")) {
      j.erase("log_version");
      j.erase("space");
      j["fingerprint"] = sp.legacy_fingerprint;
    }
    old.push_back(j.dump());
  }
  write_lines(out / "points.jsonl", old);
  const CliResult r = cli(
      {"search", project_, "--out", out.string(), "--resume", "--threads", "2", "--log", "all"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("is log format 1 (no checksums)"), std::string::npos) << r.err;
  EXPECT_EQ(frontier_of(read_json(out / "frontier.json")["points"]), reference);
  for (const auto& l : lines_of(out / "points.jsonl")) EXPECT_TRUE(io::verify_log_line(l)) << l;
}

TEST_F(SearchCli, NoFeasiblePointIsSaidSoNotReportedAsAFrontier) {
  auto j = nlohmann::ordered_json::parse(kProject);
  j["search"]["constraints"] = {{"tpot_slo_s", 1e-9}};
  const auto none = (dir_ / "none.json").string();
  std::ofstream(none) << j.dump(1);
  // Without bound pruning every point that fits is evaluated and misses the SLO.
  const CliResult r = cli({"search", none, "--threads", "2", "--no-bound-pruning"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("complete: no point of the space is feasible (commonest reason: TPOT over "
                       "constraints/tpot_slo_s"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("the frontier is exact"), std::string::npos) << r.out;
  const CliResult js = cli({"search", none, "--threads", "2", "--json"});
  ASSERT_EQ(js.code, 0) << js.err;
  EXPECT_EQ(nlohmann::json::parse(js.out)["feasible_found"], false);
}

}  // namespace
}  // namespace stackscope::cli
