// SPDX-License-Identifier: GPL-3.0-or-later
// The "serving" section of project files (io/serving.hpp) and the spec it holds
// (serving/spec.hpp): exact round trips, defaults for missing keys, JSON-pointer errors for
// unknown keys, wrong types and bad values, trace paths relative to the project, the ranges of
// validate(), and the shipped serving example.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "stackscope/io/serve_run.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/runs/serve.hpp"
#include "stackscope/wafer/run.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/serving/cluster.hpp"
#include "test_support.hpp"

namespace stackscope::io {
namespace {

using testing::contains;
using testing::issue_at;
using testing::ordered_json;
using testing::TempDir;

std::string project_with(const std::string& serving) {
  ordered_json p = testing::minimal_project();
  p["serving"] = ordered_json::parse(serving);
  return p.dump(2);
}

std::vector<Issue> section_issues(const std::string& serving) {
  try {
    (void)parse_serving_section(project_with(serving));
  } catch (const ConfigError& e) {
    return e.issues();
  }
  ADD_FAILURE() << "expected a ConfigError for " << serving;
  return {};
}

// Every field away from its default.
serving::ServingSpec full_spec() {
  serving::ServingSpec s;
  s.source = serving::SourceKind::trace;
  s.trace = "/data/traces/azure conv.csv";
  s.time_scale = 2.5;
  s.requests = 12345;
  s.rate_per_s = 0.1 + 0.2;  // 0.30000000000000004: written and read back exactly
  s.arrivals = serving::ArrivalProcess::Kind::gamma;
  s.cv = 1.7;
  s.input = serving::parse_length_dist("lognormal:1020:0.9", "in");
  s.output = serving::parse_length_dist("uniform:16:512", "out");
  s.seed = std::numeric_limits<std::uint64_t>::max();
  s.concurrency = 64;
  s.instances = 4;
  s.disaggregate.prefill = 1;
  s.disaggregate.decode = 3;
  s.disaggregate.prefill_pool = {2, 1, 1, 2, 64, 16384};
  s.disaggregate.decode_pool.tp = 8;
  s.disaggregate.decode_pool.max_num_seqs = 512;
  s.router = serving::Router::least_kv;
  s.scheduler.max_num_seqs = 128;
  s.scheduler.max_num_batched_tokens = 4096;
  s.scheduler.chunked_prefill = false;
  s.scheduler.block_size = 32;
  s.scheduler.max_model_len = 8192;
  s.scheduler.kv_policy = serving::KvPolicy::guaranteed_no_evict;
  s.scheduler.kv_cache_fraction = 0.9;
  s.scheduler.cuda_graph_batch_sizes = {1, 2, 4, 8, 16, 128};
  s.slo = {2, 0.1};
  s.partitioning = serving::Partitioning::automatic;
  s.sizing = serving::SchedulerSizing::trtllm_bench;
  return s;
}

TEST(ServingJson, SectionRoundTripsExactly) {
  const serving::ServingSpec s = full_spec();
  const std::string section = serving_section_to_json(s);
  const auto back = parse_serving_section(project_with(section));
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(*back == s) << section;
  EXPECT_EQ(serving_section_to_json(*back), section);
  // The keys of io/serving.hpp, in its order.
  const auto j = ordered_json::parse(section);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"source", "trace", "time_scale", "requests",
                                            "rate_per_s", "arrivals", "cv", "input_len",
                                            "output_len", "seed", "concurrency", "instances",
                                            "disaggregate", "router", "partition",
                                            "scheduler_sizing", "scheduler", "slo"}));
  EXPECT_EQ(j["router"], "kv");
  EXPECT_EQ(j["partition"], "auto");
  EXPECT_EQ(j["scheduler_sizing"], "trtllm-bench");
  EXPECT_EQ(j["input_len"], "lognormal:1020:0.9");
  EXPECT_EQ(j["scheduler"]["kv_policy"], "guaranteed_no_evict");
  EXPECT_EQ(j["disaggregate"]["decode"], 3);
  EXPECT_EQ(j["disaggregate"]["prefill_pool"]["cp"], 2);
  EXPECT_EQ(j["disaggregate"]["prefill_pool"]["max_num_batched_tokens"], 16384);
  EXPECT_EQ(j["disaggregate"]["decode_pool"]["tp"], 8);
  EXPECT_EQ(j["disaggregate"]["decode_pool"]["pp"], 0);
  EXPECT_EQ(j["scheduler"]["cuda_graph_batch_sizes"].size(), 6u);
}

