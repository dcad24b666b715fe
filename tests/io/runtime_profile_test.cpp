// SPDX-License-Identifier: GPL-3.0-or-later
// Runtime profiles (core/runtime, presets/runtimes/): the shipped profiles, how a project names
// one or gets its device class's default, the schema 1 migration of the values that used to
// sit in hardware.compute, and the launch rules' arithmetic on the shipped devices.
#include "stackscope/io/search.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/runtime/profile.hpp"
#include "test_support.hpp"

namespace stackscope::io {
namespace {

using testing::contains;
using testing::ordered_json;

const PresetRegistry& builtins() {
  return testing::builtin_presets();
}

ordered_json project_on(const char* hardware) {
  return ordered_json{{"schema_version", 2},
                      {"hardware", hardware},
                      {"model", "llama-3-8b"},
                      {"workload", {{"batch", 8}, {"input_len", 512}, {"output_len", 128}}},
                      {"parallel", {{"tp", 1}}}};
}

TEST(RuntimeProfiles, ShippedProfilesLoadAndValidate) {
  const auto list = builtins().list(PresetKind::runtime);
  ASSERT_GE(list.size(), 3u);
  for (const char* id : {"trtllm-2023", "modern-gpu-2025", "accel-native"}) {
    const runtime::Profile p = builtins().runtime(id);
    EXPECT_EQ(p.id, id);
    EXPECT_FALSE(p.source.empty()) << id << ": every profile says where its values come from";
    perf::Design d;
    d.runtime = p;
    EXPECT_TRUE(perf::validate(d).empty()) << id;
  }
}

TEST(RuntimeProfiles, ProjectWithoutRuntimeGetsItsDeviceClassDefault) {
  const auto gpu = parse_project(project_on("h100-sxm").dump(), builtins());
  EXPECT_EQ(gpu.runtime.id, runtime::kModernGpuProfileId);
  const auto stacked = parse_project(project_on("deepstack-3d").dump(), builtins());
  EXPECT_EQ(stacked.runtime.id, runtime::kAcceleratorProfileId);
}

TEST(RuntimeProfiles, ProjectNamesOrOverridesAProfile) {
  auto j = project_on("h100-sxm");
  j["runtime"] = "trtllm-2023";
  EXPECT_EQ(parse_project(j.dump(), builtins()).runtime.id, "trtllm-2023");
  j["runtime"] = {{"base", "trtllm-2023"}, {"host_launch_us", 3.0}};
  const auto d = parse_project(j.dump(), builtins());
  EXPECT_EQ(d.runtime.id, "trtllm-2023");
  EXPECT_DOUBLE_EQ(d.runtime.host_launch_us, 3.0);
  EXPECT_DOUBLE_EQ(d.runtime.matmul_efficiency, 0.55);  // the rest from the base
  // The design round-trips with its profile.
  const auto back = parse_project(project_to_json(d), builtins());
  EXPECT_EQ(project_to_json(back), project_to_json(d));
  // Unknown profiles name the known ones.
  j["runtime"] = "tensorrt";
  const auto issues = testing::parse_issues(j.dump(), builtins());
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues[0].path, "/runtime");
  EXPECT_TRUE(contains(issues[0].allowed, "trtllm-2023")) << issues[0].allowed;
}

// A schema 1 project (what the GUI saved before runtime profiles) keeps what it said: the
// runtime's values move from hardware.compute into "runtime", with schema 1's launch rule.
TEST(RuntimeProfiles, SchemaOneProjectMigratesItsComputeValues) {
  auto j = project_on("h100-sxm");
  j["schema_version"] = 1;
  j["hardware"] = {{"base", "h100-sxm"},
                   {"compute",
                    {{"matmul_efficiency", 0.5},
                     {"attention_efficiency", 0.25},
                     {"decode_kv_reread_fraction", 0.4},
                     {"kernel_launch_us", 12.0}}}};
  const auto d = parse_project(j.dump(), builtins());
  EXPECT_EQ(d.runtime.id, runtime::kLegacyProfileId);
  EXPECT_DOUBLE_EQ(d.runtime.matmul_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(d.runtime.attention_efficiency, 0.25);
  EXPECT_DOUBLE_EQ(d.runtime.decode_kv_reread_fraction, 0.4);
  EXPECT_DOUBLE_EQ(d.runtime.host_launch_us, 12.0);
  EXPECT_DOUBLE_EQ(d.runtime.kernels_per_op, 1.0);
  EXPECT_FALSE(d.runtime.graph_capture);
  // Schema 1 charged kernel_launch_us per operator; now it is that plus the device's dispatch.
  EXPECT_NEAR(runtime::op_overhead_s(d.runtime, d.hardware.compute, d.hardware.noc), 12.5e-6,
              1e-12);
  EXPECT_EQ(ordered_json::parse(project_to_json(d))["schema_version"], perf::kSchemaVersion);
}

TEST(RuntimeProfiles, SchemaOneHardwareFileWithRuntimeKeysIsRefusedNamingThem) {
  // A hardware file alone has nowhere to put a runtime value: refused, saying where it went.
  PresetRegistry r = builtins();
  auto hw = ordered_json::parse(r.json_text(PresetKind::hardware, "h100-sxm"));
  hw["schema_version"] = 1;
  hw["compute"]["kernel_launch_us"] = 5;
  r.add_json(PresetKind::hardware, "old-h100", hw.dump());
  try {
    (void)r.hardware("old-h100");
    ADD_FAILURE() << "a schema 1 hardware file with kernel_launch_us must be refused";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].path, "/compute/kernel_launch_us");
    EXPECT_TRUE(contains(e.issues()[0].message, "runtime profile")) << e.issues()[0].message;
  }
}

