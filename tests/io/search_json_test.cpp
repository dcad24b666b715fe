// SPDX-License-Identifier: GPL-3.0-or-later
// Search sections of project files and search result files: parsing with JSON-pointer
// errors, exact round trip of logged points, frontier files and their merge.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "stackscope/io/search.hpp"
#include "stackscope/io/search_writer.hpp"

namespace stackscope::io {
namespace {

const PresetRegistry& presets() {
  static const PresetRegistry r = [] {
    PresetRegistry p;
    p.register_builtins();
    return p;
  }();
  return r;
}

std::string project_with(const std::string& search) {
  return R"({"schema_version": 1, "name": "s", "hardware": "deepstack-3d",
    "system": "deepstack-3d-x64", "model": "llama-3-8b",
    "workload": {"batch": 8, "input_len": 512, "output_len": 64},
    "parallel": {"tp": 1}, "search": )" +
         search + "}";
}

std::vector<Issue> issues_of(const std::string& text) {
  try {
    parse_search_project(text, presets());
  } catch (const ConfigError& e) {
    return e.issues();
  }
  return {};
}

bool has_path(const std::vector<Issue>& issues, const std::string& path) {
  for (const auto& i : issues)
    if (i.path == path) return true;
  return false;
}

TEST(SearchJson, ParsesAxesRangesConstraintsAndObjectives) {
  const auto sp = parse_search_project(project_with(R"({
      "hardware": [{"knob": "memory.layers_total", "values": [4, 8, 12]},
                   {"knob": "noc.link_GBps", "min": 100, "max": 800, "factor": 2},
                   {"knob": "memory.layers_connected", "min": 1, "max": 4, "step": 1}],
      "parallel": {"tp": [1, 2, 4], "pp": {"min": 1, "max": 4, "factor": 2},
                   "sequence_parallel": [false, true]},
      "batch": {"min": 1, "max": 64, "factor": 4},
      "overlap": ["off", "auto"],
      "constraints": {"max_power_W": 500, "tpot_slo_s": 0.05},
      "objectives": ["stps_per_mm2", {"metric": "energy_per_token_j", "direction": "minimize"}],
      "strategy": "random", "seed": 7, "samples": 1000})"),
                                       presets());
  const auto& s = sp.space;
  EXPECT_EQ(s.base.hardware.id, "deepstack-3d");
  ASSERT_EQ(s.hardware.size(), 3u);
  EXPECT_EQ(s.hardware[0].knob, "memory.layers_total");
  EXPECT_EQ(s.hardware[1].values, (std::vector<double>{100, 200, 400, 800}));
  EXPECT_EQ(s.hardware[2].values, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(s.inner.tp, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(s.inner.pp, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(s.inner.sequence_parallel, (std::vector<int>{0, 1}));
  EXPECT_EQ(s.inner.batch, (std::vector<int>{1, 4, 16, 64}));
  ASSERT_EQ(s.inner.overlap.size(), 2u);
  EXPECT_EQ(s.inner.overlap[1], parallel::Overlap::auto_tiles);
  EXPECT_EQ(s.constraints.max_power_W, 500);
  EXPECT_EQ(s.constraints.tpot_slo_s, 0.05);
  EXPECT_TRUE(std::isinf(s.constraints.ttft_slo_s));
  ASSERT_EQ(s.objectives.size(), 2u);
  EXPECT_EQ(s.objectives[0].metric, search::Metric::stps_per_mm2);
  EXPECT_EQ(s.objectives[0].direction, search::Direction::maximize);
  EXPECT_EQ(s.objectives[1].direction, search::Direction::minimize);
  EXPECT_EQ(sp.run.strategy, search::Strategy::random);
  EXPECT_EQ(sp.run.seed, 7u);
  EXPECT_EQ(sp.run.samples, 1000u);
  EXPECT_EQ(sp.fingerprint.size(), 16u);
  // The plain project loader ignores the search section.
  EXPECT_NO_THROW(parse_project(project_with("{}"), presets()));
}

// A model axis takes model presets (or objects); workload lengths are plain numeric axes. Both
// are class axes: they lead the hardware index, and the frontier names the model by its id.
TEST(SearchJson, ModelAndWorkloadAxes) {
  const auto sp = parse_search_project(project_with(R"({
      "hardware": [{"knob": "memory.layers_total", "values": [4, 8]},
                   {"knob": "model", "values": ["llama-3-8b", "mixtral-8x7b"]},
                   {"knob": "workload.output_len", "values": [64, 256]}],
      "parallel": {"tp": [1, 2, 4, 8]}, "batch": [1, 8]})"),
                                       presets());
  ASSERT_EQ(sp.space.models.size(), 2u);
  EXPECT_EQ(sp.space.models[1].id, "mixtral-8x7b");
  const search::CompiledSpace cs(sp.space);
  EXPECT_EQ(cs.device_classes(), 4u);
  EXPECT_EQ(search::axis_value_name(cs.space(), 1, 1.0), "mixtral-8x7b");
  // Hardware point 3 x 2 - 1 = the last one: Mixtral, 256 output tokens, 8 layers.
  const perf::Design last = cs.hardware_design(cs.hardware_points() - 1);
  EXPECT_EQ(last.model.id, "mixtral-8x7b");
  EXPECT_EQ(last.workload.output_len, 256);
  EXPECT_EQ(last.hardware.memory.layers_total, 8);
  // Unknown model ids and out-of-range lengths are reported at their element.
  const auto issues = issues_of(project_with(R"({
      "hardware": [{"knob": "model", "values": ["llama-3-8b", "no-such-model"]},
                   {"knob": "workload.input_len", "values": [0, 128]}]})"));
  EXPECT_TRUE(has_path(issues, "/search/hardware/0/values/1")) << issues.size();
  // A length below 1 is refused when the space is compiled (the knob's allowed range).
  const auto zero = parse_search_project(project_with(R"({
      "hardware": [{"knob": "workload.input_len", "values": [0, 128]}]})"),
                                         presets());
  std::vector<Issue> lengths;
  try {
    const search::CompiledSpace bad(zero.space);
  } catch (const ConfigError& e) {
    lengths = e.issues();
  }
  EXPECT_TRUE(has_path(lengths, "/search/hardware/0/values/0")) << lengths.size();
}

// The expert placement as search axes: strategy names or indices,
// the redundant slots; decoded designs carry them; unknown names are reported at their element.
TEST(SearchJson, ExpertPlacementAxes) {
  const auto sp = parse_search_project(R"({"schema_version": 1, "name": "s",
    "hardware": "hdmoe-node", "system": "hdmoe-mesh-4x8", "model": "mixtral-8x7b",
    "workload": {"batch": 16, "input_len": 256, "output_len": 16},
    "parallel": {"tp": 4, "ep": 8}, "search": {
      "hardware": [{"knob": "experts.placement", "values": ["plan", "balanced", 5]},
                   {"knob": "experts.redundant_per_rank", "values": [0, 2]}],
      "parallel": {"tp": [4], "ep": [8]}}})",
                                       presets());
  ASSERT_EQ(sp.space.hardware[0].values, (std::vector<double>{0, 4, 5}));
  const search::CompiledSpace cs(sp.space);
  EXPECT_EQ(cs.hardware_points(), 6u);
  EXPECT_EQ(search::axis_value_name(cs.space(), 0, 4.0), "balanced");
  EXPECT_EQ(search::axis_value_name(cs.space(), 0, 5.0), "hd");
  const perf::Design last = cs.hardware_design(cs.hardware_points() - 1);
  EXPECT_EQ(last.parallel.experts.strategy, parallel::ExpertStrategy::hd);
  EXPECT_EQ(last.parallel.redundant_experts_per_rank, 2);
  const auto issues = issues_of(project_with(R"({
      "hardware": [{"knob": "experts.placement", "values": ["plan", "hdmoe"]}]})"));
  EXPECT_TRUE(has_path(issues, "/search/hardware/0/values/1")) << issues.size();
  const auto nine = parse_search_project(project_with(R"({
      "hardware": [{"knob": "experts.placement", "values": [9]}]})"),
                                         presets());
  std::vector<Issue> range;
  try {
    const search::CompiledSpace bad(nine.space);
  } catch (const ConfigError& e) {
    range = e.issues();
  }
  EXPECT_TRUE(has_path(range, "/search/hardware/0/values/0")) << range.size();
}

