// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The JSON form of a reproduction of DeepStack's published results (repro/deepstack.hpp Report),
// as `reproduce deepstack --json` prints it and `--out DIR` writes DIR/deepstack.json:
//   {"runtime", "alt_runtime",
//    "table4": [{"batch", "step", "name", "paper_stps", "paper_config", "paper_design": POINT,
//                "paper_design_gain", "own": POINT, "own_gain"}],
//    "stack_paper": [{"layers", "cores", "bw_GBps", "bound", "fits", "stps"}], "stack_own": [...],
//    "fig16": [{"model", "batch", "paper": {"stacked", "h200", "h100"},
//               "own": {"stacked": POINT, "h200": POINT, "h100": POINT}, "alt": {...}}]}
// POINT: {"valid", "feasible", "stps", "tpot_s", "plan", "hardware", "infeasible", "note",
//         "area_over_die", "decode_shares": {"compute", "dram", "network", "overhead"}}.
// STPS in tokens/s, times in s, gains and shares as fractions. Indented by two spaces, no
// trailing newline.
#include <string>

#include "stackscope/repro/deepstack.hpp"

namespace stackscope::io {

std::string reproduction_json(const repro::Report& report);

}  // namespace stackscope::io
