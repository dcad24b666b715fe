// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The performance evaluator (docs/model.md §3-§7, §13).
//
// Contract: evaluate() is a pure function of a *validated* design (perf::validate() returned
// no issues). It is reentrant and thread-safe: no I/O, and no global state but the expert
// placement's process-wide memo of fitted placements (perf/expert_placement.hpp; locked).
// Units are SI (s, B, FLOP, J, W). Infeasible designs return feasible == false with reason flags
// and still carry every metric, so searches can rank near-misses. The free function builds the
// system's network model on every call; an Evaluator keeps it (and its memoised collective costs)
// between calls, so repeated evaluations on one system do no heap allocation after the first.
#include <memory>
#include <string>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/perf/result.hpp"

namespace stackscope::perf {

Result evaluate(const Design& design) noexcept;

// Where a result's kernel times come from, in one line for the CLI and the workbench:
// "measured: table h200, decode 4 of 4, prefill 3 of 4 GEMM/attention kernels (the rest on the
// roofline)", "roofline: table h200 covers none of this design's kernels", or "roofline (no
// measured kernel table)".
std::string kernel_source_text(const Design& design, const Result& result);
// The same without a result to count in (serving runs, whose iterations vary): "measured: table
// h200 for the GEMM and attention shapes it covers, the roofline for the rest" or "roofline (no
// measured kernel table)".
std::string kernel_source_text(const Design& design);

// Reusable evaluator for many evaluations on one thread (searches, the GUI): it keeps the
// network model of the last system and its memoised collective costs. Not thread-safe; use
// one per thread. Results equal evaluate(design).
class Evaluator {
 public:
  Evaluator();
  ~Evaluator();
  Evaluator(Evaluator&&) noexcept;
  Evaluator& operator=(Evaluator&&) noexcept;
  Result evaluate(const Design& design);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One directed link of the system network and its load in one decode step / prefill pass.
struct LinkUse {
  int from = 0;  // node ids of network::Topology (devices first, then switches)
  int to = 0;
  std::string from_name;
  std::string to_name;
  int level = 0;
  double decode_bytes = 0;        // per decode step
  double decode_utilisation = 0;  // busy time / decode step time, 0..1
  double prefill_bytes = 0;       // per prefill pass
  double prefill_utilisation = 0;
};

// Network detail of a design (not on the search hot path): per-link loads of every collective
// the evaluator costs, and, with reference_sim, the same collectives replayed on the
// flow-level reference simulator.
struct NetworkReport {
  std::vector<LinkUse> links;  // every directed link, including idle ones
  bool reference_sim = false;
  double decode_comm_analytic_s = 0;   // network time of one decode step, analytic
  double decode_comm_reference_s = 0;  // same collectives on the reference simulator
  double prefill_comm_analytic_s = 0;
  double prefill_comm_reference_s = 0;
  double ttft_reference_s = 0;  // TTFT / TPOT with reference collective times
  double tpot_reference_s = 0;
};
// Empty (no links) past perf::limits::kMaxNetworkReportDevices devices: its cost grows with
// the square of the device count.
NetworkReport network_report(const Design& design, bool reference_sim);

// Largest batch per replica that fits device memory (0 if even batch 1 does not fit).
int max_batch_that_fits(const Design& design) noexcept;

// Memory footprint per device at the given batch per replica.
MemoryFootprint memory_footprint(const Design& design, int batch) noexcept;

}  // namespace stackscope::perf
