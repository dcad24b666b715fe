// SPDX-License-Identifier: GPL-3.0-or-later
// The preset registry and every shipped preset: each must parse, round-trip through the
// writers unchanged, and keep every value its file states.
#include <cstdio>
#include <fstream>
#include <set>

#include "stackscope/io/search.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/presets/embedded.hpp"
#include "test_support.hpp"

namespace stackscope::io {
namespace {

using testing::contains;
using testing::ordered_json;
using testing::test_registry;

// Every value stated in `raw` must appear unchanged in `written` (numbers compared as
// doubles: 4 and 4.0 are the same value). Metadata keys are not part of the structs.
void expect_contains_leaves(const ordered_json& raw, const ordered_json& written,
                            const std::string& path) {
  static const std::set<std::string> kMetadata = {"kind", "schema_version", "notes", "base"};
  if (raw.is_object()) {
    ASSERT_TRUE(written.is_object()) << path;
    for (const auto& [key, value] : raw.items()) {
      if (kMetadata.count(key)) continue;
      // Metadata without a struct member: a project's id/source, a system's source.
      if ((key == "id" || key == "source") && !written.contains(key) &&
          (path.empty() || path == "/system"))
        continue;
      ASSERT_TRUE(written.contains(key)) << path << "/" << key << " was not written";
      expect_contains_leaves(value, written[key], path + "/" + key);
    }
  } else if (raw.is_array()) {
    ASSERT_TRUE(written.is_array()) << path;
    ASSERT_EQ(raw.size(), written.size()) << path;
    for (std::size_t i = 0; i < raw.size(); ++i)
      expect_contains_leaves(raw[i], written[i], path + "/" + std::to_string(i));
  } else if (raw.is_number()) {
    ASSERT_TRUE(written.is_number()) << path;
    EXPECT_EQ(raw.get<double>(), written.get<double>()) << path;
  } else {
    EXPECT_EQ(raw, written) << path;
  }
}

struct Builtin {
  PresetKind kind;
  std::string id;
  ordered_json raw;
};

std::vector<Builtin> builtins() {
  std::vector<Builtin> out;
  for (const auto& f : presets::embedded_presets()) {
    const std::string path(f.path);
    const auto slash = path.find('/');
    const std::string folder = path.substr(0, slash);
    std::string id = path.substr(slash + 1);
    id.resize(id.size() - 5);  // ".json"
    PresetKind kind;
    if (folder == "hardware")
      kind = PresetKind::hardware;
    else if (folder == "systems")
      kind = PresetKind::system;
    else if (folder == "models")
      kind = PresetKind::model;
    else if (folder == "projects")
      kind = PresetKind::project;
    else if (folder == "search")
      kind = PresetKind::search;
    else if (folder == "runtimes")
      kind = PresetKind::runtime;
    else if (folder == "wafers")
      kind = PresetKind::wafer;
    else
      continue;
    out.push_back({kind, id, ordered_json::parse(f.text)});
  }
  return out;
}

TEST(Presets, EmbeddedFilesMatchTheSourceTree) {
  const auto files = presets::embedded_presets();
  ASSERT_FALSE(files.empty());
  for (const auto& f : files) {
    std::ifstream in(std::filesystem::path(STACKSCOPE_SOURCE_DIR) / "presets" / std::string(f.path),
                     std::ios::binary);
    ASSERT_TRUE(in) << f.path;
    const std::string disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(disk, f.text) << f.path << " is stale: rebuild stackscope_presets_embedded";
  }
}

TEST(Presets, RegisterBuiltinsRegistersEveryFileByFolder) {
  PresetRegistry r;
  r.register_builtins();
  const auto all = builtins();
  ASSERT_FALSE(all.empty());
  std::size_t total = 0;
  for (auto kind : {PresetKind::hardware, PresetKind::system, PresetKind::model,
                    PresetKind::project, PresetKind::search, PresetKind::runtime,
                    PresetKind::wafer}) {
    const auto list = r.list(kind);
    total += list.size();
    for (std::size_t i = 1; i < list.size(); ++i) EXPECT_LT(list[i - 1].id, list[i].id);
  }
  EXPECT_EQ(total, all.size());
  for (const auto& b : all) {
    EXPECT_TRUE(r.contains(b.kind, b.id)) << b.id;
    const auto list = r.list(b.kind);
    auto it = std::find_if(list.begin(), list.end(), [&](const auto& i) { return i.id == b.id; });
    ASSERT_NE(it, list.end());
    EXPECT_EQ(it->name, b.raw.value("name", b.id)) << b.id;
  }
}

TEST(Presets, EveryBuiltinPresetRoundTrips) {
  PresetRegistry r;
  r.register_builtins();
  for (const auto& b : builtins()) {
    SCOPED_TRACE(std::string(to_string(b.kind)) + " preset " + b.id);
    std::string text;
    try {
      PresetRegistry again;
      switch (b.kind) {
        case PresetKind::hardware:
          text = hardware_to_json(r.hardware(b.id));
          again.add_json(b.kind, b.id, text);
          EXPECT_EQ(hardware_to_json(again.hardware(b.id)), text);
          break;
        case PresetKind::system:
          text = system_to_json(r.system(b.id));
          again.add_json(b.kind, b.id, text);
          EXPECT_EQ(system_to_json(again.system(b.id)), text);
          break;
        case PresetKind::model:
          text = model_to_json(r.model(b.id));
          again.add_json(b.kind, b.id, text);
          EXPECT_EQ(model_to_json(again.model(b.id)), text);
          break;
        case PresetKind::project: {
          text = project_to_json(r.project(b.id));
          EXPECT_EQ(project_to_json(parse_project(text, again)), text);
          break;
        }
        case PresetKind::runtime:
          text = runtime_to_json(r.runtime(b.id));
          again.add_json(b.kind, b.id, text);
          EXPECT_EQ(runtime_to_json(again.runtime(b.id)), text);
          break;
        case PresetKind::wafer:
          text = wafer_to_json(r.wafer(b.id));
          again.add_json(b.kind, b.id, text);
          EXPECT_EQ(wafer_to_json(again.wafer(b.id)), text);
          break;
        case PresetKind::search:  // checked by EveryBuiltinSearchPresetCompiles
          continue;
      }
    } catch (const ConfigError& e) {
      ADD_FAILURE() << e.what();
      continue;
    }
    const auto written = ordered_json::parse(text);
    if (b.kind != PresetKind::project) {
      expect_contains_leaves(b.raw, written, "");
      continue;
    }
    // Projects: inline values are kept; preset sections expand to that preset's values.
    for (const char* section : {"hardware", "system", "model", "workload", "parallel", "wafer"}) {
      if (!b.raw.contains(section)) continue;
      // A wafer project's hardware is the technology device; what is written is the die
      // derived from it (hw::die_hardware), checked in tests/core/wafer.
      if (section == std::string("hardware") && b.raw.contains("wafer")) continue;
      const auto& raw = b.raw[section];
      const std::string path = std::string("/") + section;
      if (raw.is_string()) {
        PresetKind k = section == std::string("hardware") ? PresetKind::hardware
                       : section == std::string("system") ? PresetKind::system
                       : section == std::string("wafer")  ? PresetKind::wafer
                                                          : PresetKind::model;
        expect_contains_leaves(ordered_json::parse(r.json_text(k, raw.get<std::string>())),
                               written[section], path);
      } else {
        expect_contains_leaves(raw, written[section], path);
      }
    }
    if (b.raw.contains("name")) {
      EXPECT_EQ(written["name"], b.raw["name"]);
    }
  }
}

// Search presets (presets/search/): the space compiles (knobs known, values applicable) and
// its base design validates.
TEST(Presets, EveryBuiltinSearchPresetCompiles) {
  PresetRegistry r;
  r.register_builtins();
  const auto list = r.list(PresetKind::search);
  EXPECT_GE(list.size(), 3u);
  for (const auto& p : list) {
    SCOPED_TRACE("search preset " + p.id);
    try {
      const SearchProject sp = resolve_search_project(p.id, r);
      EXPECT_TRUE(perf::validate(sp.space.base).empty());
      const search::CompiledSpace space(sp.space);
      std::printf("  %-36s %s points (%llu hardware points)\n", p.id.c_str(),
                  search::to_string(space.size()).c_str(),
                  static_cast<unsigned long long>(space.hardware_points()));
      EXPECT_GT(space.size(), 0u);
    } catch (const ConfigError& e) {
      ADD_FAILURE() << e.what();
    }
  }
}

// The shipped projects are examples users start from: they must be valid designs.
TEST(Presets, EveryBuiltinProjectValidates) {
  PresetRegistry r;
  r.register_builtins();
  const auto projects = r.list(PresetKind::project);
  ASSERT_FALSE(projects.empty());
  for (const auto& p : projects) {
    const auto design = r.project(p.id);
    const auto issues = perf::validate(design);
    EXPECT_TRUE(issues.empty()) << p.id << ":\n" << format_issues(issues);
    if (!issues.empty()) continue;
    // Examples must also be feasible designs (an area or thermal model change that makes a
    // shipped example infeasible is a preset bug).
    const auto result = perf::evaluate(design);
    std::string reasons;
    for (const auto& why : perf::describe(result.reasons)) reasons += why + "; ";
    EXPECT_TRUE(result.feasible) << p.id << ": " << reasons;
  }
}

// Systems are used alone too (`collective --system`): their own checks must pass.
TEST(Presets, EveryBuiltinSystemValidates) {
  PresetRegistry r;
  r.register_builtins();
  const auto systems = r.list(PresetKind::system);
  ASSERT_FALSE(systems.empty());
  for (const auto& s : systems) {
    perf::Design d;
    d.system = r.system(s.id);
    for (const auto& issue : perf::validate(d))
      EXPECT_NE(issue.path.rfind("/system", 0), 0u) << s.id << ": " << format_issue(issue);
  }
  EXPECT_TRUE(r.contains(PresetKind::system, "deepstack-3d-x256"));
  EXPECT_EQ(r.system("deepstack-3d-x256").devices, 256);
  EXPECT_EQ(r.system("h100-sxm-x64-ib").devices, 64);
}

TEST(Registry, ListIsSortedWithNamesFromTheFiles) {
  PresetRegistry r;
  r.add_json(PresetKind::model, "zeta", R"({"name": "Zeta model"})");
  r.add_json(PresetKind::model, "alpha", R"({"layers": 2})");
  r.add_json(PresetKind::hardware, "beta", R"({})");
  const auto models = r.list(PresetKind::model);
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0].id, "alpha");
  EXPECT_EQ(models[0].name, "alpha");  // no "name" key: the id
  EXPECT_EQ(models[1].id, "zeta");
  EXPECT_EQ(models[1].name, "Zeta model");
  EXPECT_EQ(models[1].kind, PresetKind::model);
  EXPECT_TRUE(r.contains(PresetKind::hardware, "beta"));
  EXPECT_FALSE(r.contains(PresetKind::model, "beta"));
  EXPECT_TRUE(r.list(PresetKind::project).empty());
  EXPECT_EQ(r.json_text(PresetKind::model, "alpha"), R"({"layers": 2})");
  EXPECT_EQ(r.model("alpha").layers, 2);
}

