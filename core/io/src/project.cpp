// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <charconv>
#include <system_error>

#include "sections.hpp"

namespace stackscope::io {

using detail::Issues;
using detail::Json;

namespace {

// Keys of a project object besides the sections (preset metadata: a project preset may carry
// an id and a source like any other preset). "search" is read by io/search.hpp, "coexplore" by
// io/coexplore.hpp, "serving" by io/serving.hpp.
constexpr std::string_view kProjectKeys[] = {
    "schema_version", "name",    "hardware", "system",   "model", "workload",
    "parallel",       "kind",    "id",       "source",   "notes", "search",
    "runtime",        "serving", "wafer",    "coexplore"};

const Json* require_section(const Json& root, std::string_view key, std::string_view allowed,
                            Issues& issues) {
  auto it = root.find(std::string(key));
  if (it == root.end()) {
    issues.push_back({detail::child_path("", key),
                      "missing required section '" + std::string(key) + "'", "",
                      std::string(allowed)});
    return nullptr;
  }
  return &*it;
}

}  // namespace

namespace detail {

perf::Design parse_project_text(std::string_view json_text, std::string_view where,
                                const PresetRegistry& presets,
                                const std::filesystem::path& base_dir) {
  Issues issues;
  auto parsed = detail::parse_json_text(json_text, where, "", issues);
  if (!parsed) throw ConfigError(std::move(issues));
  Json& root = *parsed;
  if (!root.is_object()) {
    issues.push_back({"", "a project must be a JSON object, got " + detail::type_text(root),
                      detail::value_text(root), "object"});
    throw ConfigError(std::move(issues));
  }
  // Version first: a newer file's keys cannot be interpreted, so stop here.
  if (!detail::check_metadata_and_migrate(root, PresetKind::project, "", true, issues))
    throw ConfigError(std::move(issues));

  const std::vector<std::string> known(std::begin(kProjectKeys), std::end(kProjectKeys));
  for (const auto& [key, value] : root.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string message = "unknown key '" + key + "'";
    if (auto s = detail::suggest_key(key, known); !s.empty())
      message += "; did you mean '" + s + "'?";
    issues.push_back({detail::child_path("", key), message, detail::value_text(value),
                      "known keys: " + detail::join(known)});
  }

  perf::Design design;
  design.schema_version = perf::kSchemaVersion;
  if (auto it = root.find("name"); it != root.end())
    detail::read_value(*it, "/name", design.name, issues);

  constexpr std::string_view kPresetSection = "preset id, object, or {\"base\": id, ...overrides}";
  bool hardware_ok = false;
  if (const Json* v = require_section(root, "hardware", kPresetSection, issues)) {
    const std::size_t before = issues.size();
    if (auto s = detail::resolve_section(*v, PresetKind::hardware, "/hardware", presets, issues))
      design.hardware = detail::read_hardware(*s, "/hardware", issues, base_dir);
    hardware_ok = issues.size() == before;
  }
  // The runtime profile: named, or the device class's default (known once the hardware is).
  if (auto it = root.find("runtime"); it != root.end() || hardware_ok)
    design.runtime = detail::resolve_runtime(it == root.end() ? nullptr : &*it, design.hardware,
                                             "/runtime", presets, issues);
  // The system is optional: without it the design is one device with no network, so a plan
  // with tp*pp*dp*ep > 1 fails validation with a message naming the device count rather than
  // silently inventing a network.
  if (auto it = root.find("system"); it != root.end()) {
    if (auto s = detail::resolve_section(*it, PresetKind::system, "/system", presets, issues))
      design.system = detail::read_system(*s, "/system", issues);
  }
  // A wafer replaces the system by its D2D mesh and the device by its die.
  if (auto it = root.find("wafer"); it != root.end()) {
    const std::size_t before = issues.size();
    if (root.contains("system"))
      issues.push_back({"/system",
                        "a wafer project's system is the wafer's die-to-die mesh; remove "
                        "\"system\" (or \"wafer\")",
                        "", "no \"system\" with \"wafer\""});
    if (auto s = detail::resolve_section(*it, PresetKind::wafer, "/wafer", presets, issues))
      design.wafer = detail::read_wafer(*s, "/wafer", issues);
    if (issues.size() == before && hardware_ok && design.wafer)
      hw::apply_wafer(*design.wafer, design.hardware, design.system);
  }
  bool model_ok = false;
  if (const Json* v = require_section(root, "model", kPresetSection, issues)) {
    const std::size_t before = issues.size();
    if (auto s = detail::resolve_section(*v, PresetKind::model, "/model", presets, issues))
      design.model = detail::read_model(*s, "/model", issues);
    model_ok = issues.size() == before;
  }
  bool workload_ok = false;
  if (const Json* v = require_section(root, "workload", "object with Workload fields", issues)) {
    const std::size_t before = issues.size();
    design.workload = detail::read_object<workload::Workload>(*v, "/workload", issues, {"notes"});
    workload_ok = issues.size() == before;
  }
  if (const Json* v = require_section(root, "parallel", "object with tp, pp, dp, ep", issues))
    design.parallel = detail::read_object<parallel::Plan>(*v, "/parallel", issues, {"notes"});

  // The trace is read only for MoE models with a sane model/workload; routing is irrelevant for
  // dense models, and perf::validate() reports a trace kind without frequencies.
  auto& routing = design.workload.routing;
  if (model_ok && workload_ok && routing.kind == workload::RoutingKind::trace &&
      design.model.moe.experts > 0) {
    if (routing.trace.empty()) {
      issues.push_back({"/workload/routing/trace", "routing kind 'trace' needs a trace file", "",
                        "path to a routing trace (the format of data/mixtral-routing)"});
    } else {
      try {
        load_routing_trace(routing, design.model.moe.experts, base_dir);
      } catch (const ConfigError& e) {
        issues.insert(issues.end(), e.issues().begin(), e.issues().end());
      }
    }
  }
  if (!issues.empty()) throw ConfigError(std::move(issues));
  return design;
}

}  // namespace detail

perf::Design parse_project(std::string_view json_text, const PresetRegistry& presets,
                           const std::filesystem::path& base_dir) {
  return detail::parse_project_text(json_text, "project", presets, base_dir);
}

perf::Design load_project(const std::filesystem::path& file, const PresetRegistry& presets) {
  const std::string text = detail::read_text_file(file, "");
  // Appending rather than "'" + s + "'" sidesteps GCC 12's bogus -Wrestrict (GCC bug 105329).
  std::string where = "'";
  where += file.string();
  where += '\'';
  return detail::parse_project_text(text, where, presets, file.parent_path());
}

namespace {

template <class Read>
auto resolve_preset_or_file(std::string_view id_or_file, PresetKind kind,
                            const PresetRegistry& presets, Read read) {
  Issues issues;
  std::optional<detail::ResolvedSection> section;
  if (presets.contains(kind, id_or_file)) {
    section = detail::resolve_section(Json(std::string(id_or_file)), kind, "", presets, issues);
  } else {
    const std::filesystem::path file(id_or_file);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
      Issue unknown = detail::unknown_preset_issue(presets, kind, id_or_file, "");
      unknown.message = "'" + std::string(id_or_file) + "' is neither a " +
                        std::string(to_string(kind)) + " preset id nor a file";
      unknown.allowed = "a JSON file, or " + unknown.allowed;
      throw ConfigError({unknown});
    }
    const std::string text = detail::read_text_file(file, "");
    auto doc = detail::parse_json_text(text, "'" + file.string() + "'", "", issues);
    if (doc) section = detail::resolve_section(*doc, kind, "", presets, issues);
  }
  if (!section) throw ConfigError(std::move(issues));
  auto value = read(*section, "", issues);
  if (!issues.empty()) throw ConfigError(std::move(issues));
  return value;
}

}  // namespace

