// SPDX-License-Identifier: GPL-3.0-or-later
// The CLI commands run in-process: JSON documents, tables, and one-line errors on bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "stackscope/cli/command.hpp"
#include "stackscope/cli/text.hpp"

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

// Huge figures read as scientific notation, not as 309-digit integers.
TEST(CliText, NumbersFrom1e15OnAreScientific) {
  EXPECT_EQ(readable(1e308), "1e+308");
  EXPECT_EQ(readable(-2.5e20), "-2.5e+20");
  EXPECT_EQ(readable(123456), "123456");
  EXPECT_EQ(readable(999999999999999.0), "999999999999999");
  EXPECT_EQ(fixed(1e308, 2), "1.00e+308");
  EXPECT_EQ(fixed(1e15, 0), "1.00e+15");
  EXPECT_EQ(fixed(12.345, 1), "12.3");
  EXPECT_EQ(number_text(1e308), "1e+308");
  EXPECT_EQ(number_text(-1.7976931348623157e308), "-1.7976931348623157e+308");
  EXPECT_EQ(number_text(1e15), "1e+15");
  EXPECT_EQ(number_text(0.1), "0.1");
  EXPECT_EQ(number_text(123456789), "123456789");
  EXPECT_EQ(number_text(3e9), "3000000000");
  EXPECT_EQ(number_text(0.00025), "0.00025");
  EXPECT_EQ(number_text(1e-300), "1e-300");
  EXPECT_EQ(number_text(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_LT(readable(std::numeric_limits<double>::max()).size(), 12u);
}

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

TEST(CliEvaluate, H100Llama270bFromFlags) {
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
                                   "--input-len", "3072", "--json"}));
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
  expect_bad_input({"frobnicate"},
                   "unknown command 'frobnicate' (allowed: collective, dram, evaluate");
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

// The README's DeepSeek-V3 command line: DeepSeek-V3 on 256 3D-stacked chips.
const std::vector<std::string> kDeepSeekV3Stacked256 = {"evaluate",
                                                        "--model",
                                                        "deepseek-v3",
                                                        "--hardware",
                                                        "deepstack-3d",
                                                        "--system",
                                                        "deepstack-3d-x256",
                                                        "--tp",
                                                        "2",
                                                        "--ep",
                                                        "64",
                                                        "--pp",
                                                        "2",
                                                        "--batch",
                                                        "1024",
                                                        "--overlap",
                                                        "auto",
                                                        "--links",
                                                        "--json"};

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string project_file(const char* id) {
  return (std::filesystem::path(STACKSCOPE_SOURCE_DIR) / "presets/projects" /
          (std::string(id) + ".json"))
      .string();
}

TEST(CliEvaluate, DeepSeekV3On256StackedChipsIsFeasibleWithLinkLoads) {
  const auto j = json_of(cli(kDeepSeekV3Stacked256));
  EXPECT_TRUE(j["feasible"].get<bool>()) << j["reasons"].dump();
  EXPECT_EQ(j["batch"].get<int>(), 1024);
  EXPECT_LE(j["memory"]["total"].get<double>(), j["memory"]["capacity"].get<double>());
  ASSERT_TRUE(j["links"].is_array());
  ASSERT_FALSE(j["links"].empty());
  EXPECT_FALSE(j.contains("reference_sim"));  // not asked for
  double previous = 2.0;
  for (const auto& l : j["links"]) {
    for (const char* key : {"from", "to", "level", "level_name", "bytes", "utilisation",
                            "prefill_bytes", "prefill_utilisation"})
      ASSERT_TRUE(l.contains(key)) << key << " in " << l.dump();
    EXPECT_TRUE(l["from"].is_string());
    EXPECT_GE(l["level"].get<int>(), 0);
    EXPECT_LE(l["level"].get<int>(), 1);
    const double u = l["utilisation"].get<double>();
    EXPECT_GE(u, 0.0);
    EXPECT_LE(u, 1.0 + 1e-9) << l.dump();
    EXPECT_LE(u, previous + 1e-12) << "links must be busiest first";
    previous = u;
    EXPECT_GT(l["bytes"].get<double>() + l["prefill_bytes"].get<double>(), 0.0);
  }
  // 256 chips: 4 per package on a 2 x 2 mesh (8 directed links) and 4 rails of an 8 x 8 torus
  // (4 ports each): 64 x 8 + 256 x 4 directed links.
  EXPECT_EQ(j["links"].size() + j["idle_links"].get<std::size_t>(), 64u * 8 + 256u * 4);
}