TEST(SearchJson, ReportsEachProblemWithItsPath) {
  const auto issues = issues_of(project_with(R"({
      "hardware": [{"knob": "memory.layers_total", "min": 8, "max": 4, "step": 1},
                   {"knob": "noc.link_GBps", "values": []},
                   {"knob": "x", "min": 1, "max": 2}],
      "parallel": {"tp": [1, 2.5], "tq": [1]},
      "batch": [0],
      "overlap": ["sometimes"],
      "constraints": {"max_power_W": -1},
      "objectives": ["speed"],
      "strategy": "greedy",
      "samplez": 3})"));
  for (const char* p : {"/search/hardware/0", "/search/hardware/1/values", "/search/hardware/2",
                        "/search/parallel/tp", "/search/parallel/tq", "/search/batch",
                        "/search/overlap/0", "/search/constraints/max_power_W",
                        "/search/objectives/0", "/search/strategy", "/search/samplez"})
    EXPECT_TRUE(has_path(issues, p)) << p;
  // Without a search section there is nothing to search.
  const auto none = issues_of(R"({"schema_version": 1, "hardware": "h100-sxm",
      "model": "llama-3-8b", "workload": {}, "parallel": {}})");
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].path, "/search");
}

search::PointRecord sample_point(std::uint64_t hw, std::uint64_t inner, double a, double b) {
  search::PointRecord p;
  p.id = {hw, inner};
  p.feasible = true;
  p.n_objectives = 2;
  p.objectives[0] = a;
  p.objectives[1] = b;
  p.devices = 4;
  p.batch = 16;
  p.stps = a;
  p.utps = b;
  p.ttft_s = 0.1 / 3.0;
  p.tpot_s = 1.0 / b;
  p.energy_per_token_j = 0.123456789012345678;
  p.power_w = 211.5;
  p.die_mm2 = 700;
  p.dram_peak_C = 84.99999999999999;
  return p;
}

