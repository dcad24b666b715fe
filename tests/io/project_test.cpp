// SPDX-License-Identifier: GPL-3.0-or-later
// Project parsing: sections, presets and `base` merges, and every class of structural error
// with its JSON-pointer path and allowed range.
#include <cmath>
#include <fstream>
#include <limits>

#include "stackscope/perf/validate.hpp"
#include "test_support.hpp"

namespace stackscope::io {
namespace {

using testing::contains;
using testing::issue_at;
using testing::minimal_project;
using testing::ordered_json;
using testing::parse_issues;
using testing::test_registry;

TEST(Project, ParsesPresetIdsIntoStructs) {
  const auto r = test_registry();
  const auto d = parse_project(minimal_project().dump(), r);
  EXPECT_EQ(d.schema_version, perf::kSchemaVersion);
  EXPECT_EQ(d.name, "minimal");
  EXPECT_EQ(d.hardware.id, "test-gpu");
  EXPECT_EQ(d.hardware.name, "Test GPU");
  EXPECT_EQ(d.hardware.compute.cores, 8);
  EXPECT_DOUBLE_EQ(d.hardware.compute.clock_GHz, 1.5);
  // Keys absent from the preset keep the struct defaults.
  EXPECT_DOUBLE_EQ(d.hardware.compute.op_dispatch_ns, hw::ComputeDie{}.op_dispatch_ns);
  EXPECT_EQ(d.system.id, "test-x4");  // no "id" key: taken from the preset id
  EXPECT_EQ(d.system.devices, 4);
  ASSERT_EQ(d.system.levels.size(), 1u);
  EXPECT_EQ(d.system.levels[0].topology, hw::Topology::switch_fabric);
  EXPECT_DOUBLE_EQ(d.system.levels[0].link_GBps, 100);
  EXPECT_EQ(d.model.layers, 4);
  EXPECT_EQ(d.workload.batch, 2);
  EXPECT_EQ(d.parallel.tp, 4);
  EXPECT_EQ(d.parallel.pp, 1);
}

TEST(Project, SystemIsOptionalAndDefaultsToOneDevice) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc.erase("system");
  const auto d = parse_project(doc.dump(), r);
  EXPECT_EQ(d.system.devices, 1);
  EXPECT_TRUE(d.system.levels.empty());
}

TEST(Project, InlineSectionsAndEnumSpellings) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["system"] = ordered_json::parse(R"({"devices": 16, "levels": [
      {"topology": "switch", "size": 8}, {"topology": "ring", "size": 0},
      {"topology": "mesh2d"}, {"topology": "torus2d"}, {"topology": "fully_connected"}]})");
  doc["model"] = {{"attention", "mla"}, {"ffn", "gelu"}};
  doc["hardware"] = ordered_json::parse(
      R"({"memory": {"kind": "stacked_3d", "vertical": {"kind": "hybrid_bond"}}})");
  doc["workload"]["numerics"] = {{"weights", "fp4"}, {"activations", "fp8"}, {"kv_cache", "int8"}};
  doc["workload"]["routing"] = {{"kind", "zipf"}, {"zipf_s", 1.2}, {"seed", 18446744073709551615u}};
  const auto d = parse_project(doc.dump(), r);
  ASSERT_EQ(d.system.levels.size(), 5u);
  EXPECT_EQ(d.system.levels[0].topology, hw::Topology::switch_fabric);
  EXPECT_EQ(d.system.levels[1].topology, hw::Topology::ring);
  EXPECT_EQ(d.system.levels[1].size, 0);
  EXPECT_EQ(d.system.levels[2].topology, hw::Topology::mesh2d);
  EXPECT_EQ(d.system.levels[3].topology, hw::Topology::torus2d);
  EXPECT_EQ(d.system.levels[4].topology, hw::Topology::fully_connected);
  EXPECT_EQ(d.model.attention, workload::AttentionKind::mla);
  EXPECT_EQ(d.model.ffn, workload::FfnKind::gelu);
  EXPECT_EQ(d.hardware.memory.kind, hw::MemoryKind::stacked_3d);
  EXPECT_EQ(d.hardware.memory.vertical.kind, hw::VerticalLinkKind::hybrid_bond);
  EXPECT_EQ(d.workload.numerics.weights, Precision::fp4);
  EXPECT_EQ(d.workload.numerics.activations, Precision::fp8);
  EXPECT_EQ(d.workload.numerics.kv_cache, Precision::int8);
  EXPECT_EQ(d.workload.routing.kind, workload::RoutingKind::zipf);
  EXPECT_EQ(d.workload.routing.seed, 18446744073709551615u);
}

TEST(Project, BaseMergesOverridesRecursively) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["hardware"] = ordered_json::parse(
      R"({"base": "test-gpu", "name": "Faster", "compute": {"clock_GHz": 2.0},
          "memory": {"timing": {"tRFC_ns": 300}}})");
  // Arrays are replaced, not merged element by element.
  doc["system"] =
      ordered_json::parse(R"({"base": "test-x4", "levels": [{"topology": "ring", "size": 4}]})");
  const auto d = parse_project(doc.dump(), r);
  EXPECT_EQ(d.hardware.id, "test-gpu");
  EXPECT_EQ(d.hardware.name, "Faster");
  EXPECT_EQ(d.hardware.compute.cores, 8);               // from the preset
  EXPECT_DOUBLE_EQ(d.hardware.compute.clock_GHz, 2.0);  // overridden
  EXPECT_EQ(d.hardware.memory.stacks, 2);               // sibling of an override, kept
  EXPECT_DOUBLE_EQ(d.hardware.memory.timing.tRFC_ns, 300);
  EXPECT_DOUBLE_EQ(d.hardware.memory.timing.tRP_ns, hw::DramTiming{}.tRP_ns);
  EXPECT_EQ(d.system.devices, 4);
  ASSERT_EQ(d.system.levels.size(), 1u);
  EXPECT_EQ(d.system.levels[0].topology, hw::Topology::ring);
  EXPECT_DOUBLE_EQ(d.system.levels[0].link_GBps, hw::NetworkLevel{}.link_GBps);
}

