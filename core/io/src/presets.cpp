// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <nlohmann/json.hpp>

#include "sections.hpp"
#include "stackscope/presets/embedded.hpp"

namespace stackscope::io {

using detail::Issues;
using detail::Json;

std::string_view to_string(PresetKind k) {
  switch (k) {
    case PresetKind::hardware: return "hardware";
    case PresetKind::system: return "system";
    case PresetKind::model: return "model";
    case PresetKind::project: return "project";
    case PresetKind::search: return "search";
    case PresetKind::runtime: return "runtime";
    case PresetKind::wafer: return "wafer";
  }
  return "?";
}

namespace {

// Folder names of presets/ (plural where the source tree uses plurals).
std::optional<PresetKind> kind_from_folder(std::string_view folder) {
  if (folder == "hardware") return PresetKind::hardware;
  if (folder == "systems") return PresetKind::system;
  if (folder == "models") return PresetKind::model;
  if (folder == "projects") return PresetKind::project;
  if (folder == "search") return PresetKind::search;
  if (folder == "runtimes") return PresetKind::runtime;
  if (folder == "wafers") return PresetKind::wafer;
  return std::nullopt;
}

}  // namespace

const PresetRegistry& builtin_presets() {
  static const PresetRegistry registry = [] {
    PresetRegistry r;
    r.register_builtins();
    return r;
  }();
  return registry;
}

void PresetRegistry::register_builtins() {
  for (const auto& file : presets::embedded_presets()) {
    const auto slash = file.path.find('/');
    if (slash == std::string_view::npos) continue;
    // Other folders are not presets.
    const auto kind = kind_from_folder(file.path.substr(0, slash));
    if (!kind) continue;
    std::string_view name = file.path.substr(slash + 1);
    if (name.find('/') != std::string_view::npos || !name.ends_with(".json")) continue;
    name.remove_suffix(5);
    add_json(*kind, name, std::string(file.text));
  }
}

void PresetRegistry::add_json(PresetKind kind, std::string_view id, std::string json_text) {
  const std::string where = std::string(to_string(kind)) + " preset '" + std::string(id) + "'";
  Issues issues;
  if (id.empty()) throw ConfigError({{"", "preset id must not be empty", "", "non-empty id"}});
  auto doc = detail::parse_json_text(json_text, where, "", issues);
  if (doc && !doc->is_object())
    issues.push_back({"", where + " is not a JSON object", detail::value_text(*doc), "object"});
  if (!issues.empty()) throw ConfigError(std::move(issues));
  // Version and kind are checked now so a bad file fails when it is added, not when used.
  Json copy = *doc;
  if (!detail::check_metadata_and_migrate(copy, kind, "", false, issues))
    throw ConfigError(std::move(issues));

  Entry entry{kind, std::string(id), std::string(id), std::move(json_text)};
  if (auto it = doc->find("name"); it != doc->end() && it->is_string())
    entry.name = it->get<std::string>();
  // A user file with the id of a built-in replaces it (the later registration wins).
  auto same = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return e.kind == kind && e.id == id; });
  if (same != entries_.end())
    *same = std::move(entry);
  else
    entries_.push_back(std::move(entry));
}

std::vector<PresetInfo> PresetRegistry::list(PresetKind kind) const {
  std::vector<PresetInfo> out;
  for (const auto& e : entries_)
    if (e.kind == kind) out.push_back({e.kind, e.id, e.name});
  std::sort(out.begin(), out.end(),
            [](const PresetInfo& a, const PresetInfo& b) { return a.id < b.id; });
  return out;
}

bool PresetRegistry::contains(PresetKind kind, std::string_view id) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& e) { return e.kind == kind && e.id == id; });
}

const PresetRegistry::Entry& PresetRegistry::find(PresetKind kind, std::string_view id) const {
  for (const auto& e : entries_)
    if (e.kind == kind && e.id == id) return e;
  throw ConfigError({detail::unknown_preset_issue(*this, kind, id, "")});
}

const std::string& PresetRegistry::json_text(PresetKind kind, std::string_view id) const {
  return find(kind, id).json;
}

namespace {

template <class Read>
auto read_preset(const PresetRegistry& presets, PresetKind kind, std::string_view id, Read read) {
  Issues issues;
  auto section = detail::resolve_section(Json(std::string(id)), kind, "", presets, issues);
  if (!section) throw ConfigError(std::move(issues));
  auto value = read(*section, "", issues);
  if (!issues.empty()) throw ConfigError(std::move(issues));
  return value;
}

}  // namespace

hw::Hardware PresetRegistry::hardware(std::string_view id) const {
  return read_preset(
      *this, PresetKind::hardware, id,
      [](const detail::ResolvedSection& s, const std::string& path, Issues& issues) {
        return detail::read_hardware(s, path, issues);
      });
}

hw::System PresetRegistry::system(std::string_view id) const {
  return read_preset(*this, PresetKind::system, id, detail::read_system);
}

workload::Model PresetRegistry::model(std::string_view id) const {
  return read_preset(*this, PresetKind::model, id, detail::read_model);
}

runtime::Profile PresetRegistry::runtime(std::string_view id) const {
  return read_preset(*this, PresetKind::runtime, id, detail::read_runtime);
}

hw::Wafer PresetRegistry::wafer(std::string_view id) const {
  return read_preset(*this, PresetKind::wafer, id, detail::read_wafer);
}

perf::Design PresetRegistry::project(std::string_view id) const {
  // Built-in projects have no directory; relative routing traces resolve against the working
  // directory.
  auto design = parse_project(json_text(PresetKind::project, id), *this, {});
  if (design.name.empty()) design.name = find(PresetKind::project, id).name;
  return design;
}

std::string presets_json(const PresetRegistry& presets, std::span<const PresetKind> kinds) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const PresetKind kind : kinds) {
    auto& list = j[std::string(to_string(kind))] = nlohmann::ordered_json::array();
    for (const auto& p : presets.list(kind)) list.push_back({{"id", p.id}, {"name", p.name}});
  }
  return j.dump(2);
}

}  // namespace stackscope::io
