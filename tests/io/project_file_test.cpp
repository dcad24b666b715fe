// SPDX-License-Identifier: GPL-3.0-or-later
// Project files keep what the design does not hold (io/project_file.hpp): every shipped project
// and search project, loaded and saved elsewhere, reads back field for field.
#include "stackscope/io/project_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "stackscope/io/project.hpp"
#include "stackscope/io/serving.hpp"
#include "test_support.hpp"

namespace stackscope::io {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every value under `want` is in `got` at the same place (objects key by key, anything else
// equal; 2e7 equals 20000000), except the keys in `skip` at the top.
void expect_contains(const ordered_json& got, const ordered_json& want, const std::string& where,
                     std::initializer_list<std::string_view> skip = {}) {
  if (!want.is_object()) {
    EXPECT_EQ(got, want) << where;
    return;
  }
  ASSERT_TRUE(got.is_object()) << where << " is " << got.dump();
  for (const auto& [key, value] : want.items()) {
    if (std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
    ASSERT_TRUE(got.contains(key)) << where << "/" << key << " was dropped";
    expect_contains(got.at(key), value, where + "/" + key);
  }
}

// The folders of shipped projects; the registry holds each file of them (nothing skipped).
std::vector<fs::path> shipped_projects() {
  std::vector<fs::path> files;
  for (const char* folder : {"presets/projects", "presets/search"})
    for (const auto& e : fs::directory_iterator(fs::path(STACKSCOPE_SOURCE_DIR) / folder))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ProjectFile, EveryShippedProjectSurvivesLoadThenSaveFieldForField) {
  const auto& presets = builtin_presets();
  const auto files = shipped_projects();
  ASSERT_EQ(files.size(),
            presets.list(PresetKind::project).size() + presets.list(PresetKind::search).size());
  const testing::TempDir tmp("project-file");
  const fs::path out_dir = tmp.path();
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    const ordered_json original = ordered_json::parse(read_file(file));
    const ProjectFile loaded = load_project_file(file, presets);
    // Saved into another folder, as Save As does.
    const fs::path copy = out_dir / file.filename();
    const std::string text = project_file_to_json(
        loaded.design, loaded.serving.value_or(serving::ServingSpec{}), loaded.origin, out_dir);
    save_text_atomic(copy, text);
    const ordered_json saved = ordered_json::parse(text);
    const ProjectFile again = load_project_file(copy, presets);

    // The same design and serving settings, and the same origin.
    EXPECT_EQ(project_to_json(again.design), project_to_json(loaded.design));
    EXPECT_EQ(again.serving.value_or(serving::ServingSpec{}),
              loaded.serving.value_or(serving::ServingSpec{}));
    EXPECT_EQ(again.origin, loaded.origin);
    // A second save writes the same text (the first one normalised everything).
    EXPECT_EQ(project_file_to_json(again.design, again.serving.value_or(serving::ServingSpec{}),
                                   again.origin, out_dir),
              text);

    // Field for field: every key of the file is in the copy.
    for (const auto& [key, value] : original.items()) {
      SCOPED_TRACE(key);
      ASSERT_TRUE(saved.contains(key)) << "'" << key << "' was dropped";
      if (key == "schema_version") {
        EXPECT_EQ(saved[key], perf::kSchemaVersion);  // migrated to the current version
      } else if (key == "hardware" || key == "system" || key == "model" || key == "runtime" ||
                 key == "wafer") {
        // A preset id is written out in full under that id; overrides of {"base": id} and
        // inline objects are kept value for value. (A wafer project's "hardware" is the
        // wafer's die, derived from the named technology device: only its id is the same.)
        if (value.is_string()) {
          EXPECT_EQ(saved[key].at("id"), value);
        } else {
          if (value.contains("base")) {
            EXPECT_EQ(saved[key].at("id"), value["base"]);
          }
          if (!(key == "hardware" && original.contains("wafer"))) {
            expect_contains(saved[key], value, "/" + key, {"base"});
          }
        }
      } else if (key == "serving") {
        // Relative trace paths are rewritten against the new folder; they name the same file.
        expect_contains(saved[key], value, "/serving", {"trace"});
        if (value.contains("trace")) {
          EXPECT_EQ(fs::weakly_canonical(out_dir / saved[key]["trace"].get<std::string>()),
                    fs::weakly_canonical(file.parent_path() / value["trace"].get<std::string>()));
        }
      } else if (key == "workload" || key == "parallel") {
        expect_contains(saved[key], value, "/" + key);
      } else {
        // id, name, source, notes and the sections the design does not hold: verbatim.
        EXPECT_EQ(saved[key], value);
      }
    }
    // Nothing is added but the design's sections written out in full.
    for (const auto& [key, value] : saved.items())
      EXPECT_TRUE(original.contains(key) || key == "system" || key == "runtime" ||
                  key == "hardware")
          << "'" << key << "' added";
  }
}

TEST(ProjectFile, KeepsMetadataKindUnknownSectionsAndSectionNotes) {
  const auto presets = testing::test_registry();
  ordered_json doc = testing::minimal_project();
  doc["kind"] = "project";
  doc["id"] = "my-project";
  doc["source"] = "Measured on our cluster, 2025";
  doc["notes"] = "Why this design";
  doc["workload"]["notes"] = "batch from the SLO sweep";
  doc["parallel"]["notes"] = ordered_json::array({"tp over the switch", "no pp"});
  doc["hardware"] = {{"base", "test-gpu"}, {"notes", "a faster clock"}};
  doc["hardware"]["compute"] = {{"clock_GHz", 1.8}};
  doc["search"] = ordered_json::parse(
      R"({"strategy": "grid", "objectives": ["stps"], "parallel": {"tp": [1, 2, 4]}})");
  const ProjectFile f = parse_project_file(doc.dump(), presets);
  EXPECT_EQ(f.origin.id, "my-project");
  EXPECT_EQ(f.origin.source, "Measured on our cluster, 2025");
  EXPECT_EQ(f.origin.notes, "Why this design");
  ASSERT_EQ(f.origin.sections.size(), 2u);
  EXPECT_EQ(f.origin.sections[0].first, "kind");
  EXPECT_EQ(f.origin.sections[1].first, "search");
  EXPECT_DOUBLE_EQ(f.design.hardware.compute.clock_GHz, 1.8);

  const ordered_json saved =
      ordered_json::parse(project_file_to_json(f.design, serving::ServingSpec{}, f.origin));
  EXPECT_EQ(saved["kind"], "project");
  EXPECT_EQ(saved["id"], "my-project");
  EXPECT_EQ(saved["source"], doc["source"]);
  EXPECT_EQ(saved["notes"], doc["notes"]);
  EXPECT_EQ(saved["search"], doc["search"]);
  EXPECT_EQ(saved["workload"]["notes"], doc["workload"]["notes"]);
  EXPECT_EQ(saved["parallel"]["notes"], doc["parallel"]["notes"]);
  EXPECT_EQ(saved["hardware"]["notes"], "a faster clock");
  EXPECT_EQ(saved["hardware"]["compute"]["clock_GHz"], 1.8);
  // Metadata first, then the design, then the other sections, as a person would write it.
  std::vector<std::string> keys;
  for (const auto& [key, value] : saved.items()) keys.push_back(key);
  ASSERT_GE(keys.size(), 6u);
  EXPECT_EQ((std::vector<std::string>(keys.begin(), keys.begin() + 6)),
            (std::vector<std::string>{"schema_version", "kind", "id", "name", "source", "notes"}));
  EXPECT_EQ(keys.back(), "search");
  // An edited design keeps its origin: the name and values change, the provenance does not.
  perf::Design edited = f.design;
  edited.name = "renamed";
  edited.workload.batch = 7;
  const ordered_json resaved =
      ordered_json::parse(project_file_to_json(edited, serving::ServingSpec{}, f.origin));
  EXPECT_EQ(resaved["name"], "renamed");
  EXPECT_EQ(resaved["workload"]["batch"], 7);
  EXPECT_EQ(resaved["id"], "my-project");
  EXPECT_EQ(resaved["workload"]["notes"], doc["workload"]["notes"]);
}

TEST(ProjectFile, NonStringMetadataIsKeptVerbatim) {
  const auto presets = testing::test_registry();
  ordered_json doc = testing::minimal_project();
  doc["notes"] = ordered_json::array({"first line", "second line"});
  const ProjectFile f = parse_project_file(doc.dump(), presets);
  EXPECT_FALSE(f.origin.notes.has_value());
  const ordered_json saved =
      ordered_json::parse(project_file_to_json(f.design, serving::ServingSpec{}, f.origin));
  EXPECT_EQ(saved["notes"], doc["notes"]);
}

TEST(ProjectFile, RefusesWhatTheProjectParserRefuses) {
  const auto presets = testing::test_registry();
  EXPECT_THROW((void)parse_project_file("[1, 2]", presets), ConfigError);
  EXPECT_THROW((void)parse_project_file(R"({"schema_version": 99})", presets), ConfigError);
  EXPECT_THROW((void)parse_project_origin("{"), ConfigError);
  ordered_json doc = testing::minimal_project();
  doc["hardwre"] = "test-gpu";
  try {
    (void)parse_project_file(doc.dump(), presets);
    ADD_FAILURE() << "an unknown key was accepted";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(testing::contains(testing::issue_at(e.issues(), "/hardwre").message, "unknown"));
  }
  const testing::TempDir tmp("project-file");
  EXPECT_THROW((void)load_project_file(tmp.path() / "none.json", presets), ConfigError);
}

}  // namespace
}  // namespace stackscope::io
