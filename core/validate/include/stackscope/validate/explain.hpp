// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Why a measured deployment predicts what it does (docs/validation.md §7): for each worker pool
// of a mapped case, the decode step at the pool's sequences per instance and the prefill of
// one prompt, from the static evaluator (perf::evaluate on the pool's design), split by operator
// class and by the resource that bounds each operator -- under the case's runtime profile and
// under a baseline profile -- and the case simulated under both, so a user sees what dominates
// the step and which operators moved the prediction.
//
// Contract: explain() needs a mapped case (Case::unmapped empty); it runs the case's simulation
// twice and perf::evaluate four times per pool, never throws for a mapped case (a pool whose
// evaluation fails carries the reason), and honours `stop`. Times are in ms.
#include <array>
#include <stop_token>
#include <string>
#include <vector>

#include "stackscope/perf/result.hpp"
#include "stackscope/runtime/profile.hpp"
#include "stackscope/validate/run.hpp"
#include "stackscope/validate/silicon.hpp"

namespace stackscope::validate {

// One phase of one pool: wall time and its split (each operator's time is charged to one class
// and to the resource that bounds it, so each split sums to about the wall time; overlap of
// communication with compute is taken off inside the classes, as evaluate does).
struct PhaseSplit {
  double time_ms = 0;
  std::array<double, perf::kOpClasses> op_ms{};
  std::array<double, perf::kResources> resource_ms{};
};

struct PoolExplanation {
  std::string role;        // "aggregated", "prefill" or "decode"
  std::string plan;        // parallel::short_text of the pool's plan
  int instances = 1;       // workers of the pool
  int decode_batch = 0;    // sequences per instance in the decode step (0: a prefill pool)
  int decode_context = 0;  // the step's mean context, tokens (mean input + mean output / 2)
  int prompt_tokens = 0;   // the prefilled prompt (mean input)
  PhaseSplit decode, prefill;            // under the case's runtime profile
  // The prompt as one serving iteration under the case's profile: its host floor (kernels x
  // runtime::Profile::eager_launch_us, perf::IterationCost::host_floor_s; 0 without eager
  // launches) and the iteration's time, which is the larger of that floor and the device time.
  double prefill_host_floor_ms = 0, prefill_iteration_ms = 0;
  PhaseSplit base_decode, base_prefill;  // under the baseline profile
  std::string failure;                   // why the evaluator gave nothing ("" = fine)
};

struct Explanation {
  std::string runtime;   // the case's runtime profile id
  std::string baseline;  // the baseline profile id
  CaseResult now;        // the case as validate runs it
  CaseResult base;       // the same case under the baseline profile
  std::vector<PoolExplanation> pools;
};

// The case simulated as validate runs it (run.hpp's runner, for one case).
CaseResult run_case(const Case& c, const std::stop_token& stop = {});

Explanation explain(const Case& c, const runtime::Profile& baseline,
                    const std::stop_token& stop = {});

}  // namespace stackscope::validate