TEST(ServingJson, ProjectWithServingRoundTripsAndStillParsesAsAProject) {
  const auto presets = testing::test_registry();
  const perf::Design design = parse_project(testing::minimal_project().dump(), presets);
  serving::ServingSpec s = full_spec();
  s.trace.clear();
  s.source = serving::SourceKind::generated;
  const std::string text = project_to_json(design, s);
  EXPECT_EQ(project_to_json(parse_project(text, presets)), project_to_json(design));
  const auto back = parse_serving_section(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(*back == s);
  // A default spec writes no section, and a project without one reads as the defaults.
  const std::string plain = project_to_json(design, serving::ServingSpec{});
  EXPECT_EQ(plain, project_to_json(design));
  EXPECT_FALSE(parse_serving_section(plain).has_value());
}

TEST(ServingJson, AtomicSaveKeepsTheSection) {
  TempDir dir("serving-save");
  const auto presets = testing::test_registry();
  const perf::Design design = parse_project(testing::minimal_project().dump(), presets);
  serving::ServingSpec s = full_spec();
  s.trace = (dir.path() / "traces" / "conv.csv").string();
  const auto file = dir.path() / "project.json";
  save_text_atomic(file, project_to_json(design, s, dir.path()));
  // The trace below the project's folder is written relative to it...
  std::ifstream in(file);
  const auto j = ordered_json::parse(in);
  EXPECT_EQ(j["serving"]["trace"], "traces/conv.csv");
  // ...and read back against it.
  const auto back = load_serving_section(file);
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(*back == s) << back->trace;
  EXPECT_EQ(project_to_json(load_project(file, presets)), project_to_json(design));
}

TEST(ServingJson, RelativeTracePathsResolveAgainstTheProjectFolder) {
  TempDir dir("serving-trace");
  std::filesystem::create_directories(dir.path() / "traces");
  {
    std::ofstream t(dir.path() / "traces" / "t.csv");
    t << "arrival_s,input_tokens,output_tokens\n0,100,10\n0.5,200,20\n1.5,300,30\n";
  }
  const auto file = dir.path() / "p.json";
  {
    std::ofstream p(file);
    p << project_with(R"({"source": "trace", "trace": "traces/t.csv", "time_scale": 2})");
  }
  const auto s = load_serving_section(file);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(std::filesystem::path(s->trace), (dir.path() / "traces" / "t.csv").lexically_normal());
  serving::TraceStats st;
  const auto reqs = serving_requests(*s, &st);
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(st.rows, 3u);
  EXPECT_DOUBLE_EQ(reqs[2].arrival_s, 0.75);  // x2 faster
  EXPECT_EQ(reqs[1].input_tokens, 200);
  // Outside the folder the path is written absolute (a "../" path breaks when the project moves).
  serving::ServingSpec other = *s;
  other.trace = "/elsewhere/t.csv";
  EXPECT_EQ(ordered_json::parse(serving_section_to_json(other, dir.path()))["trace"],
            "/elsewhere/t.csv");
  // A missing trace is an error naming the file when the requests are built.
  other.trace = (dir.path() / "nope.csv").string();
  try {
    (void)serving_requests(other);
    ADD_FAILURE() << "no error for a missing trace";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "nope.csv")) << e.what();
  }
}