hw::Hardware resolve_hardware(std::string_view id_or_file, const PresetRegistry& presets) {
  // A hardware file's relative kernel table is next to it.
  const std::filesystem::path base = presets.contains(PresetKind::hardware, id_or_file)
                                         ? std::filesystem::path()
                                         : std::filesystem::path(id_or_file).parent_path();
  return resolve_preset_or_file(
      id_or_file, PresetKind::hardware, presets,
      [&](const detail::ResolvedSection& s, const std::string& path, Issues& issues) {
        return detail::read_hardware(s, path, issues, base);
      });
}

hw::System resolve_system(std::string_view id_or_file, const PresetRegistry& presets) {
  return resolve_preset_or_file(id_or_file, PresetKind::system, presets, detail::read_system);
}

workload::Model resolve_model(std::string_view id_or_file, const PresetRegistry& presets) {
  return resolve_preset_or_file(id_or_file, PresetKind::model, presets, detail::read_model);
}

runtime::Profile resolve_runtime(std::string_view id_or_file, const PresetRegistry& presets) {
  return resolve_preset_or_file(id_or_file, PresetKind::runtime, presets, detail::read_runtime);
}

hw::Wafer resolve_wafer(std::string_view id_or_file, const PresetRegistry& presets) {
  return resolve_preset_or_file(id_or_file, PresetKind::wafer, presets, detail::read_wafer);
}