TEST(CliEvaluate, ProjectPresetMatchesTheFlagsCommand) {
  const auto project =
      json_of(cli({"evaluate", project_file("deepseek-v3-deepstack-256"), "--json"}));
  auto args = kDeepSeekV3Stacked256;
  args.erase(std::find(args.begin(), args.end(), "--links"));
  const auto flags = json_of(cli(args));
  EXPECT_DOUBLE_EQ(project["metrics"]["tpot_s"].get<double>(),
                   flags["metrics"]["tpot_s"].get<double>());
  EXPECT_DOUBLE_EQ(project["metrics"]["ttft_s"].get<double>(),
                   flags["metrics"]["ttft_s"].get<double>());
}

TEST(CliEvaluate, ReferenceSimComparesBothPaths) {
  const auto j = json_of(
      cli({"evaluate", project_file("deepseek-v3-deepstack-256"), "--reference-sim", "--json"}));
  ASSERT_TRUE(j.contains("reference_sim"));
  EXPECT_FALSE(j.contains("links"));
  const auto& r = j["reference_sim"];
  for (const char* key :
       {"decode_comm_analytic_s", "decode_comm_reference_s", "prefill_comm_analytic_s",
        "prefill_comm_reference_s", "ttft_reference_s", "tpot_reference_s"})
    EXPECT_GT(r[key].get<double>(), 0.0) << key;
  EXPECT_EQ(r["ttft_s"], j["metrics"]["ttft_s"]);
  EXPECT_EQ(r["tpot_s"], j["metrics"]["tpot_s"]);
  EXPECT_TRUE(r["decode_comm_error"].is_number());

  const CliRun table =
      cli({"evaluate", project_file("deepseek-v3-deepstack-256"), "--reference-sim", "--links"});
  ASSERT_EQ(table.code, 0) << table.err;
  for (const char* s : {"busiest links", "GB/decode step", "util %", "reference simulator",
                        "network time per decode step", "network time per prefill pass", "TTFT",
                        "TPOT", "inter-package 112G SerDes torus"})
    EXPECT_NE(table.out.find(s), std::string::npos) << s << "\n" << table.out;
}