TEST(Project, ErrorsInsideABaseMergeNameTheProjectPath) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["hardware"] = {{"base", "test-gpu"}, {"compute", {{"cores", "many"}}}};
  const auto issues = parse_issues(doc, r);
  ASSERT_EQ(issues.size(), 1u) << format_issues(issues);
  EXPECT_EQ(issues[0].path, "/hardware/compute/cores");
}

TEST(Project, UnknownKeyNamesPathSuggestionAndKnownKeys) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["hardware"] = {{"base", "test-gpu"}, {"compute", {{"cors", 4}}}};
  const auto issues = parse_issues(doc, r);
  ASSERT_EQ(issues.size(), 1u) << format_issues(issues);
  const auto& i = issues[0];
  EXPECT_EQ(i.path, "/hardware/compute/cors");
  EXPECT_TRUE(contains(i.message, "unknown key 'cors'")) << i.message;
  EXPECT_TRUE(contains(i.message, "did you mean 'cores'?")) << i.message;
  EXPECT_TRUE(contains(i.allowed, "known keys: cores, clock_GHz,")) << i.allowed;
  EXPECT_TRUE(contains(format_issue(i), "allowed: known keys:")) << format_issue(i);
}

TEST(Project, UnknownTopLevelAndSectionKeys) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["serach"] = ordered_json::object();  // "search" is a known (optional) section
  doc["workload"]["batchsize"] = 4;
  doc["parallel"]["sp"] = 2;
  const auto issues = parse_issues(doc, r);
  EXPECT_EQ(issues.size(), 3u) << format_issues(issues);
  EXPECT_TRUE(contains(issue_at(issues, "/serach").allowed, "hardware"));
  EXPECT_TRUE(contains(issue_at(issues, "/serach").message, "did you mean 'search'"));
  EXPECT_TRUE(contains(issue_at(issues, "/workload/batchsize").message, "did you mean 'batch'"));
  EXPECT_TRUE(contains(issue_at(issues, "/parallel/sp").allowed, "tp, pp, dp, ep"));
}

TEST(Project, WrongTypesNameExpectedAndActual) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["hardware"] = {{"compute", {{"cores", "x"}, {"clock_GHz", true}}}};
  doc["workload"]["batch_auto"] = 1;
  doc["workload"]["numerics"] = "bf16";
  doc["model"] = {{"name", 7}};
  doc["system"] = {{"levels", {{"size", 4}}}};  // an object, not an array of objects
  const auto issues = parse_issues(doc, r);
  EXPECT_EQ(issues.size(), 6u) << format_issues(issues);
  const auto cores = issue_at(issues, "/hardware/compute/cores");
  EXPECT_EQ(cores.message, "expected integer, got string");
  EXPECT_EQ(cores.value, "\"x\"");
  EXPECT_EQ(cores.allowed, "integer");
  EXPECT_EQ(issue_at(issues, "/hardware/compute/clock_GHz").message,
            "expected number, got boolean");
  EXPECT_EQ(issue_at(issues, "/workload/batch_auto").allowed, "true or false");
  EXPECT_EQ(issue_at(issues, "/workload/numerics").message, "expected object, got string");
  EXPECT_EQ(issue_at(issues, "/model/name").message, "expected string, got integer");
  EXPECT_EQ(issue_at(issues, "/system/levels").message, "expected array, got object");
}

TEST(Project, IntegersMustBeIntegral) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["workload"]["batch"] = 2.5;
  doc["workload"]["input_len"] = 1e12;
  doc["workload"]["routing"] = {{"seed", -1}};
  const auto issues = parse_issues(doc, r);
  EXPECT_EQ(issues.size(), 3u) << format_issues(issues);
  EXPECT_EQ(issue_at(issues, "/workload/batch").message,
            "expected integer, got non-integer number");
  EXPECT_EQ(issue_at(issues, "/workload/batch").value, "2.5");
  EXPECT_TRUE(contains(issue_at(issues, "/workload/input_len").allowed, "2147483647"));
  EXPECT_EQ(issue_at(issues, "/workload/routing/seed").allowed, "integer >= 0");

  // An integral value written as a float is still that integer.
  doc = minimal_project();
  doc["workload"]["batch"] = 8.0;
  EXPECT_EQ(parse_project(doc.dump(), r).workload.batch, 8);
}

TEST(Project, NonFiniteNumbersAreRejected) {
  const auto r = test_registry();
  // JSON has no NaN/Infinity literals: they are syntax errors, with the line.
  auto nan_text = minimal_project().dump(2);
  nan_text.replace(nan_text.find("\"batch\": 2"), 10, "\"batch\": NaN");
  auto issues = parse_issues(nan_text, r);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_TRUE(contains(issues[0].message, "JSON syntax error")) << issues[0].message;
  // Numbers beyond double range overflow to inf; that is an error too, with the line.
  auto inf_text = minimal_project().dump(2);
  inf_text.replace(inf_text.find("\"batch\": 2"), 10, "\"batch\": 1e400");
  issues = parse_issues(inf_text, r);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_TRUE(contains(issues[0].message, "out of range")) << issues[0].message;
  EXPECT_TRUE(contains(issues[0].message, "line 8, column 14")) << issues[0].message;
}

TEST(Project, BadEnumStringsListTheAllowedValues) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["model"] = {{"attention", "mqa"}, {"ffn", "relu"}};
  doc["workload"]["numerics"] = {{"weights", "fp16"}, {"kv_cache", "FP8"}};
  doc["workload"]["routing"] = {{"kind", 3}};
  // The enumerator switch_fabric is spelled "switch" in files; the C++ name is not accepted.
  doc["system"] = {{"levels", {{{"topology", "switch_fabric"}}}}};
  const auto issues = parse_issues(doc, r);
  EXPECT_EQ(issues.size(), 5u) << format_issues(issues);
  const auto att = issue_at(issues, "/model/attention");
  EXPECT_EQ(att.message, "unknown attention kind 'mqa'");
  EXPECT_EQ(att.allowed, "one of: mha, gqa, mla");
  EXPECT_EQ(issue_at(issues, "/model/ffn").allowed, "one of: swiglu, gelu");
  EXPECT_EQ(issue_at(issues, "/workload/numerics/kv_cache").allowed,
            "one of: fp32, fp16, bf16, fp8, int8, fp4");
  EXPECT_EQ(issue_at(issues, "/workload/routing/kind").allowed,
            "one of: uniform, zipf, dirichlet, trace");
  EXPECT_EQ(issue_at(issues, "/system/levels/0/topology").allowed,
            "one of: switch, ring, mesh2d, torus2d, fully_connected");
}

