// SPDX-License-Identifier: GPL-3.0-or-later
// perf::validate(): every semantic check names the project-JSON path of the field and the
// allowed range. Designs are built in code (no JSON), so this links only core_perf.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <tuple>

#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/limits.hpp"
#include "stackscope/perf/validate.hpp"

namespace stackscope::perf {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The struct defaults: an H100-like device running a Llama-2-7B-shaped model at batch 1.
Design baseline() {
  return Design{};
}

// A 4-device MoE design (8 experts, top-2, GQA 32/8) that validates.
Design moe_design() {
  Design d;
  d.system.devices = 4;
  d.system.levels = {hw::NetworkLevel{}};
  d.system.levels[0].size = 4;
  d.model.attention = workload::AttentionKind::gqa;
  d.model.kv_heads = 8;
  d.model.ffn_dim = 0;
  d.model.moe.experts = 8;
  d.model.moe.top_k = 2;
  d.model.moe.expert_ffn_dim = 14336;
  d.parallel.tp = 2;
  d.parallel.ep = 2;
  return d;
}

Issue only_issue(const Design& d, const std::string& path) {
  const auto issues = validate(d);
  EXPECT_EQ(issues.size(), 1u) << format_issues(issues);
  auto it = std::find_if(issues.begin(), issues.end(), [&](auto& i) { return i.path == path; });
  if (it == issues.end()) {
    ADD_FAILURE() << "no issue at " << path << "; got:\n" << format_issues(issues);
    return {};
  }
  return *it;
}

TEST(Validate, DefaultsAndTheMoeExampleAreValid) {
  EXPECT_TRUE(validate(baseline()).empty()) << format_issues(validate(baseline()));
  EXPECT_TRUE(validate(moe_design()).empty()) << format_issues(validate(moe_design()));
}

// field_ranges() reports the ranges validate() checks: the memory clock's limits, a network
// level's link rate, a degree as an integer; a value at a reported bound passes and one just
// past it fails at that path.
TEST(Validate, FieldRangesAreTheCheckedRanges) {
  Design d = moe_design();
  const auto ranges = field_ranges(d);
  const auto& clock = ranges.at("/hardware/memory/clock_MHz");
  EXPECT_EQ(clock.min, limits::kMinMemoryClockMHz);
  EXPECT_EQ(clock.max, limits::kMaxMemoryClockMHz);
  EXPECT_FALSE(clock.integer);
  const auto& link = ranges.at("/system/levels/0/link_GBps");
  EXPECT_EQ(link.max, limits::kMaxLinkGBps);
  EXPECT_TRUE(ranges.at("/hardware/memory/layers_total").integer);
  EXPECT_GT(ranges.size(), 60u);
  d.hardware.memory.clock_MHz = clock.max;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  d.hardware.memory.clock_MHz = clock.max * 1.001;
  EXPECT_EQ(only_issue(d, "/hardware/memory/clock_MHz").path, "/hardware/memory/clock_MHz");
  d = moe_design();
  d.system.levels[0].link_GBps = link.max * 1.001;
  EXPECT_EQ(only_issue(d, "/system/levels/0/link_GBps").path, "/system/levels/0/link_GBps");
}

TEST(Validate, SizesMustBeAtLeastOne) {
  const std::vector<std::pair<std::string, void (*)(Design&)>> cases = {
      {"/hardware/compute/cores", [](Design& d) { d.hardware.compute.cores = 0; }},
      {"/hardware/compute/mma_tile_n", [](Design& d) { d.hardware.compute.mma_tile_n = -1; }},
      {"/hardware/memory/stacks", [](Design& d) { d.hardware.memory.stacks = 0; }},
      {"/hardware/memory/channels_per_layer",
       [](Design& d) { d.hardware.memory.channels_per_layer = 0; }},
      {"/hardware/memory/banks_per_channel",
       [](Design& d) { d.hardware.memory.banks_per_channel = 0; }},
      {"/hardware/noc/mesh_x", [](Design& d) { d.hardware.noc.mesh_x = 0; }},
      {"/model/layers", [](Design& d) { d.model.layers = 0; }},
      {"/model/hidden", [](Design& d) { d.model.hidden = -4096; }},
      {"/model/head_dim", [](Design& d) { d.model.head_dim = 0; }},
      {"/model/vocab", [](Design& d) { d.model.vocab = 0; }},
      {"/model/ffn_dim", [](Design& d) { d.model.ffn_dim = 0; }},
      {"/system/devices", [](Design& d) { d.system.devices = 0; }},
      {"/workload/input_len", [](Design& d) { d.workload.input_len = 0; }},
      {"/workload/output_len", [](Design& d) { d.workload.output_len = 0; }},
      {"/workload/batch", [](Design& d) { d.workload.batch = 0; }},
  };
  for (const auto& [path, mutate] : cases) {
    Design d = baseline();
    mutate(d);
    const auto issues = validate(d);
    auto it =
        std::find_if(issues.begin(), issues.end(), [&p = path](auto& i) { return i.path == p; });
    ASSERT_NE(it, issues.end()) << path << ":\n" << format_issues(issues);
    EXPECT_EQ(it->allowed, "integer >= 1") << path;
    EXPECT_TRUE(contains(format_issue(*it), "allowed: integer >= 1")) << format_issue(*it);
  }
}

// Sliding-window fields: 0 means none, so only negative values are refused, at their path.
TEST(Validate, SlidingWindowFieldsMustNotBeNegative) {
  Design d = baseline();
  d.model.sliding_window = -128;
  EXPECT_EQ(only_issue(d, "/model/sliding_window").allowed, "integer >= 0");
  d = baseline();
  d.model.sliding_window = 128;
  d.model.full_attention_interval = -2;
  EXPECT_EQ(only_issue(d, "/model/full_attention_interval").allowed, "integer >= 0");
  d.model.full_attention_interval = 2;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
}

TEST(Validate, RatesMustBePositiveAndFinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {0.0, -1.0, nan, inf}) {
    Design d = baseline();
    d.hardware.compute.clock_GHz = bad;
    const auto i = only_issue(d, "/hardware/compute/clock_GHz");
    EXPECT_EQ(i.allowed, "finite number > 0");
  }
  Design d = baseline();
  d.hardware.memory.clock_MHz = -5;
  EXPECT_EQ(only_issue(d, "/hardware/memory/clock_MHz").value, "-5");
  d = baseline();
  d.hardware.memory.timing.tFAW_ns = nan;
  EXPECT_EQ(only_issue(d, "/hardware/memory/timing/tFAW_ns").message, "must be a finite number");
  d = baseline();
  d.hardware.memory.reserved_GiB = -1;
  EXPECT_EQ(only_issue(d, "/hardware/memory/reserved_GiB").allowed, "finite number >= 0");
}