TEST(ServingJson, MissingKeysKeepTheDefaults) {
  auto s = parse_serving_section(project_with("{}"));
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(*s == serving::ServingSpec{});
  s = parse_serving_section(project_with(R"({"requests": 7, "scheduler": {"block_size": 32}})"));
  ASSERT_TRUE(s.has_value());
  serving::ServingSpec want;
  want.requests = 7;
  want.scheduler.block_size = 32;
  EXPECT_TRUE(*s == want);
  EXPECT_EQ(s->scheduler.max_num_seqs, 256);  // vLLM's default
  EXPECT_FALSE(parse_serving_section(testing::minimal_project().dump()).has_value());
}

TEST(ServingJson, UnknownKeysAreErrorsWithSuggestions) {
  auto issues = section_issues(R"({"reqests": 10, "scheduler": {"max_seqs": 4}, "notes": "ok"})");
  ASSERT_EQ(issues.size(), 2u) << format_issues(issues);
  auto i = issue_at(issues, "/serving/reqests");
  EXPECT_TRUE(contains(i.message, "did you mean 'requests'")) << i.message;
  EXPECT_TRUE(contains(i.allowed, "rate_per_s")) << i.allowed;
  i = issue_at(issues, "/serving/scheduler/max_seqs");
  EXPECT_TRUE(contains(i.allowed, "max_num_seqs, max_num_batched_tokens")) << i.allowed;
  issues = section_issues(R"({"slo": {"ttft": 2}, "disaggregate": {"prefil": 1}})");
  (void)issue_at(issues, "/serving/slo/ttft");
  (void)issue_at(issues, "/serving/disaggregate/prefil");
  issues = section_issues(R"({"disaggregate": {"decode_pool": {"tp": "8", "max_seqs": 4}}})");
  (void)issue_at(issues, "/serving/disaggregate/decode_pool/tp");
  (void)issue_at(issues, "/serving/disaggregate/decode_pool/max_seqs");
}

TEST(ServingJson, WrongTypesAndBadValuesNameTheirPath) {
  const auto issues = section_issues(R"({
      "source": "replay", "requests": "ten", "rate_per_s": true, "arrivals": "weibull",
      "input_len": "lognormal:x:1", "output_len": 256, "router": "fastest",
      "instances": 2.5, "concurrency": -1e30, "seed": -1, "trace": 3,
      "scheduler": {"chunked_prefill": "yes", "kv_policy": "evict",
                    "cuda_graph_batch_sizes": [1, "two"]},
      "slo": {"ttft_s": "2 s"}, "disaggregate": [1, 3], "partition": "sometimes",
      "scheduler_sizing": 1})");
  auto i = issue_at(issues, "/serving/source");
  EXPECT_TRUE(contains(issue_at(issues, "/serving/partition").allowed, "design, given, auto"));
  (void)issue_at(issues, "/serving/scheduler_sizing");
  EXPECT_TRUE(contains(i.allowed, "benchmark, generated, trace")) << i.allowed;
  EXPECT_TRUE(contains(issue_at(issues, "/serving/requests").message, "expected integer"));
  (void)issue_at(issues, "/serving/rate_per_s");
  EXPECT_TRUE(contains(issue_at(issues, "/serving/arrivals").allowed, "poisson, gamma"));
  i = issue_at(issues, "/serving/input_len");
  EXPECT_TRUE(contains(i.message, "MEDIAN 'x' is not a number")) << i.message;
  EXPECT_TRUE(contains(i.allowed, "lognormal:MEDIAN:SIGMA")) << i.allowed;
  EXPECT_TRUE(contains(issue_at(issues, "/serving/output_len").message, "string"));
  EXPECT_TRUE(contains(issue_at(issues, "/serving/router").allowed, "rr, jsq, kv"));
  EXPECT_TRUE(contains(issue_at(issues, "/serving/instances").message, "non-integer"));
  (void)issue_at(issues, "/serving/concurrency");
  (void)issue_at(issues, "/serving/seed");
  (void)issue_at(issues, "/serving/trace");
  (void)issue_at(issues, "/serving/scheduler/chunked_prefill");
  (void)issue_at(issues, "/serving/scheduler/cuda_graph_batch_sizes/1");
  EXPECT_TRUE(contains(issue_at(issues, "/serving/scheduler/kv_policy").allowed,
                       "max_utilization, guaranteed_no_evict"));
  (void)issue_at(issues, "/serving/slo/ttft_s");
  (void)issue_at(issues, "/serving/disaggregate");
  for (const auto& issue : issues) EXPECT_FALSE(issue.allowed.empty()) << format_issue(issue);
  // Not an object at all.
  (void)issue_at(section_issues("[]"), "/serving");
  (void)issue_at(section_issues("\"trace.csv\""), "/serving");
}

