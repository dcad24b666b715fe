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
#include <string_view>

#include <vector>

#include "stackscope/io/reference.hpp"
#include "stackscope/validate/envelope.hpp"
#include "stackscope/validate/explain.hpp"
#include "stackscope/validate/run.hpp"

namespace stackscope::io {

// `static_checks` and `serving_checks` (the project's measured-row JSON, io/reference.hpp) are
// written as "static_rows" and "serving_rows": [{"id", "metric", "measured", "predicted",
// "error"}].
// A case `validate --explain` explained (validate/explain.hpp): its index into report.cases.
struct ExplainedCase {
  std::size_t index = 0;
  validate::Group group = validate::Group::reported;
  validate::Explanation explanation;
};
// With explanations, an "explanations" array: per case its id, the simulated TTFT/TPOT under
// the case's runtime and the baseline, and per pool the decode step and one prompt's prefill
// (time_ms, op_ms and resource_ms by name) under both.
std::string validation_json(const validate::Report& report,
                            const std::vector<RowCheck>& static_checks = {},
                            const std::vector<RowCheck>& serving_checks = {},
                            const std::vector<ExplainedCase>& explanations = {});

// The validation envelope (validate/envelope.hpp) as `validate --envelope-out` writes it:
//   {"kind": "validation_envelope", "schema_version": 1, "command": "...", "inputs": [...],
//    "entries": [{"hardware", "runtime", "moe", "group", "ttft": {"rows", "mape", "p90",
//                 "max"}, "tpot": {...}}]}
std::string envelope_json(const validate::Envelope& envelope);
// Reads that form back; throws ConfigError naming `name` and the field.
validate::Envelope parse_envelope(std::string_view text, const std::string& name);
// The table shipped in presets/validation/envelope.json (compiled into the programs), read once;
// an empty envelope when the build has none.
const validate::Envelope& builtin_envelope();

// The "validation" object of evaluate's and serve's JSON for `design` against the shipped
// envelope, as compact JSON text: {"kind": "exact" | "nearest" | "none", "text", and unless
// none "hardware", "runtime", "moe", "group", "rows", "ttft_mape", "tpot_mape"}.
std::string envelope_match_json(const perf::Design& design);

}  // namespace stackscope::io