TEST(Validate, FractionsMustBeInZeroOne) {
  const std::vector<std::pair<std::string, void (*)(Design&, double)>> cases = {
      {"/runtime/matmul_efficiency", [](Design& d, double v) { d.runtime.matmul_efficiency = v; }},
      {"/runtime/attention_efficiency",
       [](Design& d, double v) { d.runtime.attention_efficiency = v; }},
      {"/hardware/memory/utilisation_cap",
       [](Design& d, double v) { d.hardware.memory.utilisation_cap = v; }},
      {"/hardware/memory/vertical/signal_fraction",
       [](Design& d, double v) {
         d.hardware.memory.kind = hw::MemoryKind::stacked_3d;
         d.hardware.memory.vertical.signal_fraction = v;
       }},
      {"/system/levels/0/efficiency",
       [](Design& d, double v) {
         d.system.levels = {hw::NetworkLevel{}};
         d.system.levels[0].efficiency = v;
       }},
  };
  for (const auto& [path, set] : cases) {
    for (double bad : {0.0, 1.5, -0.1, std::numeric_limits<double>::quiet_NaN()}) {
      Design d = baseline();
      set(d, bad);
      EXPECT_EQ(only_issue(d, path).allowed, "number in (0, 1]") << path << " = " << bad;
    }
    Design d = baseline();
    set(d, 1.0);
    EXPECT_TRUE(validate(d).empty()) << path;
  }
}

// The board-power and runtime fields of docs/model.md §13 and §9: each bad value is one issue at
// its path with the allowed range.
TEST(Validate, PowerAndRuntimeFields) {
  const std::vector<std::tuple<std::string, double, std::string, void (*)(Design&, double)>> cases =
      {{"/hardware/energy/dvfs_min_clock", 1.0, "number in (0, 1)",
        [](Design& d, double v) { d.hardware.energy.dvfs_min_clock = v; }},
       {"/hardware/energy/dvfs_min_clock", 0.0, "finite number > 0",
        [](Design& d, double v) { d.hardware.energy.dvfs_min_clock = v; }},
       {"/hardware/energy/dvfs_min_voltage", 1.2, "number in (0, 1]",
        [](Design& d, double v) { d.hardware.energy.dvfs_min_voltage = v; }},
       {"/hardware/energy/busy_power_W", -1.0, "",
        [](Design& d, double v) { d.hardware.energy.busy_power_W = v; }},
       {"/hardware/energy/memory_path_pJ_per_bit", std::numeric_limits<double>::quiet_NaN(), "",
        [](Design& d, double v) { d.hardware.energy.memory_path_pJ_per_bit = v; }},
       {"/hardware/energy/dvfs_top_clock_MHz", -5.0, "",
        [](Design& d, double v) { d.hardware.energy.dvfs_top_clock_MHz = v; }},
       {"/runtime/elementwise_traffic", 0.5, "number in [1, ",
        [](Design& d, double v) { d.runtime.elementwise_traffic = v; }}};
  for (const auto& [path, bad, allowed, set] : cases) {
    Design d = baseline();
    set(d, bad);
    const Issue i = only_issue(d, path);
    EXPECT_TRUE(contains(i.allowed, allowed)) << path << ": " << i.allowed;
  }
}

TEST(Validate, LayersConnectedWithinTheStack) {
  Design d = baseline();
  d.hardware.memory.layers_connected = 9;
  const auto i = only_issue(d, "/hardware/memory/layers_connected");
  EXPECT_EQ(i.allowed, "integer in [1, layers_total = 8]");
  d.hardware.memory.layers_connected = 0;
  EXPECT_EQ(only_issue(d, "/hardware/memory/layers_connected").allowed, "integer >= 1");
}

TEST(Validate, SramOnlyDevicesIgnoreDramFields) {
  Design d = baseline();
  d.hardware.memory.kind = hw::MemoryKind::sram_only;
  d.hardware.memory.stacks = 0;
  d.hardware.memory.clock_MHz = 0;
  // The model does not fit in on-die SRAM; that is the only issue left.
  const auto issues = validate(d);
  for (const auto& i : issues) EXPECT_EQ(i.path, "/workload/batch") << format_issue(i);
}

