// SPDX-License-Identifier: GPL-3.0-or-later
// The CLI commands run in-process: JSON documents, tables, and one-line errors on bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "stackscope/cli/command.hpp"

namespace stackscope::cli {
namespace {

struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

CliRun cli(std::vector<std::string> args) {
  CommandRegistry commands;
  register_builtins(commands);
  std::ostringstream out, err;
  CliRun r;
  r.code = run(commands, args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

nlohmann::json json_of(const CliRun& r) {
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(r.out);  // throws (fails the test) on invalid JSON
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// Bad input: exit 2, nothing on stdout, every stderr line an "error:" reason.
void expect_bad_input(const std::vector<std::string>& args, const std::string& expect,
                      bool single_line = true) {
  const CliRun r = cli(args);
  std::string shown;
  for (const auto& a : args) shown += a + " ";
  EXPECT_EQ(r.code, kExitBadInput) << shown << "\n" << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << shown << r.out;
  const auto ls = lines(r.err);
  ASSERT_FALSE(ls.empty()) << shown;
  if (single_line) {
    EXPECT_EQ(ls.size(), 1u) << shown << "\n" << r.err;
  }
  for (const auto& l : ls) {
    EXPECT_EQ(l.rfind("error: ", 0), 0u) << shown << ": " << l;
  }
  EXPECT_NE(r.err.find(expect), std::string::npos) << shown << "\n" << r.err;
}

const char* const kMetricKeys[] = {"ttft_s",
                                   "tpot_s",
                                   "utps",
                                   "stps",
                                   "e2e_output_tokens_per_s",
                                   "energy_per_token_j",
                                   "power_w",
                                   "memory_bytes_per_device"};

TEST(CliEvaluate, DefaultProjectJsonHasEveryMetric) {
  const auto j = json_of(cli({"evaluate", "--json"}));
  ASSERT_TRUE(j.contains("metrics"));
  for (const char* key : kMetricKeys) {
    ASSERT_TRUE(j["metrics"].contains(key)) << key;
    const double v = j["metrics"][key].get<double>();
    EXPECT_TRUE(std::isfinite(v)) << key;
    EXPECT_GT(v, 0.0) << key;
  }
  EXPECT_TRUE(j["feasible"].is_boolean());
  EXPECT_TRUE(j["reasons"].is_array());
  EXPECT_GE(j["batch"].get<int>(), 1);
  ASSERT_TRUE(j.contains("breakdown"));
  EXPECT_TRUE(j["breakdown"].contains("prefill"));
  EXPECT_TRUE(j["breakdown"].contains("decode"));
}

TEST(CliEvaluate, IssueCommandLine) {
  const auto j = json_of(cli({"evaluate", "--hardware", "h100-sxm", "--devices", "4", "--model",
                              "llama-2-70b", "--precision", "fp8", "--tp", "4", "--batch", "1",
                              "--input-len", "2048", "--output-len", "1", "--json"}));
  EXPECT_EQ(j["batch"].get<int>(), 1);
  EXPECT_TRUE(j["feasible"].get<bool>());
  const auto& m = j["metrics"];
  EXPECT_GT(m["ttft_s"].get<double>(), 0.0);
  // One output token: the run is the prefill alone, so end-to-end = 1 token / TTFT.
  EXPECT_NEAR(m["e2e_output_tokens_per_s"].get<double>() * m["ttft_s"].get<double>(), 1.0, 1e-6);
  EXPECT_NEAR(m["utps"].get<double>() * m["tpot_s"].get<double>(), 1.0, 1e-9);
}

TEST(CliEvaluate, OverridesApply) {
  const auto base =
      json_of(cli({"evaluate", "--model", "llama-2-7b", "--tp", "1", "--batch", "8", "--json"}));
  const auto fp16 = json_of(cli({"evaluate", "--model", "llama-2-7b", "--tp", "1", "--batch", "8",
                                 "--precision", "fp16", "--json"}));
  EXPECT_EQ(base["batch"].get<int>(), 8);
  // fp16 weights are twice the bytes of fp8: the footprint must grow.
  EXPECT_GT(fp16["memory"]["weights"].get<double>(), base["memory"]["weights"].get<double>());
  const auto longer = json_of(cli({"evaluate", "--model", "llama-2-7b", "--tp", "1", "--batch", "8",
                                   "--input-len", "4096", "--json"}));
  EXPECT_GT(longer["metrics"]["ttft_s"].get<double>(), base["metrics"]["ttft_s"].get<double>());
}

TEST(CliEvaluate, BatchAutoPicksAFittingBatch) {
  const auto j = json_of(cli({"evaluate", "--batch", "auto", "--json"}));
  EXPECT_GT(j["batch"].get<int>(), 1);
  EXPECT_TRUE(j["feasible"].get<bool>());
  EXPECT_LE(j["memory"]["total"].get<double>(), j["memory"]["capacity"].get<double>());
}

TEST(CliEvaluate, DataParallelFillsDevices) {
  // 8 devices with tp 4 on a dense model: dp becomes 2, so STPS doubles over 4 devices.
  const auto four = json_of(cli({"evaluate", "--devices", "4", "--tp", "4", "--json"}));
  const auto eight = json_of(cli({"evaluate", "--devices", "8", "--tp", "4", "--json"}));
  EXPECT_NEAR(eight["metrics"]["stps"].get<double>() / four["metrics"]["stps"].get<double>(), 2.0,
              1e-6);
}

TEST(CliEvaluate, TableShowsMetricsWithUnits) {
  const CliRun r = cli({"evaluate"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s : {"TTFT", "TPOT", "UTPS", "STPS", "end-to-end", "energy per output token",
                        "power per device", "memory used per device", "GiB", "ms", "tok/s",
                        "feasible", "time by resource", "top operators"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  }
}

TEST(CliEvaluate, EveryProjectPresetFileEvaluates) {
  const std::filesystem::path dir =
      std::filesystem::path(STACKSCOPE_SOURCE_DIR) / "presets/projects";
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    ++seen;
    const CliRun r = cli({"evaluate", entry.path().string(), "--json"});
    EXPECT_EQ(r.code, 0) << entry.path() << "\n" << r.err;
    if (r.code == 0) {
      EXPECT_TRUE(nlohmann::json::accept(r.out)) << entry.path();
    }
  }
  EXPECT_GT(seen, 0);
}

TEST(CliEvaluate, BadInputIsOneErrorLine) {
  expect_bad_input({"evaluate", "--bogus"}, "unknown option '--bogus'");
  expect_bad_input({"evaluate", "--tp", "abc"}, "--tp: not an integer: 'abc'");
  expect_bad_input({"evaluate", "--tp", "0"}, "--tp: out of range: '0'");
  expect_bad_input({"evaluate", "--tp", "-2"}, "--tp: out of range: '-2'");
  expect_bad_input({"evaluate", "--tp"}, "option --tp needs a value");
  expect_bad_input({"evaluate", "--batch", "lots"}, "allowed: auto, or integer");
  expect_bad_input({"evaluate", "--input-len", "1e9"}, "--input-len: not an integer");
  expect_bad_input({"evaluate", "--precision", "fp7"}, "allowed: fp16, bf16, fp8, fp4");
  expect_bad_input({"evaluate", "--model", "no-such-model"}, "llama-2-70b");
  expect_bad_input({"evaluate", "--hardware", "no-such-chip"}, "h100-sxm");
  expect_bad_input({"evaluate", "/nonexistent/project.json"}, "cannot read project file");
  expect_bad_input({"evaluate", "a.json", "b.json"}, "unexpected argument 'b.json'");
  expect_bad_input({"frobnicate"}, "unknown command 'frobnicate' (allowed: dram, evaluate");
}

TEST(CliEvaluate, InvalidDesignListsEveryIssueWithPath) {
  // 70B has 64 heads and 8 KV heads: tp 3 divides neither.
  expect_bad_input({"evaluate", "--model", "llama-2-70b", "--tp", "3"}, "/parallel/tp",
                   /*single_line=*/false);
  // A batch far past memory is rejected with the largest batch that fits.
  expect_bad_input({"evaluate", "--batch", "1000000"}, "/workload/batch", false);
  // Plan that does not match the devices.
  expect_bad_input({"evaluate", "--devices", "3", "--tp", "4"}, "error: ", false);
}

TEST(CliEvaluate, BrokenProjectFileIsAnErrorNotACrash) {
  const auto dir = std::filesystem::temp_directory_path() / "stackscope-cli-test";
  std::filesystem::create_directories(dir);
  const auto file = dir / "broken.json";
  std::ofstream(file) << "{ \"schema_version\": 1, \"name\": ";
  const CliRun r = cli({"evaluate", file.string()});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  const auto unknown = dir / "unknown-key.json";
  std::ofstream(unknown) << R"({"schema_version": 1, "hardware": "h100-sxm", "bogus_key": 1})";
  const CliRun u = cli({"evaluate", unknown.string()});
  EXPECT_EQ(u.code, kExitBadInput);
  EXPECT_EQ(u.err.rfind("error: ", 0), 0u) << u.err;
  std::filesystem::remove_all(dir);
}

TEST(CliDram, StreamWithinPeak) {
  const auto j = json_of(cli({"dram", "--memory", "h100-sxm", "--pattern", "stream", "--json"}));
  const double eff = j["effective_GBps"].get<double>();
  const double peak = j["peak_GBps"].get<double>();
  EXPECT_GT(eff, 0.0);
  EXPECT_LE(eff, peak);
  for (const char* key : {"eta", "row_limited_GBps", "activation_GBps", "buffering_GBps",
                          "sram_GBps", "refresh_overhead", "bound"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
}

TEST(CliDram, EveryPatternParsesAndNeverBeatsStreaming) {
  const auto stream = json_of(cli({"dram", "--memory", "deepstack-3d", "--json"}));
  for (const char* p : {"random", "chunk:64", "chunk:4096", "mix:0.7", "row-conflict"}) {
    const auto j = json_of(cli({"dram", "--memory", "deepstack-3d", "--pattern", p, "--json"}));
    EXPECT_LE(j["effective_GBps"].get<double>(), j["peak_GBps"].get<double>()) << p;
    EXPECT_LE(j["effective_GBps"].get<double>(), stream["effective_GBps"].get<double>() * 1.000001)
        << p;
  }
  const CliRun table = cli({"dram", "--memory", "h100-sxm", "--pattern", "random"});
  EXPECT_NE(table.out.find("effective bandwidth"), std::string::npos) << table.out;
}

TEST(CliDram, BadInput) {
  expect_bad_input({"dram", "--pattern", "stream"}, "--memory is required");
  expect_bad_input({"dram", "--memory", "h100-sxm", "--pattern", "zigzag"}, "--pattern");
  expect_bad_input({"dram", "--memory", "h100-sxm", "--pattern", "mix:2"}, "--pattern");
  expect_bad_input({"dram", "--memory", "h100-sxm", "--temperature", "hot"}, "--temperature");
  expect_bad_input({"dram", "--memory", "nope"}, "--memory 'nope'");
}

TEST(CliPresets, ListsBuiltins) {
  const CliRun r = cli({"presets"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* id : {"h100-sxm", "llama-2-70b", "default"})
    EXPECT_NE(r.out.find(id), std::string::npos) << id;
  const auto j = json_of(cli({"presets", "--kind", "model", "--json"}));
  ASSERT_TRUE(j.contains("model"));
  EXPECT_FALSE(j.contains("hardware"));
  bool found = false;
  for (const auto& p : j["model"]) found = found || p["id"] == "llama-2-70b";
  EXPECT_TRUE(found);
  expect_bad_input({"presets", "--kind", "gpu"}, "allowed: hardware, system, model, project");
}

TEST(CliHelp, EveryCommandHasHelp) {
  for (const char* c : {"evaluate", "dram", "presets", "validate-project"}) {
    const CliRun h = cli({"help", c});
    EXPECT_EQ(h.code, 0) << c;
    EXPECT_NE(h.out.find("usage: stackscope-cli"), std::string::npos) << c;
    const CliRun flag = cli({c, "--help"});
    EXPECT_EQ(flag.code, 0) << c << flag.err;
    EXPECT_EQ(flag.out, h.out) << c;
  }
  const CliRun v = cli({"--version"});
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out, "stackscope-cli " + std::string(version()) + "\n");
  const CliRun none = cli({});
  EXPECT_EQ(none.code, kExitBadInput);
}

TEST(CliValidateProject, OkAndProblems) {
  const std::filesystem::path good =
      std::filesystem::path(STACKSCOPE_SOURCE_DIR) / "presets/projects/default.json";
  const CliRun ok = cli({"validate-project", good.string()});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.out, "ok\n");
  expect_bad_input({"validate-project"}, "missing PROJECT.json");
  expect_bad_input({"validate-project", "/nonexistent.json"}, "cannot read project file");
}

}  // namespace
}  // namespace stackscope::cli
