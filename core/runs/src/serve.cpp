// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/runs/serve.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "stackscope/common/issue.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/serving/trtllm_bench.hpp"

namespace stackscope::runs {

void SchedulerOverrides::apply(serving::SchedulerConfig& s) const {
  if (max_num_seqs) s.max_num_seqs = *max_num_seqs;
  if (max_num_batched_tokens) s.max_num_batched_tokens = *max_num_batched_tokens;
  if (block_size) s.block_size = *block_size;
  if (kv_policy) s.kv_policy = *kv_policy;
  if (kv_cache_fraction) s.kv_cache_fraction = *kv_cache_fraction;
  if (chunked_prefill) s.chunked_prefill = *chunked_prefill;
  if (mixed_batches) s.mixed_batches = *mixed_batches;
  if (overlap_scheduler) s.overlap_scheduler = *overlap_scheduler;
}

namespace {

bool central_scheduler(const perf::Design& design, const serving::ServingSpec& spec,
                       serving::Partitioning p) {
  switch (p) {
    case Partitioning::automatic:
      return true;
    case Partitioning::given:
      return false;
    case Partitioning::by_design:
      return design.wafer.has_value() && !spec.disaggregate.enabled();
  }
  return false;
}

wafer::Partition given_partition(const serving::ServingSpec& spec) {
  wafer::Partition part;
  part.prefill = spec.disaggregate.prefill;
  part.decode = spec.disaggregate.decode;
  part.prefill_pool = spec.disaggregate.prefill_pool;
  part.decode_pool = spec.disaggregate.decode_pool;
  return part;
}

std::string choice_note(const wafer::PartitionChoice& choice, const wafer::SchedulerOptions& so) {
  std::string note = "chosen by the central scheduler from " +
                     std::to_string(choice.screened.size()) + " partitions";
  if (choice.exhaustive) return note + ", each run on every request";
  return note + ", screened on " + std::to_string(so.screen_windows) + " windows of " +
         std::to_string(so.screen_requests / static_cast<std::size_t>(so.screen_windows)) +
         " requests, " + std::to_string(choice.finals.size()) +
         (choice.finals.size() == 1 ? " finalist" : " finalists") + " on all";
}

}  // namespace

void check(const perf::Design& given_design, const serving::ServingSpec& spec) {
  perf::Design design = given_design;
  design.workload.batch_auto = false;
  design.workload.batch = 1;
  const bool central = central_scheduler(design, spec, spec.partitioning);
  if (design.wafer && !central && !spec.disaggregate.enabled())
    throw ConfigError({{"/serving/partition",
                        "a wafer serves disaggregated: the split is neither given nor chosen",
                        "given",
                        "disaggregate P:D with the split, or partition auto or design (the "
                        "central scheduler chooses it)"}});
  // The design as the deployment will check it: on a wafer the central scheduler gives every
  // pool its own plan (wafer::design_to_validate).
  if (auto issues = perf::validate(wafer::design_to_validate(design, central)); !issues.empty())
    throw ConfigError(std::move(issues));
  if (auto issues = serving::validate(spec); !issues.empty()) throw ConfigError(std::move(issues));
  if (auto issues = serving::check_context(spec, design.model); !issues.empty())
    throw ConfigError(std::move(issues));
}

ServeRun serve(const perf::Design& given_design, const serving::ServingSpec& given_spec,
               std::span<const serving::Request> requests, const ServeOptions& options,
               const ServeProgress& progress, std::stop_token stop) {
  check(given_design, given_spec);
  ServeRun run;
  perf::Design design = given_design;
  design.workload.batch_auto = false;
  design.workload.batch = 1;  // the static batch is not used; memory is checked per iteration
  serving::ServingSpec spec = given_spec;
  const bool central = central_scheduler(design, spec, spec.partitioning);
  run.requests = requests.size();

  // The scheduler: trtllm-bench sizes its limits from the dataset's mean lengths, for one
  // replica (TensorRT-LLM bench/benchmark/utils/general.py get_settings); explicit settings
  // win over either rule.
  if (spec.sizing == SchedulerSizing::trtllm_bench && !requests.empty()) {
    double in = 0, out = 0;
    for (const auto& q : requests) {
      in += q.input_tokens;
      out += q.output_tokens;
    }
    const auto n = static_cast<double>(requests.size());
    spec.scheduler = serving::trtllm_bench_scheduler(
        serving::pool_design(design, {}), std::max(1, static_cast<int>(std::lround(in / n))),
        std::max(1, static_cast<int>(std::lround(out / n))));
  }
  options.overrides.apply(spec.scheduler);
  run.scheduler = spec.scheduler;

  // The split.
  if (central) {
    wafer::SchedulerOptions so = options.central;
    so.stop = stop;
    so.progress = progress.partitions;
    const auto choice = wafer::choose_partition(design, spec, requests, so);
    run.partitions_screened = static_cast<int>(choice.screened.size());
    if (stop.stop_requested()) {
      run.stopped = true;
      return run;
    }
    if (!choice.best.feasible)
      throw std::invalid_argument("no partition serves the requests: " + choice.best.text + ": " +
                                  choice.best.reason);
    run.partition = choice.best.partition;
    run.partition_chosen = true;
    run.partition_note = choice_note(choice, so);
  } else {
    run.partition = given_partition(spec);
    run.partition_note = "given";
  }
  if (options.wafer_order) run.partition.order = *options.wafer_order;
  if (options.kv_borrow) run.partition.kv_borrow = *options.kv_borrow;
  if (central || design.wafer) run.partition_text = wafer::partition_text(run.partition, design);

  // Deploy and replay.
  serving::SimOptions sim;
  sim.stop = stop;
  sim.progress = progress.requests;
  if (options.slo_ttft_s) sim.slo_ttft_s = *options.slo_ttft_s;
  if (options.slo_tpot_s) sim.slo_tpot_s = *options.slo_tpot_s;
  const auto summarise = [&](const serving::Deployment& d) {
    run.layout = d.layout;
    run.slo_ttft_s = options.slo_ttft_s.value_or(d.options.slo_ttft_s);
    run.slo_tpot_s = options.slo_tpot_s.value_or(d.options.slo_tpot_s);
    for (const auto& p : d.pools) {
      const auto& c = d.instances[p.first];
      run.pools.push_back({p.role, p.count, c.devices, c.kv_blocks, c.scheduler, p.plan});
    }
  };
  if (design.wafer) {
    // The deployment is built inside run_on_wafer; its summary is read back from the run.
    run.wafer = wafer::run_on_wafer(design, spec, run.partition, requests, &sim);
    summarise(run.wafer->wafer.deployment);
    run.result = run.wafer->result;
  } else {
    serving::Deployment d =
        serving::deploy(design, central ? wafer::with_partition(spec, run.partition) : spec);
    summarise(d);
    d.options.stop = stop;
    d.options.progress = progress.requests;
    if (options.slo_ttft_s) d.options.slo_ttft_s = *options.slo_ttft_s;
    if (options.slo_tpot_s) d.options.slo_tpot_s = *options.slo_tpot_s;
    run.result = serving::simulate(requests, std::move(d.instances), d.options);
  }
  run.stopped = run.result.stopped || stop.stop_requested();
  return run;
}

}  // namespace stackscope::runs