TEST(CliEvaluate, SystemPresetSetsTheDeviceCount) {
  // The default project runs tp 4 on 4 GPUs; the 8-GPU system doubles dp.
  const CliRun r = cli({"evaluate", "--system", "h100-sxm-x8"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("x 8 devices"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tp 4, pp 1, dp 2, ep 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("on 8x NVIDIA H100"), std::string::npos) << r.out;  // renamed
  // --devices still wins over the preset's count.
  const CliRun four = cli({"evaluate", "--system", "h100-sxm-x8", "--devices", "4"});
  ASSERT_EQ(four.code, 0) << four.err;
  EXPECT_NE(four.out.find("x 4 devices"), std::string::npos) << four.out;
  // A plan that cannot fill the system names all six numbers.
  expect_bad_input({"evaluate", "--system", "h100-sxm-x8", "--tp", "3", "--model", "llama-2-7b",
                    "--precision", "fp16"},
                   "/parallel", false);
}

TEST(CliEvaluate, ParallelismFlagsReachThePlan) {
  const auto plan_line = [](const CliRun& r) {
    EXPECT_EQ(r.code, 0) << r.err;
    const auto at = r.out.find("plan      ");
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('\n', at) - at);
  };
  EXPECT_NE(plan_line(cli({"evaluate", "--sp", "--cp", "2"})).find("cp 2, SP"), std::string::npos);
  EXPECT_NE(plan_line(cli({"evaluate", "--overlap", "8"})).find("overlap 8 tiles"),
            std::string::npos);
  EXPECT_NE(plan_line(cli({"evaluate", "--overlap", "auto"})).find("overlap auto"),
            std::string::npos);
  EXPECT_EQ(plan_line(cli({"evaluate", "--overlap", "off"})).find("overlap"), std::string::npos);
  EXPECT_NE(plan_line(cli({"evaluate", "--placement", "dp,pp,cp,ep,tp"}))
                .find("placement dp,pp,cp,ep,tp"),
            std::string::npos);
  const std::string line = plan_line(
      cli({"evaluate", project_file("deepseek-v3-deepstack-256"), "--attention-tp", "8", "--moe-tp",
           "1", "--moe-ep", "128", "--redundant-experts", "1", "--ffn-tp", "4"}));
  for (const char* s :
       {"attention tp 8", "dense FFN tp 4", "MoE tp 1", "MoE ep 128", "+1 redundant experts/rank"})
    EXPECT_NE(line.find(s), std::string::npos) << s << ": " << line;

  // cp adds devices (tp 4 x cp 2 = 8) and splits the prompt; JSON still complete.
  const auto cp = json_of(cli({"evaluate", "--cp", "2", "--json"}));
  EXPECT_GT(cp["metrics"]["ttft_s"].get<double>(), 0.0);
  const auto sp = json_of(cli({"evaluate", "--sp", "--json"}));
  EXPECT_GT(sp["metrics"]["tpot_s"].get<double>(), 0.0);
  // A dense model drops a project's MoE module plan instead of failing on it.
  const CliRun dense =
      cli({"evaluate", project_file("deepseek-v3-deepstack-256"), "--model", "llama-3-70b",
           "--moe-tp", "1", "--tp", "8", "--pp", "1", "--ep", "1", "--devices", "8"});
  EXPECT_EQ(dense.code, kExitBadInput);  // --moe-tp given explicitly on a dense model
  EXPECT_NE(dense.err.find("/parallel/moe/tp"), std::string::npos) << dense.err;
  const CliRun dropped =
      cli({"evaluate", project_file("deepseek-v3-deepstack-256"), "--model", "llama-3-70b", "--tp",
           "8", "--pp", "1", "--devices", "8", "--batch", "8"});
  EXPECT_EQ(dropped.code, 0) << dropped.err;
}

TEST(CliEvaluate, BadParallelismFlags) {
  expect_bad_input({"evaluate", "--overlap", "fast"}, "--overlap: expected off, auto or a tile");
  expect_bad_input({"evaluate", "--overlap", "0"}, "allowed: off, auto, or integer 1..1024");
  expect_bad_input({"evaluate", "--overlap", "2000"}, "allowed: off, auto, or integer 1..1024");
  expect_bad_input({"evaluate", "--cp", "0"}, "--cp: out of range: '0'");
  expect_bad_input({"evaluate", "--cp", "3", "--devices", "12", "--input-len", "2048"},
                   "/parallel/cp", false);
  expect_bad_input({"evaluate", "--moe-ep", "abc"}, "--moe-ep: not an integer");
  expect_bad_input({"evaluate", "--attention-tp", "0"}, "--attention-tp: out of range");
  expect_bad_input({"evaluate", "--redundant-experts", "-1"}, "--redundant-experts: out of range");
  expect_bad_input({"evaluate", "--sp=yes"}, "option --sp takes no value");
  expect_bad_input({"evaluate", "--placement", "tp,tp"}, "/parallel/placement");
  expect_bad_input({"evaluate", "--placement", "tp,ep,cp,pp"}, "'dp' missing");
  expect_bad_input({"evaluate", "--system", "no-such-system"}, "--system 'no-such-system'");
  expect_bad_input({"evaluate", project_file("deepseek-v3-deepstack-256"), "--moe-ep", "7"},
                   "moe tp x moe ep = 2 x 7 = 14, not 128", false);
}

// `collective` ---------------------------------------------------------------------------------

TEST(CliCollective, JsonShapeAndBusBandwidthDefinition) {
  const auto j = json_of(cli({"collective", "--system", "h100-sxm-x8", "--op", "all_reduce",
                              "--bytes", "256M", "--group", "8", "--algorithm", "ring", "--json"}));
  for (const char* key : {"time_s", "algorithm", "bus_GBps", "alg_GBps", "steps", "links"})
    ASSERT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["algorithm"], "ring");
  EXPECT_EQ(j["bytes"], 256 << 20);
  EXPECT_EQ(j["ranks"], nlohmann::json::parse("[0,1,2,3,4,5,6,7]"));
  const double t = j["time_s"].get<double>();
  ASSERT_GT(t, 0.0);
  // nccl-tests: algBW = bytes / time, all-reduce busBW = algBW x 2(n-1)/n.
  EXPECT_NEAR(j["alg_GBps"].get<double>(), (256 << 20) / t / 1e9, 1e-9);
  EXPECT_NEAR(j["bus_GBps"].get<double>(), j["alg_GBps"].get<double>() * 2 * 7 / 8, 1e-9);
  // Ring over NVSwitch: near the 370 GB/s of data/nccl-collectives/collectives.json at this size.
  EXPECT_GT(j["bus_GBps"].get<double>(), 300.0);
  EXPECT_LT(j["bus_GBps"].get<double>(), 450.0);
  EXPECT_GT(j["steps"].get<int>(), 1);
  ASSERT_FALSE(j["links"].empty());
  double previous = 2;
  for (const auto& l : j["links"]) {
    for (const char* key : {"from", "to", "level", "bytes", "utilisation"})
      ASSERT_TRUE(l.contains(key)) << key;
    const double u = l["utilisation"].get<double>();
    EXPECT_GT(u, 0.0);
    EXPECT_LE(u, 1.0 + 1e-9);
    EXPECT_LE(u, previous + 1e-12);
    previous = u;
  }
  EXPECT_FALSE(j.contains("reference_time_s"));
}