TEST(Validate, DeviceCountMustMatchThePlan) {
  Design d = baseline();
  d.parallel.tp = 2;
  d.parallel.pp = 2;
  const auto i = only_issue(d, "/parallel");
  EXPECT_TRUE(contains(i.message, "tp x pp x dp x ep x cp = 2 x 2 x 1 x 1 x 1 = 4")) << i.message;
  EXPECT_TRUE(contains(i.message, "system.devices = 1")) << i.message;
  EXPECT_EQ(i.allowed, "tp x pp x dp x ep x cp == system.devices = 1");
  // Context parallelism counts in the product too.
  d = baseline();
  d.parallel.cp = 2;
  d.workload.input_len = 512;
  EXPECT_TRUE(contains(only_issue(d, "/parallel").message, "1 x 1 x 1 x 1 x 2 = 2"));
}

TEST(Validate, HeadsMustSplitOverTp) {
  Design d = baseline();
  d.system.devices = 3;
  d.system.levels = {hw::NetworkLevel{}};
  d.parallel.tp = 3;
  const auto issues = validate(d);
  const auto heads = std::find_if(issues.begin(), issues.end(),
                                  [](auto& i) { return contains(i.message, "heads % tp"); });
  ASSERT_NE(heads, issues.end()) << format_issues(issues);
  EXPECT_EQ(heads->path, "/parallel/tp");
  EXPECT_EQ(heads->value, "3");
  EXPECT_EQ(heads->allowed, "a divisor of heads = 32");
  // 32 kv heads and ffn 11008 are not divisible by 3 either: all reported.
  EXPECT_EQ(
      std::count_if(issues.begin(), issues.end(), [](auto& i) { return i.path == "/parallel/tp"; }),
      3);
}

TEST(Validate, GqaAndKvHeadSplits) {
  Design d = moe_design();
  d.model.kv_heads = 5;
  EXPECT_EQ(validate(d).front().path, "/model/kv_heads");
  EXPECT_TRUE(contains(validate(d).front().allowed, "a divisor of heads = 32"));
  // tp = 4 > kv_heads = 2: each KV head replicated twice, allowed.
  d = moe_design();
  d.model.kv_heads = 2;
  d.parallel = parallel::Plan{};
  d.parallel.tp = 4;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  // MHA means kv_heads == heads.
  d = baseline();
  d.model.kv_heads = 8;
  EXPECT_TRUE(contains(only_issue(d, "/model/kv_heads").allowed, "heads = 32"));
}

TEST(Validate, MoeChecks) {
  Design d = moe_design();
  d.model.moe.top_k = 9;
  EXPECT_EQ(only_issue(d, "/model/moe/top_k").allowed, "integer in [1, experts = 8]");
  d.model.moe.top_k = 0;
  EXPECT_EQ(only_issue(d, "/model/moe/top_k").allowed, "integer in [1, experts = 8]");

  d = moe_design();
  d.model.moe.expert_ffn_dim = 14335;
  EXPECT_EQ(only_issue(d, "/parallel/tp").allowed, "a divisor of expert_ffn_dim = 14335");

  d = moe_design();
  d.system.devices = 3;
  d.system.levels[0].size = 3;
  d.parallel = parallel::Plan{};
  d.parallel.ep = 3;
  EXPECT_EQ(only_issue(d, "/parallel/ep").allowed, "a divisor of experts = 8");

  d = baseline();  // dense
  d.system.devices = 2;
  d.system.levels = {hw::NetworkLevel{}};
  d.parallel.ep = 2;
  EXPECT_TRUE(contains(only_issue(d, "/parallel/ep").message, "needs an MoE model"));

  d = moe_design();
  d.model.ffn_dim = 14336;
  d.model.moe.first_dense_layers = 32;
  EXPECT_EQ(only_issue(d, "/model/moe/first_dense_layers").allowed,
            "integer in [0, layers - 1 = 31]");
  // With leading dense layers the dense FFN size matters again.
  d.model.ffn_dim = 0;
  d.model.moe.first_dense_layers = 1;
  EXPECT_EQ(only_issue(d, "/model/ffn_dim").allowed, "integer >= 1");
}

TEST(Validate, PipelineStagesAtMostLayers) {
  Design d = baseline();
  d.model.layers = 2;
  d.system.devices = 4;
  d.system.levels = {hw::NetworkLevel{}};
  d.parallel.pp = 4;
  EXPECT_EQ(only_issue(d, "/parallel/pp").allowed, "integer in [1, layers = 2]");
}

TEST(Validate, MlaRanks) {
  Design d = baseline();
  d.model.attention = workload::AttentionKind::mla;
  d.model.mla.kv_lora_rank = 0;
  EXPECT_EQ(only_issue(d, "/model/mla/kv_lora_rank").allowed, "integer >= 1");
  d.model.mla.kv_lora_rank = 512;
  d.model.mla.q_lora_rank = -1;
  EXPECT_EQ(only_issue(d, "/model/mla/q_lora_rank").allowed, "integer >= 0");
  d.model.mla.q_lora_rank = 0;  // queries projected directly: allowed
  d.model.kv_heads = 7;         // MLA does not use kv_heads for the tp split
  d.model.attention = workload::AttentionKind::mla;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
}