TEST(Registry, UnknownIdsThrowListingKnownIds) {
  const auto r = test_registry();
  try {
    (void)r.model("llama");
    FAIL();
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].message, "unknown model preset 'llama'");
    EXPECT_EQ(e.issues()[0].allowed, "one of: test-dense, test-moe");
  }
  EXPECT_THROW((void)r.json_text(PresetKind::project, "x"), ConfigError);
  EXPECT_THROW((void)r.project("x"), ConfigError);
}

TEST(Registry, AddJsonRejectsBadFilesAndReplacesSameId) {
  PresetRegistry r;
  try {
    r.add_json(PresetKind::hardware, "bad", "{\n  \"compute\": {\n    \"cores\": 4,\n  }\n}");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "hardware preset 'bad' at line 4, column 3")) << e.what();
  }
  EXPECT_THROW(r.add_json(PresetKind::hardware, "arr", "[]"), ConfigError);
  EXPECT_THROW(r.add_json(PresetKind::hardware, "m", R"({"kind": "model"})"), ConfigError);
  EXPECT_FALSE(r.contains(PresetKind::hardware, "bad"));
  r.add_json(PresetKind::hardware, "x", R"({"compute": {"cores": 1}})");
  r.add_json(PresetKind::hardware, "x", R"({"compute": {"cores": 2}})");
  EXPECT_EQ(r.list(PresetKind::hardware).size(), 1u);
  EXPECT_EQ(r.hardware("x").compute.cores, 2);
  // Structural errors in a stored preset surface on lookup, with paths inside the preset.
  r.add_json(PresetKind::hardware, "y", R"({"compute": {"cores": "two"}})");
  try {
    (void)r.hardware("y");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.issues().at(0).path, "/compute/cores");
  }
}