TEST(CliCollective, AutoPicksTheFastestAndReferenceSimAgrees) {
  const auto ring =
      json_of(cli({"collective", "--system", "h100-sxm-x8", "--op", "all_reduce", "--bytes", "64M",
                   "--group", "8", "--algorithm", "ring", "--json"}));
  const auto best = json_of(cli({"collective", "--system", "h100-sxm-x8", "--op", "all_reduce",
                                 "--bytes", "64M", "--group", "8", "--reference-sim", "--json"}));
  EXPECT_LE(best["time_s"].get<double>(), ring["time_s"].get<double>() * (1 + 1e-12));
  ASSERT_TRUE(best.contains("reference_time_s"));
  EXPECT_GT(best["reference_time_s"].get<double>(), 0.0);
  EXPECT_NEAR(best["reference_error"].get<double>(),
              best["time_s"].get<double>() / best["reference_time_s"].get<double>() - 1, 1e-12);
  const auto torus = json_of(
      cli({"collective", "--system", "deepstack-3d-x256", "--op", "all_to_all", "--bytes", "1M",
           "--group", "64", "--placement", "strided:4", "--reference-sim", "--json"}));
  EXPECT_LT(std::abs(torus["reference_error"].get<double>()), 0.5);
  EXPECT_EQ(torus["ranks"][1], 4);
}

TEST(CliCollective, PlacementsAndSizes) {
  const auto strided =
      json_of(cli({"collective", "--system", "h100-sxm-x64-ib", "--op", "all_gather", "--bytes",
                   "1048576", "--group", "8", "--placement", "strided:8", "--json"}));
  EXPECT_EQ(strided["ranks"], nlohmann::json::parse("[0,8,16,24,32,40,48,56]"));
  // One GPU per node: only the InfiniBand level carries traffic.
  for (const auto& l : strided["links"]) EXPECT_EQ(l["level"], 1) << l.dump();
  const auto r1 =
      json_of(cli({"collective", "--system", "h100-sxm-x64-ib", "--op", "broadcast", "--bytes",
                   "4K", "--group", "16", "--placement", "random:7", "--json"}));
  const auto r2 =
      json_of(cli({"collective", "--system", "h100-sxm-x64-ib", "--op", "broadcast", "--bytes",
                   "4K", "--group", "16", "--placement", "random:7", "--json"}));
  EXPECT_EQ(r1["ranks"], r2["ranks"]);  // a seed names one placement
  std::vector<int> ranks = r1["ranks"].get<std::vector<int>>();
  std::sort(ranks.begin(), ranks.end());
  EXPECT_EQ(std::adjacent_find(ranks.begin(), ranks.end()), ranks.end());
  EXPECT_GE(ranks.front(), 0);
  EXPECT_LT(ranks.back(), 64);
  const auto p2p = json_of(cli({"collective", "--system", "h100-sxm-x8", "--op", "point_to_point",
                                "--bytes", "1G", "--group", "2", "--json"}));
  EXPECT_EQ(p2p["algorithm"], "direct");
  EXPECT_EQ(p2p["bytes"], std::int64_t{1} << 30);
  for (const char* op : {"reduce_scatter", "all_to_all", "broadcast", "all_gather"}) {
    const CliRun t = cli({"collective", "--system", "deepstack-3d-x64", "--op", op, "--bytes", "1M",
                          "--group", "16"});
    EXPECT_EQ(t.code, 0) << op << t.err;
    for (const char* s : {"time", "algorithm", "bus bandwidth", "busiest links"})
      EXPECT_NE(t.out.find(s), std::string::npos) << op << ": " << s << "\n" << t.out;
  }
}

