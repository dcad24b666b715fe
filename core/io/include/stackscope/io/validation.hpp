// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The JSON form of a validation against measured deployments (validate/run.hpp Report):
//   {"inputs": [...], "fit_on": "...", "hold_out": "...",
//    "rows": [{"id", "origin", "partition", "group", "model_preset", "runtime", "generator",
//              "concurrency", "requests", "plan", "measured": {"ttft_ms", "tpot_ms"},
//              "predicted": {...}, "error": {"ttft", "tpot"}, "notes": [...]}],
//    "failed": [{"id", "origin", "reason"}], "unmapped": [{"id", "origin", "reason"}],
//    "partitions": [{"partition", "group", "ttft": {"rows", "mape", "p90", "max"},
//                    "tpot": {...}}],
//    "fit": {"profile", "rows", "axes": [{"key", "values"}], "best": {key: value},
//            "points": [{"values", "objective", "ttft", "tpot", "failed"}]} (with --fit only),
//    "static_rows": [...], "serving_rows": [...]}
// Errors are fractions (0.1 = 10 %), times in ms.
#include <string>

#include <vector>

#include "stackscope/io/reference.hpp"
#include "stackscope/validate/run.hpp"

namespace stackscope::io {

// `static_checks` and `serving_checks` (the project's measured-row JSON, io/reference.hpp) are
// written as "static_rows" and "serving_rows": [{"id", "metric", "measured", "predicted",
// "error"}].
std::string validation_json(const validate::Report& report,
                            const std::vector<RowCheck>& static_checks = {},
                            const std::vector<RowCheck>& serving_checks = {});

}  // namespace stackscope::io
