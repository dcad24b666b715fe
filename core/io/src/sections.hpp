// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to core/io: preset/section resolution shared by the registry and the project parser.
// A section is a preset id ("h100-sxm"), an inline object, or {"base": "<id>", ...overrides}.
#include <filesystem>
#include <optional>
#include <string>

#include "mapping.hpp"
#include "stackscope/io/limits.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/read_file.hpp"
#include "stackscope/serving/spec.hpp"

namespace stackscope::io::detail {

// Checks "kind" (must equal `kind` if present) and "schema_version" (1..kSchemaVersion;
// required for projects) and migrates an older document in place to the current version.
// Returns false if the document cannot be interpreted.
bool check_metadata_and_migrate(Json& doc, PresetKind kind, const std::string& path,
                                bool version_required, Issues& issues);

// Recursively overrides `base` with `patch`: objects merge key by key, everything else
// (numbers, strings, arrays such as system.levels) is replaced.
void deep_merge(Json& base, const Json& patch);

// Issue for an unknown preset id, listing the known ids of that kind.
Issue unknown_preset_issue(const PresetRegistry& presets, PresetKind kind, std::string_view id,
                           const std::string& path);

struct ResolvedSection {
  Json doc;               // merged, migrated object ready for read_object
  std::string preset_id;  // preset it came from ("" for inline objects)
};

// Resolves `value` (id string | object | object with "base") into one object.
std::optional<ResolvedSection> resolve_section(const Json& value, PresetKind kind,
                                               const std::string& path,
                                               const PresetRegistry& presets, Issues& issues);

// Also loads the measured kernel table the hardware names (io/kernel_table.hpp), a relative
// file against `base_dir`.
hw::Hardware read_hardware(const ResolvedSection& s, const std::string& path, Issues& issues,
                           const std::filesystem::path& base_dir = {});
hw::System read_system(const ResolvedSection& s, const std::string& path, Issues& issues);
workload::Model read_model(const ResolvedSection& s, const std::string& path, Issues& issues);
runtime::Profile read_runtime(const ResolvedSection& s, const std::string& path, Issues& issues);
hw::Wafer read_wafer(const ResolvedSection& s, const std::string& path, Issues& issues);

// The project's runtime profile: the "runtime" section when there is one, else the default
// profile of the hardware's device class (runtime::default_profile_id) from `presets`.
runtime::Profile resolve_runtime(const Json* section, const hw::Hardware& hardware,
                                 const std::string& path, const PresetRegistry& presets,
                                 Issues& issues);

// The project document of a design (what project_to_json writes), and with a serving section
// when `spec` is not the default (project_to_json(design, spec, base_dir)). Writers that embed a
// design build on these rather than parsing project_to_json's text back.
Json project_json(const perf::Design& design);
Json project_json(const perf::Design& design, const serving::ServingSpec& spec,
                  const std::filesystem::path& base_dir);

// A project document (io::parse_project); `where` names the text in syntax-error messages
// ("project" or the file name).
perf::Design parse_project_text(std::string_view json_text, std::string_view where,
                                const PresetRegistry& presets,
                                const std::filesystem::path& base_dir);

// Whole-file text, plain or gzip, bounded (stackscope/io/read_file.hpp).
using ::stackscope::io::read_text_file;

}  // namespace stackscope::io::detail
