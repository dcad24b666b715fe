// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The "serving" section of project files: serving::ServingSpec
// (serving/spec.hpp) as JSON. Optional; a project without one serves with the defaults.
//
//   "serving": {
//     "source": "benchmark" | "generated" | "trace",
//     "trace": "traces/azure-llm-2023-conv.csv",    // trace: CSV file, relative to the project
//     "time_scale": 1,                              // trace: arrivals x this faster
//     "requests": 1000,                             // benchmark, generated
//     "rate_per_s": 10,                             // generated: mean arrivals per s
//     "arrivals": "poisson" | "gamma", "cv": 1,     // generated: process, gap CV (gamma)
//     "input_len": "lognormal:1020:0.9",            // N | uniform:MIN:MAX | lognormal:MEDIAN:SIGMA
//     "output_len": "256",                          //   (a benchmark needs N), tokens
//     "seed": 1,
//     "concurrency": 0,                             // closed loop; 0 = open
//     "instances": 4,                               // co-located; 0 = the design's dp
//     "instance_groups": [{"count": 2, "tp": 2},    // co-located groups of their own plan
//                         {"count": 1, "tp": 4, "max_num_seqs": 128}],  // (pool keys; instead
//                                                   //  of instances; written when non-empty)
//     "disaggregate": {"prefill": 1, "decode": 3,   // 0:0 = co-located
//                      "prefill_pool": {"tp": 2, "pp": 0, "ep": 0, "cp": 0,  // 0 = the design's
//                                       "max_num_seqs": 0, "max_num_batched_tokens": 0},
//                      "decode_pool": {...}},   // each optional; 0 = the scheduler's
//     "router": "rr" | "jsq" | "kv",                // round-robin, shortest queue, least KV
//     "partition": "design" | "given" | "auto",     // who splits prefill from decode: the
//                                                   //  central scheduler on a wafer without a
//                                                   //  split, the split above, or the central
//                                                   //  scheduler anywhere (runs/serve.hpp)
//     "scheduler_sizing": "given" | "trtllm-bench", // the scheduler below, or trtllm-bench's
//                                                   //  rule from the requests' mean lengths
//     "scheduler": {"max_num_seqs": 256, "max_num_batched_tokens": 8192,
//                   "chunked_prefill": true, "block_size": 16, "max_model_len": 0,
//                   "kv_policy": "max_utilization" | "guaranteed_no_evict",
//                   "kv_cache_fraction": 1.0,
//                   "cuda_graph_batch_sizes": [1, 2, 4, 8]},  // optional; none = no padding
//     "slo": {"ttft_s": 2, "tpot_s": 0.1},          // 0 = none
//     "notes": "..." }
// Missing keys keep the ServingSpec defaults; unknown keys, wrong types, unknown enum strings
// and malformed length texts are errors at their JSON pointer ("/serving/scheduler/block_size").
// Ranges are serving::validate()'s (run it after any command-line overrides).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/serving/spec.hpp"

namespace stackscope::io {

// The "serving" section of a project document, nullopt when it has none. A relative trace path
// is resolved against `base_dir` (the project file's folder; unchanged when empty). Throws
// ConfigError with every structural issue (and for text that is not a JSON object).
std::optional<serving::ServingSpec> parse_serving_section(
    std::string_view project_json, const std::filesystem::path& base_dir = {});
// The same for a project file (read with the project files' size limit).
std::optional<serving::ServingSpec> load_serving_section(const std::filesystem::path& file);

// The section as JSON text (an object with every key but an empty "trace" and an empty
// "cuda_graph_batch_sizes", 2-space indent);
// parse_serving_section reads it back equal. A trace inside `base_dir` (where the project is
// written) is written relative to it, so the project and its traces move together.
std::string serving_section_to_json(const serving::ServingSpec& spec,
                                    const std::filesystem::path& base_dir = {});

// A self-contained project (io::project_to_json) with the serving section after the design's;
// none when `spec` equals the defaults (such a file reads back to the same spec).
std::string project_to_json(const perf::Design& design, const serving::ServingSpec& spec,
                            const std::filesystem::path& base_dir = {});

// The request stream of a spec: the trace file read by load_trace (ConfigError naming the file
// when it is missing or malformed; `stats` filled) or the benchmark / generated stream
// (serving::build_requests; std::invalid_argument for a spec out of range).
std::vector<serving::Request> serving_requests(const serving::ServingSpec& spec,
                                               serving::TraceStats* stats = nullptr);

}  // namespace stackscope::io