TEST(SearchJson, LoggedPointsRoundTripExactly) {
  auto p = sample_point(12345678901234ull, 42, 1234.5678901234567, 1.0 / 7.0);
  p.reasons = 1u << 17;
  p.feasible = false;
  p.objectives[1] = std::numeric_limits<double>::infinity();  // written as null -> NaN
  const std::string line = point_to_jsonl(p);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const auto q = point_from_jsonl(line);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->id, p.id);
  EXPECT_EQ(q->feasible, false);
  EXPECT_EQ(q->reasons, p.reasons);
  EXPECT_EQ(q->objectives[0], p.objectives[0]);  // bit-exact
  EXPECT_TRUE(std::isnan(q->objectives[1]));
  EXPECT_EQ(q->energy_per_token_j, p.energy_per_token_j);
  EXPECT_EQ(q->dram_peak_C, p.dram_peak_C);
  EXPECT_EQ(q->ttft_s, p.ttft_s);
  // A line cut short by a crash, or garbage, is not a point.
  EXPECT_FALSE(point_from_jsonl(line.substr(0, line.size() / 2)).has_value());
  EXPECT_FALSE(point_from_jsonl("{\"hw\": 1}").has_value());
  EXPECT_FALSE(point_from_jsonl("").has_value());
}

TEST(SearchJson, MergingShardFrontiersGivesTheFrontierOfTheUnion) {
  const auto sp = parse_search_project(project_with(R"({
      "hardware": [{"knob": "memory.layers_total", "values": [4, 8]}],
      "parallel": {"tp": [1, 2], "dp": [32, 64]}, "batch": [1, 2, 4, 8],
      "objectives": ["stps", "utps"]})"),
                                       presets());
  const search::CompiledSpace space(sp.space);
  const std::vector<search::Objective> obj(sp.space.objectives.begin(), sp.space.objectives.end());
  // Shard A holds (hw 0): a strong point and a weak one; shard B (hw 1) dominates the weak one.
  search::Archive a(obj), b(obj);
  a.insert(sample_point(0, 0, 100, 10));
  a.insert(sample_point(0, 1, 50, 20));
  b.insert(sample_point(1, 0, 60, 25));  // dominates (50, 20)
  b.insert(sample_point(1, 1, 10, 5));   // dominated by (100, 10)? no: (60,25) dominates it
  const auto dir = std::filesystem::temp_directory_path() / "stackscope_merge_test";
  std::filesystem::create_directories(dir);
  const auto fa = dir / "a.json", fb = dir / "b.json";
  save_text_atomic(fa, frontier_to_json(space, a, sp.fingerprint));
  save_text_atomic(fb, frontier_to_json(space, b, sp.fingerprint));
  const auto m = merge_frontier_files({fa, fb});
  EXPECT_EQ(m.shards, 2);
  const auto pts = m.archive.sorted();
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].id, (search::PointId{0, 0}));
  EXPECT_EQ(pts[1].id, (search::PointId{1, 0}));
  // The merged file carries each point's loadable design.
  const auto j = nlohmann::json::parse(m.json);
  ASSERT_EQ(j["points"].size(), 2u);
  const std::string design = j["points"][1]["design"].dump();
  EXPECT_EQ(parse_project(design, presets()).hardware.memory.layers_total, 8);
  // A frontier of another search is refused, naming the file.
  const auto fc = dir / "c.json";
  save_text_atomic(fc, frontier_to_json(space, a, "0000000000000000"));
  try {
    merge_frontier_files({fa, fc});
    ADD_FAILURE() << "merge of different searches must fail";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("c.json"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

TEST(SearchLog, ResumeKeepsPointsBelowTheWatermarkAndDropsTheRest) {
  const auto dir = std::filesystem::temp_directory_path() / "stackscope_log_test";
  std::filesystem::remove_all(dir);
  const SearchLogHeader h{"0123456789abcdef", "exhaustive", 1, 0, 0, 1, "", ""};
  const std::vector<search::Objective> obj = {search::objective(search::Metric::stps),
                                              search::objective(search::Metric::utps)};
  auto p0 = sample_point(0, 0, 100, 10), p1 = sample_point(0, 1, 50, 20);
  auto q0 = sample_point(1, 0, 200, 30);  // unit 1 never finishes
  auto r0 = sample_point(2, 0, 10, 5);    // unit 2 finishes, but above the gap at unit 1
  p0.unit = p1.unit = 0;
  q0.unit = 1;
  r0.unit = 2;
  {
    auto log = SearchLog::create(dir, h);
    log.watermark_interval_s = 0;
    const search::PointRecord batch1[] = {p0, q0};
    log.append(batch1);
    const search::PointRecord batch2[] = {p1, r0};
    log.append(batch2);
    log.unit_done(0, {2, 5, 3, 0});
    log.unit_done(2, {1, 0, 0, 0});  // waits for unit 1
  }
  {  // the kill: half a line at the end
    std::ofstream f(dir / "points.jsonl", std::ios::app);
    f << R"({"hw": 1, "inner": 1, "feas)";
  }
  // A new run must not overwrite it.
  EXPECT_THROW(SearchLog::create(dir, h), ConfigError);
  // Another search's log is refused.
  ResumeState other;
  auto h2 = h;
  h2.seed = 2;
  EXPECT_THROW(SearchLog::resume(dir, h2, obj, other), ConfigError);

  ResumeState st;
  {
    auto log = SearchLog::resume(dir, h, obj, st);
    EXPECT_EQ(st.done_below, 1u);
    EXPECT_EQ(st.totals.evaluated, 2u);
    EXPECT_EQ(st.totals.pruned, 5u);
    EXPECT_EQ(st.dropped_points, 2u);  // q0 and r0: units 1 and 2 are redone
    const auto f = st.archive.sorted();
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(f[0].id, p0.id);
    EXPECT_EQ(f[1].id, p1.id);
    // The resumed run redoes units 1 and 2.
    const search::PointRecord again[] = {q0, r0};
    log.append(again);
    log.unit_done(2, {1, 0, 0, 0});
    log.unit_done(1, {1, 0, 0, 0});
  }  // the destructor writes the last watermark
  ResumeState st2;
  SearchLog::resume(dir, h, obj, st2);
  EXPECT_EQ(st2.done_below, 3u);
  EXPECT_EQ(st2.dropped_points, 0u);
  EXPECT_EQ(st2.totals.evaluated, 4u);
  std::ifstream f(dir / "points.jsonl");
  int points = 0;
  for (std::string line; std::getline(f, line);) points += line.find("\"hw\"") != std::string::npos;
  EXPECT_EQ(points, 4);
  std::filesystem::remove_all(dir);
}

// Format 3: an exhaustive run's ordinals are positions in search::visit_order(units), so the
// watermark advances over the units in the order the engine visits them. A format-2 log was
// written in index order: it resumes in index order, and is rewritten as format 3 saying so.
TEST(SearchLog, WatermarksFollowTheVisitOrderAndOldLogsKeepIndexOrder) {
  const auto dir = std::filesystem::temp_directory_path() / "stackscope_log_order_test";
  std::filesystem::remove_all(dir);
  SearchLogHeader h{"0123456789abcdef", "exhaustive", 0, 0, 1, 2, "", ""};
  h.units = 300;  // hardware points 1, 3, ..., 599 (shard 1/2)
  h.strata_order = true;
  const auto order = search::visit_order(h.units);
  ASSERT_TRUE(order);
  const std::vector<search::Objective> obj = {search::objective(search::Metric::stps),
                                              search::objective(search::Metric::utps)};
  const auto hw_at = [&](std::uint64_t position) { return order->unit_at(position) * 2 + 1; };
  ASSERT_NE(hw_at(0), 1u) << "the first position is not unit 0 for this seed";
  std::vector<search::PointRecord> pts;
  for (const std::uint64_t p : {0, 1, 5}) {
    auto r = sample_point(hw_at(p), 0, 100.0 - static_cast<double>(p), 10.0 + static_cast<double>(p));
    r.unit = hw_at(p);
    pts.push_back(r);
  }
  {
    auto log = SearchLog::create(dir, h);
    log.watermark_interval_s = 0;
    EXPECT_EQ(log.ordinal(hw_at(5)), 5u);
    log.append(pts);
    log.unit_done(hw_at(1), {1, 0, 0, 0});
    log.unit_done(hw_at(5), {1, 0, 0, 0});  // waits for positions 2 to 4
    log.unit_done(hw_at(0), {1, 0, 0, 0});
  }
  ResumeLimits limits;
  limits.units = h.units;
  ResumeState st;
  SearchLog::resume(dir, h, obj, st, limits);
  EXPECT_TRUE(st.strata_order);
  EXPECT_EQ(st.format, 3);
  EXPECT_EQ(st.done_below, 2u);
  EXPECT_EQ(st.dropped_points, 1u);  // position 5's point: its unit is redone
  EXPECT_EQ(st.archive.size(), 2u);

  // The same log as format 2 (index order): unit ordinals are (hw - 1) / 2.
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "points.jsonl");
    out << seal_log_line(
               R"({"kind":"search_log","schema_version":1,"log_version":2,"fingerprint":"0123456789abcdef",)"
               R"("strategy":"exhaustive","seed":0,"samples":0,"shard_index":1,"shard_count":2})")
        << '\n';
    auto a = sample_point(1, 0, 100, 10), b = sample_point(5, 0, 90, 20);
    a.unit = 1;
    b.unit = 5;
    out << seal_log_line(point_to_jsonl(a)) << '\n' << seal_log_line(point_to_jsonl(b)) << '\n';
    out << seal_log_line(
               R"({"done_below":1,"evaluated":1,"pruned":0,"pruned_bound":0,"infeasible":0})")
        << '\n';
  }
  ResumeState old;
  {
    auto log = SearchLog::resume(dir, h, obj, old, limits);
    EXPECT_FALSE(old.strata_order);
    EXPECT_EQ(old.format, 2);
    EXPECT_EQ(old.done_below, 1u);
    EXPECT_EQ(old.dropped_points, 1u);  // hw 5 is unit 2, above the watermark
    EXPECT_EQ(log.ordinal(5), 2u);
  }
  std::ifstream in(dir / "points.jsonl");
  std::string first;
  std::getline(in, first);
  EXPECT_NE(first.find(R"("log_version":3)"), std::string::npos) << first;
  EXPECT_NE(first.find(R"("order":"index")"), std::string::npos) << first;
  ResumeState again;
  SearchLog::resume(dir, h, obj, again, limits);
  EXPECT_FALSE(again.strata_order);
  EXPECT_EQ(again.done_below, 1u);
  std::filesystem::remove_all(dir);
}