TEST(Validate, NetworkLevels) {
  Design d = baseline();
  d.system.devices = 16;
  d.parallel.dp = 16;
  EXPECT_TRUE(contains(only_issue(d, "/system/devices").message, "no network levels"));

  d.system.levels = {hw::NetworkLevel{}, hw::NetworkLevel{}};
  d.system.levels[0].size = 8;
  d.system.levels[1].size = 0;  // outermost: as many as needed
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  d.system.levels[1].size = 2;
  EXPECT_TRUE(validate(d).empty());
  d.system.levels[1].size = 1;
  EXPECT_TRUE(contains(only_issue(d, "/system/levels").message, "at most 8 devices, not 16"));
  d.system.levels[0].size = 0;  // only the outermost may be 0
  d.system.levels[1].size = 0;
  EXPECT_EQ(only_issue(d, "/system/levels/0/size").allowed, "integer >= 1");
  d.system.levels[0].size = 8;
  d.system.levels[1].link_GBps = 0;
  EXPECT_EQ(only_issue(d, "/system/levels/1/link_GBps").allowed, "finite number > 0");
}

TEST(Validate, NetworkLevelShapes) {
  Design d = baseline();
  d.system.devices = 16;
  d.parallel.dp = 16;
  d.system.levels = {hw::NetworkLevel{}};
  auto& l = d.system.levels[0];
  l.topology = hw::Topology::torus2d;
  l.size = 16;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));  // dims 0: squarest
  l.dims_x = 2;
  l.dims_y = 8;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  l.dims_y = 4;
  auto i = only_issue(d, "/system/levels/0/dims_x");
  EXPECT_TRUE(contains(i.message, "dims_x x dims_y = 2 x 4 = 8 does not match size = 16"))
      << i.message;
  EXPECT_EQ(i.allowed, "dims_x x dims_y == size = 16");
  l.dims_y = 0;
  EXPECT_TRUE(contains(only_issue(d, "/system/levels/0/dims_y").message, "both dims_x and dims_y"));
  l.dims_y = -1;
  EXPECT_EQ(only_issue(d, "/system/levels/0/dims_y").allowed, "integer >= 0");
  l.dims_y = 8;
  l.topology = hw::Topology::ring;
  EXPECT_TRUE(contains(only_issue(d, "/system/levels/0/dims_x").message, "mesh2d and torus2d"));

  d = baseline();
  d.system.levels = {hw::NetworkLevel{}};
  d.system.levels[0].hop_latency_ns = -1;
  EXPECT_EQ(only_issue(d, "/system/levels/0/hop_latency_ns").allowed, "finite number >= 0");
  d.system.levels[0].hop_latency_ns = 0;  // an ideal wire is allowed
  d.system.levels[0].in_network_efficiency = 0;
  EXPECT_EQ(only_issue(d, "/system/levels/0/in_network_efficiency").allowed, "number in (0, 1]");
  d.system.levels[0].in_network_efficiency = 1.2;
  EXPECT_EQ(only_issue(d, "/system/levels/0/in_network_efficiency").allowed, "number in (0, 1]");

  // The outermost level may be "as many as needed" (size 0) on a grid of given shape; then
  // the shape bounds the devices.
  d = baseline();
  d.system.devices = 16;
  d.parallel.dp = 16;
  d.system.levels = {hw::NetworkLevel{}, hw::NetworkLevel{}};
  d.system.levels[0].size = 4;
  d.system.levels[1].topology = hw::Topology::mesh2d;
  d.system.levels[1].size = 0;
  d.system.levels[1].dims_x = 2;
  d.system.levels[1].dims_y = 2;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  d.system.levels[1].dims_y = 1;
  EXPECT_TRUE(contains(only_issue(d, "/system/levels").message, "at most 8 devices, not 16"));

  d = baseline();
  d.system.levels = {hw::NetworkLevel{}, hw::NetworkLevel{}};
  d.system.levels[0].size = 1 << 16;
  d.system.levels[1].size = 1 << 15;
  i = only_issue(d, "/system/levels");
  EXPECT_TRUE(contains(i.message, "more than the 1048576 modelled")) << i.message;

  d = baseline();
  d.system.levels.assign(4, hw::NetworkLevel{});
  i = only_issue(d, "/system/levels");
  EXPECT_TRUE(contains(i.message, "at most 3 network levels")) << i.message;
  EXPECT_EQ(i.value, "4");
  d.system.levels.resize(3);
  EXPECT_TRUE(validate(d).empty());
}

TEST(Validate, ContextParallelism) {
  Design d = baseline();
  d.system.devices = 4;
  d.system.levels = {hw::NetworkLevel{}};
  d.parallel.cp = 4;
  d.workload.input_len = 2048;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  d.workload.input_len = 2050;
  const auto i = only_issue(d, "/parallel/cp");
  EXPECT_TRUE(contains(i.message, "input_len % cp != 0")) << i.message;
  EXPECT_EQ(i.allowed, "a divisor of workload.input_len = 2050");
  d.parallel.cp = 0;
  EXPECT_EQ(validate(d).front().path, "/parallel/cp");
  EXPECT_EQ(validate(d).front().allowed, "integer >= 1");
  // Sequence parallelism with tp 1 does nothing, but is not wrong.
  d = baseline();
  d.parallel.sequence_parallel = true;
  EXPECT_TRUE(validate(d).empty());
}

