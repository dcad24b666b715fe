// SPDX-License-Identifier: GPL-3.0-or-later
// The serve operation: a design, its serving settings and their request stream in, a simulated
// run out. It is the one place that sizes the scheduler (as given, or as trtllm-bench sizes
// it), chooses the split between prefill and decode (the given one, or the central scheduler's
// of wafer/partition.hpp), deploys the instances (on a GPU system or a wafer's die mesh) and
// replays the requests. `stackscope-cli serve`, the workbench's Serving and Wafer views and the
// co-exploration's serving objective (coexplore/) call it; the requests come from
// io::serving_requests (a trace file, a benchmark or a seeded generator).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/serving/simulator.hpp"
#include "stackscope/serving/spec.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/wafer/partition.hpp"
#include "stackscope/wafer/run.hpp"

namespace stackscope::runs {

// The split and the sizing rule are the settings' (serving::ServingSpec::partitioning and
// ::sizing).
using serving::Partitioning;
using serving::SchedulerSizing;

// Scheduler fields the user set explicitly; they win over the sizing rule.
struct SchedulerOverrides {
  std::optional<int> max_num_seqs, max_num_batched_tokens, block_size;
  std::optional<serving::KvPolicy> kv_policy;
  std::optional<double> kv_cache_fraction;
  std::optional<bool> chunked_prefill, mixed_batches, overlap_scheduler;
  void apply(serving::SchedulerConfig& s) const;
};

struct ServeOptions {
  SchedulerOverrides overrides;  // applied after the settings' sizing rule
  // Wafer placement: the order of the instances on the die mesh and whether idle dies lend
  // their memory to decode instances; unset = the chosen partition's (interleaved, on).
  std::optional<wafer::PlacementOrder> wafer_order;
  std::optional<bool> kv_borrow;
  // The central scheduler's screening (its stop token and progress are serve()'s own).
  wafer::SchedulerOptions central;
  // Exact SLOs (s) judging goodput, over the settings' (where 0 means none): 0 here is an SLO
  // nothing meets.
  std::optional<double> slo_ttft_s, slo_tpot_s;
};

// Progress of a run, from the thread that runs it (the central scheduler's calls come from its
// workers one at a time). Either may be empty.
struct ServeProgress {
  std::function<void(std::size_t done, std::size_t total)> partitions;
  std::function<void(std::size_t done, std::size_t total, double simulated_s)> requests;
};

// One pool or group of like instances, as deployed.
struct PoolSummary {
  serving::Role role = serving::Role::colocated;
  int count = 0;    // instances
  int devices = 0;  // per instance
  long long kv_blocks = 0;  // per instance
  serving::SchedulerConfig scheduler;
  std::string plan;  // "tp2", "tp4 pp2"
};

struct ServeRun {
  std::size_t requests = 0;  // replayed
  serving::SchedulerConfig scheduler;  // after sizing and overrides
  // The split: chosen by the central scheduler (`partition_note` says how) or given.
  bool partition_chosen = false;
  wafer::Partition partition;
  std::string partition_text;  // "2 prefill (tp4) + 3 decode (tp2), interleaved"; "" = none
  std::string partition_note;  // "given" or how the central scheduler chose
  int partitions_screened = 0;  // candidates the central scheduler ran (0 when given)
  std::string layout;          // "4 co-located", "1 prefill + 3 decode"
  std::vector<PoolSummary> pools;
  double slo_ttft_s = 0, slo_tpot_s = 0;  // as the run judged goodput
  serving::SimResult result;
  // On a wafer: the deployment on the die mesh with its link loads, per-die roles and the
  // whole wafer's power (wafer/run.hpp); its `result` is the same run as `result` above.
  std::optional<wafer::WaferRun> wafer;
  bool stopped = false;  // the stop token fired; the figures are partial
};

// The refusals serve() makes before anything runs, for a caller to make before it reads or
// generates the requests: ConfigError for a design (as its deployment will check it) or
// settings that do not validate, a benchmark or generator whose requests exceed the model's
// context, or a wafer told to keep a split it was not given.
void check(const perf::Design& design, const serving::ServingSpec& spec);

// Replays `requests` under `spec` on `design` (its static batch is not used). Throws
// ConfigError (issues at their paths) for a design or settings that do not validate or a
// benchmark or generator whose requests exceed the model's context, and std::invalid_argument
// naming the reason for a deployment that cannot be built or a split no partition serves. A
// stop returns at once with `stopped` set.
ServeRun serve(const perf::Design& design, const serving::ServingSpec& spec,
               std::span<const serving::Request> requests, const ServeOptions& options = {},
               const ServeProgress& progress = {}, std::stop_token stop = {});

}  // namespace stackscope::runs
