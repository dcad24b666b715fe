// SPDX-License-Identifier: GPL-3.0-or-later
// Search space: exact sizes, deterministic indexing, knob registry, the archive.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "spaces.hpp"

namespace stackscope::search {
namespace {

using namespace testing;

// LLaMA-2-7B (struct defaults: 32 heads, 32 layers) on 8 devices.
Space hand_space() {
  Space s;
  s.base.system = switch_system(8, 450);
  s.hardware = {{"memory.layers_total", {4, 8}}, {"compute.cores", {64, 128, 256}}};
  s.inner.tp = {1, 2, 4, 8};
  s.inner.pp = {1, 2};
  s.inner.dp = {1, 2, 4, 8};
  s.inner.batch = {1, 2, 3};
  s.inner.sequence_parallel = {0, 1};
  return s;
}

TEST(SearchSpace, SizeCountedByHand) {
  // tp x pp x dp = 8: pp 1 -> (tp, dp) = (1,8) (2,4) (4,2) (8,1); pp 2 -> (1,4) (2,2) (4,1):
  // 7 groups x 3 batches x 2 sp x 1 overlap = 42 per hardware point, x 2 x 3 hardware points.
  const CompiledSpace cs(hand_space());
  EXPECT_EQ(cs.hardware_points(), 6u);
  EXPECT_EQ(cs.inner_points(0), 42u);
  EXPECT_EQ(cs.size(), Count{252});
  EXPECT_EQ(to_string(cs.size()), "252");
}

TEST(SearchSpace, DevicesAxisSumsOverDeviceCounts) {
  Space s = hand_space();
  s.hardware.push_back({"devices", {1, 2, 8}});
  // devices 1: (1,1,1) -> 1 group; 2: (2,1,1) (1,2,1) (1,1,2) -> 3; 8: 7.
  const CompiledSpace cs(s);
  EXPECT_EQ(cs.hardware_points(), 18u);
  EXPECT_EQ(cs.size(), Count{6} * (1 + 3 + 7) * 6);
  EXPECT_EQ(cs.devices(0), 1);
  EXPECT_EQ(cs.devices(17), 8);
  EXPECT_EQ(cs.points_in_shard(0, 1), cs.size());
  EXPECT_EQ(cs.points_in_shard(0, 4) + cs.points_in_shard(1, 4) + cs.points_in_shard(2, 4) +
                cs.points_in_shard(3, 4),
            cs.size());
}

TEST(SearchSpace, RanksEnumerateEveryPointOnceInOrder) {
  Space s = hand_space();
  s.hardware.push_back({"devices", {1, 2, 8}});
  const CompiledSpace cs(s);
  PointId prev{0, 0};
  for (Count r = 0; r < cs.size(); ++r) {
    const PointId id = cs.point_at(r);
    ASSERT_LT(id.hw, cs.hardware_points());
    ASSERT_LT(id.inner, cs.inner_points(id.hw));
    if (r > 0) {
      ASSERT_LT(prev, id);
    }
    prev = id;
    const perf::Design d = cs.decode(id);
    EXPECT_EQ(parallel::devices(d.parallel), d.system.devices);
    EXPECT_EQ(d.system.devices, cs.devices(id.hw));
  }
  EXPECT_THROW(cs.point_at(cs.size()), std::out_of_range);
}

TEST(SearchSpace, HugeSizeIsExact) {
  Space s = hand_space();
  s.hardware = {{"compute.clock_GHz", linear_range(0.5, 2.45, 0.05)},  // 40
                {"compute.sram_per_core_KiB", geometric_range(16, 16 * 7e4, 1.5)},
                {"compute.shared_buffer_MiB", linear_range(1, 40, 1)},  // 40
                {"noc.link_GBps", linear_range(10, 400, 10)},           // 40
                {"noc.hop_latency_ns", linear_range(0.5, 20, 0.5)},     // 40
                {"system.link_bw_scale", linear_range(0.1, 4, 0.1)},    // 40
                {"system.latency_scale", linear_range(0.1, 4, 0.1)},    // 40
                {"memory.clock_MHz", linear_range(100, 4000, 100)}};    // 40
  ASSERT_EQ(s.hardware[1].values.size(), 28u);
  for (std::size_t i = 0; i < s.hardware.size(); ++i) {
    if (i != 1) {
      ASSERT_EQ(s.hardware[i].values.size(), 40u) << s.hardware[i].knob;
    }
  }
  s.inner.batch.clear();
  for (int b = 1; b <= 64; ++b) s.inner.batch.push_back(b);
  const CompiledSpace cs(s);
  // 40^7 x 28 hardware points x (7 groups x 64 batches x 2 sp) = 4.1 x 10^15.
  EXPECT_EQ(to_string(cs.size()), "4110417920000000");
  EXPECT_NEAR(to_double(cs.size()), 4.11041792e15, 1e3);
  // The last point decodes; the same index decodes to the same design.
  const PointId last{cs.hardware_points() - 1, cs.inner_points(0) - 1};
  const perf::Design a = cs.decode(last), b = cs.decode(last);
  EXPECT_DOUBLE_EQ(a.hardware.memory.clock_MHz, 4000);
  EXPECT_EQ(a.parallel.tp, b.parallel.tp);
  EXPECT_EQ(a.workload.batch, 64);
  EXPECT_TRUE(a.parallel.sequence_parallel);
  EXPECT_EQ(cs.point_at(cs.size() - 1), last);
}

TEST(SearchSpace, DecodingFollowsTheDigits) {
  const CompiledSpace cs(hand_space());
  // hw 4 = layers_total digit 1 (8), cores digit 1 (128); inner 41 = last group, sp on, batch 3.
  const perf::Design d = cs.decode({4, 41});
  EXPECT_EQ(d.hardware.memory.layers_total, 8);
  EXPECT_EQ(d.hardware.compute.cores, 128);
  EXPECT_EQ(d.workload.batch, 3);
  EXPECT_TRUE(d.parallel.sequence_parallel);
  EXPECT_EQ(parallel::devices(d.parallel), 8);
  for (Count r = 0; r < cs.size(); ++r) {
    const PointId id = cs.point_at(r);
    EXPECT_EQ(Count{id.hw} * 42 + id.inner, r);
  }
}

TEST(SearchSpace, BadSpacesAreReported) {
  Space s = hand_space();
  s.hardware.push_back({"memory.layer_count", {1}});
  s.hardware.push_back({"memory.stacks", {1.5}});
  try {
    CompiledSpace cs(s);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 2u);
    EXPECT_EQ(e.issues()[0].path, "/search/hardware/2/knob");
    EXPECT_NE(e.issues()[0].allowed.find("memory.layers_total"), std::string::npos);
    EXPECT_EQ(e.issues()[1].path, "/search/hardware/3/values/0");
  }
  // A 2-level system with 4 devices per package: 6 devices do not fill whole packages.
  Space m = hand_space();
  m.base.system = presets().system("deepstack-3d-x64");
  m.hardware = {{"devices", {8, 6}}};
  EXPECT_THROW(CompiledSpace{m}, ConfigError);
  m.hardware = {{"devices", {8, 32}}};
  const CompiledSpace ok(m);
  EXPECT_EQ(ok.hardware_design(1).system.levels.back().size, 8);
}

// A stack described layer by layer sets the die count, the links, and (where every die gives
// its own) the pitch and capacity: an axis on them would be the same design at every value.
TEST(SearchSpace, KnobsALayerListOverridesAreRefused) {
  Space s = hand_space();  // axes memory.layers_total and compute.cores
  s.base.hardware.memory.layers = {{.connected = true, .pitch_um = 6},
                                   {.connected = false, .pitch_um = 9}};
  try {
    CompiledSpace cs(s);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].path, "/search/hardware/0/knob");
    EXPECT_EQ(e.issues()[0].value, "memory.layers_total");
    EXPECT_NE(e.issues()[0].message.find("/hardware/memory/layers"), std::string::npos);
  }
  // Every die gives its pitch: the uniform pitch knob changes nothing.
  s.hardware = {{"memory.vertical.pitch_um", {3, 6}}, {"compute.cores", {64, 128}}};
  EXPECT_THROW(CompiledSpace{s}, ConfigError);
  // One die takes the uniform pitch: the knob sets that die's, so the axis is a real one.
  s.base.hardware.memory.layers[1].pitch_um = 0;
  const CompiledSpace pitch(s);
  EXPECT_EQ(pitch.hardware_points(), 4u);
  // A knob the list leaves open (capacity, when no die gives its own) stays allowed.
  s.hardware = {{"memory.capacity_per_layer_GiB", {2, 4}}};
  const CompiledSpace capacity(s);
  EXPECT_EQ(capacity.hardware_points(), 2u);
}

