// SPDX-License-Identifier: GPL-3.0-or-later
// Hostile inputs to core/io: every size limit of io/limits.hpp is
// refused with a ConfigError that states it, before the input can cost unbounded time or memory.
// The inputs are generated here (10^5-deep nesting, 10^6-element arrays, a 10^5-column power
// trace); each test parses one and must return at once with the limit in the message.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "stackscope/io/coexplore.hpp"
#include "stackscope/io/hotspot.hpp"
#include "stackscope/io/limits.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/search.hpp"
#include "test_support.hpp"

namespace stackscope::io {
namespace {

using testing::minimal_project;
using testing::parse_issues;
using testing::test_registry;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

// The minimal project with `raw` (JSON text) as the value of its "notes".
std::string project_with_notes(const std::string& raw) {
  std::string text = minimal_project().dump();
  text.pop_back();  // the closing brace
  return text + ", \"notes\": " + raw + "}";
}

// The single issue of a document that must be refused.
Issue only_issue(const std::string& text) {
  const auto issues = parse_issues(text, test_registry());
  EXPECT_EQ(issues.size(), 1u) << format_issues(issues);
  return issues.empty() ? Issue{} : issues.front();
}

std::filesystem::path temp_dir() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("stackscope-limits-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(JsonLimits, DeepNestingIsRefusedAtTheDepthLimit) {
  // 10^5 levels overflowed the stack (a recursive copy of the parsed value) before.
  const Issue arrays = only_issue(project_with_notes(repeat("[", 100000) + repeat("]", 100000)));
  EXPECT_TRUE(contains(arrays.message, "nested deeper than 64 levels")) << arrays.message;
  EXPECT_EQ(arrays.allowed, "at most 64 nested arrays/objects");
  // The pointer names the first container past the limit: /notes is depth 2.
  EXPECT_EQ(arrays.path, "/notes" + repeat("/0", 63));

  const Issue objects =
      only_issue(project_with_notes(repeat("{\"a\": ", 100000) + "1" + repeat("}", 100000)));
  EXPECT_EQ(objects.path, "/notes" + repeat("/a", 63));

  // The limit itself is allowed.
  EXPECT_NO_THROW(
      (void)parse_project(project_with_notes(repeat("[", 63) + repeat("]", 63)), test_registry()));
}

// Every reader goes through the one bounded entry (check_json_text before nlohmann parses):
// the co-exploration check of `search`, the search-space parser and the log-record readers
// refuse a 10^5-deep value wherever it sits, and the pointer of the message is computed from the
// raw text (keys with escapes included); brackets inside strings do not count.
TEST(JsonLimits, DeepNestingIsRefusedBeforeAnyParse) {
  const std::string deep = repeat("[", 100000) + repeat("]", 100000);
  // The co-exploration check parsed the whole file with nlohmann's DOM parser: SIGSEGV.
  EXPECT_FALSE(has_coexplore_section(project_with_notes(deep)));
  std::string space = minimal_project().dump();
  space.pop_back();
  space += R"(, "search": {"hardware": [{"knob": "devices", "values": )" + deep + "}]}}";
  EXPECT_FALSE(has_coexplore_section(space));
  try {
    (void)parse_search_project(space, test_registry());
    ADD_FAILURE() << "a 10^5-deep axis must be refused";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 1u) << format_issues(e.issues());
    EXPECT_EQ(e.issues().front().path, "/search/hardware/0/values" + repeat("/0", 60));
    EXPECT_TRUE(contains(e.issues().front().message, "nested deeper than 64 levels"));
  }
  // Log records (a damaged points.jsonl line): not a record, no crash.
  EXPECT_FALSE(point_from_jsonl(deep).has_value());
  EXPECT_FALSE(record_from_jsonl("{\"index\": " + deep + "}").has_value());
  // The pointer of escaped keys and later array elements; brackets in strings are text.
  const Issue keyed = only_issue(project_with_notes(
      "{\"a/b\\\"c\": [1, \"]]][[[\", " + repeat("[", 70) + repeat("]", 70) + "]}"));
  EXPECT_EQ(keyed.path, "/notes/a~1b\"c/2" + repeat("/0", 61));
  EXPECT_NO_THROW((void)parse_project(
      project_with_notes("\"" + repeat("[", 1000) + "\\\"" + repeat("{", 1000) + "\""),
      test_registry()));
}

// The size limit holds for text that never was a file (a preset, a project given as text).
TEST(JsonLimits, TextLargerThanTheFileLimitIsRefusedBeforeParsing) {
  const Issue i =
      only_issue(project_with_notes("\"" + std::string(limits::kMaxProjectFileBytes, 'x') + "\""));
  EXPECT_TRUE(contains(i.message, "larger than the limit")) << i.message;
  EXPECT_EQ(i.allowed, "at most 16777216 bytes (16 MiB)");
}

TEST(JsonLimits, ArrayOfAMillionObjectsIsRefusedAtTheElementLimit) {
  // Quadratic before (nlohmann's callback parser rescans the array at every object's end).
  const Issue i =
      only_issue(project_with_notes("[" + repeat("{\"a\": 1},", 999999) + "{\"a\": 1}]"));
  EXPECT_EQ(i.path, "/notes/100000");
  EXPECT_TRUE(contains(i.message, "array has more than 100000 elements")) << i.message;
  EXPECT_EQ(i.allowed, "at most 100000 elements per array");
  // Just inside the limit parses.
  EXPECT_NO_THROW(
      (void)parse_project(project_with_notes("[" + repeat("{},", 99999) + "{}]"), test_registry()));
}

TEST(JsonLimits, ObjectMembersStringsAndValueCountAreBounded) {
  std::string members = "{";
  for (int k = 0; k <= 10000; ++k) members += (k ? ",\"k" : "\"k") + std::to_string(k) + "\":1";
  const Issue m = only_issue(project_with_notes(members + "}"));
  EXPECT_EQ(m.path, "/notes/k10000");
  EXPECT_EQ(m.allowed, "at most 10000 members per object");

  const Issue s = only_issue(project_with_notes("\"" + std::string(70000, 'x') + "\""));
  EXPECT_EQ(s.path, "/notes");
  EXPECT_TRUE(contains(s.message, "string of 70000 bytes")) << s.message;
  EXPECT_EQ(s.allowed, "at most 65536 bytes per string");

  // 11 arrays of 100,000 numbers: each within the element limit, together past 10^6 values.
  std::string many = "[";
  for (int a = 0; a < 11; ++a) many += (a ? ",[" : "[") + repeat("0,", 99999) + "0]";
  const Issue v = only_issue(project_with_notes(many + "]"));
  EXPECT_TRUE(contains(v.message, "more than 1000000 JSON values")) << v.message;
  EXPECT_EQ(v.allowed, "at most 1000000 values per document");
}

TEST(JsonLimits, DuplicateKeysAreReportedButTheirIssuesCapped) {
  // 200 duplicates of one key: 50 issues and a count of the rest, not 200 lines.
  const auto issues = parse_issues(
      project_with_notes("{\"a\": 1" + repeat(", \"a\": 1", 200) + "}"), test_registry());
  ASSERT_EQ(issues.size(), limits::kMaxIssues + 1) << format_issues(issues);
  EXPECT_EQ(issues.front().path, "/notes/a");
  EXPECT_TRUE(contains(issues.back().message, "... and 150 more duplicate keys"))
      << issues.back().message;
}

TEST(FileLimits, OversizedDevicesAndFifosAreRefusedBeforeReading) {
  const auto dir = temp_dir();
  const auto big = dir / "big.json";
  { std::ofstream(big) << " "; }
  // Sparse: 16 MiB + 1 byte without writing them.
  std::filesystem::resize_file(big, limits::kMaxProjectFileBytes + 1);
  const PresetRegistry r = test_registry();
  try {
    (void)load_project(big, r);
    ADD_FAILURE() << "a 16 MiB + 1 project was read";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_TRUE(contains(e.issues()[0].message, "is larger than the limit"));
    EXPECT_EQ(e.issues()[0].value, "16777217 bytes");
    EXPECT_EQ(e.issues()[0].allowed, "a regular file of at most 16777216 bytes (16 MiB)");
  }

  // /dev/zero would be read until memory ran out; a FIFO without a writer blocks forever.
  const auto fifo = dir / "fifo.json";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const auto& [file, kind] :
       {std::pair<std::filesystem::path, std::string>{"/dev/zero", "a device"},
        {fifo, "a FIFO"},
        {dir, "a directory"}}) {
    try {
      (void)load_project(file, r);
      ADD_FAILURE() << file << " was read";
    } catch (const ConfigError& e) {
      ASSERT_EQ(e.issues().size(), 1u);
      EXPECT_TRUE(contains(e.issues()[0].message, "it is " + kind)) << e.issues()[0].message;
    }
  }