TEST(Project, MissingRequiredSectionsAreAllReported) {
  const auto r = test_registry();
  const auto issues = parse_issues(R"({"schema_version": 1, "system": "test-x4"})", r);
  ASSERT_EQ(issues.size(), 4u) << format_issues(issues);
  for (const char* section : {"/hardware", "/model", "/workload", "/parallel"})
    EXPECT_TRUE(contains(issue_at(issues, section).message, "missing required section"));
}

TEST(Project, SchemaVersionIsRequiredAndBounded) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc.erase("schema_version");
  auto issues = parse_issues(doc, r);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "/schema_version");
  EXPECT_EQ(issues[0].message, "missing schema_version");

  doc["schema_version"] = perf::kSchemaVersion + 1;
  doc["new_section"] = "from the future";  // not reported: the version stops parsing first
  issues = parse_issues(doc, r);
  ASSERT_EQ(issues.size(), 1u) << format_issues(issues);
  EXPECT_EQ(issues[0].path, "/schema_version");
  EXPECT_TRUE(contains(issues[0].message, "newer StackScope")) << issues[0].message;
  EXPECT_EQ(issues[0].allowed, "integer in [1, " + std::to_string(perf::kSchemaVersion) + "]");

  doc = minimal_project();
  doc["schema_version"] = 0;
  EXPECT_EQ(issue_at(parse_issues(doc, r), "/schema_version").message, "invalid schema_version");
  doc["schema_version"] = "1";
  EXPECT_EQ(parse_issues(doc, r).size(), 1u);
}

TEST(Project, PresetSchemaVersionTooNewIsAnError) {
  PresetRegistry r;
  try {
    r.add_json(PresetKind::hardware, "future", R"({"schema_version": 99})");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].path, "/schema_version");
  }
  // Inline sections are checked too.
  auto doc = minimal_project();
  doc["hardware"] = {{"schema_version", perf::kSchemaVersion + 1}};
  const auto reg = test_registry();
  EXPECT_EQ(issue_at(parse_issues(doc, reg), "/hardware/schema_version").value,
            std::to_string(perf::kSchemaVersion + 1));
}

TEST(Project, PresetMetadataKeysAreAllowed) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["kind"] = "project";
  doc["id"] = "p";
  doc["source"] = "test";
  doc["notes"] = "free text";
  doc["hardware"] = {{"kind", "hardware"}, {"schema_version", 1}, {"notes", "n"}};
  doc["system"] = {{"kind", "system"},
                   {"source", "s"},
                   {"notes", "n"},
                   {"devices", 4},
                   {"levels", {{{"size", 4}}}}};
  doc["model"] = {{"base", "test-dense"}, {"notes", "n"}, {"source", "paper"}};
  doc["workload"]["notes"] = "n";
  doc["parallel"]["notes"] = "n";
  const auto d = parse_project(doc.dump(), r);
  EXPECT_EQ(d.model.source, "paper");
}

TEST(Project, KindMismatchIsAnError) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["hardware"] = {{"kind", "model"}};
  const auto issue = issue_at(parse_issues(doc, r), "/hardware/kind");
  EXPECT_EQ(issue.allowed, "\"hardware\"");
}

TEST(Project, UnknownPresetIdsListTheKnownOnes) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["hardware"] = "h100-sxmm";
  doc["model"] = {{"base", "nope"}};
  doc["system"] = 4;
  const auto issues = parse_issues(doc, r);
  ASSERT_EQ(issues.size(), 3u) << format_issues(issues);
  const auto hw = issue_at(issues, "/hardware");
  EXPECT_EQ(hw.message, "unknown hardware preset 'h100-sxmm'");
  EXPECT_EQ(hw.allowed, "one of: test-gpu");
  EXPECT_EQ(issue_at(issues, "/model/base").allowed, "one of: test-dense, test-moe");
  EXPECT_TRUE(contains(issue_at(issues, "/system").message, "got integer"));
}

TEST(Project, AllIssuesAreCollectedInOneError) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["hardware"] = {{"compute", {{"cores", "x"}, {"cors", 1}}}, {"memory", {{"kind", "ddr"}}}};
  doc["model"] = "missing-model";
  doc["workload"]["batch"] = true;
  doc["parallel"]["tp"] = 1.5;
  try {
    (void)parse_project(doc.dump(), r);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.issues().size(), 6u) << e.what();
    // what() has one line per issue.
    const std::string what = e.what();
    EXPECT_EQ(std::count(what.begin(), what.end(), '\n'), 5);
  }
}

TEST(Project, SyntaxErrorsReportLineAndColumn) {
  const auto r = test_registry();
  const std::string text = "{\n  \"schema_version\": 1,\n  \"name\": ,\n}";
  const auto issues = parse_issues(text, r);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "");
  EXPECT_TRUE(contains(issues[0].message, "JSON syntax error in project at line 3, column 11"))
      << issues[0].message;
  EXPECT_EQ(issues[0].allowed, "valid JSON (RFC 8259)");

  const auto eof = parse_issues("{\"schema_version\": 1", r);
  ASSERT_EQ(eof.size(), 1u);
  EXPECT_TRUE(contains(eof[0].message, "line 1, column 21")) << eof[0].message;
  EXPECT_TRUE(contains(parse_issues("", r).at(0).message, "line 1, column 1"));
  EXPECT_TRUE(contains(parse_issues("[1, 2]", r).at(0).message, "must be a JSON object"));
}

TEST(Project, DuplicateKeysAreErrors) {
  const auto r = test_registry();
  auto text = minimal_project().dump(2);
  text.replace(text.find("\"batch\": 2"), 10, "\"batch\": 2, \"batch\": 3");
  const auto issues = parse_issues(text, r);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "/workload/batch");
  EXPECT_TRUE(contains(issues[0].message, "duplicate key 'batch'"));

  auto arr = minimal_project();
  arr["system"] = ordered_json::parse(R"({"levels": [{"size": 2}, {"size": 4}]})");
  text = arr.dump();
  text.replace(text.find("\"size\":4"), 8, "\"size\":4,\"size\":5");
  EXPECT_EQ(parse_issues(text, r).at(0).path, "/system/levels/1/size");
}

