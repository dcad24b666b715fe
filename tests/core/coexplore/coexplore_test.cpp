// SPDX-License-Identifier: GPL-3.0-or-later
// Co-exploration of a wafer with its serving: indexing and checks of
// the space, the per-point central scheduler against a direct choose_partition, the DRAM-per-die
// trade of edge DRAM against dies, shards and resume giving the single-run frontier, the
// optimum-along-an-axis report, the log and CSV on disk (io/coexplore.hpp), and the geometric
// maximality of the scheduler's partitions (wafer/partition.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "stackscope/coexplore/coexplore.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/hw/wafer.hpp"
#include "stackscope/io/coexplore.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/wafer/placement.hpp"
#include "stackscope/wafer/run.hpp"

namespace stackscope::coexplore {
namespace {

const io::PresetRegistry& presets() {
  return io::builtin_presets();
}

// Llama-3-8B FP8 on the shipped DRAM wafer's dies (H100-class), a grid of dx x dy dies.
PointConfig small_base(int dx, int dy) {
  PointConfig p;
  perf::Design& d = p.design;
  d = presets().project("default");
  d.hardware = presets().hardware("h100-sxm");
  d.model = presets().model("llama-3-8b");
  d.runtime = presets().runtime("modern-gpu-2025");
  d.workload.numerics = {Precision::fp8, Precision::fp8, Precision::fp8};
  d.workload.batch = 1;
  d.workload.batch_auto = false;
  hw::Wafer w = presets().wafer("wsc-dram-5x4");
  w.dies_x = dx;
  w.dies_y = dy;
  d.wafer = w;
  hw::apply_wafer(w, d.hardware, d.system);
  d.parallel = {};
  d.parallel.dp = dx * dy;
  p.spec.slo.ttft_s = 0.5;
  p.spec.slo.tpot_s = 0.03;
  return p;
}

std::vector<serving::Request> stream(double rate, std::size_t n) {
  serving::GeneratorSpec g;
  g.arrivals.rate_per_s = rate;
  g.input = serving::ServingSpec::fixed_length(1024);
  g.output = serving::ServingSpec::fixed_length(128);
  g.requests = n;
  g.seed = 3;
  return serving::generate(g);
}

Space small_space() {
  Space s;
  s.base = small_base(3, 1);
  s.axes = {{"d2d_GBps", {500, 4500}}, {"load", {1, 2, 4}}};
  s.scheduler.threads = 1;
  return s;
}

struct Collect final : Sink {
  std::vector<Record> points;
  void on_point(const Record& r) override { points.push_back(r); }
};

TEST(CoexploreSpace, IndexesMixedRadixLastAxisFastestAndAppliesEveryKnob) {
  const CompiledSpace s(small_space());
  EXPECT_EQ(s.size(), 6u);
  EXPECT_EQ(s.values(0), (std::vector<double>{500, 1}));
  EXPECT_EQ(s.values(1), (std::vector<double>{500, 2}));
  EXPECT_EQ(s.values(5), (std::vector<double>{4500, 4}));
  const PointConfig p = s.decode(4);
  EXPECT_DOUBLE_EQ(p.design.wafer->d2d_GBps, 4500);
  EXPECT_DOUBLE_EQ(p.load, 2);
  // The static batch a project sized for `evaluate` is not the serving one: at 64 the pool
  // plans' memory check would drop plans the scheduler may use (as serve, batch 1).
  Space big = small_space();
  big.base.design.workload.batch = 64;
  big.base.design.workload.batch_auto = true;
  const PointConfig served = CompiledSpace(big).decode(0);
  EXPECT_EQ(served.design.workload.batch, 1);
  EXPECT_FALSE(served.design.workload.batch_auto);
  // The die and D2D mesh follow the wafer (hw::apply_wafer): the mesh link carries the knob's
  // bandwidth times the link efficiency.
  const hw::System sys =
      hw::wafer_system(*p.design.wafer, hw::wafer_layout(*p.design.wafer, p.design.hardware));
  EXPECT_DOUBLE_EQ(p.design.system.levels.front().link_GBps, sys.levels.front().link_GBps);
  // Every knob writes what its name says.
  for (const Knob& k : knobs()) {
    PointConfig q = small_base(2, 1);
    // A value inside the range and unlike the base's (3 dies, 3 sequences; 37 % of the way).
    const double v = k.integer ? 3 : k.min + 0.37 * (std::min(k.max, k.min + 100) - k.min);
    k.apply(q, v);
    const PointConfig base = small_base(2, 1);
    const bool changed =
        !(*q.design.wafer == *base.design.wafer) || !(q.spec == base.spec) || q.load != base.load;
    EXPECT_TRUE(changed) << k.name;
  }
}

TEST(CoexploreSpace, RefusesUnknownKnobsValuesOutOfRangeAndDesignsWithoutAWafer) {
  auto issues_of = [](Space s) {
    try {
      CompiledSpace c(std::move(s));
    } catch (const ConfigError& e) {
      return e.issues();
    }
    return std::vector<Issue>{};
  };
  Space s = small_space();
  s.axes = {{"dram_gb", {16}}};
  auto is = issues_of(s);
  ASSERT_EQ(is.size(), 1u);
  EXPECT_EQ(is[0].path, "/coexplore/axes/0/knob");
  EXPECT_NE(is[0].allowed.find("dram_GB"), std::string::npos);
  s.axes = {{"dram_GB", {16, 2000}}, {"dies_x", {2.5}}, {"dram_GB", {8}}};
  is = issues_of(s);
  ASSERT_EQ(is.size(), 3u);
  EXPECT_EQ(is[0].path, "/coexplore/axes/0/values/1");
  EXPECT_EQ(is[1].path, "/coexplore/axes/1/values/0");
  EXPECT_EQ(is[2].path, "/coexplore/axes/2/knob");  // given twice
  s = small_space();
  s.base.design.wafer.reset();
  is = issues_of(s);
  ASSERT_EQ(is.size(), 1u);
  EXPECT_EQ(is[0].path, "/wafer");
  s = small_space();
  s.objectives.clear();
  s.constraints.min_slo_attainment = 1.5;
  EXPECT_EQ(issues_of(s).size(), 2u);
  s.constraints.min_slo_attainment = 1e308;  // named as 1e+308, not as 309 digits
  is = issues_of(s);
  ASSERT_FALSE(is.empty());
  EXPECT_EQ(is.back().value, "1e+308");
}

// validate(): the base workload and the serving section with serve's ranges. A TTFT SLO of
// -1e308 made every point "infeasible" (exit 0), a negative rate ended as "error: internal",
// 1.1e12 requests as "out of memory".
TEST(CoexploreSpace, ValidateChecksTheBaseWorkloadAndTheServingSectionAsServeDoes) {
  EXPECT_TRUE(validate(CompiledSpace(small_space())).empty());
  auto only_path = [](Space s) {
    const auto is = validate(CompiledSpace(std::move(s)));
    EXPECT_EQ(is.size(), 1u) << format_issues(is);
    return is.empty() ? std::string() : is.front().path;
  };
  Space s = small_space();
  s.base.spec.slo.ttft_s = -1e308;
  EXPECT_EQ(only_path(s), "/serving/slo/ttft_s");
  s = small_space();
  s.base.spec.rate_per_s = -5;
  EXPECT_EQ(only_path(s), "/serving/rate_per_s");
  s = small_space();
  s.base.spec.requests = 1'100'000'000'000;
  s.base.spec.rate_per_s = 1e6;  // so that the stream alone is not over 366 days long
  EXPECT_EQ(only_path(s), "/serving/requests");
  s = small_space();
  s.base.design.workload.output_len = 0;
  EXPECT_EQ(only_path(s), "/workload/output_len");
}

TEST(CoexploreRun, EachPointIsTheCentralSchedulersChoiceRunOnTheWholeStream) {
  const CompiledSpace s(small_space());
  const auto reqs = stream(40, 120);
  const Record r = evaluate(s, 3, reqs, 1);  // d2d 4500, load 1
  ASSERT_TRUE(r.feasible) << r.reason;
  PointConfig p = s.decode(3);
  wafer::SchedulerOptions so = s.space().scheduler;
  so.threads = 1;
  const auto choice = wafer::choose_partition(p.design, p.spec, reqs, so);
  EXPECT_EQ(r.partition, choice.best.text);
  const auto run = wafer::run_on_wafer(p.design, p.spec, choice.best.partition, reqs);
  EXPECT_DOUBLE_EQ(r.goodput_rps, run.result.goodput_rps);
  EXPECT_DOUBLE_EQ(r.power_W, run.power_W);
  EXPECT_DOUBLE_EQ(r.goodput_per_kW, 1e3 * r.goodput_rps / r.power_W);
  EXPECT_EQ(r.usable_dies, 3);
  EXPECT_EQ(r.requests, reqs.size());
  ASSERT_EQ(r.objectives.size(), 2u);
  EXPECT_DOUBLE_EQ(r.objectives[0], r.goodput_rps);
  // Load 4: arrivals four times as fast; goodput cannot exceed what arrives.
  const Record hi = evaluate(s, 5, reqs, 1);
  const auto scaled = scale_load(reqs, 4);
  EXPECT_DOUBLE_EQ(scaled.back().arrival_s, reqs.back().arrival_s / 4);
  EXPECT_LE(hi.goodput_rps, static_cast<double>(hi.requests) / scaled.back().arrival_s * 1.0001);
}

TEST(CoexploreRun, AWaferThatCannotBeBuiltIsInfeasibleWithTheLayoutsReason) {
  Space sp = small_space();
  sp.axes = {{"compute_fraction", {0.5, 0.95}}};
  const CompiledSpace s(sp);
  const Record r = evaluate(s, 1, stream(10, 20), 1);
  EXPECT_FALSE(r.feasible);
  EXPECT_NE(r.reason.find("wafer not physical"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.partition.empty());
}

TEST(CoexploreRun, MoreDramPerDieMeansFewerDiesOnAnAutomaticGrid) {
  // Edge DRAM takes wafer area per GB (121 / 24 mm² per GB, wafer.hpp), so on an automatic
  // grid the die count falls as the capacity per die rises; the model holds at every point.
  Space sp;
  sp.base = small_base(0, 0);
  sp.axes = {{"dram_GB", {16, 48, 128, 256}}};
  const CompiledSpace s(sp);
  int last = 1 << 30;
  for (std::uint64_t i = 0; i < s.size(); ++i) {
    const PointConfig p = s.decode(i);
    const auto l = hw::wafer_layout(*p.design.wafer, p.design.hardware);
    ASSERT_TRUE(l.issues.empty()) << format_issues(l.issues);
    EXPECT_LE(l.usable_dies, last);
    EXPECT_LE(l.dies * l.tile_mm2, p.design.wafer->usable_area_mm2);
    last = l.usable_dies;
  }
  EXPECT_LT(last,
            hw::wafer_layout(*s.decode(0).design.wafer, s.decode(0).design.hardware).usable_dies);
}

TEST(CoexploreRun, ShardsAndResumeGiveTheSingleRunFrontier) {
  const CompiledSpace s(small_space());
  const auto reqs = stream(40, 80);
  Collect all;
  const Summary whole = run(s, reqs, {}, all);
  ASSERT_TRUE(whole.complete);
  EXPECT_EQ(all.points.size(), 6u);
  ASSERT_FALSE(whole.frontier.empty());
  // Two shards, merged.
  search::Archive merged = whole.archive;
  merged = search::Archive(whole.archive.objectives());
  std::size_t n = 0;
  for (std::uint64_t k = 0; k < 2; ++k) {
    RunOptions o;
    o.shard = {k, 2};
    Collect c;
    const Summary part = run(s, reqs, o, c);
    for (const auto& r : c.points) EXPECT_EQ(r.index % 2, k);
    n += c.points.size();
    merged.merge(part.archive);
  }
  EXPECT_EQ(n, 6u);
  std::vector<std::uint64_t> a, b;
  for (const auto& p : whole.archive.sorted()) a.push_back(p.id.hw);
  for (const auto& p : merged.sorted()) b.push_back(p.id.hw);
  EXPECT_EQ(a, b);
  // Stopped after 2 points, resumed with those: the rest is run, nothing twice.
  RunOptions first;
  first.max_points = 2;
  Collect c1;
  const Summary cut = run(s, reqs, first, c1);
  EXPECT_FALSE(cut.complete);
  ASSERT_EQ(c1.points.size(), 2u);
  RunOptions again;
  again.done = c1.points;
  Collect c2;
  const Summary rest = run(s, reqs, again, c2);
  EXPECT_TRUE(rest.complete);
  EXPECT_EQ(c2.points.size(), 4u);
  EXPECT_EQ(rest.progress.resumed, 2u);
  std::vector<std::uint64_t> r;
  for (const auto& p : rest.archive.sorted()) r.push_back(p.id.hw);
  EXPECT_EQ(r, a);
  // Deterministic: the same records as the uninterrupted run.
  for (const auto& p : c2.points) {
    EXPECT_EQ(p.partition, all.points[p.index].partition);
    EXPECT_EQ(p.goodput_rps, all.points[p.index].goodput_rps);
  }
  RunOptions bad;
  bad.shard = {2, 2};
  EXPECT_THROW(run(s, reqs, bad, c2), std::invalid_argument);
}

TEST(CoexploreReport, InteriorOptimumOnlyWhenBothEndsAreWorse) {
  Space sp = small_space();
  sp.axes = {{"dram_GB", {16, 32, 64, 128}}, {"load", {1, 2}}};
  const CompiledSpace s(sp);
  // Hand-made goodputs: load 1 rises to 128 (end), load 2 peaks on a plateau at 32-64.
  const double g[4][2] = {{5, 1}, {6, 9}, {7, 9}, {8, 3}};
  std::vector<Record> recs;
  for (std::uint64_t i = 0; i < s.size(); ++i) {
    Record r;
    r.index = i;
    r.values = s.values(i);
    const auto d = s.digits(i);
    r.feasible = true;
    r.goodput_rps = g[d[0]][d[1]];
    recs.push_back(r);
  }
  const auto lines = optimum_along_axis(s, recs, 0, Metric::goodput_rps);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_FALSE(lines[0].interior);
  EXPECT_DOUBLE_EQ(lines[0].best_value, 128);
  EXPECT_TRUE(lines[1].interior);
  EXPECT_DOUBLE_EQ(lines[1].best_value, 32);
  EXPECT_DOUBLE_EQ(lines[1].best_metric, 9);
  // Within 1 % of the best at an end: not interior.
  recs[7].goodput_rps = 8.95;  // dram 128, load 2
  EXPECT_FALSE(optimum_along_axis(s, recs, 0, Metric::goodput_rps)[1].interior);
}

TEST(CoexploreIo, LogResumesFromItsLastGoodLineAndCsvNamesTheAxes) {
  const CompiledSpace s(small_space());
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("coexplore-log-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  const io::CoexploreLogHeader h{io::coexplore_fingerprint(s.space()), 0, 1, s.size()};
  Record a;
  a.index = 1;
  a.values = s.values(1);
  a.feasible = true;
  a.goodput_rps = 1.0 / 3;
  a.partition = "1 prefill (tp1) + 2 decode (tp1), interleaved";
  a.objectives = {a.goodput_rps, 2.5};
  Record b = a;
  b.index = 4;
  b.values = s.values(4);
  {
    auto log = io::CoexploreLog::create(dir, h);
    log.append(a);
    log.append(b);
    EXPECT_THROW(io::CoexploreLog::create(dir, h), ConfigError);  // locked / holds results
  }
  EXPECT_THROW(io::CoexploreLog::create(dir, h), ConfigError);  // holds results
  // Damage the last line (a kill mid-write): resume keeps the first point only.
  std::string text;
  {
    std::ifstream in(dir / "coexplore.jsonl");
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  text.resize(text.size() - 20);
  {
    std::ofstream out(dir / "coexplore.jsonl", std::ios::trunc);
    out << text;
  }
  std::vector<Record> done;
  std::vector<std::string> notes;
  { auto log = io::CoexploreLog::resume(dir, h, done, notes); }
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].index, 1u);
  EXPECT_EQ(done[0].goodput_rps, 1.0 / 3);  // exact round trip
  EXPECT_EQ(done[0].partition, a.partition);
  EXPECT_EQ(notes.size(), 1u);
  // Another space is refused, naming the fingerprint.
  io::CoexploreLogHeader other = h;
  other.fingerprint = "0000000000000000";
  done.clear();
  try {
    io::CoexploreLog::resume(dir, other, done, notes);
    ADD_FAILURE() << "resumed another space";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("fingerprint"), std::string::npos) << e.what();
  }
  const std::string csv =
      io::coexplore_to_csv(s, std::vector<Record>{a, b}, std::vector<Record>{b});
  EXPECT_EQ(csv.substr(0, csv.find('\n')).rfind("index,d2d_GBps,load,on_frontier,feasible", 0), 0u);
  EXPECT_NE(csv.find("\n4,4500,2,1,1,"), std::string::npos) << csv;
  std::filesystem::remove_all(dir);
}

// points.csv repeated dies_x and dies_y (an axis and the grid laid out): with every knob of the
// registry as an axis, no column name may repeat.
TEST(CoexploreIo, CsvColumnsAreUniqueWhateverTheAxes) {
  Space s = small_space();
  s.axes.clear();
  for (const Knob& k : knobs()) s.axes.push_back({std::string(k.name), {k.min}});
  const CompiledSpace c(s);
  Record r;
  r.values.assign(s.axes.size(), 0);
  const std::string csv = io::coexplore_to_csv(c, std::vector<Record>{r}, {});
  const std::string header = csv.substr(0, csv.find('\n'));
  std::set<std::string> seen;
  std::size_t columns = 0;
  for (std::size_t b = 0; b <= header.size();) {
    const std::size_t e = std::min(header.find(',', b), header.size());
    EXPECT_TRUE(seen.insert(header.substr(b, e - b)).second) << header.substr(b, e - b);
    ++columns;
    b = e + 1;
  }
  EXPECT_GT(columns, s.axes.size() + 30);
  EXPECT_NE(header.find(",dies_x,"), std::string::npos) << header;
  EXPECT_NE(header.find(",grid_dies_x,grid_dies_y,usable_dies,"), std::string::npos) << header;
  // Every row has as many fields as the header.
  const std::string row = csv.substr(header.size() + 1);
  EXPECT_EQ(static_cast<std::size_t>(std::count(row.begin(), row.end(), ',')), columns - 1);
}

// A trace source is fingerprinted by its content: edited in place it is another space (a resume
// mixed old and new points before, the fingerprint holding the path), while the same file by a
// relative path, or a copy, is the same space (a resume was refused before).
TEST(CoexploreIo, TheFingerprintHoldsTheTracesContentNotItsPath) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("stackscope-coexplore-fp-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto trace = dir / "trace.csv";
  auto write = [](const std::filesystem::path& f, const std::string& generated) {
    std::ofstream(f) << "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                     << "2023-11-16 18:15:46.6805900,374," << generated << "\n"
                     << "2023-11-16 18:15:50.9951690,396,109\n";
  };
  write(trace, "44");
  Space s = small_space();
  s.base.spec.source = serving::SourceKind::trace;
  s.base.spec.trace = trace.string();
  const std::string fp = io::coexplore_fingerprint(s);
  EXPECT_EQ(io::coexplore_canonical_text(s).find(trace.string()), std::string::npos);

  Space relative = s;  // the same file, spelled relative to the working directory
  relative.base.spec.trace =
      std::filesystem::relative(trace, std::filesystem::current_path()).string();
  ASSERT_NE(relative.base.spec.trace, s.base.spec.trace);
  EXPECT_EQ(io::coexplore_fingerprint(relative), fp);
  Space copy = s;
  std::filesystem::copy_file(trace, dir / "copy.csv",
                             std::filesystem::copy_options::overwrite_existing);
  copy.base.spec.trace = (dir / "copy.csv").string();
  EXPECT_EQ(io::coexplore_fingerprint(copy), fp);

  write(trace, "45");  // one output length changed, in place
  EXPECT_NE(io::coexplore_fingerprint(s), fp);
  // A generated source does not read (nor name) a leftover trace path.
  Space generated = s;
  generated.base.spec.source = serving::SourceKind::generated;
  std::filesystem::remove_all(dir);
  EXPECT_EQ(io::coexplore_fingerprint(generated), io::coexplore_fingerprint(small_space()));
  EXPECT_THROW((void)io::coexplore_fingerprint(s), ConfigError);  // the trace is gone
}

TEST(CoexploreIo, ProjectSectionParsesAndItsErrorsNameThePath) {
  const std::string base = R"({"schema_version": 2, "hardware": "h100-sxm", "wafer": "wsc-dram-5x4",
    "model": "llama-3-8b", "parallel": {"tp": 1, "dp": 20}, "workload": {"batch": 1},
    "serving": {"source": "generated", "requests": 10, "rate_per_s": 1, "slo": {"ttft_s": 1, "tpot_s": 0.1}},)";
  const auto p = io::parse_coexplore_project(
      base + R"("coexplore": {"axes": [{"knob": "dram_GB", "min": 16, "max": 64, "factor": 2}],
       "objectives": ["goodput_per_kW", {"metric": "ttft_p90_s"}],
       "scheduler": {"finalists": 3, "all_partitions": true}}})",
      presets());
  ASSERT_EQ(p.space.axes.size(), 1u);
  EXPECT_EQ(p.space.axes[0].values, (std::vector<double>{16, 32, 64}));
  ASSERT_EQ(p.space.objectives.size(), 2u);
  EXPECT_EQ(p.space.objectives[1].direction, search::Direction::minimize);
  EXPECT_EQ(p.space.scheduler.finalists, 3);
  EXPECT_FALSE(p.space.scheduler.maximal_only);
  // The same space spelled as a list has the same fingerprint.
  const auto q = io::parse_coexplore_project(
      base + R"("coexplore": {"axes": [{"knob": "dram_GB", "values": [16, 32, 64]}],
       "objectives": ["goodput_per_kW", "ttft_p90_s"],
       "scheduler": {"finalists": 3, "all_partitions": true}}})",
      presets());
  EXPECT_EQ(io::coexplore_fingerprint(p.space), io::coexplore_fingerprint(q.space));
  try {
    io::parse_coexplore_project(
        base +
            R"("coexplore": {"axis": [], "objectives": ["goodput"], "scheduler": {"finalists": 0}}})",
        presets());
    ADD_FAILURE() << "accepted a bad section";
  } catch (const ConfigError& e) {
    std::set<std::string> paths;
    for (const auto& i : e.issues()) paths.insert(i.path);
    EXPECT_TRUE(paths.count("/coexplore/axis")) << e.what();
    EXPECT_TRUE(paths.count("/coexplore/objectives/0")) << e.what();
    EXPECT_TRUE(paths.count("/coexplore/scheduler/finalists")) << e.what();
  }
}

}  // namespace
}  // namespace stackscope::coexplore