TEST(CliCollective, BadInputIsOneErrorLine) {
  const std::vector<std::string> base = {"collective", "--system", "h100-sxm-x8"};
  expect_bad_input(with(base, {"--op", "all_reduce", "--bytes", "1M", "--group", "16"}),
                   "--group: 16 ranks but system 'h100-sxm-x8' has 8 devices");
  expect_bad_input(with(base, {"--op", "allreduce", "--bytes", "1M", "--group", "8"}),
                   "--op: unknown collective 'allreduce' (allowed: all_reduce, all_gather");
  expect_bad_input(
      with(base, {"--op", "all_reduce", "--bytes", "1M", "--group", "8", "--algorithm", "nvls"}),
      "--algorithm: unknown algorithm 'nvls' (allowed: auto, ring");
  expect_bad_input(with(base, {"--op", "all_reduce", "--bytes", "1M", "--group", "6", "--algorithm",
                               "halving_doubling"}),
                   "--algorithm: halving_doubling cannot run all_reduce on these 6 ranks");
  expect_bad_input({"collective", "--system", "deepstack-3d-x64", "--op", "all_reduce", "--bytes",
                    "1M", "--group", "8", "--algorithm", "in_network"},
                   "in_network cannot run all_reduce");
  expect_bad_input(
      with(base, {"--op", "all_to_all", "--bytes", "1M", "--group", "8", "--algorithm", "ring"}),
      "allowed here: auto, direct, pairwise");
  expect_bad_input(with(base, {"--op", "all_reduce", "--bytes", "0", "--group", "8"}),
                   "--bytes: out of range: '0'");
  expect_bad_input(with(base, {"--op", "all_reduce", "--bytes", "-5", "--group", "8"}),
                   "--bytes: out of range");
  expect_bad_input(with(base, {"--op", "all_reduce", "--bytes", "1MB", "--group", "8"}),
                   "--bytes: not a byte count: '1MB'");
  expect_bad_input(with(base, {"--op", "all_reduce", "--bytes", "1M", "--group", "1"}),
                   "--group: out of range: '1'");
  expect_bad_input(with(base, {"--op", "point_to_point", "--bytes", "1M", "--group", "4"}),
                   "point_to_point runs between 2 ranks");
  expect_bad_input(with(base, {"--op", "all_reduce", "--bytes", "1M", "--group", "4", "--placement",
                               "strided:3"}),
                   "--placement: stride 3 puts rank 3 on device 9 of 8");
  expect_bad_input(
      with(base, {"--op", "all_reduce", "--bytes", "1M", "--group", "4", "--placement", "diag"}),
      "--placement: unknown placement 'diag'");
  expect_bad_input(with(base, {"--op", "all_reduce", "--bytes", "1M", "--group", "4", "--placement",
                               "random:x"}),
                   "--placement random: not an integer");
  expect_bad_input({"collective", "--op", "all_reduce", "--bytes", "1M", "--group", "4"},
                   "collective: --system is required");
  expect_bad_input(
      {"collective", "--system", "nope", "--op", "all_reduce", "--bytes", "1M", "--group", "4"},
      "--system 'nope'");
}

TEST(CliCollective, BadSystemFileIsReportedByPath) {
  const auto dir = std::filesystem::temp_directory_path() / "stackscope-cli-collective";
  std::filesystem::create_directories(dir);
  const auto file = dir / "bad-mesh.json";
  std::ofstream(file) << R"({"schema_version": 1, "name": "bad", "devices": 6, "levels": [
      {"topology": "mesh2d", "size": 6, "dims_x": 2, "dims_y": 2}]})";
  expect_bad_input({"collective", "--system", file.string(), "--op", "all_reduce", "--bytes", "1M",
                    "--group", "4"},
                   "/system/levels/0/dims_x");
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
  for (const char* c : {"evaluate", "collective", "dram", "presets", "validate-project"}) {
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