TEST(Project, LoadProjectReadsFilesAndResolvesTracesBesideThem) {
  testing::TempDir dir("io-load");
  std::filesystem::create_directories(dir.path() / "traces");
  { std::ofstream(dir.path() / "traces" / "t.json") << R"({"0": [[0, 1], [1, 2]]})"; }
  auto doc = minimal_project();
  doc["model"] = "test-moe";
  doc["parallel"] = {{"tp", 1}, {"ep", 4}};
  doc["workload"]["routing"] = {{"kind", "trace"}, {"trace", "traces/t.json"}};
  const auto file = dir.path() / "p.json";
  { std::ofstream(file) << doc.dump(2); }
  const auto r = test_registry();
  const auto d = load_project(file, r);
  EXPECT_EQ(d.workload.routing.trace, "traces/t.json");  // kept relative, as written
  ASSERT_EQ(d.workload.routing.expert_frequency.size(), 1u);
  EXPECT_DOUBLE_EQ(d.workload.routing.expert_frequency[0][1], 1.0);
  EXPECT_DOUBLE_EQ(d.workload.routing.expert_frequency[0][0], 0.5);

  // The trace kind without a file, and a missing file, are reported at the trace path.
  doc["workload"]["routing"]["trace"] = "";
  EXPECT_TRUE(contains(issue_at(parse_issues(doc, r), "/workload/routing/trace").message,
                       "needs a trace file"));
  doc["workload"]["routing"]["trace"] = "traces/none.json";
  EXPECT_TRUE(
      contains(issue_at(parse_issues(doc.dump(), r, dir.path()), "/workload/routing/trace").message,
               "file not found"));

  try {
    (void)load_project(dir.path() / "absent.json", r);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "absent.json"));
  }
  { std::ofstream(file) << "{\n\n  oops\n}"; }
  try {
    (void)load_project(file, r);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "p.json' at line 3, column 3")) << e.what();
  }
}

// Serialisation ------------------------------------------------------------------------------

perf::Design unusual_design() {
  perf::Design d;
  d.name = "round \"trip\" \xc3\xbc";
  d.hardware.id = "hw";
  d.hardware.compute.cores = 77;
  d.hardware.compute.clock_GHz = 0.1 + 0.2;  // not exactly representable in short decimal
  d.runtime.matmul_efficiency = 1.0 / 3.0;
  d.hardware.memory.kind = hw::MemoryKind::stacked_3d;
  d.hardware.memory.vertical.kind = hw::VerticalLinkKind::hybrid_bond;
  d.hardware.memory.timing.tRFC_ns = 1e-300;
  d.hardware.energy.tdp_W = 123456789.123456789;
  d.hardware.runtime_reserved_GiB = -0.0;
  d.system.devices = 8;
  d.system.levels.resize(2);
  d.system.levels[0].topology = hw::Topology::torus2d;
  d.system.levels[1].topology = hw::Topology::fully_connected;
  d.system.levels[1].size = 0;
  d.system.levels[1].in_network_reduction = true;
  d.model.attention = workload::AttentionKind::mla;
  d.model.ffn = workload::FfnKind::gelu;
  d.model.parallel_attention = true;
  d.model.mla.q_lora_rank = 1536;
  d.model.moe.experts = 64;
  d.workload.batch_auto = true;
  d.workload.numerics.kv_cache = Precision::fp4;
  d.workload.routing.kind = workload::RoutingKind::dirichlet;
  d.workload.routing.dirichlet_alpha = 0.05;
  d.workload.routing.seed = 0xFFFFFFFFFFFFFFFFull;
  d.system.levels[0].dims_x = 2;
  d.system.levels[0].dims_y = 4;
  d.system.levels[0].hop_latency_ns = 12.5;
  d.system.levels[1].in_network_efficiency = 0.7;
  d.parallel = parallel::Plan{};
  d.parallel.tp = 2;
  d.parallel.pp = 2;
  d.parallel.ep = 2;
  d.parallel.cp = 3;
  d.parallel.sequence_parallel = true;
  d.parallel.micro_batches = 7;
  d.parallel.placement = "ep,tp,cp,dp,pp";
  d.parallel.attention = {4, 0};
  d.parallel.dense_ffn = {1, 0};
  d.parallel.moe = {1, 12};
  d.parallel.redundant_experts_per_rank = 1;
  d.parallel.experts = {
      parallel::ExpertStrategy::hd_dynamic, 2, 0.375, 64, 7, 512, 0xFFFFFFFFFFFFFFF0ull};
  d.parallel.overlap = parallel::Overlap::auto_tiles;
  d.parallel.overlap_tiles = 16;
  return d;
}

TEST(Serialise, ProjectToJsonRoundTripsExactly) {
  const auto r = test_registry();
  const auto d = unusual_design();
  const auto text = project_to_json(d);
  const auto back = parse_project(text, r);
  EXPECT_EQ(project_to_json(back), text);
  // Spot checks: the doubles are bit-identical, not merely close.
  EXPECT_EQ(back.hardware.compute.clock_GHz, d.hardware.compute.clock_GHz);
  EXPECT_EQ(back.runtime.matmul_efficiency, d.runtime.matmul_efficiency);
  EXPECT_EQ(back.hardware.memory.timing.tRFC_ns, d.hardware.memory.timing.tRFC_ns);
  EXPECT_EQ(back.hardware.energy.tdp_W, d.hardware.energy.tdp_W);
  EXPECT_TRUE(std::signbit(back.hardware.runtime_reserved_GiB));
  EXPECT_EQ(back.name, d.name);
  EXPECT_EQ(back.system.levels[1].size, 0);
  EXPECT_TRUE(back.system.levels[1].in_network_reduction);
  EXPECT_EQ(back.workload.routing.seed, d.workload.routing.seed);
  EXPECT_EQ(back.parallel.micro_batches, 7);
  EXPECT_EQ(back.hardware.memory.vertical.kind, hw::VerticalLinkKind::hybrid_bond);
  EXPECT_EQ(back.system.levels[0].dims_x, 2);
  EXPECT_EQ(back.system.levels[0].dims_y, 4);
  EXPECT_EQ(back.system.levels[0].hop_latency_ns, 12.5);
  EXPECT_EQ(back.system.levels[1].in_network_efficiency, 0.7);
  EXPECT_EQ(back.parallel.cp, 3);
  EXPECT_TRUE(back.parallel.sequence_parallel);
  EXPECT_EQ(back.parallel.placement, "ep,tp,cp,dp,pp");
  EXPECT_EQ(back.parallel.attention.tp, 4);
  EXPECT_EQ(back.parallel.dense_ffn.tp, 1);
  EXPECT_EQ(back.parallel.moe.ep, 12);
  EXPECT_EQ(back.parallel.redundant_experts_per_rank, 1);
  EXPECT_EQ(back.parallel.experts, d.parallel.experts);  // "strategy": "hd-dynamic", ...
  EXPECT_NE(text.find("\"hd-dynamic\""), std::string::npos);
  EXPECT_EQ(back.parallel.overlap, parallel::Overlap::auto_tiles);
  EXPECT_EQ(back.parallel.overlap_tiles, 16);

  const auto j = ordered_json::parse(text);
  EXPECT_EQ(j["schema_version"], perf::kSchemaVersion);
  EXPECT_EQ(j["system"]["levels"][0]["topology"], "torus2d");
  EXPECT_FALSE(j["workload"]["routing"].contains("expert_frequency"));
  // Overlap::auto_tiles is spelled "auto"; module plans are nested objects.
  EXPECT_EQ(j["parallel"]["overlap"], "auto");
  EXPECT_EQ(j["parallel"]["moe"], ordered_json::parse(R"({"tp": 1, "ep": 12})"));
}