// A format-3 header whose order is neither "strata" nor "index", or that gives an order without
// the unit count it applies to, is not a header this version can resume: refused, saying so.
TEST(SearchLog, AHeaderWithABadOrderIsRefused) {
  const auto dir = std::filesystem::temp_directory_path() / "stackscope_log_bad_order_test";
  const SearchLogHeader h{"0123456789abcdef", "exhaustive", 0, 0, 0, 1, "", ""};
  const std::vector<search::Objective> obj = {search::objective(search::Metric::stps),
                                              search::objective(search::Metric::utps)};
  for (const std::string tail : {R"("units":300,"order":"sideways"})", R"("order":"strata"})",
                                 R"("units":-4,"order":"index"})"}) {
    SCOPED_TRACE(tail);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    {
      std::ofstream out(dir / "points.jsonl");
      out << seal_log_line(
                 R"({"kind":"search_log","schema_version":1,"log_version":3,"fingerprint":"0123456789abcdef",)"
                 R"("strategy":"exhaustive","seed":0,"samples":0,"shard_index":0,"shard_count":1,)" +
                 tail)
          << '\n';
    }
    ResumeState st;
    try {
      SearchLog::resume(dir, h, obj, st);
      ADD_FAILURE() << "accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("not a search log header"), std::string::npos)
          << e.what();
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(SearchLog, Crc32IsTheStandardOneAndEveryLineIsSealed) {
  // The CRC-32 check value (IEEE 802.3 / zlib; e.g. Koopman's CRC catalogue).
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u);
  const std::string line = seal_log_line(R"({"done_below":3,"evaluated":7})");
  EXPECT_EQ(line.substr(0, 29), R"({"done_below":3,"evaluated":7)");
  EXPECT_EQ(verify_log_line(line), std::optional<std::string>(R"({"done_below":3,"evaluated":7})"));
  std::string flipped = line;
  flipped[14] = '4';  // done_below 3 -> 4
  EXPECT_FALSE(verify_log_line(flipped));
  EXPECT_FALSE(verify_log_line(R"({"done_below":3,"evaluated":7})"));  // none
  EXPECT_FALSE(verify_log_line(line.substr(0, line.size() - 3)));      // cut short
}

TEST(SearchLog, ADamagedLineResumesFromTheLastGoodRecordBeforeIt) {
  const auto dir = std::filesystem::temp_directory_path() / "stackscope_log_damage_test";
  std::filesystem::remove_all(dir);
  const SearchLogHeader h{"0123456789abcdef", "exhaustive", 0, 0, 0, 1, "", ""};
  const std::vector<search::Objective> obj = {search::objective(search::Metric::stps),
                                              search::objective(search::Metric::utps)};
  auto p0 = sample_point(0, 0, 100, 10), p1 = sample_point(1, 0, 50, 20);
  auto p2 = sample_point(2, 0, 200, 30);
  p0.unit = 0, p1.unit = 1, p2.unit = 2;
  {
    auto log = SearchLog::create(dir, h);
    log.watermark_interval_s = 0;
    log.append(std::span(&p0, 1));
    log.unit_done(0, {1, 0, 0, 0});
    log.append(std::span(&p1, 1));
    log.unit_done(1, {1, 0, 0, 0});
    log.append(std::span(&p2, 1));
    log.unit_done(2, {1, 0, 0, 0});
  }
  // Lines: header, p0, wm 1, p1, wm 2, p2, wm 3. A bit flip in p1 (line 4).
  std::vector<std::string> lines;
  {
    std::ifstream in(dir / "points.jsonl");
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  ASSERT_EQ(lines.size(), 7u);
  lines[3][lines[3].find("\"inner\":0") + 8] = '7';
  {
    std::ofstream out(dir / "points.jsonl", std::ios::trunc);
    for (const auto& l : lines) out << l << '\n';
  }
  ResumeState st;
  ResumeLimits limits;
  limits.units = 3;
  SearchLog::resume(dir, h, obj, st, limits);
  EXPECT_EQ(st.done_below, 1u);  // the watermark before the damaged line
  ASSERT_EQ(st.archive.size(), 1u);
  EXPECT_EQ(st.archive.sorted()[0].id, p0.id);
  ASSERT_EQ(st.notes.size(), 1u);
  EXPECT_NE(st.notes[0].find("line 4 is damaged (checksum mismatch)"), std::string::npos)
      << st.notes[0];
  EXPECT_NE(st.notes[0].find("4 lines from there on discarded"), std::string::npos) << st.notes[0];
  // The rewritten log verifies line by line.
  std::ifstream in(dir / "points.jsonl");
  for (std::string l; std::getline(in, l);) EXPECT_TRUE(verify_log_line(l)) << l;

  // A format-1 log (before checksums) is read, with the sense checks, and rewritten sealed.
  {
    std::ofstream out(dir / "points.jsonl", std::ios::trunc);
    out << R"({"kind":"search_log","schema_version":1,"fingerprint":"0123456789abcdef",)"
        << R"("strategy":"exhaustive","seed":0,"samples":0,"shard_index":0,"shard_count":1})"
        << '\n'
        << point_to_jsonl(p0) << '\n'
        << R"({"done_below":1,"evaluated":1,"pruned":0,"pruned_bound":0,"infeasible":0})" << '\n'
        << R"({"done_below":9,"evaluated":2,"pruned":0,"pruned_bound":0,"infeasible":0})" << '\n';
  }
  ResumeState old;
  auto legacy = h;
  legacy.fingerprint = "fedcba9876543210";  // what this search's canonical form hashes to now
  legacy.legacy_fingerprint = "0123456789abcdef";
  SearchLog::resume(dir, legacy, obj, old, limits);
  EXPECT_EQ(old.format, 1);
  EXPECT_EQ(old.done_below, 1u);  // "done below 9" is past the run's 3 units
  ASSERT_EQ(old.notes.size(), 2u);
  EXPECT_NE(old.notes[0].find("log format 1"), std::string::npos) << old.notes[0];
  EXPECT_NE(old.notes[1].find("watermark 9 is past the run's 3 work units"), std::string::npos)
      << old.notes[1];
  std::ifstream again(dir / "points.jsonl");
  for (std::string l; std::getline(again, l);) EXPECT_TRUE(verify_log_line(l)) << l;
  std::filesystem::remove_all(dir);
}

// fuzz-findings.md #1 (UBSan, fuzz_search_points): integers given as floats or out of their
// type's range ("reasons": 6e23, "devices": 1e30, "hw": 1e300, "batch": -3e9, "unit": -1e300)
// were converted by undefined float->int casts or wrapped. They are not point lines.
TEST(SearchJson, PointLinesWithOutOfRangeIntegersAreNotPoints) {
  std::ifstream in(std::string(STACKSCOPE_SOURCE_DIR) +
                   "/tests/data/fuzz/search_points/float-to-integer-overflow.jsonl");
  ASSERT_TRUE(in);
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines)
    EXPECT_FALSE(point_from_jsonl(line)) << line;
  EXPECT_EQ(lines, 5);
  auto p = sample_point(3, 4, 1, 2);
  p.unit = 3;
  std::string text = point_to_jsonl(p);
  ASSERT_TRUE(point_from_jsonl(text));
  text.replace(text.find("\"devices\":"), 12, "\"devices\":4.5,");
  EXPECT_FALSE(point_from_jsonl(text)) << text;
}

TEST(SearchJson, TheFingerprintIsOfTheSpaceNotOfItsSpelling) {
  const auto a =
      parse_search_project(project_with(R"({"hardware": [{"knob": "devices", "values": [4, 8]}],
        "batch": {"min": 1, "max": 64, "factor": 4}, "objectives": ["stps", "utps"]})"),
                           presets());
  // Keys reordered, the range as its list, the objective as an object in its default
  // direction, a note and run options: the same space.
  const auto b = parse_search_project(
      project_with(R"({"notes": "x", "seed": 9, "objectives": [{"metric": "stps"}, "utps"],
        "batch": [1, 4, 16, 64], "hardware": [{"values": [4, 8], "knob": "devices"}]})"),
      presets());
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  EXPECT_EQ(a.canonical, b.canonical);
  const auto c =
      parse_search_project(project_with(R"({"hardware": [{"knob": "devices", "values": [4, 16]}],
        "batch": {"min": 1, "max": 64, "factor": 4}, "objectives": ["stps", "utps"]})"),
                           presets());
  EXPECT_NE(a.fingerprint, c.fingerprint);
}