TEST(Registry, ResolveAcceptsIdsAndFiles) {
  const auto r = test_registry();
  EXPECT_EQ(resolve_hardware("test-gpu", r).compute.cores, 8);
  EXPECT_EQ(resolve_system("test-x4", r).devices, 4);
  EXPECT_EQ(resolve_model("test-moe", r).moe.experts, 8);

  testing::TempDir dir("io-resolve");
  const auto file = dir.path() / "mine.json";
  { std::ofstream(file) << R"({"kind": "hardware", "base": "test-gpu", "compute": {"cores": 9}})"; }
  const auto h = resolve_hardware(file.string(), r);
  EXPECT_EQ(h.compute.cores, 9);
  EXPECT_DOUBLE_EQ(h.compute.clock_GHz, 1.5);
  EXPECT_EQ(h.id, "test-gpu");
  EXPECT_THROW((void)resolve_model(file.string(), r), ConfigError);  // kind says hardware

  try {
    (void)resolve_hardware("no-such-thing", r);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.issues().at(0).message, "neither a hardware preset id nor a file"));
    EXPECT_TRUE(contains(e.issues().at(0).allowed, "test-gpu"));
  }
}

TEST(Registry, PresetKindNames) {
  EXPECT_EQ(to_string(PresetKind::hardware), "hardware");
  EXPECT_EQ(to_string(PresetKind::system), "system");
  EXPECT_EQ(to_string(PresetKind::model), "model");
  EXPECT_EQ(to_string(PresetKind::project), "project");
}

}  // namespace
}  // namespace stackscope::io