TEST(Validate, PlacementIsAPermutation) {
  Design d = baseline();
  for (const char* ok : {"tp,ep,cp,pp,dp", "dp,pp,cp,ep,tp", "ep,tp,cp,dp,pp"}) {
    d.parallel.placement = ok;
    EXPECT_TRUE(validate(d).empty()) << ok << "\n" << format_issues(validate(d));
  }
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"tp,ep,cp,pp", "'dp' missing"},
      {"tp,ep,cp,pp,dp,tp", "'tp' given twice"},
      {"tp,ep,sp,pp,dp", "unknown dimension 'sp'"},
      {"tp, ep,cp,pp,dp", "unknown dimension ' ep'"},
      {"", "an empty name"},
      {"tp,,ep,cp,pp,dp", "an empty name"},
  };
  for (const auto& [text, problem] : bad) {
    d.parallel.placement = text;
    const auto i = only_issue(d, "/parallel/placement");
    EXPECT_TRUE(contains(i.message, problem)) << text << ": " << i.message;
    EXPECT_TRUE(contains(i.allowed, "a permutation of tp, ep, cp, pp, dp")) << i.allowed;
    EXPECT_EQ(i.value, "\"" + text + "\"");
  }
}

TEST(Validate, OverlapTilesAndRedundantExperts) {
  Design d = baseline();
  for (int bad : {0, -3, 1025}) {
    d.parallel.overlap_tiles = bad;
    EXPECT_EQ(only_issue(d, "/parallel/overlap_tiles").allowed, "integer in [1, 1024]") << bad;
  }
  d.parallel.overlap_tiles = 1024;
  d.parallel.overlap = parallel::Overlap::fixed;
  EXPECT_TRUE(validate(d).empty());

  d = moe_design();
  d.parallel.redundant_experts_per_rank = 1;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  d.parallel.redundant_experts_per_rank = -1;
  EXPECT_EQ(only_issue(d, "/parallel/redundant_experts_per_rank").allowed, "integer >= 0");
  d = baseline();  // dense
  d.parallel.redundant_experts_per_rank = 2;
  const auto i = only_issue(d, "/parallel/redundant_experts_per_rank");
  EXPECT_TRUE(contains(i.message, "no MoE layers")) << i.message;
  EXPECT_EQ(i.allowed, "0 for a dense model");
}

// Per-module plans re-partition the tp x ep x cp devices of a stage (parallel/plan.hpp).
TEST(Validate, ModulePlans) {
  // moe_design: tp 2 x ep 2 = 4 stage devices, 32 heads / 8 KV heads, 8 experts.
  Design d = moe_design();
  d.parallel.attention.tp = 4;  // attention TP over all four, no attention-DP
  d.parallel.moe.tp = 1;        // experts whole, EP over all four
  d.parallel.moe.ep = 4;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));

  d = moe_design();
  d.parallel.attention.tp = 3;
  auto issues = validate(d);
  ASSERT_GE(issues.size(), 2u) << format_issues(issues);
  for (const auto& i : issues) EXPECT_EQ(i.path, "/parallel/attention/tp") << format_issue(i);
  const auto stage = std::find_if(issues.begin(), issues.end(),
                                  [](auto& i) { return contains(i.message, "pipeline stage"); });
  ASSERT_NE(stage, issues.end()) << format_issues(issues);
  EXPECT_EQ(stage->allowed, "a divisor of stage devices tp x ep x cp = 2 x 2 x 1 = 4");
  const auto heads = std::find_if(issues.begin(), issues.end(), [](auto& i) {
    return contains(i.message, "heads % attention/tp");
  });
  ASSERT_NE(heads, issues.end()) << format_issues(issues);
  EXPECT_EQ(heads->allowed, "a divisor of heads = 32");

  d = moe_design();
  d.parallel.moe.tp = 4;
  d.parallel.moe.ep = 2;  // 4 x 2 = 8 != 4
  auto i = only_issue(d, "/parallel/moe/ep");
  EXPECT_TRUE(contains(i.message, "moe tp x moe ep = 4 x 2 = 8, not 4")) << i.message;
  EXPECT_TRUE(contains(i.allowed, "= 1")) << i.allowed;

  d = moe_design();
  d.parallel.moe.ep = 4;  // moe.tp unset: global tp 2, 2 x 4 = 8 != 4
  EXPECT_TRUE(contains(only_issue(d, "/parallel/moe/ep").message, "2 x 4 = 8"));

  d = moe_design();
  d.parallel.moe.tp = 3;
  issues = validate(d);
  EXPECT_TRUE(std::all_of(issues.begin(), issues.end(), [](auto& x) {
    return x.path == "/parallel/moe/tp";
  })) << format_issues(issues);
  EXPECT_TRUE(std::any_of(issues.begin(), issues.end(), [](auto& x) {
    return contains(x.message, "expert_ffn_dim % moe/tp");
  })) << format_issues(issues);

  // Experts spread over the derived MoE degree: 6 experts, ep 2 divides them, but moe.tp 1
  // makes EP 4 over the stage.
  d = moe_design();
  d.model.moe.experts = 6;
  d.parallel.moe.tp = 1;
  i = only_issue(d, "/parallel/moe/tp");
  EXPECT_TRUE(contains(i.message, "experts % 4 != 0")) << i.message;

  // cp ranks hold experts too: ep 2 x cp 2 = 4 MoE ranks, 6 experts do not divide.
  d = moe_design();
  d.model.moe.experts = 6;
  d.system.devices = 8;
  d.system.levels[0].size = 8;
  d.parallel.cp = 2;
  d.workload.input_len = 512;
  i = only_issue(d, "/parallel/cp");
  EXPECT_TRUE(contains(i.message, "experts % 4 != 0")) << i.message;

  d = moe_design();
  d.parallel.dense_ffn.tp = 3;
  EXPECT_TRUE(contains(only_issue(d, "/parallel/dense_ffn/tp").message, "pipeline stage"));
  d.parallel.dense_ffn.tp = 0;
  d.parallel.dense_ffn.ep = 2;
  EXPECT_TRUE(contains(only_issue(d, "/parallel/dense_ffn/ep").message, "MoE layers only"));
  d.parallel.dense_ffn.ep = 0;
  d.parallel.attention.ep = 1;
  EXPECT_EQ(only_issue(d, "/parallel/attention/ep").allowed, "0");
  d.parallel.attention.ep = 0;
  d.parallel.attention.tp = -1;
  EXPECT_EQ(only_issue(d, "/parallel/attention/tp").allowed, "integer >= 0");

  // A dense model: the dense FFN tp must divide ffn_dim; an MoE plan is an error.
  d = baseline();
  d.system.devices = 2;
  d.system.levels = {hw::NetworkLevel{}};
  d.parallel.dp = 2;
  d.parallel.dense_ffn.tp = 1;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  d.system.devices = 4;
  d.parallel.dp = 1;
  d.parallel.tp = 4;
  d.model.ffn_dim = 11010;  // tp 4 does not divide; dense_ffn.tp 2 does
  d.parallel.dense_ffn.tp = 2;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  d.parallel.dense_ffn.tp = 4;
  EXPECT_EQ(only_issue(d, "/parallel/dense_ffn/tp").allowed, "a divisor of ffn_dim = 11010");
  d.parallel.dense_ffn.tp = 2;
  d.parallel.moe.ep = 2;
  EXPECT_EQ(only_issue(d, "/parallel/moe/ep").allowed, "0 for a dense model");
}

