// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Public measurements to check the model against (data/trtllm-measured: measured-gpu.json,
// serving-measured.json; plain or gzip, read by io::read_text_file).
// Each row names a hardware preset, model preset, precision, plan and workload; the model's
// prediction for the row's metric is compared with the measured value.
#include <filesystem>
#include <string>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/serving/simulator.hpp"

namespace stackscope::io {

struct MeasuredRow {
  std::string id;
  std::string source;
  std::string hardware;
  int devices = 1;
  std::string model;
  std::string precision;
  int tp = 1;
  int pp = 1;
  int batch = 1;  // 0: "auto" (serving rows: the benchmark's in-flight batch)
  int input_len = 1;
  int output_len = 1;
  std::string metric;  // e2e_output_tokens_per_s_per_device | e2e_output_tokens_per_s_total |
                       // ttft_s
  double value = 0;
};

// Reads the rows; throws ConfigError naming the row and field on malformed input.
std::vector<MeasuredRow> load_measured_rows(const std::filesystem::path& file);

// The design a row describes: its hardware and model presets, every tensor in the row's
// precision, the row's plan on `<hardware>-x8` (NVSwitch) or `single` for one device, under the
// trtllm-2023 runtime profile (the software every row was measured with).
perf::Design design_for_row(const MeasuredRow& row, const PresetRegistry& presets);

struct RowCheck {
  MeasuredRow row;
  double predicted = 0;
  double error = 0;  // (predicted - measured) / measured
};

// Evaluates every row. Throws ConfigError if a row's design does not validate.
std::vector<RowCheck> check_measured_rows(const std::vector<MeasuredRow>& rows,
                                          const PresetRegistry& presets);

// Serving rows (data/trtllm-measured/serving-measured.json: trtllm-bench, in-flight batching at maximum
// load): each row's design under `runtime`, identical requests of the row's lengths sent at
// once to its replicas (serving::benchmark) and run with the scheduler settings trtllm-bench
// picks for the row (serving::trtllm_bench_scheduler), the simulated output tokens/s compared.
struct ServingCheckOptions {
  std::string runtime = "trtllm-2025";
  // Requests per row; 0 = the count the perf-overview ran for the row's lengths
  // (trtllm_bench_requests).
  std::size_t requests = 0;
};
// The number of requests TensorRT-LLM's perf-overview.md ran per ISL/OSL pair (its
// "$num_requests" table: 30000 for 128/128 down to 1000 for 20000/2000); 1500 for other pairs.
std::size_t trtllm_bench_requests(int input_len, int output_len);
std::vector<RowCheck> check_serving_rows(const std::vector<MeasuredRow>& rows,
                                         const PresetRegistry& presets,
                                         const ServingCheckOptions& options = {});

// Fixed-width table of the checks plus mean absolute percentage error, p90 and max.
std::string format_checks(const std::vector<RowCheck>& checks);
double mean_abs_error(const std::vector<RowCheck>& checks);

}  // namespace stackscope::io