// Knob values past the registry's range (a devices value of 2^64 reached lround and
// wrapped; 3e9 layers became negative), a knob on two axes, a metric twice, repeated list values,
// inner lists and plan enumerations too large to finish.
std::vector<Issue> issues_of(const Space& s) {
  try {
    CompiledSpace cs(s);
  } catch (const ConfigError& e) {
    return e.issues();
  }
  return {};
}

TEST(SearchSpace, HostileSpacesAreRefusedWithThePathAndTheAllowedRange) {
  Space s = hand_space();
  s.hardware.push_back({"devices", {18446744073709551616.0}});
  s.hardware[0].values = {4, 3e9};
  auto is = issues_of(s);
  ASSERT_EQ(is.size(), 2u);
  EXPECT_EQ(is[0].path, "/search/hardware/0/values/1");
  EXPECT_EQ(is[0].value, "3000000000");
  EXPECT_EQ(is[0].allowed, "integer in [1, 1024] (layers)");
  EXPECT_EQ(is[1].path, "/search/hardware/2/values/0");
  EXPECT_EQ(is[1].value, "1.8446744073709552e+19");
  EXPECT_EQ(is[1].allowed, "integer in [1, 1048576] (devices)");
  for (const Knob& k : knobs()) EXPECT_TRUE(std::isfinite(k.max)) << k.name;

  s = hand_space();
  s.hardware.push_back({"compute.cores", {32}});
  s.objectives = {
      objective(Metric::stps), objective(Metric::utps), {Metric::stps, Direction::minimize}};
  s.inner.batch = {1, 2, 1};
  is = issues_of(s);
  ASSERT_EQ(is.size(), 3u);
  EXPECT_EQ(is[0].path, "/search/objectives/2");
  EXPECT_NE(is[0].message.find("already /search/objectives/0"), std::string::npos);
  EXPECT_EQ(is[1].path, "/search/hardware/2/knob");
  EXPECT_NE(is[1].message.find("already the axis /search/hardware/1"), std::string::npos);
  EXPECT_EQ(is[2].path, "/search/batch/2");

  // A million bad values: ten issues and a count, not a million lines.
  s = hand_space();
  s.hardware[1].values.assign(1'000'000, 0.5);
  is = issues_of(s);
  ASSERT_EQ(is.size(), 11u);
  EXPECT_EQ(is[10].message, "999990 more values rejected");

  // Inner lists past 4096 values, and plan lists whose checks would take minutes.
  s = hand_space();
  s.inner.tp.clear();
  for (int v = 1; v <= 100'000; ++v) s.inner.tp.push_back(v);
  is = issues_of(s);
  ASSERT_EQ(is.size(), 1u);
  EXPECT_EQ(is[0].allowed, "at most 4096 values");
  s = hand_space();
  s.base.system = switch_system(720720, 450);  // 2^4 3^2 5 7 11 13: 240 divisors
  s.hardware = {{"compute.cores", {64}}};
  for (auto* list : {&s.inner.tp, &s.inner.pp, &s.inner.ep, &s.inner.dp, &s.inner.cp}) {
    list->clear();
    for (int d = 1; d <= 4096; ++d)
      if (720720 % d == 0) list->push_back(d);
  }
  is = issues_of(s);
  ASSERT_EQ(is.size(), 1u);
  EXPECT_EQ(is[0].path, "/search/parallel");
  EXPECT_NE(is[0].message.find("more than 100000 plans to check"), std::string::npos);
}

// A space without a valid plan said "0 points, complete"; it now says why.
TEST(SearchSpace, AnEmptySpaceSaysWhy) {
  Space s = hand_space();
  s.inner.tp = {3};  // 8 devices: no tp x pp x dp with tp 3 equals 8
  const CompiledSpace none(s);
  EXPECT_EQ(none.size(), Count{0});
  EXPECT_NE(none.empty_reason().find("no combination of the /search/parallel degrees"),
            std::string::npos)
      << none.empty_reason();
  EXPECT_NE(none.empty_reason().find("(8)"), std::string::npos) << none.empty_reason();
  EXPECT_TRUE(CompiledSpace(hand_space()).empty_reason().empty());
}

// validate(): what no point re-checks. A base workload with output_len 0 made every point
// invalid and the search visited them all (minutes, then "no point feasible" blaming memory);
// a bad model of the model axis is named at the axis; an empty space at /search/parallel.
TEST(SearchSpace, ValidateChecksTheBaseWorkloadTheModelsAndEmptiness) {
  auto has = [](const std::vector<Issue>& is, const std::string& path) {
    return std::any_of(is.begin(), is.end(), [&](const Issue& i) { return i.path == path; });
  };
  EXPECT_TRUE(validate(CompiledSpace(dense_space())).empty());
  EXPECT_TRUE(validate(CompiledSpace(workload_space())).empty());
  Space s = dense_space();
  s.base.workload.output_len = 0;
  auto is = validate(CompiledSpace(s));
  ASSERT_EQ(is.size(), 1u) << format_issues(is);
  EXPECT_EQ(is[0].path, "/workload/output_len");
  EXPECT_EQ(is[0].allowed, "integer >= 1");
  Space w = workload_space();
  w.models[1].moe.top_k = 0;  // the model axis is /search/hardware/2
  is = validate(CompiledSpace(w));
  EXPECT_TRUE(has(is, "/search/hardware/2/values/1/moe/top_k")) << format_issues(is);
  EXPECT_FALSE(has(is, "/model/moe/top_k")) << format_issues(is);
  Space e = dense_space();
  e.inner.tp = {3};
  is = validate(CompiledSpace(e));
  ASSERT_EQ(is.size(), 1u) << format_issues(is);
  EXPECT_EQ(is[0].path, "/search/parallel");
  EXPECT_NE(is[0].message.find("the space has no point"), std::string::npos);
}

// Axis sizes are counted before a range is expanded: the count equals the expansion's size
// where it is exact (up to 2 x kMaxAxisValues), a factor of 1.0000000001 is 1.4 x 10^10 values
// refused at once (it ran out of memory after seconds), and the product of the axes saturates.
TEST(SearchSpace, RangesAreCountedBeforeTheyAreExpanded) {
  for (const auto& [lo, hi, step] : {std::tuple{1.0, 256.0, 1.0}, std::tuple{0.1, 1.0, 0.1},
                                     std::tuple{100.0, 400.0, 0.3}, std::tuple{5.0, 5.0, 1.0}})
    EXPECT_EQ(linear_range_count(lo, hi, step), linear_range(lo, hi, step).size()) << step;
  for (const auto& [lo, hi, f] :
       {std::tuple{1.0, 1024.0, 2.0}, std::tuple{100.0, 400.0, 1.1}, std::tuple{1.0, 1e6, 1.0001}})
    EXPECT_EQ(geometric_range_count(lo, hi, f), geometric_range(lo, hi, f).size()) << f;
  EXPECT_EQ(geometric_range_count(1, 1024, 2), 11u);
  // ln 4 / ln(factor) = 1.386 x 10^10 values (the double nearest 1.0000000001 is
  // 1 + 1.0000000827e-10).
  const double factor = 1.0000000001;
  const std::uint64_t n = geometric_range_count(100, 400, factor);
  EXPECT_NEAR(static_cast<double>(n), std::log(4.0) / std::log1p(factor - 1), 2.0);
  EXPECT_GT(n, kMaxAxisValues);
  try {
    (void)geometric_range(100, 400, 1.0000000001);
    ADD_FAILURE() << "a range of 10^10 values must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("range has 1386294"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)linear_range(0, 1, 1e-9), std::invalid_argument);
  EXPECT_EQ(linear_range_count(0, 1, 5e-324), std::numeric_limits<std::uint64_t>::max());
  EXPECT_THROW((void)linear_range_count(1, 0, 1), std::invalid_argument);
  EXPECT_EQ(linear_range(0, 1, 1.0 / (kMaxAxisValues - 1)).size(), kMaxAxisValues);
  const std::uint64_t sizes[] = {kMaxAxisValues, kMaxAxisValues, 3};
  EXPECT_EQ(to_string(count_points(sizes)), "3298534883328");
  const std::vector<std::uint64_t> huge(8, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(count_points(huge), ~Count{0});
  EXPECT_EQ(count_points(std::vector<std::uint64_t>{4, 0, 2}), Count{0});
}

TEST(SearchSpace, ConnectedAboveTotalIsPrunedNotEvaluated) {
  Space s = hand_space();
  s.hardware = {{"memory.layers_total", {4}}, {"memory.layers_connected", {2, 8}}};
  s.base.hardware.memory.kind = hw::MemoryKind::stacked_3d;
  s.base.hardware.memory.stacks = 1;
  const CompiledSpace cs(s);
  CountingSink sink;
  const Summary sum = run(cs, {}, sink);
  EXPECT_EQ(sum.progress.evaluated + sum.progress.pruned, 84u);
  EXPECT_LE(sum.progress.evaluated, 42u);
  for (const auto& p : sum.archive.points()) EXPECT_EQ(p.id.hw, 0u);
}

PointRecord rec(std::uint64_t hw, double a, double b) {
  PointRecord p;
  p.id = {hw, 0};
  p.feasible = true;
  p.n_objectives = 2;
  p.objectives[0] = a;
  p.objectives[1] = b;
  return p;
}

TEST(SearchArchive, ExactDominanceAndTies) {
  const std::vector<Objective> obj{objective(Metric::stps), objective(Metric::tpot_s)};
  Archive a(obj);
  EXPECT_TRUE(a.insert(rec(5, 10, 1)));
  EXPECT_FALSE(a.insert(rec(6, 9, 1)));   // dominated
  EXPECT_TRUE(a.insert(rec(7, 12, 2)));   // trade-off
  EXPECT_FALSE(a.insert(rec(8, 10, 1)));  // tie, higher id
  EXPECT_TRUE(a.insert(rec(3, 10, 1)));   // tie, lower id replaces 5
  EXPECT_EQ(a.size(), 2u);
  EXPECT_TRUE(a.insert(rec(9, 13, 0.5)));  // dominates both
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a.points()[0].id.hw, 9u);
  const double bound[2] = {13, 0.6};
  EXPECT_TRUE(a.dominates(bound));
  const double equal[2] = {13, 0.5};
  EXPECT_FALSE(a.dominates(equal));
  PointRecord bad = rec(1, 100, 0);
  bad.feasible = false;
  EXPECT_FALSE(a.insert(bad));
}

TEST(SearchArchive, OrderAndMergeDoNotMatter) {
  const std::vector<Objective> obj{objective(Metric::stps), objective(Metric::utps),
                                   objective(Metric::energy_per_token_j)};
  std::vector<PointRecord> pts;
  std::uint64_t x = 12345;
  for (std::uint64_t i = 0; i < 3000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    PointRecord p;
    p.id = {i % 97, i};
    p.feasible = true;
    p.n_objectives = 3;
    for (int k = 0; k < 3; ++k) p.objectives[k] = static_cast<double>((x >> (20 + 8 * k)) % 40);
    pts.push_back(p);
  }
  Archive fwd(obj), rev(obj), m1(obj), m2(obj);
  for (const auto& p : pts) fwd.insert(p);
  for (auto it = pts.rbegin(); it != pts.rend(); ++it) rev.insert(*it);
  for (std::size_t i = 0; i < pts.size(); ++i) (i % 2 ? m1 : m2).insert(pts[i]);
  m1.merge(m2);
  const auto f = fwd.sorted(), r = rev.sorted(), m = m1.sorted();
  ASSERT_EQ(f.size(), r.size());
  ASSERT_EQ(f.size(), m.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(f[i].id, r[i].id);
    EXPECT_EQ(f[i].id, m[i].id);
  }
}

}  // namespace
}  // namespace stackscope::search