TEST(Validate, RoutingParameters) {
  Design d = moe_design();
  d.workload.routing.kind = workload::RoutingKind::zipf;
  d.workload.routing.zipf_s = 0;
  EXPECT_EQ(only_issue(d, "/workload/routing/zipf_s").allowed, "finite number > 0");
  d = moe_design();
  d.workload.routing.kind = workload::RoutingKind::dirichlet;
  d.workload.routing.dirichlet_alpha = -1;
  EXPECT_EQ(only_issue(d, "/workload/routing/dirichlet_alpha").allowed, "finite number > 0");

  d = moe_design();
  auto& r = d.workload.routing;
  r.kind = workload::RoutingKind::trace;
  EXPECT_TRUE(contains(only_issue(d, "/workload/routing/trace").message, "no expert frequencies"));
  r.expert_frequency = {std::vector<double>(8, 0.25)};  // one row for all layers
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  r.expert_frequency.assign(32, std::vector<double>(8, 0.25));  // one row per MoE layer
  EXPECT_TRUE(validate(d).empty());
  r.expert_frequency.assign(31, std::vector<double>(8, 0.25));
  EXPECT_EQ(only_issue(d, "/workload/routing/trace").allowed, "1 or 32 layers");
  r.expert_frequency.assign(1, std::vector<double>(7, 2.0 / 7));
  EXPECT_EQ(only_issue(d, "/workload/routing/trace").allowed, "experts = 8");
  r.expert_frequency.assign(1, std::vector<double>(8, 0.5));
  EXPECT_EQ(only_issue(d, "/workload/routing/trace").allowed, "top_k = 2");
  // Routing is irrelevant to dense models.
  d = baseline();
  d.workload.routing.kind = workload::RoutingKind::trace;
  EXPECT_TRUE(validate(d).empty());
}

TEST(Validate, BatchMustFitMemory) {
  Design d = baseline();
  const int fits = max_batch_that_fits(d);
  ASSERT_GT(fits, 1);
  d.workload.batch = fits;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));
  d.workload.batch = fits + 1;
  const auto i = only_issue(d, "/workload/batch");
  EXPECT_EQ(i.value, std::to_string(fits + 1));
  EXPECT_EQ(i.allowed, "integer in [1, " + std::to_string(fits) + "] (or batch_auto)");
  EXPECT_TRUE(contains(i.message, "largest batch that fits is " + std::to_string(fits)));
  EXPECT_TRUE(contains(i.message, "GiB")) << i.message;
  // batch_auto picks the batch itself.
  d.workload.batch_auto = true;
  d.workload.batch = 0;
  EXPECT_TRUE(validate(d).empty());
}

TEST(Validate, NothingFitsSaysSo) {
  Design d = baseline();
  d.hardware.memory.capacity_per_layer_GiB = 0.01;  // 0.4 GiB for a 13 GB model
  const auto i = only_issue(d, "/workload/batch");
  EXPECT_TRUE(contains(i.message, "not even batch 1 fits")) << i.message;
}

TEST(Validate, MemoryCheckRunsOnlyOnSaneDesigns) {
  Design d = baseline();
  d.workload.batch = 1000000;
  d.hardware.compute.cores = 0;
  const auto issues = validate(d);
  ASSERT_EQ(issues.size(), 1u) << format_issues(issues);
  EXPECT_EQ(issues[0].path, "/hardware/compute/cores");
}

TEST(Validate, AllIssuesAreReturnedAtOnce) {
  Design d = baseline();
  d.hardware.compute.cores = 0;
  d.model.vocab = 0;
  d.workload.output_len = -1;
  d.parallel.tp = 0;
  const auto issues = validate(d);
  std::set<std::string> paths;
  for (const auto& i : issues) paths.insert(i.path);
  for (const char* p :
       {"/hardware/compute/cores", "/model/vocab", "/workload/output_len", "/parallel/tp"})
    EXPECT_TRUE(paths.count(p)) << p << "\n" << format_issues(issues);
  for (const auto& i : issues) EXPECT_FALSE(i.allowed.empty()) << format_issue(i);
}