namespace stackscope::wafer {
namespace {

TEST(WaferScheduler, CandidatesAreRectanglesThatFitAndMaximalOnesLeaveNoRoomForAnother) {
  // The shipped wafer re-gridded to 7 x 6 with 16 GB dies: the 70B model needs 8 dies per
  // instance; five 8-die instances fit by die count (40 of 42) but only four 2 x 4 rectangles
  // fit the grid. Every candidate must place, and none may have room for one more.
  perf::Design d = io::builtin_presets().project("llama-3-70b-wafer-serving");
  d.wafer->dies_x = 0;
  d.wafer->dies_y = 0;
  d.wafer->dram_GB = 16;
  hw::apply_wafer(*d.wafer, d.hardware, d.system);
  d.workload.batch = 1;
  const auto layout = hw::wafer_layout(*d.wafer, d.hardware);
  ASSERT_EQ(layout.dies_x * layout.dies_y, 42);
  serving::GeneratorSpec g;
  g.arrivals.rate_per_s = 5;
  g.input = serving::ServingSpec::fixed_length(1000);
  g.output = serving::ServingSpec::fixed_length(100);
  g.requests = 60;
  serving::ServingSpec spec;
  spec.slo.ttft_s = 2;
  spec.slo.tpot_s = 0.1;
  SchedulerOptions o;
  o.threads = 1;
  const auto choice = choose_partition(d, spec, serving::generate(g), o);
  ASSERT_TRUE(choice.best.feasible) << choice.best.text << ": " << choice.best.reason;
  ASSERT_FALSE(choice.screened.empty());
  for (const auto& c : choice.screened) {
    EXPECT_EQ(c.reason.find("no free rectangle"), std::string::npos) << c.text;
    const Partition& p = c.partition;
    const int kp = p.prefill_pool.tp * p.prefill_pool.pp, kd = p.decode_pool.tp * p.decode_pool.pp;
    EXPECT_TRUE(place(layout, {p.prefill, kp, p.decode, kd, p.order}).ok) << c.text;
    EXPECT_FALSE(place(layout, {p.prefill + 1, kp, p.decode, kd, p.order}).ok) << c.text;
    EXPECT_FALSE(place(layout, {p.prefill, kp, p.decode + 1, kd, p.order}).ok) << c.text;
  }
}

}  // namespace
}  // namespace stackscope::wafer