TEST(ServingJson, InstanceGroupsRoundTripAsCountBesideThePoolKeys) {
  serving::ServingSpec s;
  s.instance_groups.resize(2);
  s.instance_groups[0].count = 2;
  s.instance_groups[0].pool.tp = 2;
  s.instance_groups[1].pool.tp = 4;
  s.instance_groups[1].pool.max_num_seqs = 128;
  const std::string section = serving_section_to_json(s);
  const auto j = ordered_json::parse(section);
  ASSERT_EQ(j["instance_groups"].size(), 2u);
  EXPECT_EQ(j["instance_groups"][0]["count"], 2);
  EXPECT_EQ(j["instance_groups"][0]["tp"], 2);
  EXPECT_EQ(j["instance_groups"][1]["max_num_seqs"], 128);
  const auto back = parse_serving_section(project_with(section));
  ASSERT_TRUE(back.has_value());
  EXPECT_TRUE(*back == s) << section;
  // No groups, no key (a project without them reads the same as before they existed).
  EXPECT_FALSE(ordered_json::parse(serving_section_to_json({})).contains("instance_groups"));
  // A group's unknown key or wrong type is named at its path.
  const auto issues =
      section_issues(R"({"instance_groups": [{"count": 2, "dp": 2}, {"count": "one"}]})");
  (void)issue_at(issues, "/serving/instance_groups/0/dp");
  (void)issue_at(issues, "/serving/instance_groups/1/count");
  (void)issue_at(section_issues(R"({"instance_groups": {"count": 2}})"),
                 "/serving/instance_groups");
}

TEST(ServingJson, ParseProjectAcceptsTheSection) {
  // The design parser leaves the section to io/serving.hpp (it is no unknown key).
  const auto presets = testing::test_registry();
  EXPECT_NO_THROW((void)parse_project(project_with(R"({"router": "fastest"})"), presets));
}