  // The routing trace reader goes through the same check (~2 GB of /dev/zero before).
  workload::Routing routing;
  for (const std::string& file : {std::string("/dev/zero"), fifo.string()}) {
    routing.trace = file;
    try {
      load_routing_trace(routing, 8, {});
      ADD_FAILURE() << file << " was read as a trace";
    } catch (const ConfigError& e) {
      ASSERT_EQ(e.issues().size(), 1u);
      EXPECT_EQ(e.issues()[0].path, "/workload/routing/trace");
      EXPECT_TRUE(contains(e.issues()[0].message, "cannot read '" + file + "'"));
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(TraceLimits, ALongExpertListIsCheckedInLinearTime) {
  // One token selecting 65,536 distinct experts, the last one twice: a linear scan per id made
  // this 2 x 10^9 comparisons.
  const auto dir = temp_dir();
  std::string list;
  for (int e = 0; e < 65536; ++e) list += std::to_string(e) + ",";
  { std::ofstream(dir / "trace.json") << "{\"0\": [[" << list << "65535]]}"; }
  workload::Routing routing;
  routing.trace = (dir / "trace.json").string();
  try {
    load_routing_trace(routing, 65536, {});
    ADD_FAILURE() << "a duplicate expert id was accepted";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.issues().at(0).message, "/0/0/65536: expert selected twice"))
        << e.issues().at(0).message;
  }
  std::filesystem::remove_all(dir);
}

// ConfigError's first message of `f()`, "" if it did not throw.
template <class F>
std::string first_error(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.issues().empty() ? std::string() : format_issue(e.issues().front());
  }
  return {};
}