TEST(ResultNames, AreStableAndUnique) {
  std::set<std::string_view> ops;
  for (std::size_t i = 0; i < kOpClasses; ++i) ops.insert(to_string(static_cast<OpClass>(i)));
  EXPECT_EQ(ops.size(), kOpClasses);
  EXPECT_FALSE(ops.count("unknown"));
  EXPECT_EQ(to_string(OpClass::moe_experts), "moe_experts");
  std::set<std::string_view> res;
  for (std::size_t i = 0; i < kResources; ++i) res.insert(to_string(static_cast<Resource>(i)));
  EXPECT_EQ(res.size(), kResources);
  EXPECT_EQ(to_string(Resource::vertical_link), "vertical_link");
  EXPECT_TRUE(describe(kOk).empty());
  EXPECT_EQ(describe(kMemoryCapacity | kZeroBatch | kPowerOverTdp).size(), 3u);
  const auto unknown = describe(1u << 20);
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_TRUE(contains(unknown[0], "bit 20"));
}

}  // namespace
}  // namespace stackscope::perf

namespace stackscope::perf {
namespace {

// Area and compact-thermal parameters: sizes and resistances cannot be negative, the reticle
// must exist, ambient must leave room below the 95 C DRAM limit, the KV re-read share is a
// fraction in [0, 1].
TEST(Validate, AreaThermalAndKvRereadRanges) {
  const std::vector<std::pair<std::string, void (*)(Design&)>> cases = {
      {"/hardware/area/router_mm2", [](Design& d) { d.hardware.area.router_mm2 = -1; }},
      {"/hardware/area/reticle_mm2", [](Design& d) { d.hardware.area.reticle_mm2 = 0; }},
      {"/hardware/thermal/r_base_K_per_W",
       [](Design& d) { d.hardware.thermal.r_base_K_per_W = -0.1; }},
      {"/hardware/thermal/ambient_C", [](Design& d) { d.hardware.thermal.ambient_C = 120; }},
      {"/hardware/memory/bit_density_Gb_per_mm2",
       [](Design& d) { d.hardware.memory.bit_density_Gb_per_mm2 = -0.1; }},
      {"/runtime/decode_kv_reread_fraction",
       [](Design& d) { d.runtime.decode_kv_reread_fraction = 1.5; }},
      {"/runtime/host_launch_us", [](Design& d) { d.runtime.host_launch_us = -2; }},
      {"/runtime/kernels_per_op", [](Design& d) { d.runtime.kernels_per_op = 1e9; }},
      {"/hardware/compute/op_dispatch_ns",
       [](Design& d) { d.hardware.compute.op_dispatch_ns = -1; }},
  };
  for (const auto& [path, set] : cases) {
    Design d;
    set(d);
    EXPECT_FALSE(only_issue(d, path).allowed.empty()) << path;
  }
}

// Ranges a real design never reaches, but that bound memory and time and keep every
// product finite (stackscope/perf/limits.hpp). Each message states the allowed range.
TEST(ValidateLimits, CountsPastTheModelledRangeAreRefusedWithTheRange) {
  Design d = baseline();
  d.system.devices = 1 << 30;  // with a large mesh: std::bad_alloc in a noexcept evaluator
  d.system.levels = {hw::NetworkLevel{}};
  d.system.levels[0].size = 0;
  d.parallel.dp = 1 << 30;
  const auto issues = validate(d);
  const auto devices = std::find_if(issues.begin(), issues.end(),
                                    [](const Issue& i) { return i.path == "/system/devices"; });
  ASSERT_NE(devices, issues.end()) << format_issues(issues);
  EXPECT_EQ(devices->message, "must be at most 1048576, the largest modelled");
  EXPECT_EQ(devices->allowed, "integer in [1, 1048576]");

  d = baseline();
  d.hardware.noc.mesh_x = 100000;
  EXPECT_EQ(only_issue(d, "/hardware/noc/mesh_x").allowed, "integer in [1, 4096]");
  d.hardware.noc.mesh_x = 4096;  // the limit itself is fine
  d.hardware.noc.mesh_y = 4096;
  EXPECT_TRUE(validate(d).empty()) << format_issues(validate(d));

  for (auto [path, set] : std::vector<std::pair<std::string, void (*)(Design&)>>{
           {"/model/layers", [](Design& x) { x.model.layers = 1 << 20; }},
           {"/model/hidden", [](Design& x) { x.model.hidden = 1 << 30; }},
           {"/model/vocab", [](Design& x) { x.model.vocab = 1 << 30; }},
           {"/hardware/compute/cores", [](Design& x) { x.hardware.compute.cores = 1 << 30; }},
           {"/hardware/memory/banks_per_channel",
            [](Design& x) { x.hardware.memory.banks_per_channel = 1 << 20; }},
           {"/workload/input_len", [](Design& x) { x.workload.input_len = 1 << 30; }},
           {"/workload/batch", [](Design& x) { x.workload.batch = 1 << 30; }}}) {
    Design x = baseline();
    set(x);
    const auto all = validate(x);
    const auto it =
        std::find_if(all.begin(), all.end(), [&p = path](const Issue& i) { return i.path == p; });
    ASSERT_NE(it, all.end()) << path << ": " << format_issues(all);
    EXPECT_TRUE(contains(it->message, "must be at most")) << path << ": " << it->message;
    EXPECT_TRUE(contains(it->allowed, "integer in [")) << path << ": " << it->allowed;
  }
}

TEST(ValidateLimits, PlanProductsCannotOverflow) {
  // 2^31 - 1 in every degree: the product wrapped to a negative number in the message before.
  Design d = baseline();
  d.parallel.tp = d.parallel.pp = d.parallel.dp = d.parallel.ep = d.parallel.cp =
      std::numeric_limits<int>::max();
  for (const auto& i : validate(d)) {
    EXPECT_FALSE(contains(i.message, "-")) << format_issue(i);
    if (i.path.rfind("/parallel/", 0) == 0 && i.path.size() == 12) {  // /parallel/tp, ...
      EXPECT_EQ(i.allowed, "integer in [1, 1048576]") << i.path;
    }
  }
  // Every degree inside its range, the product 2^100: "more than", not a wrapped value.
  d.parallel.tp = d.parallel.pp = d.parallel.dp = d.parallel.ep = d.parallel.cp = 1 << 20;
  const auto issues = validate(d);
  const auto it = std::find_if(issues.begin(), issues.end(),
                               [](const Issue& i) { return i.path == "/parallel"; });
  ASSERT_NE(it, issues.end()) << format_issues(issues);
  EXPECT_EQ(it->value, "more than 1048576");
}

TEST(ValidateLimits, RatesHavePhysicalMinimums) {
  // A denormal clock evaluated as feasible with TTFT n/a (inf) before.
  Design d = baseline();
  d.hardware.compute.clock_GHz = 1e-310;
  const Issue clock = only_issue(d, "/hardware/compute/clock_GHz");
  EXPECT_EQ(clock.allowed, "number in [0.001, 100]");
  d = baseline();
  d.hardware.noc.link_GBps = 1e-300;
  EXPECT_EQ(only_issue(d, "/hardware/noc/link_GBps").allowed, "number in [0.001, 10000000]");
  d = baseline();
  d.hardware.memory.clock_MHz = 1e9;  // the bank simulator would step 10^11 cycles
  EXPECT_EQ(only_issue(d, "/hardware/memory/clock_MHz").allowed, "number in [1, 20000]");
  d = baseline();
  d.runtime.matmul_efficiency = 1e-9;
  EXPECT_EQ(only_issue(d, "/runtime/matmul_efficiency").allowed, "number in [0.001, 1]");
  d = baseline();
  d.hardware.energy.tdp_W = 1e300;
  EXPECT_TRUE(contains(only_issue(d, "/hardware/energy/tdp_W").message, "at most 1e+12"));
}

TEST(ValidateLimits, TooManyLevelsIsOneProblemNotOnePerLevel) {
  Design d = baseline();
  d.system.levels.assign(100000, hw::NetworkLevel{});
  for (auto& l : d.system.levels) l.link_GBps = -1;
  const auto issues = validate(d);
  // The first kMaxLevels + 1 levels' problems and the count, not 10^5 lines.
  EXPECT_LE(issues.size(), 8u) << format_issues(issues);
  EXPECT_TRUE(std::any_of(issues.begin(), issues.end(), [](const Issue& i) {
    return contains(i.message, "at most 3 network levels are modelled, got 100000");
  }));
}

TEST(ValidateLimits, MemoryAloneIsValidatedForTheDramCommand) {
  // `dram` never validated its hardware file: zero clock, zero banks, negative tRCD and
  // tRFC >= tREFI were all accepted.
  hw::Hardware h;
  h.memory.clock_MHz = 0;
  h.memory.banks_per_channel = 0;
  h.memory.timing.tRCD_ns = -14;
  h.memory.timing.tRFC_ns = h.memory.timing.tREFI_ns;
  const auto issues = validate_memory(h, "");
  std::set<std::string> paths;
  for (const auto& i : issues) paths.insert(i.path);
  EXPECT_EQ(paths, (std::set<std::string>{"/memory/clock_MHz", "/memory/banks_per_channel",
                                          "/memory/timing/tRCD_ns", "/memory/timing/tRFC_ns"}))
      << format_issues(issues);
  EXPECT_TRUE(validate_memory(hw::Hardware{}).empty());
  // The same checks as the project's, under /hardware there.
  Design d = baseline();
  d.hardware.memory.banks_per_channel = 0;
  EXPECT_EQ(only_issue(d, "/hardware/memory/banks_per_channel").allowed, "integer >= 1");
}

TEST(ValidateLimits, TheEvaluatorDoesNotLetExceptionsEscape) {
  // An unvalidated design past the limits: the network model of 2^30 positions cannot be
  // allocated. evaluate() is noexcept, so bad_alloc escaping it would be std::terminate.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers' allocators abort on a request this size instead of throwing";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  GTEST_SKIP() << "the sanitizers' allocators abort on a request this size instead of throwing";
#endif
#endif
  Design d = baseline();
  d.system.devices = 1 << 30;
  d.system.levels = {hw::NetworkLevel{}};
  d.system.levels[0].size = 0;
  d.parallel.dp = 1 << 30;
  const Result r = evaluate(d);
  EXPECT_FALSE(r.feasible);
  EXPECT_TRUE(r.reasons & kEvaluationFailed);
  EXPECT_TRUE(std::isinf(r.metrics.ttft_s));
  EXPECT_EQ(describe(kEvaluationFailed).front(),
            "evaluation failed: the evaluator ran out of memory; metrics are not valid");
}

}  // namespace
}  // namespace stackscope::perf