TEST(ServingSpec, ValidateReportsRangesAtTheirPaths) {
  EXPECT_TRUE(serving::validate(serving::ServingSpec{}).empty());
  EXPECT_TRUE(serving::validate(full_spec()).empty());
  serving::ServingSpec s;
  s.requests = 0;
  s.rate_per_s = 0;
  s.cv = 0;
  s.time_scale = std::numeric_limits<double>::infinity();
  s.concurrency = -1;
  s.instances = 70'000;
  s.disaggregate.prefill = 1;
  s.disaggregate.decode = 0;
  s.scheduler.max_num_seqs = 0;
  s.scheduler.max_num_batched_tokens = 0;
  s.scheduler.block_size = 1 << 17;
  s.scheduler.max_model_len = -1;
  s.scheduler.kv_cache_fraction = 1.5;
  s.scheduler.cuda_graph_batch_sizes = {8, 4};
  s.slo = {-1, std::numeric_limits<double>::quiet_NaN()};
  const auto issues = serving::validate(s);
  for (const char* path :
       {"/serving/requests", "/serving/rate_per_s", "/serving/cv", "/serving/time_scale",
        "/serving/concurrency", "/serving/instances", "/serving/disaggregate/decode",
        "/serving/scheduler/max_num_seqs", "/serving/scheduler/max_num_batched_tokens",
        "/serving/scheduler/block_size", "/serving/scheduler/max_model_len",
        "/serving/scheduler/kv_cache_fraction", "/serving/scheduler/cuda_graph_batch_sizes/1",
        "/serving/slo/ttft_s", "/serving/slo/tpot_s"}) {
    const Issue i = issue_at(issues, path);
    EXPECT_FALSE(i.allowed.empty()) << path;
    EXPECT_FALSE(i.value.empty()) << path;
  }
  EXPECT_EQ(issues.size(), 15u) << format_issues(issues);
  EXPECT_EQ(issue_at(issues, "/serving/requests").allowed, "integer in [1, 100000000]");
  EXPECT_EQ(issue_at(issues, "/serving/scheduler/kv_cache_fraction").allowed, "number in (0, 1]");

  // A benchmark needs fixed lengths; a trace source needs a file.
  serving::ServingSpec b;
  b.source = serving::SourceKind::benchmark;
  b.input = serving::parse_length_dist("uniform:1:10", "in");
  EXPECT_TRUE(contains(issue_at(serving::validate(b), "/serving/input_len").message,
                       "a benchmark needs a fixed length"));
  serving::ServingSpec t;
  t.source = serving::SourceKind::trace;
  (void)issue_at(serving::validate(t), "/serving/trace");
  // The root is the caller's (a form may put the section elsewhere).
  (void)issue_at(serving::validate(s, ""), "/requests");

  // Silently meaningless before: a time scale on generated requests, and generated arrivals
  // over more than the 366 days a stream may last (1000 requests at 1e-6/s: 31.7 years).
  serving::ServingSpec g;
  g.source = serving::SourceKind::generated;
  g.time_scale = 2;
  EXPECT_TRUE(contains(issue_at(serving::validate(g), "/serving/time_scale").message,
                       "applies to a trace source only"));
  g.time_scale = 1;
  g.rate_per_s = 1e-6;
  g.requests = 1000;
  EXPECT_TRUE(contains(issue_at(serving::validate(g), "/serving/rate_per_s").message,
                       "more than 366 days"));
  g.rate_per_s = 1000.0 / serving::kMaxStreamSeconds * 1.01;  // just inside
  EXPECT_TRUE(serving::validate(g).empty()) << format_issues(serving::validate(g));
}

TEST(ServingSpec, BuildsTheCoreStreamsAndDeployments) {
  serving::ServingSpec s;
  s.requests = 50;
  s.rate_per_s = 3;
  s.arrivals = serving::ArrivalProcess::Kind::gamma;
  s.cv = 2;
  s.input = serving::parse_length_dist("lognormal:512:0.8", "in");
  s.seed = 9;
  serving::GeneratorSpec g;
  g.arrivals = {serving::ArrivalProcess::Kind::gamma, 3, 2};
  g.requests = 50;
  g.seed = 9;
  g.input = s.input;
  g.output = s.output;
  const auto want = serving::generate(g);
  const auto got = serving_requests(s);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].arrival_s, want[i].arrival_s);
    EXPECT_EQ(got[i].input_tokens, want[i].input_tokens);
  }
  s.source = serving::SourceKind::benchmark;
  s.input = serving::ServingSpec::fixed_length(100);
  const auto bench = serving_requests(s);
  ASSERT_EQ(bench.size(), 50u);
  EXPECT_EQ(bench.back().arrival_s, 0);
  EXPECT_EQ(bench.back().output_tokens, 256);

  // The shipped serving example: 4 TP2 replicas on 8 H100s, 1 prefill + 3 decode.
  const auto& presets = builtin_presets();
  const perf::Design d = presets.project("llama-3-70b-h100-serving");
  EXPECT_TRUE(perf::validate(d).empty());
  const auto spec =
      parse_serving_section(presets.json_text(PresetKind::project, "llama-3-70b-h100-serving"));
  ASSERT_TRUE(spec.has_value());
  EXPECT_TRUE(serving::validate(*spec).empty()) << format_issues(serving::validate(*spec));
  EXPECT_EQ(spec->disaggregate.prefill, 1);
  EXPECT_EQ(spec->disaggregate.decode, 3);
  EXPECT_EQ(spec->slo.ttft_s, 2);
  EXPECT_EQ(spec->slo.tpot_s, 0.1);
  perf::Design replica = d;
  replica.workload.batch_auto = false;
  replica.workload.batch = 1;
  const auto dep = serving::deploy(replica, *spec);
  ASSERT_EQ(dep.instances.size(), 4u);
  EXPECT_EQ(dep.instances.front().role, serving::Role::prefill);
  EXPECT_EQ(dep.instances.back().role, serving::Role::decode);
  EXPECT_EQ(dep.instances.front().devices, 2);
  EXPECT_TRUE(static_cast<bool>(dep.options.kv_transfer));
  EXPECT_EQ(dep.options.router, serving::Router::join_shortest_queue);
  EXPECT_EQ(dep.options.slo_tpot_s, 0.1);
  EXPECT_EQ(dep.layout, "1 prefill + 3 decode");
  // Co-located: instances, or the design's dp when 0.
  serving::ServingSpec co = *spec;
  co.disaggregate = {};
  co.instances = 0;
  EXPECT_EQ(serving::colocated_count(co, replica), 4);
  EXPECT_EQ(serving::deploy(replica, co).layout, "4 co-located");
  EXPECT_FALSE(std::isfinite(serving::deploy(replica, serving::ServingSpec{}).options.slo_ttft_s));
}