// Field-by-field equality of two parsed search projects (the structs have no operator==; the
// designs compare through their complete JSON).
void expect_same(const SearchProject& a, const SearchProject& b, const std::string& what) {
  SCOPED_TRACE(what);
  const auto &x = a.space, &y = b.space;
  EXPECT_EQ(project_to_json(x.base), project_to_json(y.base));
  ASSERT_EQ(x.variants.size(), y.variants.size());
  for (std::size_t i = 0; i < x.variants.size(); ++i) {
    EXPECT_EQ(x.variants[i].name, y.variants[i].name);
    EXPECT_EQ(hardware_to_json(x.variants[i].hardware), hardware_to_json(y.variants[i].hardware));
    EXPECT_EQ(system_to_json(x.variants[i].system), system_to_json(y.variants[i].system));
  }
  ASSERT_EQ(x.models.size(), y.models.size());
  for (std::size_t i = 0; i < x.models.size(); ++i)
    EXPECT_EQ(model_to_json(x.models[i]), model_to_json(y.models[i]));
  ASSERT_EQ(x.hardware.size(), y.hardware.size());
  for (std::size_t i = 0; i < x.hardware.size(); ++i) {
    EXPECT_EQ(x.hardware[i].knob, y.hardware[i].knob);
    EXPECT_EQ(x.hardware[i].values, y.hardware[i].values) << x.hardware[i].knob;
  }
  const auto &p = x.inner, &q = y.inner;
  EXPECT_EQ(p.tp, q.tp);
  EXPECT_EQ(p.pp, q.pp);
  EXPECT_EQ(p.ep, q.ep);
  EXPECT_EQ(p.dp, q.dp);
  EXPECT_EQ(p.cp, q.cp);
  EXPECT_EQ(p.sequence_parallel, q.sequence_parallel);
  EXPECT_EQ(p.batch, q.batch);
  EXPECT_EQ(p.overlap, q.overlap);
  EXPECT_EQ(p.attention_tp, q.attention_tp);
  EXPECT_EQ(p.moe_ep, q.moe_ep);
  const auto &c = x.constraints, &d = y.constraints;
  EXPECT_EQ(c.max_power_W, d.max_power_W);
  EXPECT_EQ(c.max_die_area_mm2, d.max_die_area_mm2);
  EXPECT_EQ(c.max_dram_C, d.max_dram_C);
  EXPECT_EQ(c.ttft_slo_s, d.ttft_slo_s);
  EXPECT_EQ(c.tpot_slo_s, d.tpot_slo_s);
  ASSERT_EQ(x.objectives.size(), y.objectives.size());
  for (std::size_t i = 0; i < x.objectives.size(); ++i) {
    EXPECT_EQ(x.objectives[i].metric, y.objectives[i].metric);
    EXPECT_EQ(x.objectives[i].direction, y.objectives[i].direction);
  }
  EXPECT_EQ(a.run.strategy, b.run.strategy);
  EXPECT_EQ(a.run.seed, b.run.seed);
  EXPECT_EQ(a.run.samples, b.run.samples);
  EXPECT_EQ(a.run.population, b.run.population);
  EXPECT_EQ(a.run.generations, b.run.generations);
}

