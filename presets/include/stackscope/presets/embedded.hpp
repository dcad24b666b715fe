// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The preset JSON files of the source tree (presets/**/*.json), compiled into the binary by
// presets/cmake/embed_presets.cmake. Kind = first folder (hardware/, systems/, models/,
// projects/), id = file name without ".json". core/io's PresetRegistry::register_builtins()
// is the only intended reader.
#include <span>
#include <string_view>

namespace stackscope::presets {

struct EmbeddedFile {
  std::string_view path;  // relative to presets/, '/'-separated: "hardware/h100-sxm.json"
  std::string_view text;  // the file's bytes, unmodified
};

// Sorted by path; the storage lives for the whole program.
std::span<const EmbeddedFile> embedded_presets();

}  // namespace stackscope::presets