// serve --json and --per-request, from a wafer run: every figure is the run's, the die map is
// wafer::die_map_rows of its deployment, and the CSV has one row per request.
TEST(ServeRunJson, WaferRunWrittenAsRun) {
  perf::Design d = builtin_presets().project("llama-3-70b-wafer-serving");
  auto spec = *parse_serving_section(
      builtin_presets().json_text(PresetKind::project, "llama-3-70b-wafer-serving"));
  spec.requests = 120;
  runs::ServeOptions o;
  o.central.threads = 1;
  const runs::ServeRun run = runs::serve(d, spec, serving_requests(spec), o);
  ASSERT_TRUE(run.wafer.has_value());
  const auto j = nlohmann::json::parse(serve_run_json(d, run, "120 generated requests"));
  EXPECT_EQ(j.at("source"), "120 generated requests");
  EXPECT_EQ(j.at("requests"), 120);
  EXPECT_EQ(j.at("completed"), run.result.completed);
  EXPECT_DOUBLE_EQ(j.at("goodput_rps").get<double>(), run.result.goodput_rps);
  EXPECT_DOUBLE_EQ(j.at("ttft_s").at("p90").get<double>(), run.result.ttft.p90);
  EXPECT_EQ(j.at("partition").at("mode"), "auto");
  EXPECT_EQ(j.at("partition").at("text"), run.partition_text);
  const auto rows = wafer::die_map_rows(run.wafer->wafer, run.partition.prefill);
  EXPECT_EQ(j.at("wafer").at("map").get<std::vector<std::string>>(), rows);
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(run.wafer->wafer.layout.dies_y));
  for (const auto& r : rows) EXPECT_EQ(r.size(), 4u * static_cast<std::size_t>(run.wafer->wafer.layout.dies_x));
  EXPECT_DOUBLE_EQ(j.at("wafer").at("power_W").get<double>(), run.wafer->power_W);
  EXPECT_EQ(j.at("per_instance").size(), run.result.instances.size());
  int pooled = 0;
  for (const auto& p : j.at("pools")) pooled += p.at("instances").get<int>();
  EXPECT_EQ(pooled, j.at("instances").get<int>());
  const std::string csv = per_request_csv(run.result);
  std::istringstream lines(csv);
  std::string line;
  std::size_t n = 0;
  while (std::getline(lines, line)) ++n;
  EXPECT_EQ(n, run.result.requests.size() + 1);
}

}  // namespace
}  // namespace stackscope::io