TEST(SearchWriter, EveryPresetRoundTrips) {
  const auto list = presets().list(PresetKind::search);
  ASSERT_FALSE(list.empty());
  for (const auto& info : list) {
    const std::string& text = presets().json_text(PresetKind::search, info.id);
    const SearchProject x = parse_search_project(text, presets());
    // Self-contained (presets inlined) and in place (the preset's own keys kept).
    const std::string whole = search_project_to_json(x.space, x.run);
    expect_same(x, parse_search_project(whole, presets()), info.id + " (self-contained)");
    const std::string in_place = replace_search_section(text, x.space, x.run, presets());
    expect_same(x, parse_search_project(in_place, presets()), info.id + " (in place)");
    // Writing is a fixed point: the text of what was read back is the same text.
    const SearchProject y = parse_search_project(in_place, presets());
    EXPECT_EQ(replace_search_section(in_place, y.space, y.run, presets()), in_place) << info.id;
    EXPECT_EQ(search::CompiledSpace(x.space).size(), search::CompiledSpace(y.space).size())
        << info.id;
  }
}

TEST(SearchWriter, KeepsPresetIdsAndWritesRangesCompactly) {
  const std::string& text = presets().json_text(PresetKind::search, "llama-3-70b-gpu-vs-stacked");
  const SearchProject x = parse_search_project(text, presets());
  const std::string out = replace_search_section(text, x.space, x.run, presets());
  // The variants still name their presets; the base design is still "hardware": "h100-sxm".
  EXPECT_NE(out.find(R"({"name": "H100", "hardware": "h100-sxm", "system": "h100-sxm-x64-ib"})"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(R"("hardware": "h100-sxm",)"), std::string::npos);
  EXPECT_NE(out.find(R"("batch": {"min": 1, "max": 1024, "factor": 2})"), std::string::npos);
  EXPECT_NE(out.find(R"("objectives": ["stps_per_mm2", "utps", "energy_per_token_j"])"),
            std::string::npos);
  EXPECT_NE(out.find(R"("constraints": {"tpot_slo_s": 0.05})"), std::string::npos);
  // A variant list that changed is written inline.
  search::Space y = x.space;
  y.variants[1].name = "stacked";
  const std::string changed = replace_search_section(text, y, x.run, presets());
  EXPECT_EQ(changed.find(R"({"name": "H100", "hardware": "h100-sxm")"), std::string::npos);
  EXPECT_EQ(parse_search_project(changed, presets()).space.variants[1].name, "stacked");
}

TEST(SearchWriter, EditedSpacesRoundTrip) {
  SearchProject x = parse_search_project(
      presets().json_text(PresetKind::search, "mixtral-hdmoe-mesh"), presets());
  auto& s = x.space;
  s.hardware.push_back({"compute.die_area_mm2", {500, 612.5, 700.25}});
  s.hardware.push_back({"memory.vertical.pitch_um", {0.5, 0.6, 0.7, 0.8, 0.9}});
  s.hardware.push_back({"noc.link_GBps", {76.8, 153.6, 307.2, 614.4}});
  s.inner.sequence_parallel = {0, 1};
  s.inner.overlap = {parallel::Overlap::fixed};
  s.inner.batch = {3, 5, 7, 9, 11};
  s.constraints.max_power_W = 450.5;
  s.constraints.tpot_slo_s = 0.05;
  s.constraints.ttft_slo_s = 1.25;
  s.objectives = {search::objective(search::Metric::stps_per_W),
                  {search::Metric::utps, search::Direction::minimize},
                  search::objective(search::Metric::tpot_s)};
  x.run.strategy = search::Strategy::random;
  x.run.seed = 42;
  x.run.samples = 123;
  const std::string text = search_project_to_json(s, x.run);
  expect_same(x, parse_search_project(text, presets()), "edited");
  EXPECT_NE(
      text.find(R"("knob": "memory.vertical.pitch_um", "min": 0.5, "max": 0.9, "step": 0.1})"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("knob": "noc.link_GBps", "min": 76.8, "max": 614.4, "factor": 2})"),
            std::string::npos);
  EXPECT_NE(text.find(R"("batch": {"min": 3, "max": 11, "step": 2})"), std::string::npos);
  EXPECT_NE(text.find(R"({"metric": "utps", "direction": "minimize"})"), std::string::npos);
  for (const char* key : {R"("strategy": "random")", R"("seed": 42)", R"("samples": 123)"})
    EXPECT_NE(text.find(key), std::string::npos) << key;
}

TEST(SearchWriter, RangesAreFoundOnlyWhenTheyExpandExactly) {
  const std::vector<double> geo{1, 2, 4, 8, 16};
  ASSERT_TRUE(as_range(geo));
  EXPECT_EQ(*as_range(geo), (ValueRange{1, 16, 0, 2}));
  const std::vector<double> lin{2, 3, 4, 5, 6, 7};
  EXPECT_EQ(*as_range(lin), (ValueRange{2, 7, 1, 0}));
  // 0.8 + 2 x 0.2 is not 1.2 in doubles: only a 17-digit step would reproduce the list.
  EXPECT_FALSE(as_range(std::vector<double>{0.8, 1.0, 1.2, 1.4}));
  // A range typed as 0.8 to 1.4 step 0.2 comes back as typed.
  const auto typed = expand(ValueRange{0.8, 1.4, 0.2, 0});
  ASSERT_EQ(typed.size(), 4u);
  EXPECT_EQ(*as_range(typed), (ValueRange{0.8, 1.4, 0.2, 0}));
  EXPECT_FALSE(as_range(std::vector<double>{4, 8, 12}));    // short lists stay lists
  EXPECT_FALSE(as_range(std::vector<double>{1, 2, 4, 9}));  // irregular
  // A far end is refused by the candidate's length, not by expanding 10^96 values (fuzzing
  // found it: 2 GB and out of memory before the fix), for steps and for factors.
  EXPECT_FALSE(as_range(std::vector<double>{500, 600, 700, 8e98}));
  EXPECT_FALSE(as_range(std::vector<double>{1, 1.000001, 1.000002, 1e300}));
  EXPECT_FALSE(as_range(std::vector<double>{8, 4, 2, 1}));  // descending
  EXPECT_FALSE(as_range(std::vector<double>{1, 1, 1, 1}));  // no step
  EXPECT_THROW(expand(ValueRange{1, 8, 0, 1}), std::invalid_argument);
  EXPECT_THROW(expand(ValueRange{1, 8, -1, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace stackscope::io
