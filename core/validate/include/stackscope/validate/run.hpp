// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Running mapped cases and the error statistics of a validation (docs/validation.md).
//
// run_cases() simulates every mappable case with the serving simulator (serving::simulate on
// the case's workers, closed loop at its concurrency) and compares the mean TTFT and mean TPOT
// with the measured ones. Cases run in parallel, one per thread at a time; results come back in
// the cases' order whatever the thread count, so a run is reproducible.
//
// Selections: a Selector is "key=v1|v2,key=v3" (keys system, backend, version, model, mode,
// precision, id; a value ending in '*' matches by prefix; all keys must match, any value of a
// key may). --fit-on and --hold-out of `stackscope-cli validate` are two selectors: the rows a
// calibration is fitted on and the rows it is only checked on.
#include <cstddef>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/validate/silicon.hpp"

namespace stackscope::validate {

struct Selector {
  struct Term {
    std::string key;
    std::vector<std::string> values;
  };
  std::vector<Term> terms;  // empty: matches every row
  bool empty() const { return terms.empty(); }
};
// Throws std::invalid_argument naming `what`, the term and the allowed keys.
Selector parse_selector(std::string_view text, std::string_view what);
bool matches(const Selector& s, const SiliconRow& row);

enum class Group { fitted, held_out, reported };  // reported: no selection given
const char* to_string(Group g);

struct CaseResult {
  std::size_t index = 0;  // into the cases
  Group group = Group::reported;
  bool ran = false;
  std::string failure;  // why a mapped case produced no prediction (rejections, no KV room)
  double ttft_ms = 0, tpot_ms = 0;    // predicted means
  double ttft_err = 0, tpot_err = 0;  // (predicted - measured) / measured
  std::size_t requests = 0;
  double sim_seconds = 0;  // simulated makespan, s
};

struct RunOptions {
  int threads = 1;
  std::stop_token stop;
  // Called from a worker thread after each case, with cases done and the total; serialised.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// Runs `cases[i]` for every i in `selected` (mappable cases only; unmapped ones are reported by
// the caller from Case::unmapped); `groups[k]` is the group of selected[k]. A stop leaves the
// remaining results with ran = false and failure "stopped".
std::vector<CaseResult> run_cases(const std::vector<Case>& cases,
                                  const std::vector<std::size_t>& selected,
                                  const std::vector<Group>& groups, const RunOptions& options);

// Absolute relative errors of one metric over a set of rows.
struct ErrorStats {
  std::size_t rows = 0;
  double mape = 0, p90 = 0, max = 0;  // fractions (0.1 = 10 %)
};
ErrorStats error_stats(std::vector<double> abs_errors);

struct PartitionStats {
  std::string partition;  // model|system|backend|mode, or "all dense" / "all MoE" / "all"
  Group group = Group::reported;
  ErrorStats ttft, tpot;
};
// Per (group, partition) in first-seen order, then per group: all dense, all MoE, all.
std::vector<PartitionStats> summarise(const std::vector<Case>& cases,
                                      const std::vector<CaseResult>& results);

// A calibration's grid (fit.hpp): a runtime profile field and the values it takes.
struct GridAxis {
  std::string key;             // a runtime::numeric_field_names() key
  std::vector<double> values;  // ascending as written
};
// One grid point's errors over the rows fitted, and the whole grid.
struct FitPoint {
  std::vector<double> values;  // one per axis
  ErrorStats ttft, tpot;
  std::size_t failed = 0;  // rows that did not run at this point
  double objective = 0;
};
struct FitResult {
  std::string profile;
  std::vector<GridAxis> axes;
  std::vector<FitPoint> points;  // in grid order (last axis fastest)
  std::size_t best = 0;          // index into points
  std::size_t rows = 0;          // rows the profile was fitted on
};

// A whole validation, as `stackscope-cli validate` prints it and io::validation_json writes
// it: the inputs, the selections, every case (mapped or not), the results of those that ran
// (in the order of `selected`) and the statistics.
struct Report {
  std::vector<std::string> inputs;  // the files read
  std::string fit_on, hold_out;     // the selectors as given ("" = none)
  std::vector<Case> cases;
  std::vector<std::size_t> selected;  // cases in a selection (all when none is given)
  std::vector<CaseResult> results;
  std::vector<PartitionStats> stats;
  // A calibration run before the report (validate --fit): its profile, axes and points.
  std::optional<FitResult> fit;
};

}  // namespace stackscope::validate