// Block name "b<i>". Built by appending: GCC 12 warns falsely (-Wrestrict) on "b" + to_string(i).
std::string block(int i) {
  std::string name = "b";
  name += std::to_string(i);
  return name;
}

TEST(HotspotLimits, PtraceOfAHundredThousandColumnsIsRefusedAtTheColumnLimit) {
  std::string header;
  for (int c = 0; c < 100000; ++c) header += block(c) + " ";
  const std::string e = first_error([&] { parse_ptrace(header + "\n", "x.ptrace"); });
  EXPECT_TRUE(contains(e, "x.ptrace:1: more than 65536 power trace columns")) << e;
  EXPECT_TRUE(contains(e, "allowed: at most 65536 power trace columns")) << e;
}

TEST(HotspotLimits, DuplicateColumnsAreFoundInLinearTime) {
  // 65,536 columns with the duplicate last: the pairwise check was 2 x 10^9 comparisons.
  std::string header;
  for (int c = 0; c < 65535; ++c) header += block(c) + " ";
  const std::string e = first_error([&] { parse_ptrace(header + "b7\n1\n", "x.ptrace"); });
  EXPECT_TRUE(contains(e, "x.ptrace:1: duplicate block name (got 'b7'")) << e;
}

TEST(HotspotLimits, FloorplanBlocksLayersGridAndConfigKeysAreBounded) {
  std::string flp;
  for (int b = 0; b <= 16384; ++b) flp += block(b) + " 1e-6 1e-6 " + std::to_string(b) + "e-6 0\n";
  EXPECT_TRUE(contains(first_error([&] { parse_flp(flp, "x.flp"); }),
                       "x.flp:16385: more than 16384 floorplan blocks"));
  std::string lcf;
  for (int l = 0; l <= 64; ++l) lcf += std::to_string(l) + "\nY\nY\n1.75e6\n0.01\n1e-4\nx.flp\n";
  EXPECT_TRUE(
      contains(first_error([&] { parse_lcf(lcf, "x.lcf"); }), "x.lcf:449: more than 64 layers"));
  EXPECT_TRUE(contains(first_error([&] { parse_hotspot_config("-grid_rows 2048\n", "x.config"); }),
                       "allowed: integer in [1, 1024]"));
  std::string config;
  for (int k = 0; k <= 1024; ++k) config += "-key" + std::to_string(k) + " 1\n";
  EXPECT_TRUE(contains(first_error([&] { parse_hotspot_config(config, "x.config"); }),
                       "x.config:1025: more than 1024 config keys"));
}

TEST(HotspotLimits, OverlappingBlocksAreRefusedNamingBoth) {
  const std::string e = first_error([] {
    parse_flp("core 2e-3 2e-3 0 0\ncache 2e-3 1e-3 2e-3 0\nl2 2e-3 1e-3 1e-3 1.5e-3\n", "x.flp");
  });
  EXPECT_TRUE(contains(e, "x.flp:3: blocks 'core' (line 1) and 'l2' overlap by 0.001 x 5e-04 m"))
      << e;
  // Shared edges, even with the rounding of decimal metres, are a tiling.
  const auto fp =
      parse_flp("a 0.0031 0.001 0 0\nb 0.0012 0.001 0.0031 0\nc 0.0043 0.002 0 0.001\n", "x.flp");
  EXPECT_EQ(fp.blocks.size(), 3u);
}

}  // namespace
}  // namespace stackscope::io
