// SPDX-License-Identifier: GPL-3.0-or-later
// Project files with what the design does not hold; format and normalisation in
// io/project_file.hpp.
#include "stackscope/io/project_file.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "sections.hpp"
#include "stackscope/io/serving.hpp"

namespace stackscope::io {

using detail::Issues;
using detail::Json;

namespace {

// Top-level keys the design and serving settings hold (io::project_to_json writes them).
constexpr std::array<std::string_view, 9> kDesignKeys = {"schema_version", "name",    "hardware",
                                                         "system",         "model",   "workload",
                                                         "parallel",       "runtime", "wafer"};
// Design sections that may be objects with notes of their own ("serving" too).
constexpr std::array<std::string_view, 8> kNotedSections = {
    "hardware", "system", "model", "workload", "parallel", "runtime", "wafer", "serving"};

bool is_design_key(std::string_view key) {
  return key == "serving" ||
         std::find(kDesignKeys.begin(), kDesignKeys.end(), key) != kDesignKeys.end();
}

std::string compact(const Json& j) {
  return detail::dump(j, -1);
}

// The document as the parser sees it: an object, migrated to the current schema_version.
Json migrated_root(std::string_view json_text, std::string_view where) {
  Issues issues;
  auto parsed = detail::parse_json_text(json_text, where, "", issues);
  if (!parsed) throw ConfigError(std::move(issues));
  if (!parsed->is_object()) {
    issues.push_back({"", "a project must be a JSON object, got " + detail::type_text(*parsed),
                      detail::value_text(*parsed), "object"});
    throw ConfigError(std::move(issues));
  }
  if (!detail::check_metadata_and_migrate(*parsed, PresetKind::project, "", true, issues))
    throw ConfigError(std::move(issues));
  return std::move(*parsed);
}

ProjectOrigin origin_of(const Json& root) {
  ProjectOrigin o;
  for (const auto& [key, value] : root.items()) {
    std::optional<std::string>* meta = key == "id"       ? &o.id
                                       : key == "source" ? &o.source
                                       : key == "notes"  ? &o.notes
                                                         : nullptr;
    if (meta && value.is_string()) {
      *meta = value.get<std::string>();
      continue;
    }
    if (!is_design_key(key)) {
      o.sections.emplace_back(key, compact(value));
      continue;
    }
    const bool noted =
        std::find(kNotedSections.begin(), kNotedSections.end(), key) != kNotedSections.end();
    if (noted && value.is_object())
      if (auto n = value.find("notes"); n != value.end())
        o.section_notes.emplace_back(key, compact(*n));
  }
  return o;
}

// A value of a ProjectOrigin (compact JSON text, as origin_of writes it), through the bounded
// entry of every parse (json_detail.hpp).
Json origin_json(const std::string& text) {
  if (auto j = detail::parse_json_record(text)) return std::move(*j);
  throw std::invalid_argument("project origin: not a JSON value: " + text.substr(0, 60));
}

ProjectFile parse_file_text(std::string_view text, std::string_view where,
                            const PresetRegistry& presets, const std::filesystem::path& base_dir) {
  ProjectFile f;
  f.design = detail::parse_project_text(text, where, presets, base_dir);
  f.serving = parse_serving_section(text, base_dir);
  f.origin = origin_of(migrated_root(text, where));
  return f;
}

}  // namespace

ProjectOrigin parse_project_origin(std::string_view json_text) {
  return origin_of(migrated_root(json_text, "project"));
}

ProjectFile parse_project_file(std::string_view json_text, const PresetRegistry& presets,
                               const std::filesystem::path& base_dir) {
  return parse_file_text(json_text, "project", presets, base_dir);
}

ProjectFile load_project_file(const std::filesystem::path& file, const PresetRegistry& presets) {
  const std::string text = detail::read_text_file(file, "");
  std::string where = "'";
  where += file.string();
  where += '\'';
  return parse_file_text(text, where, presets, file.parent_path());
}

std::string project_file_to_json(const perf::Design& design, const serving::ServingSpec& serving,
                                 const ProjectOrigin& origin,
                                 const std::filesystem::path& base_dir) {
  Json body = detail::project_json(design, serving, base_dir);
  for (const auto& [key, notes] : origin.section_notes)
    if (auto it = body.find(key); it != body.end() && it->is_object() && !it->contains("notes"))
      (*it)["notes"] = origin_json(notes);
  const auto extra = [&](std::string_view key) -> const std::string* {
    for (const auto& [k, v] : origin.sections)
      if (k == key) return &v;
    return nullptr;
  };
  Json out = Json::object();
  out["schema_version"] = body["schema_version"];
  if (const std::string* kind = extra("kind")) out["kind"] = origin_json(*kind);
  if (origin.id) out["id"] = *origin.id;
  out["name"] = body["name"];
  if (origin.source) out["source"] = *origin.source;
  if (origin.notes) out["notes"] = *origin.notes;
  for (auto& [key, value] : body.items())
    if (!out.contains(key)) out[key] = std::move(value);
  for (const auto& [key, value] : origin.sections)
    if (!out.contains(key)) out[key] = origin_json(value);
  return detail::dump(out, 2) + "\n";
}

}  // namespace stackscope::io
