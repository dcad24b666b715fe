// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A project file as an editor holds it: the design and serving settings it edits, plus what the
// file says that the design does not hold (ProjectOrigin), so a save writes it all back.
//
// Kept as read, and written back unchanged:
//   - "id", "source" and "notes" at the top level (a copy of a shipped project keeps its
//     provenance);
//   - every other top-level key the design does not hold ("kind", "search", "coexplore"),
//     verbatim and in file order;
//   - the "notes" of a design section given as an object ("workload", "parallel", "serving",
//     an inline or {"base": ...} "hardware" ...).
// Normalised on save (a loaded-then-saved file reads back to the same design and serving
// settings):
//   - "schema_version" becomes the current version (older files are migrated on load);
//   - a section given as a preset id or {"base": id, ...} is written out in full, so the file
//     is self-contained;
//   - "serving" is omitted when it equals the defaults, and a relative trace path is rewritten
//     against the folder the project is saved to (io/serving.hpp).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/serving/spec.hpp"

namespace stackscope::io {

struct ProjectOrigin {
  // The top-level metadata strings; nullopt when the file has none (or a non-string value,
  // which is then kept in `sections`).
  std::optional<std::string> id;
  std::optional<std::string> source;
  std::optional<std::string> notes;
  // Other top-level keys and their values as compact JSON text, in file order.
  std::vector<std::pair<std::string, std::string>> sections;
  // "notes" of the design sections given as objects: section key -> compact JSON text.
  std::vector<std::pair<std::string, std::string>> section_notes;

  bool operator==(const ProjectOrigin&) const = default;
};

struct ProjectFile {
  perf::Design design;
  std::optional<serving::ServingSpec> serving;  // nullopt: the file has no "serving" section
  ProjectOrigin origin;
};

// What parse_project / parse_serving_section read, and the origin. Throws ConfigError as they
// do. Relative trace paths resolve against `base_dir`.
ProjectFile parse_project_file(std::string_view json_text, const PresetRegistry& presets,
                               const std::filesystem::path& base_dir = {});
// The same for a file (read once; messages name the file).
ProjectFile load_project_file(const std::filesystem::path& file, const PresetRegistry& presets);
// The origin alone (for a document that is known to parse). Throws ConfigError when the text
// is not a JSON object of a readable schema_version.
ProjectOrigin parse_project_origin(std::string_view json_text);

// io::project_to_json(design, serving, base_dir) with the origin put back: "schema_version",
// "kind", "id", "name", "source", "notes", the design's sections (each with its notes), then the
// origin's other sections in file order.
std::string project_file_to_json(const perf::Design& design, const serving::ServingSpec& serving,
                                 const ProjectOrigin& origin,
                                 const std::filesystem::path& base_dir = {});

}  // namespace stackscope::io
