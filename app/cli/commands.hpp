// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Factories of the built-in commands (private to the CLI library).
#include "stackscope/cli/command.hpp"

namespace stackscope::cli {

Command make_evaluate_command();
Command make_collective_command();
Command make_dram_command();
Command make_presets_command();
Command make_validate_project_command();
Command make_validate_command();
Command make_thermal_command();
Command make_search_command();
Command make_merge_command();
Command make_reproduce_command();
Command make_serve_command();
Command make_moe_command();
Command make_kernels_command();

}  // namespace stackscope::cli
