// SPDX-License-Identifier: GPL-3.0-or-later
// What dominates a measured deployment's step and why its prediction moved (explain.hpp).
#include "stackscope/validate/explain.hpp"

#include <algorithm>
#include <cmath>

#include "stackscope/parallel/plan.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/iteration.hpp"

namespace stackscope::validate {
namespace {

PhaseSplit split_of(const perf::PhaseBreakdown& p) {
  PhaseSplit s;
  s.time_ms = p.time_s * 1e3;
  for (std::size_t k = 0; k < perf::kOpClasses; ++k) s.op_ms[k] = p.op_s[k] * 1e3;
  for (std::size_t k = 0; k < perf::kResources; ++k) s.resource_ms[k] = p.resource_s[k] * 1e3;
  return s;
}

// The pool's replica evaluated at `batch` requests of `input` + `output` tokens: the decode
// step at the mean decode context and the prefill of the whole batch.
perf::Result evaluate_at(perf::Design d, const runtime::Profile& rt, int batch, int input,
                         int output) {
  d.runtime = rt;
  d.system.devices = parallel::devices_per_replica(d.parallel);
  d.workload.batch_auto = false;
  d.workload.batch = std::max(1, batch);
  d.workload.input_len = std::max(1, input);
  d.workload.output_len = std::max(2, output);
  return perf::evaluate(d);
}

}  // namespace

Explanation explain(const Case& c, const runtime::Profile& baseline, const std::stop_token& stop) {
  Explanation e;
  e.runtime = c.runtime;
  e.baseline = baseline.id;
  e.now = run_case(c, stop);
  Case base = c;
  for (auto& w : base.workers) w.design.runtime = baseline;
  base.runtime = baseline.id;
  e.base = run_case(base, stop);

  const int input = (c.bench.isl_min + c.bench.isl_max + 1) / 2;
  const int output = (c.bench.osl_min + c.bench.osl_max + 1) / 2;
  for (std::size_t i = 0; i < c.workers.size(); ++i) {
    const Worker& w = c.workers[i];
    PoolExplanation p;
    p.role = c.workers.size() == 1 ? "aggregated" : i == 0 ? "prefill" : "decode";
    p.plan = parallel::short_text(w.design.parallel);
    if (w.design.parallel.moe.ep > 0)
      p.plan += " moe tp" + std::to_string(w.design.parallel.moe.tp) + " ep" +
                std::to_string(w.design.parallel.moe.ep);
    p.instances = w.count;
    p.prompt_tokens = input;
    if (p.role != "prefill") {
      // The closed loop keeps `concurrency` requests in flight, spread over the instances
      // that decode (join-shortest-queue), each capped by its max_num_seqs.
      const int per = (c.bench.concurrency + w.count - 1) / std::max(1, w.count);
      p.decode_batch = std::max(1, std::min(per, w.scheduler.max_num_seqs));
      p.decode_context = input + output / 2;
    }
    const runtime::Profile& now_rt = w.design.runtime;
    for (const bool at_base : {false, true}) {
      if (stop.stop_requested()) break;
      const runtime::Profile& rt = at_base ? baseline : now_rt;
      const perf::Result one = evaluate_at(w.design, rt, 1, input, output);
      if (one.reasons & perf::kEvaluationFailed) {
        p.failure = "the evaluator failed on one " + std::to_string(input) + "-token prompt";
        break;
      }
      (at_base ? p.base_prefill : p.prefill) = split_of(one.prefill);
      if (p.decode_batch > 0) {
        const perf::Result step = evaluate_at(w.design, rt, p.decode_batch, input, output);
        if (step.reasons & perf::kEvaluationFailed) {
          p.failure = "the evaluator failed at " + std::to_string(p.decode_batch) + " sequences";
          break;
        }
        (at_base ? p.base_decode : p.decode) = split_of(step.decode);
      }
    }
    if (p.failure.empty() && !stop.stop_requested()) {
      perf::IterationModel m(w.design);
      const perf::SequenceChunk prompt{std::max(1, input), 0, true};
      const perf::IterationCost it = m.cost({&prompt, 1});
      p.prefill_host_floor_ms = it.host_floor_s * 1e3;
      p.prefill_iteration_ms = it.time_s * 1e3;
    }
    e.pools.push_back(std::move(p));
  }
  return e;
}

}  // namespace stackscope::validate