// A stack described layer by layer (hw::Memory::layers): written, read back bit-identical;
// a die's unknown key or wrong type is refused with its path, and its ranges by validate().
TEST(Serialise, PerLayerStackRoundTrips) {
  const auto r = test_registry();
  perf::Design d;
  auto& m = d.hardware.memory;
  m.kind = hw::MemoryKind::stacked_3d;
  m.layers = {{true, 45.5, 0, 0}, {false, 0, 3.25, 12.5}, {true, 0, 0, 0}};
  m.layers_total = 3;
  m.layers_connected = 2;
  const auto text = project_to_json(d);
  const auto back = parse_project(text, r);
  EXPECT_EQ(project_to_json(back), text);
  ASSERT_EQ(back.hardware.memory.layers.size(), 3u);
  EXPECT_FALSE(back.hardware.memory.layers[1].connected);
  EXPECT_EQ(back.hardware.memory.layers[0].thickness_um, 45.5);
  EXPECT_EQ(back.hardware.memory.layers[1].capacity_GiB, 3.25);
  EXPECT_EQ(back.hardware.memory.layers[1].pitch_um, 12.5);
  EXPECT_TRUE(perf::validate(back).empty()) << format_issues(perf::validate(back));
  const auto j = ordered_json::parse(text);
  EXPECT_EQ(j["hardware"]["memory"]["layers"][1]["connected"], false);
}

TEST(Project, PerLayerKeysAndValuesAreCheckedByPath) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["hardware"] = ordered_json::parse(R"({"base": "test-gpu", "memory": {
      "kind": "stacked_3d", "layers_total": 2, "layers_connected": 1,
      "layers": [{"connected": true, "thicknes_um": 80}, {"connected": "no", "pitch_um": "9"}]}})");
  const auto issues = parse_issues(doc, r);
  EXPECT_EQ(issues.size(), 3u) << format_issues(issues);
  const auto typo = issue_at(issues, "/hardware/memory/layers/0/thicknes_um");
  EXPECT_TRUE(contains(typo.message, "did you mean 'thickness_um'?")) << typo.message;
  EXPECT_TRUE(contains(typo.allowed, "connected, thickness_um, capacity_GiB, pitch_um"))
      << typo.allowed;
  EXPECT_EQ(issue_at(issues, "/hardware/memory/layers/1/connected").allowed, "true or false");
  EXPECT_EQ(issue_at(issues, "/hardware/memory/layers/1/pitch_um").message,
            "expected number, got string");
  doc["hardware"]["memory"]["layers"] = ordered_json::parse(
      R"([{"connected": true, "thickness_um": 1500}, {"connected": false, "pitch_um": -1}])");
  const auto d = parse_project(doc.dump(), r);
  const auto v = perf::validate(d);
  EXPECT_EQ(issue_at(v, "/hardware/memory/layers/0/thickness_um").allowed, "number in [0, 1000]");
  EXPECT_EQ(issue_at(v, "/hardware/memory/layers/1/pitch_um").allowed, "finite number >= 0");
  // A list that disagrees with the counts names the count.
  doc["hardware"]["memory"]["layers_total"] = 4;
  const auto v4 = perf::validate(parse_project(doc.dump(), r));
  EXPECT_TRUE(contains(issue_at(v4, "/hardware/memory/layers_total").message,
                       "number of entries in layers"));
}

TEST(Project, ParallelPlanKeys) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["parallel"] = ordered_json::parse(R"({"tp": 2, "cp": 2, "sequence_parallel": true,
      "placement": "cp,tp,ep,pp,dp", "attention": {"tp": 4}, "dense_ffn": {"tp": 1},
      "moe": {"tp": 1, "ep": 4}, "redundant_experts_per_rank": 2, "overlap": "fixed",
      "overlap_tiles": 8})");
  const auto d = parse_project(doc.dump(), r);
  EXPECT_EQ(d.parallel.tp, 2);
  EXPECT_EQ(d.parallel.cp, 2);
  EXPECT_TRUE(d.parallel.sequence_parallel);
  EXPECT_EQ(d.parallel.placement, "cp,tp,ep,pp,dp");
  EXPECT_EQ(d.parallel.attention.tp, 4);
  EXPECT_EQ(d.parallel.attention.ep, 0);  // absent: derived
  EXPECT_EQ(d.parallel.dense_ffn.tp, 1);
  EXPECT_EQ(d.parallel.moe.tp, 1);
  EXPECT_EQ(d.parallel.moe.ep, 4);
  EXPECT_EQ(d.parallel.redundant_experts_per_rank, 2);
  EXPECT_EQ(d.parallel.overlap, parallel::Overlap::fixed);
  EXPECT_EQ(d.parallel.overlap_tiles, 8);
  // A file without the new keys keeps the defaults.
  const auto old = parse_project(minimal_project().dump(), r);
  EXPECT_EQ(old.parallel.cp, 1);
  EXPECT_EQ(old.parallel.placement, "tp,ep,cp,pp,dp");
  EXPECT_EQ(old.parallel.overlap, parallel::Overlap::off);

  doc["parallel"] = ordered_json::parse(
      R"({"overlap": "auto_tiles", "moe": {"tp": 1, "dp": 2}, "attention": 4, "cp": "2"})");
  const auto issues = parse_issues(doc, r);
  EXPECT_EQ(issues.size(), 4u) << format_issues(issues);
  const auto overlap = issue_at(issues, "/parallel/overlap");
  EXPECT_EQ(overlap.message, "unknown overlap mode 'auto_tiles'");
  EXPECT_EQ(overlap.allowed, "one of: off, fixed, auto");
  EXPECT_TRUE(contains(issue_at(issues, "/parallel/moe/dp").message, "unknown key"));
  EXPECT_TRUE(contains(issue_at(issues, "/parallel/attention").message, "expected object"));
  EXPECT_TRUE(contains(issue_at(issues, "/parallel/cp").message, "expected integer"));
}

