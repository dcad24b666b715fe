// SPDX-License-Identifier: GPL-3.0-or-later
#include "sections.hpp"

#include <array>
#include <fstream>

#include "stackscope/io/kernel_table.hpp"

namespace stackscope::io::detail {

namespace {

// Schema migrations in the style of Tiled's format versioning: kMigrations[i] rewrites a
// document (project or preset of the given kind) from schema_version i+1 to i+2, so an old file
// is upgraded step by step before parsing. Adding schema_version N+1 means appending one entry.
using Migration = void (*)(Json& doc, PresetKind kind);

// hardware.compute keys of schema 1 that belong to the runtime profile since schema 2.
constexpr const char* kLegacyRuntimeKeys[] = {"matmul_efficiency", "attention_efficiency",
                                              "decode_kv_reread_fraction", "kernel_launch_us"};

// Schema 2 moved the serving software's values out of the hardware (core/runtime). A schema 1
// project's inline hardware.compute.{matmul_efficiency, attention_efficiency,
// decode_kv_reread_fraction, kernel_launch_us} become overrides of a "runtime" section based on
// runtime::kLegacyProfileId, with schema 1's launch rule (one host-launched kernel of
// kernel_launch_us per operator and per collective), so nothing the file said is dropped and
// the design evaluates as before up to the device's dispatch time. A schema 1 hardware file
// with those keys has nowhere to put them: read_object refuses them as unknown keys.
// Takes the schema 1 runtime keys out of an inline hardware object; returns them as the
// overrides of a runtime section (empty when there were none).
Json take_legacy_runtime(Json& hardware) {
  Json moved = Json::object();
  if (!hardware.is_object()) return moved;
  auto compute = hardware.find("compute");
  if (compute == hardware.end() || !compute->is_object()) return moved;
  for (const char* key : kLegacyRuntimeKeys) {
    auto it = compute->find(key);
    if (it == compute->end()) continue;
    moved[std::string(key) == "kernel_launch_us" ? "host_launch_us" : key] = *it;
    compute->erase(it);
  }
  return moved;
}

Json legacy_runtime_section(const Json& moved) {
  Json runtime = Json::object();
  runtime["base"] = std::string(runtime::kLegacyProfileId);
  if (moved.contains("host_launch_us")) {
    runtime["graph_capture"] = false;
    runtime["kernels_per_op"] = 1;
    runtime["collective_is_kernel"] = true;
  }
  for (const auto& [key, value] : moved.items()) runtime[key] = value;
  return runtime;
}

// Schema 1 had no "runtime" key: where a file has one, nothing is moved over it (read_hardware
// then names the keys it refuses). A search's variants each carried their own device values,
// so each gets its own runtime section.
void migrate_1_to_2(Json& doc, PresetKind kind) {
  if (kind != PresetKind::project && kind != PresetKind::search) return;
  if (auto hw = doc.find("hardware"); hw != doc.end() && !doc.contains("runtime")) {
    if (Json moved = take_legacy_runtime(*hw); !moved.empty())
      doc["runtime"] = legacy_runtime_section(moved);
  }
  auto search = doc.find("search");
  if (search == doc.end() || !search->is_object()) return;
  auto axes = search->find("hardware");
  if (axes == search->end() || !axes->is_array()) return;
  for (Json& axis : *axes) {
    if (!axis.is_object()) continue;
    auto variants = axis.find("variants");
    if (variants == axis.end() || !variants->is_array()) continue;
    for (Json& v : *variants) {
      if (!v.is_object() || v.contains("runtime")) continue;
      auto hw = v.find("hardware");
      if (hw == v.end()) continue;
      if (Json moved = take_legacy_runtime(*hw); !moved.empty())
        v["runtime"] = legacy_runtime_section(moved);
    }
  }
}

constexpr std::array<Migration, perf::kSchemaVersion - 1> kMigrations{migrate_1_to_2};
static_assert(kMigrations.size() == perf::kSchemaVersion - 1,
              "every schema_version step needs a migration");

}  // namespace

bool check_metadata_and_migrate(Json& doc, PresetKind kind, const std::string& path,
                                bool version_required, Issues& issues) {
  bool ok = true;
  const std::string kind_name(to_string(kind));
  if (auto it = doc.find("kind"); it != doc.end()) {
    if (!it->is_string() || it->get_ref<const std::string&>() != kind_name) {
      issues.push_back({child_path(path, "kind"), "file is not a " + kind_name + " description",
                        value_text(*it), "\"" + kind_name + "\""});
      ok = false;
    }
  }
  const std::string allowed_versions =
      perf::kSchemaVersion == 1 ? std::string("1")
                                : "integer in [1, " + std::to_string(perf::kSchemaVersion) + "]";
  auto it = doc.find("schema_version");
  if (it == doc.end()) {
    if (version_required) {
      issues.push_back(
          {child_path(path, "schema_version"), "missing schema_version", "", allowed_versions});
      ok = false;
    }
    return ok;
  }
  const std::string vpath = child_path(path, "schema_version");
  int version = 0;
  Issues type_issues;
  read_value(*it, vpath, version, type_issues);
  if (!type_issues.empty()) {
    issues.push_back(
        {vpath, "schema_version must be an integer", value_text(*it), allowed_versions});
    return false;
  }
  if (version > perf::kSchemaVersion) {
    issues.push_back({vpath,
                      "written by a newer StackScope (schema_version " + std::to_string(version) +
                          "; this build reads up to " + std::to_string(perf::kSchemaVersion) + ")",
                      std::to_string(version), allowed_versions});
    return false;
  }
  if (version < 1) {
    issues.push_back({vpath, "invalid schema_version", std::to_string(version), allowed_versions});
    return false;
  }
  for (int v = version; v < perf::kSchemaVersion; ++v)
    kMigrations[static_cast<std::size_t>(v - 1)](doc, kind);
  if (version < perf::kSchemaVersion) doc["schema_version"] = perf::kSchemaVersion;
  return ok;
}

void deep_merge(Json& base, const Json& patch) {
  for (const auto& [key, value] : patch.items()) {
    auto it = base.find(key);
    if (it != base.end() && it->is_object() && value.is_object())
      deep_merge(*it, value);
    else
      base[key] = value;
  }
}

Issue unknown_preset_issue(const PresetRegistry& presets, PresetKind kind, std::string_view id,
                           const std::string& path) {
  std::vector<std::string> ids;
  for (const auto& info : presets.list(kind)) ids.push_back(info.id);
  std::string message =
      "unknown " + std::string(to_string(kind)) + " preset '" + std::string(id) + "'";
  if (auto s = suggest_key(std::string(id), ids); !s.empty())
    message += "; did you mean '" + s + "'?";
  return {
      path, message, "\"" + std::string(id) + "\"",
      ids.empty() ? std::string("no presets of this kind are registered") : "one of: " + join(ids)};
}

namespace {

std::optional<Json> load_preset(const PresetRegistry& presets, PresetKind kind, std::string_view id,
                                const std::string& path, Issues& issues) {
  if (!presets.contains(kind, id)) {
    issues.push_back(unknown_preset_issue(presets, kind, id, path));
    return std::nullopt;
  }
  const std::string where = std::string(to_string(kind)) + " preset '" + std::string(id) + "'";
  auto doc = parse_json_text(presets.json_text(kind, id), where, path, issues);
  if (!doc) return std::nullopt;
  if (!doc->is_object()) {
    issues.push_back({path, where + " is not a JSON object", value_text(*doc), "object"});
    return std::nullopt;
  }
  if (!check_metadata_and_migrate(*doc, kind, path, false, issues)) return std::nullopt;
  return doc;
}

}  // namespace

std::optional<ResolvedSection> resolve_section(const Json& value, PresetKind kind,
                                               const std::string& path,
                                               const PresetRegistry& presets, Issues& issues) {
  if (value.is_string()) {
    const auto& id = value.get_ref<const std::string&>();
    auto doc = load_preset(presets, kind, id, path, issues);
    if (!doc) return std::nullopt;
    return ResolvedSection{std::move(*doc), id};
  }
  if (!value.is_object()) {
    issues.push_back({path,
                      "expected a " + std::string(to_string(kind)) +
                          " preset id (string) or an object, got " + type_text(value),
                      value_text(value), "preset id, object, or {\"base\": id, ...overrides}"});
    return std::nullopt;
  }
  auto base = value.find("base");
  if (base == value.end()) {
    Json doc = value;
    if (!check_metadata_and_migrate(doc, kind, path, false, issues)) return std::nullopt;
    return ResolvedSection{std::move(doc), {}};
  }
  if (!base->is_string()) {
    issues.push_back({child_path(path, "base"),
                      "expected preset id string, got " + type_text(*base), value_text(*base),
                      "a " + std::string(to_string(kind)) + " preset id"});
    return std::nullopt;
  }
  const auto& id = base->get_ref<const std::string&>();
  auto doc = load_preset(presets, kind, id, child_path(path, "base"), issues);
  if (!doc) return std::nullopt;
  Json patch = value;
  patch.erase("base");
  // The overrides live in the enclosing document, whose version was already checked.
  deep_merge(*doc, patch);
  if (!check_metadata_and_migrate(*doc, kind, path, false, issues)) return std::nullopt;
  return ResolvedSection{std::move(*doc), id};
}

hw::Hardware read_hardware(const ResolvedSection& s, const std::string& path, Issues& issues,
                           const std::filesystem::path& base_dir) {
  const std::size_t before = issues.size();
  auto h = read_object<hw::Hardware>(s.doc, path, issues, {"kind", "schema_version", "notes"});
  // A schema 1 key the migration could not move says where it went.
  for (std::size_t i = before; i < issues.size(); ++i)
    for (const char* key : kLegacyRuntimeKeys)
      if (issues[i].path == child_path(child_path(path, "compute"), key)) {
        // Appended piecewise: "'" + s trips GCC 12's bogus -Wrestrict (GCC bug 105329).
        std::string m = "'";
        m += key;
        m += "' moved from the hardware to the runtime profile in schema 2: set it in the "
             "project's \"runtime\" section (e.g. {\"base\": \"trtllm-2023\", ...}; "
             "kernel_launch_us is host_launch_us there)";
        issues[i].message = std::move(m);
      }
  if (h.id.empty()) h.id = s.preset_id;
  if (issues.size() == before && !h.kernel_table.empty()) {
    const std::string at = child_path(path, "kernel_table");
    try {
      h.kernel_times = resolve_kernel_table(h.kernel_table, base_dir, at);
    } catch (const ConfigError& e) {
      for (Issue i : e.issues()) {
        if (i.path != at) i.message = "kernel table " + at + ": " + i.message;
        issues.push_back(std::move(i));
      }
    }
  }
  return h;
}

hw::System read_system(const ResolvedSection& s, const std::string& path, Issues& issues) {
  auto sys =
      read_object<hw::System>(s.doc, path, issues, {"kind", "schema_version", "notes", "source"});
  if (sys.id.empty()) sys.id = s.preset_id;
  return sys;
}

runtime::Profile read_runtime(const ResolvedSection& s, const std::string& path, Issues& issues) {
  auto r = read_object<runtime::Profile>(s.doc, path, issues, {"kind", "schema_version", "notes"});
  if (r.id.empty()) r.id = s.preset_id;
  return r;
}

hw::Wafer read_wafer(const ResolvedSection& s, const std::string& path, Issues& issues) {
  auto w = read_object<hw::Wafer>(s.doc, path, issues, {"kind", "schema_version", "notes"});
  if (w.id.empty()) w.id = s.preset_id;
  return w;
}

runtime::Profile resolve_runtime(const Json* section, const hw::Hardware& hardware,
                                 const std::string& path, const PresetRegistry& presets,
                                 Issues& issues) {
  const std::string id = runtime::default_profile_id(runtime::device_class_of(hardware));
  // A registry without runtime presets (a test's, or a program that registered only its own
  // files) gives the struct's documented defaults, named so that output says which they are.
  if (!section && !presets.contains(PresetKind::runtime, id)) {
    runtime::Profile p;
    p.id = "struct-defaults";
    p.name = "runtime::Profile defaults (no runtime presets registered)";
    return p;
  }
  const Json fallback(id);
  if (!section) section = &fallback;
  if (auto s = resolve_section(*section, PresetKind::runtime, path, presets, issues))
    return read_runtime(*s, path, issues);
  return {};
}

workload::Model read_model(const ResolvedSection& s, const std::string& path, Issues& issues) {
  auto m = read_object<workload::Model>(s.doc, path, issues, {"kind", "schema_version", "notes"});
  if (m.id.empty()) m.id = s.preset_id;
  return m;
}

}  // namespace stackscope::io::detail