// A schema 1 search project saved with inline variants (what the search form wrote) keeps each
// variant's values as that variant's own runtime; the other variant and the base get theirs.
TEST(RuntimeProfiles, SchemaOneSearchVariantsMigrateToTheirOwnRuntime) {
  auto j =
      ordered_json::parse(builtins().json_text(PresetKind::search, "llama-3-70b-gpu-vs-stacked"));
  j["schema_version"] = 1;
  auto& variants = j["search"]["hardware"][0]["variants"];
  ASSERT_EQ(variants.size(), 2u);
  variants[0]["hardware"] = {
      {"base", "h100-sxm"}, {"compute", {{"kernel_launch_us", 16.0}, {"matmul_efficiency", 0.55}}}};
  const SearchProject sp = parse_search_project(j.dump(), builtins());
  ASSERT_EQ(sp.space.variants.size(), 2u);
  ASSERT_TRUE(sp.space.variants[0].runtime.has_value());
  EXPECT_EQ(sp.space.variants[0].runtime->id, runtime::kLegacyProfileId);
  EXPECT_DOUBLE_EQ(sp.space.variants[0].runtime->host_launch_us, 16.0);
  EXPECT_DOUBLE_EQ(sp.space.variants[0].runtime->matmul_efficiency, 0.55);
  EXPECT_FALSE(sp.space.variants[0].runtime->graph_capture);
  EXPECT_FALSE(sp.space.variants[1].runtime.has_value());  // the base design's profile
}

// The launch rules' arithmetic on the shipped devices (core/runtime comments give the
// formula): 2 x (7.5 + 0.5) = 16 us on H100 under trtllm-2023, the schema 1 calibration; tens
// of ns on the 16 x 8 deepstack-3d mesh under accel-native.
TEST(RuntimeProfiles, OverheadsOnShippedDevices) {
  const auto h100 = builtins().hardware("h100-sxm");
  const auto ds = builtins().hardware("deepstack-3d");
  const auto old = builtins().runtime("trtllm-2023");
  const auto modern = builtins().runtime("modern-gpu-2025");
  const auto native = builtins().runtime("accel-native");
  EXPECT_NEAR(runtime::op_overhead_s(old, h100.compute, h100.noc), 16e-6, 1e-12);
  EXPECT_NEAR(runtime::collective_overhead_s(old, h100.compute, h100.noc), 8e-6, 1e-12);
  EXPECT_NEAR(runtime::op_overhead_s(modern, h100.compute, h100.noc), 0.5e-6, 1e-12);
  // 20 ns dispatch + 2 x (15 + 7) hops x 1 ns.
  EXPECT_NEAR(runtime::op_overhead_s(native, ds.compute, ds.noc), 64e-9, 1e-15);
  EXPECT_EQ(runtime::collective_overhead_s(native, ds.compute, ds.noc), 0.0);
  EXPECT_EQ(runtime::device_class_of(h100), runtime::DeviceClass::gpu);
  EXPECT_EQ(runtime::device_class_of(ds), runtime::DeviceClass::accelerator);
}

// One profile on both sides: the same software on a GPU and on the 3D chip changes their
// ratio; the profile, not the device preset, carries the launch floor.
TEST(RuntimeProfiles, SameProfileOnBothSidesMovesTheLaunchFloorOffTheHardware) {
  auto j = project_on("h100-sxm");
  j["model"] = "llama-3-8b";
  j["workload"] = {{"batch", 1}, {"input_len", 128}, {"output_len", 128}};
  j["runtime"] = "trtllm-2023";
  const auto old = perf::evaluate(parse_project(j.dump(), builtins()));
  j["runtime"] = "modern-gpu-2025";
  const auto modern = perf::evaluate(parse_project(j.dump(), builtins()));
  ASSERT_TRUE(old.feasible && modern.feasible);
  // Batch-1 decode of an 8B model on H100: ~5 ms of weight reads per step against ~300
  // operators x 16 us = ~5 ms of launches under the 2023 profile; graphs remove almost all.
  EXPECT_GT(modern.metrics.utps / old.metrics.utps, 1.5);
  EXPECT_LT(modern.metrics.utps / old.metrics.utps, 3.0);
}

}  // namespace
}  // namespace stackscope::io