namespace detail {

Json project_json(const perf::Design& d) {
  Json j = Json::object();
  j["schema_version"] = perf::kSchemaVersion;
  j["name"] = d.name;
  j["hardware"] = detail::write_value(d.hardware);
  if (!d.wafer) j["system"] = detail::write_value(d.system);
  j["model"] = detail::write_value(d.model);
  j["workload"] = detail::write_value(d.workload);
  j["parallel"] = detail::write_value(d.parallel);
  j["runtime"] = detail::write_value(d.runtime);
  if (d.wafer) j["wafer"] = detail::write_value(*d.wafer);
  return j;
}

}  // namespace detail

namespace {

// Standalone preset files carry their kind and version so they can be loaded anywhere.
Json preset_json(Json body, PresetKind kind) {
  Json j = Json::object();
  j["kind"] = std::string(to_string(kind));
  j["schema_version"] = perf::kSchemaVersion;
  for (auto& [key, value] : body.items()) j[key] = std::move(value);
  return j;
}

}  // namespace

std::string project_to_json(const perf::Design& design) {
  return detail::dump(detail::project_json(design), 2) + "\n";
}

std::string hardware_to_json(const hw::Hardware& hw) {
  return detail::dump(preset_json(detail::write_value(hw), PresetKind::hardware), 2) + "\n";
}

std::string runtime_to_json(const runtime::Profile& profile) {
  return detail::dump(preset_json(detail::write_value(profile), PresetKind::runtime), 2) + "\n";
}

std::string model_to_json(const workload::Model& m) {
  return detail::dump(preset_json(detail::write_value(m), PresetKind::model), 2) + "\n";
}

hw::Wafer set_wafer_fields(const hw::Wafer& wafer, std::string_view text, std::string_view what) {
  Issues issues;
  Json doc = detail::write_value(wafer);
  const std::string root(what);
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item(text.substr(pos, comma - pos));
    pos = comma + 1;
    const std::size_t eq = item.find('=');
    if (item.empty() || eq == std::string::npos || eq == 0) {
      issues.push_back({root, "expected KEY=VALUE", item, "KEY=VALUE[,KEY=VALUE...]"});
      continue;
    }
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (!doc.contains(key) || key == "id" || key == "name" || key == "source") {
      std::vector<std::string> keys;
      for (const auto& [k, v] : doc.items())
        if (v.is_number() || k == "dram") keys.push_back(k);
      issues.push_back(
          {root + "/" + key, "unknown wafer field", key, "one of " + detail::join(keys)});
      continue;
    }
    if (doc[key].is_number()) {
      double x = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
      if (ec != std::errc() || end != value.data() + value.size()) {
        issues.push_back({root + "/" + key, "expected a number", value, "a number"});
        continue;
      }
      doc[key] = x;
    } else {
      doc[key] = value;
    }
  }
  if (issues.empty()) {
    detail::ResolvedSection s{doc, wafer.id};
    hw::Wafer out = detail::read_wafer(s, root, issues);
    if (issues.empty()) return out;
  }
  throw ConfigError(std::move(issues));
}

std::string wafer_to_json(const hw::Wafer& w) {
  return detail::dump(preset_json(detail::write_value(w), PresetKind::wafer), 2) + "\n";
}

std::string system_to_json(const hw::System& s) {
  return detail::dump(preset_json(detail::write_value(s), PresetKind::system), 2) + "\n";
}

}  // namespace stackscope::io
