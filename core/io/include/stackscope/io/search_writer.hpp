// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Writing search projects: the inverse of parse_search_project (io/search.hpp), for the GUI's
// space editor (save, the JSON view) and anything else that builds a space in code. The output
// is the format of io/search.hpp, so `stackscope-cli search FILE` reads it; for every space s
// that parses, parse(write(s)) gives s again (values, order, constraints, objectives, run
// options; doubles exactly).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/search/engine.hpp"
#include "stackscope/search/space.hpp"

namespace stackscope::io {

// A value range of the search format: {"min", "max", "step"} (linear, step > 0) or
// {"min", "max", "factor"} (geometric, factor > 1); the other of step/factor is 0.
struct ValueRange {
  double min = 0;
  double max = 0;
  double step = 0;
  double factor = 0;
  bool geometric() const { return factor > 0; }
  friend bool operator==(const ValueRange&, const ValueRange&) = default;
};

// The values a range stands for (search::linear_range / geometric_range); throws
// std::invalid_argument like them.
std::vector<double> expand(const ValueRange& range);

// Lists shorter than this are written as lists, however regular.
inline constexpr std::size_t kMinRangeValues = 4;

// The range whose expansion equals `values` exactly (element for element, bit for bit), if
// there is one and the list has at least kMinRangeValues values, with a step (or factor) and
// end of at most 12 significant digits (0.1, not 0.09999999999999998): a list that only a
// 17-digit step reproduces is left a list.
std::optional<ValueRange> as_range(std::span<const double> values);

// The "search" section (an object; keys and order as in io/search.hpp). Lists that are exact
// ranges are written as ranges; defaults are left out (tp [1], overlap ["off"], no constraint,
// run options at search::RunOptions' values); objectives in their default direction are
// written by name. Variant and model axes are written with their hardware, systems and
// models inlined.
std::string search_section_to_json(const search::Space& space, const search::RunOptions& run);

// A self-contained search project: the base design with every preset inlined
// (project_to_json) and the "search" section.
std::string search_project_to_json(const search::Space& space, const search::RunOptions& run);

// `project_text` (a project that parses with parse_search_project) with its "search" section
// replaced by the one written from `space` and `run`. The other keys are kept as they were
// (preset ids, name, notes, key order); so are variant and model axes whose variants or models
// equal those the text already defines (preset ids stay ids). Throws ConfigError when
// `project_text` is not a JSON object.
std::string replace_search_section(std::string_view project_text, const search::Space& space,
                                   const search::RunOptions& run, const PresetRegistry& presets);

}  // namespace stackscope::io
