// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Private to the CLI: the design options shared by `evaluate` and `serve` (device, system,
// model, runtime, precision, plan, workload), loading a project or the default one, and
// applying the options to it.
#include <string_view>
#include <vector>

#include "stackscope/cli/args.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/perf/design.hpp"

namespace stackscope::cli {

std::vector<OptionSpec> design_options();
// The project named by the first positional argument, else the builtin 'default' project.
perf::Design load_design(std::string_view command, const ParsedArgs& a,
                         const io::PresetRegistry& presets);
// Applies the design options (documented in evaluate's description); workload = false leaves
// --batch, --input-len and --output-len to the caller (serve gives them other meanings).
void apply_overrides(perf::Design& d, const ParsedArgs& a, const io::PresetRegistry& presets,
                     bool workload = true);

}  // namespace stackscope::cli