TEST(Project, NetworkLevelKeys) {
  const auto r = test_registry();
  auto doc = minimal_project();
  doc["system"] = ordered_json::parse(R"({"devices": 4, "levels": [{"topology": "mesh2d",
      "size": 4, "dims_x": 1, "dims_y": 4, "hop_latency_ns": 20, "latency_us": 0.5,
      "in_network_efficiency": 0.5}]})");
  const auto d = parse_project(doc.dump(), r);
  const auto& l = d.system.levels.at(0);
  EXPECT_EQ(l.dims_x, 1);
  EXPECT_EQ(l.dims_y, 4);
  EXPECT_EQ(l.hop_latency_ns, 20.0);
  EXPECT_EQ(l.latency_us, 0.5);
  EXPECT_EQ(l.in_network_efficiency, 0.5);
}

TEST(Serialise, ExpertFrequencyIsNeverWritten) {
  auto d = unusual_design();
  d.workload.routing.kind = workload::RoutingKind::trace;
  d.workload.routing.trace = "traces/math.json";
  d.workload.routing.expert_frequency = {{1.0, 1.0}};
  const auto j = ordered_json::parse(project_to_json(d));
  EXPECT_EQ(j["workload"]["routing"]["trace"], "traces/math.json");
  EXPECT_FALSE(j["workload"]["routing"].contains("expert_frequency"));
}

TEST(Serialise, NonFiniteValuesBecomeNullAndFailToParse) {
  auto d = unusual_design();
  d.hardware.compute.clock_GHz = std::numeric_limits<double>::quiet_NaN();
  const auto text = project_to_json(d);
  EXPECT_TRUE(ordered_json::parse(text)["hardware"]["compute"]["clock_GHz"].is_null());
  const auto r = test_registry();
  EXPECT_EQ(issue_at(parse_issues(text, r), "/hardware/compute/clock_GHz").message,
            "expected number, got null");
}

TEST(Serialise, PresetWritersProduceLoadablePresets) {
  auto d = unusual_design();
  d.model.id = "m";
  PresetRegistry r;
  r.add_json(PresetKind::hardware, "h", hardware_to_json(d.hardware));
  r.add_json(PresetKind::system, "s", system_to_json(d.system));
  r.add_json(PresetKind::model, "m", model_to_json(d.model));
  EXPECT_EQ(hardware_to_json(r.hardware("h")), hardware_to_json(d.hardware));
  auto s = d.system;
  s.id = "s";  // no id in the file: the registry id
  EXPECT_EQ(system_to_json(r.system("s")), system_to_json(s));
  EXPECT_EQ(model_to_json(r.model("m")), model_to_json(d.model));
  EXPECT_EQ(ordered_json::parse(model_to_json(d.model))["kind"], "model");
  EXPECT_EQ(r.hardware("h").id, "hw");  // the id in the file wins over the registry id
}

// Counts the members of an aggregate (C++20: the most initialisers T{...} accepts).
struct AnyMember {
  template <class T>
  operator T() const;  // never defined; only used in unevaluated contexts
};
template <class T, class... A>
constexpr std::size_t member_count() {
  if constexpr (requires { T{std::declval<A>()..., AnyMember{}}; })
    return member_count<T, A..., AnyMember>();
  else
    return sizeof...(A);
}

// A member added to a shared config struct must be added to core/io/src/mapping.hpp, or it
// would silently not be saved; this catches that.
TEST(Serialise, EveryStructMemberHasAJsonKey) {
  perf::Design d;
  d.system.levels.resize(1);
  const auto j = ordered_json::parse(project_to_json(d));
  const auto& h = j["hardware"];
  // Without a wafer there is no "wafer" key; with one, "system" is left out (derived).
  EXPECT_EQ(j.size() + 1, member_count<perf::Design>());
  perf::Design wd = d;
  wd.wafer = hw::Wafer{};
  const auto jw = ordered_json::parse(project_to_json(wd));
  EXPECT_EQ(jw.size() + 1, member_count<perf::Design>());
  EXPECT_FALSE(jw.contains("system"));
  EXPECT_EQ(jw["wafer"].size(), member_count<hw::Wafer>());
  // hw::Hardware::kernel_times (the loaded table) is derived from the "kernel_table" key
  // (docs/model.md §3.5): every other member has a key.
  EXPECT_EQ(h.size() + 1, member_count<hw::Hardware>());
  EXPECT_TRUE(h.contains("kernel_table"));
  EXPECT_EQ(h["compute"].size(), member_count<hw::ComputeDie>());
  // A uniform stack writes no "layers" (its files stay as they were); a per-layer one does.
  EXPECT_EQ(h["memory"].size() + 1, member_count<hw::Memory>());
  EXPECT_FALSE(h["memory"].contains("layers"));
  perf::Design ld = d;
  ld.hardware.memory.layers.resize(1);
  const auto jl = ordered_json::parse(project_to_json(ld));
  EXPECT_EQ(jl["hardware"]["memory"].size(), member_count<hw::Memory>());
  EXPECT_EQ(jl["hardware"]["memory"]["layers"][0].size(), member_count<hw::DramLayer>());
  EXPECT_EQ(h["memory"]["timing"].size(), member_count<hw::DramTiming>());
  EXPECT_EQ(h["memory"]["vertical"].size(), member_count<hw::VerticalLink>());
  EXPECT_EQ(h["noc"].size(), member_count<hw::Noc>());
  EXPECT_EQ(j["runtime"].size(), member_count<runtime::Profile>());
  EXPECT_EQ(h["energy"].size(), member_count<hw::Energy>());
  EXPECT_EQ(j["system"].size(), member_count<hw::System>());
  EXPECT_EQ(j["system"]["levels"][0].size(), member_count<hw::NetworkLevel>());
  EXPECT_EQ(j["model"].size(), member_count<workload::Model>());
  EXPECT_EQ(j["model"]["mla"].size(), member_count<workload::Mla>());
  EXPECT_EQ(j["model"]["moe"].size(), member_count<workload::Moe>());
  EXPECT_EQ(j["workload"].size(), member_count<workload::Workload>());
  EXPECT_EQ(j["workload"]["numerics"].size(), member_count<workload::Numerics>());
  // expert_frequency is derived from `trace` and deliberately not serialised.
  EXPECT_EQ(j["workload"]["routing"].size() + 1, member_count<workload::Routing>());
  EXPECT_EQ(j["parallel"].size(), member_count<parallel::Plan>());
  for (const char* module : {"attention", "dense_ffn", "moe"})
    EXPECT_EQ(j["parallel"][module].size(), member_count<parallel::ModulePlan>()) << module;
}

