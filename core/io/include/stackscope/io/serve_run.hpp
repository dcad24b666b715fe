// SPDX-License-Identifier: GPL-3.0-or-later
// The outputs of a serve run (runs/serve.hpp): `stackscope-cli serve --json` and its
// `--per-request` CSV.
#pragma once

#include <string>

#include "stackscope/perf/design.hpp"
#include "stackscope/runs/serve.hpp"
#include "stackscope/serving/simulator.hpp"

namespace stackscope::io {

// The run as a JSON document (2-space indent, keys in a fixed order): the design, its runtime,
// its validation envelope (io/validation.hpp) and kernel source; `source`, the text that names
// the request stream; the deployment (instances, pools, scheduler limits, the split and, on a
// wafer, the die map, power, yield and busiest link); the figures (throughput, goodput, energy,
// KV transfers, TTFT/TPOT/ITL/E2E/queue percentiles in s) and one entry per instance.
std::string serve_run_json(const perf::Design& design, const runs::ServeRun& run,
                           const std::string& source);

// One row per request: id, instance, arrival, lengths, scheduled / first-token / finish times,
// TTFT, TPOT, E2E (s), preemptions and the rejection (empty when served); the times of a
// request that did not finish are empty.
std::string per_request_csv(const serving::SimResult& result);

}  // namespace stackscope::io