// perf::validate() paths must name fields of the file the user edits: every pointer it
// reports has to resolve in the project JSON.
TEST(Serialise, ValidatePathsResolveInTheProjectJson) {
  perf::Design d;
  d.hardware.compute.cores = 0;
  d.runtime.matmul_efficiency = 2;
  d.runtime.host_launch_us = -1;
  d.hardware.memory.kind = hw::MemoryKind::stacked_3d;
  d.hardware.memory.layers_connected = 99;
  d.hardware.memory.vertical.signal_fraction = 0;
  d.hardware.memory.timing.tRFC_ns = 1e9;
  d.hardware.noc.mesh_y = 0;
  d.hardware.energy.static_power_W = 1e6;
  d.system.devices = 6;
  d.system.levels.resize(2);
  d.system.levels[0].size = 0;
  d.system.levels[1].efficiency = 0;
  d.model.attention = workload::AttentionKind::mla;
  d.model.mla.kv_lora_rank = 0;
  d.model.moe.experts = 6;
  d.model.moe.top_k = 7;
  d.model.moe.expert_ffn_dim = 5;
  d.workload.input_len = 0;
  d.workload.routing.kind = workload::RoutingKind::trace;
  d.system.levels[0].dims_x = 3;
  d.system.levels[0].hop_latency_ns = -1;
  d.system.levels[1].in_network_efficiency = 2;
  d.parallel = parallel::Plan{};
  d.parallel.tp = 4;
  d.parallel.pp = 40;
  d.parallel.ep = 4;
  d.parallel.cp = 0;
  d.parallel.micro_batches = -1;
  d.parallel.placement = "tp";
  d.parallel.attention = {-1, 2};
  d.parallel.dense_ffn = {-1, 2};
  d.parallel.moe = {-1, -1};
  d.parallel.redundant_experts_per_rank = -1;
  d.parallel.overlap_tiles = 0;
  const auto issues = perf::validate(d);
  ASSERT_GE(issues.size(), 25u) << format_issues(issues);
  const auto j = ordered_json::parse(project_to_json(d));
  for (const auto& i : issues)
    EXPECT_TRUE(j.contains(ordered_json::json_pointer(i.path))) << format_issue(i);
}

// Result JSON --------------------------------------------------------------------------------

TEST(ResultJson, HasTheDocumentedShapeAndNoInvalidNumbers) {
  perf::Design d;
  d.name = "x";
  perf::Result res;
  res.feasible = false;
  res.reasons = perf::kMemoryCapacity | perf::kPowerOverTdp;
  res.batch = 16;
  res.clock_scale = 0.9;
  res.metrics.ttft_s = 0.25;
  res.metrics.tpot_s = std::numeric_limits<double>::infinity();
  res.metrics.utps = std::numeric_limits<double>::quiet_NaN();
  res.memory.weights = 10;
  res.memory.kv_cache = 5;
  res.prefill.op_s[static_cast<std::size_t>(perf::OpClass::attention)] = 0.125;
  res.decode.resource_s[static_cast<std::size_t>(perf::Resource::vertical_link)] = 0.5;
  res.decode.energy_J = 3;
  const auto text = result_to_json(d, res);
  const auto j = ordered_json::parse(text);  // valid JSON despite inf/NaN
  EXPECT_EQ(j["design"], "x");
  EXPECT_EQ(j["feasible"], false);
  EXPECT_EQ(j["reasons"].size(), 2u);
  EXPECT_EQ(j["batch"], 16);
  EXPECT_EQ(j["clock_scale"], 0.9);
  for (const char* key : {"ttft_s", "tpot_s", "utps", "stps", "e2e_output_tokens_per_s",
                          "energy_per_token_j", "prefill_energy_per_token_j",
                          "decode_energy_per_token_j", "power_w", "memory_bytes_per_device"})
    EXPECT_TRUE(j["metrics"].contains(key)) << key;
  EXPECT_EQ(j["metrics"].size(), 10u);
  EXPECT_TRUE(j["metrics"]["tpot_s"].is_null());
  EXPECT_TRUE(j["metrics"]["utps"].is_null());
  EXPECT_EQ(j["memory"]["total"], 15.0);
  for (const char* phase : {"prefill", "decode"}) {
    const auto& p = j["breakdown"][phase];
    EXPECT_EQ(p["ops"].size(), perf::kOpClasses);
    EXPECT_EQ(p["resources"].size(), perf::kResources);
    for (const char* key : {"time_s", "flops", "dram_bytes", "comm_bytes", "energy_J", "power_W",
                            "clock_scale", "clock_MHz"})
      EXPECT_TRUE(p.contains(key)) << key;
  }
  EXPECT_EQ(j["breakdown"]["prefill"]["ops"]["attention"], 0.125);
  EXPECT_EQ(j["breakdown"]["decode"]["resources"]["vertical_link"], 0.5);
  EXPECT_EQ(j["breakdown"]["decode"]["energy_J"], 3.0);
  // indent < 0 gives one line.
  EXPECT_EQ(result_to_json(d, res, -1).find('\n'), std::string::npos);
}

TEST(ResultJson, PowerPerLayerAndThrottle) {
  perf::Design d;
  perf::Result res;
  res.thermal.modelled = true;
  res.thermal.dram_peak_C = 94.8;
  res.thermal.throttle = 0.75;
  res.reasons = perf::kThermalThrottled;
  auto& p = res.power;
  p.logic_dynamic_W = 100;
  p.logic_static_W = 30;
  p.noc_W = 10;
  p.vertical_W = 3;
  p.dram_access_W = 40;
  p.dram_background_W = 4;
  p.total_W = 187;
  p.dram_layers = 4;
  p.connected_layers = 2;
  const auto j = ordered_json::parse(result_to_json(d, res));
  EXPECT_EQ(j["thermal"]["throttle"], 0.75);
  EXPECT_EQ(j["reasons"].size(), 1u);
  const auto& layers = j["power"]["layers"];
  ASSERT_EQ(layers.size(), 1u + 2u * 4u);  // logic, then bond k / dram k for k = 1..4
  EXPECT_EQ(layers[0]["name"], "logic");
  EXPECT_DOUBLE_EQ(layers[0]["W"].get<double>(), 140.0);
  EXPECT_EQ(layers[1]["name"], "bond1");
  EXPECT_DOUBLE_EQ(layers[1]["W"].get<double>(), 2.0);   // carries both connected dies: 2/3
  EXPECT_DOUBLE_EQ(layers[3]["W"].get<double>(), 1.0);   // bond2: 1/3
  EXPECT_DOUBLE_EQ(layers[2]["W"].get<double>(), 21.0);  // dram1: 40/2 + 4/4
  EXPECT_DOUBLE_EQ(layers[8]["W"].get<double>(), 1.0);   // dram4: background only
  double sum = 0;
  for (const auto& l : layers) sum += l["W"].get<double>();
  EXPECT_DOUBLE_EQ(sum, 187.0);
}

TEST(ResultJson, NetworkSectionsOnRequest) {
  perf::Design d;
  d.system.levels.resize(2);
  d.system.levels[0].name = "mesh";
  d.system.levels[1].name = "torus";
  perf::Result res;
  res.metrics.ttft_s = 2.0;
  res.metrics.tpot_s = 0.02;
  perf::NetworkReport n;
  auto link = [](const char* from, const char* to, int level, double bytes, double util,
                 double pbytes, double putil) {
    perf::LinkUse l;
    l.from_name = std::string(from);
    l.to_name = std::string(to);
    l.level = level;
    l.decode_bytes = bytes;
    l.decode_utilisation = util;
    l.prefill_bytes = pbytes;
    l.prefill_utilisation = putil;
    return l;
  };
  n.links = {link("d0", "d1", 0, 100, 0.1, 1000, 0.2), link("d1", "d0", 0, 0, 0, 0, 0),
             link("d0", "d4", 1, 300, 0.6, 3000, 0.1), link("d4", "d0", 1, 0, 0, 500, 0.3)};
  n.reference_sim = true;
  n.decode_comm_analytic_s = 0.011;
  n.decode_comm_reference_s = 0.010;
  n.prefill_comm_analytic_s = 0.5;
  n.prefill_comm_reference_s = 0;
  n.ttft_reference_s = 2.1;
  n.tpot_reference_s = 0.021;

  // Without a request the document is the plain one.
  EXPECT_EQ(result_to_json(d, res, NetworkJson{&n, false, false}), result_to_json(d, res));
  const auto j = ordered_json::parse(result_to_json(d, res, NetworkJson{&n, true, true}));
  ASSERT_TRUE(j.contains("links"));
  const auto& links = j["links"];
  ASSERT_EQ(links.size(), 3u) << links.dump(1);  // the idle link is counted, not listed
  EXPECT_EQ(j["idle_links"], 1);
  // Busiest first: decode utilisation, then prefill utilisation.
  EXPECT_EQ(links[0]["from"], "d0");
  EXPECT_EQ(links[0]["to"], "d4");
  EXPECT_EQ(links[0]["level"], 1);
  EXPECT_EQ(links[0]["level_name"], "torus");
  EXPECT_EQ(links[0]["bytes"], 300.0);
  EXPECT_EQ(links[0]["utilisation"], 0.6);
  EXPECT_EQ(links[0]["prefill_bytes"], 3000.0);
  EXPECT_EQ(links[0]["prefill_utilisation"], 0.1);
  EXPECT_EQ(links[1]["from"], "d0");
  EXPECT_EQ(links[2]["from"], "d4");
  EXPECT_EQ(links[2]["bytes"], 0.0);
  for (const auto& l : links)
    for (const char* key : {"from", "to", "level", "level_name", "bytes", "utilisation",
                            "prefill_bytes", "prefill_utilisation"})
      EXPECT_TRUE(l.contains(key)) << key;

  const auto& ref = j["reference_sim"];
  EXPECT_EQ(ref["decode_comm_analytic_s"], 0.011);
  EXPECT_EQ(ref["decode_comm_reference_s"], 0.010);
  EXPECT_NEAR(ref["decode_comm_error"].get<double>(), 0.1, 1e-12);
  EXPECT_TRUE(ref["prefill_comm_error"].is_null());  // no reference time: no error
  EXPECT_EQ(ref["ttft_s"], 2.0);
  EXPECT_EQ(ref["ttft_reference_s"], 2.1);
  EXPECT_EQ(ref["tpot_s"], 0.02);
  EXPECT_EQ(ref["tpot_reference_s"], 0.021);
  EXPECT_EQ(ref.size(), 10u);

  // Only what was asked for; no reference section when the report was made without one.
  const auto links_only = ordered_json::parse(result_to_json(d, res, NetworkJson{&n, true, false}));
  EXPECT_FALSE(links_only.contains("reference_sim"));
  n.reference_sim = false;
  const auto no_ref = ordered_json::parse(result_to_json(d, res, NetworkJson{&n, false, true}));
  EXPECT_FALSE(no_ref.contains("reference_sim"));
  EXPECT_FALSE(no_ref.contains("links"));
}

}  // namespace
}  // namespace stackscope::io
