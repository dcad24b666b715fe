// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/reference.hpp"

#include "stackscope/serving/cluster.hpp"
#include "stackscope/serving/simulator.hpp"
#include "stackscope/serving/trtllm_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "json_detail.hpp"
#include "sections.hpp"

#include "stackscope/io/read_file.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/validate/run.hpp"

namespace stackscope::io {
namespace {

using json = detail::Json;

Precision parse_precision(const std::string& s, const std::string& where) {
  for (Precision p : {Precision::fp32, Precision::fp16, Precision::bf16, Precision::fp8,
                      Precision::int8, Precision::fp4})
    if (to_string(p) == s) return p;
  throw ConfigError({{where, "unknown precision", s, "fp32, fp16, bf16, fp8, int8, fp4"}});
}

template <typename T>
T field(const json& row, const char* key, const std::string& where) {
  if (!row.contains(key)) throw ConfigError({{where + "/" + key, "missing field", "", "required"}});
  try {
    return row.at(key).get<T>();
  } catch (const json::exception&) {
    throw ConfigError(
        {{where + "/" + key, "wrong type", row.at(key).dump(), "see the file's other rows"}});
  }
}

}  // namespace

std::vector<MeasuredRow> load_measured_rows(const std::filesystem::path& file) {
  const std::string text = detail::read_text_file(file, file.string());
  detail::Issues issues;
  // Appended, not "'" + s + "'": GCC 12's bogus -Wrestrict (GCC bug 105329).
  std::string name = "'";
  name += file.string();
  name += '\'';
  auto parsed = detail::parse_json_text(text, name, "", issues);
  if (!parsed || !issues.empty()) throw ConfigError(std::move(issues));
  json doc = std::move(*parsed);
  if (!doc.contains("rows") || !doc["rows"].is_array())
    throw ConfigError({{"/rows", "missing array of rows", "", "array"}});
  std::vector<MeasuredRow> rows;
  for (std::size_t i = 0; i < doc["rows"].size(); ++i) {
    const json& j = doc["rows"][i];
    const std::string where = "/rows/" + std::to_string(i);
    MeasuredRow r;
    r.id = field<std::string>(j, "id", where);
    r.source = j.value("source", "");
    r.hardware = field<std::string>(j, "hardware", where);
    r.devices = field<int>(j, "devices", where);
    r.model = field<std::string>(j, "model", where);
    r.precision = field<std::string>(j, "precision", where);
    r.tp = field<int>(j, "tp", where);
    r.pp = field<int>(j, "pp", where);
    // Serving rows (serving-measured.json) run at the batch the benchmark chose: "auto" -> 0.
    if (j.contains("batch") && j["batch"].is_string() && j["batch"] == "auto")
      r.batch = 0;
    else
      r.batch = field<int>(j, "batch", where);
    r.input_len = field<int>(j, "input_len", where);
    r.output_len = field<int>(j, "output_len", where);
    r.metric = field<std::string>(j, "metric", where);
    r.value = field<double>(j, "value", where);
    if (r.metric != "e2e_output_tokens_per_s_per_device" && r.metric != "ttft_s" &&
        r.metric != "e2e_output_tokens_per_s_total")
      throw ConfigError({{where + "/metric", "unknown metric", r.metric,
                          "e2e_output_tokens_per_s_per_device, e2e_output_tokens_per_s_total, "
                          "ttft_s"}});
    rows.push_back(std::move(r));
  }
  return rows;
}

perf::Design design_for_row(const MeasuredRow& row, const PresetRegistry& presets) {
  perf::Design d;
  d.name = row.id;
  d.hardware = presets.hardware(row.hardware);
  // Every row of data/trtllm-measured/measured-gpu.json was measured with TensorRT-LLM v0.5/v0.6.1
  // (its sources): the runtime profile of that release, which the rows calibrate.
  d.runtime = presets.runtime(runtime::kLegacyProfileId);
  d.model = presets.model(row.model);
  const std::string sys = row.hardware + "-x8";
  d.system = row.devices > 1 && presets.contains(PresetKind::system, sys)
                 ? presets.system(sys)
                 : presets.system("single");
  d.system.devices = row.devices;
  const Precision p = parse_precision(row.precision, row.id + "/precision");
  // FP4 deployments (NVFP4 checkpoints of TensorRT-LLM / ModelOpt) keep the KV cache in FP8.
  d.workload.numerics = {p, p, p == Precision::fp4 ? Precision::fp8 : p};
  d.workload.batch = std::max(1, row.batch);
  d.workload.batch_auto = row.batch == 0;
  d.workload.input_len = row.input_len;
  d.workload.output_len = row.output_len;
  d.parallel.tp = row.tp;
  d.parallel.pp = row.pp;
  d.parallel.dp = row.devices / (row.tp * row.pp);
  return d;
}

std::vector<RowCheck> check_measured_rows(const std::vector<MeasuredRow>& rows,
                                          const PresetRegistry& presets) {
  std::vector<RowCheck> out;
  for (const auto& row : rows) {
    const perf::Design d = design_for_row(row, presets);
    auto issues = perf::validate(d);
    if (!issues.empty()) {
      for (auto& i : issues) i.path = row.id + i.path;
      throw ConfigError(std::move(issues));
    }
    const perf::Result r = perf::evaluate(d);
    RowCheck c{row, 0, 0};
    if (row.metric == "ttft_s")
      c.predicted = r.metrics.ttft_s;
    else if (row.metric == "e2e_output_tokens_per_s_total")
      c.predicted = r.metrics.e2e_output_tokens_per_s;
    else
      c.predicted = r.metrics.e2e_output_tokens_per_s / row.devices;
    c.error = (c.predicted - row.value) / row.value;
    out.push_back(c);
  }
  return out;
}

double mean_abs_error(const std::vector<RowCheck>& checks) {
  if (checks.empty()) return 0;
  double s = 0;
  for (const auto& c : checks) s += std::abs(c.error);
  return s / static_cast<double>(checks.size());
}

std::string format_checks(const std::vector<RowCheck>& checks) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof line, "%-44s %-36s %12s %12s %8s\n", "row", "metric", "measured",
                "model", "error");
  os << line;
  std::vector<double> abs_err;
  for (const auto& c : checks) {
    std::snprintf(line, sizeof line, "%-44s %-36s %12.4g %12.4g %+7.1f%%\n", c.row.id.c_str(),
                  c.row.metric.c_str(), c.row.value, c.predicted, 100 * c.error);
    os << line;
    abs_err.push_back(std::abs(c.error));
  }
  if (!abs_err.empty()) {
    const validate::ErrorStats st = validate::error_stats(std::move(abs_err));
    std::snprintf(line, sizeof line, "rows %zu  MAPE %.1f%%  p90 %.1f%%  max %.1f%%\n", st.rows,
                  100 * st.mape, 100 * st.p90, 100 * st.max);
    os << line;
  }
  return os.str();
}

std::size_t trtllm_bench_requests(int input_len, int output_len) {
  struct Entry {
    int in, out;
    std::size_t n;
  };
  // NVIDIA/TensorRT-LLM docs/source/performance/perf-overview.md, "$num_requests" per pair.
  static constexpr Entry kTable[] = {{128, 128, 30000},  {128, 2048, 3000},  {128, 4096, 1500},
                                     {1000, 2000, 1500}, {2048, 128, 3000},  {2048, 2048, 1500},
                                     {5000, 500, 1500},  {1000, 1000, 3000}, {500, 2000, 3000},
                                     {20000, 2000, 1000}};
  for (const auto& e : kTable)
    if (e.in == input_len && e.out == output_len) return e.n;
  return 1500;
}

std::vector<RowCheck> check_serving_rows(const std::vector<MeasuredRow>& rows,
                                         const PresetRegistry& presets,
                                         const ServingCheckOptions& options) {
  std::vector<RowCheck> out;
  for (const auto& row : rows) {
    perf::Design d = design_for_row(row, presets);
    d.runtime = presets.runtime(options.runtime);
    d.workload.batch_auto = false;
    d.workload.batch = 1;
    auto issues = perf::validate(d);
    if (!issues.empty()) {
      for (auto& i : issues) i.path = row.id + i.path;
      throw ConfigError(std::move(issues));
    }
    // trtllm-bench's throughput mode: every request sent at once, in-flight batching over the
    // replicas the devices hold.
    const int replicas = std::max(1, row.devices / (row.tp * row.pp));
    const std::size_t n = options.requests > 0
                              ? options.requests
                              : trtllm_bench_requests(row.input_len, row.output_len);
    const auto reqs = serving::benchmark(n, row.input_len, row.output_len);
    const auto scheduler = serving::trtllm_bench_scheduler(d, row.input_len, row.output_len);
    const auto result = serving::simulate(
        reqs, serving::colocated_instances(d, scheduler, replicas), serving::SimOptions{});
    RowCheck c{row, result.output_tokens_per_s, 0};
    if (row.metric == "e2e_output_tokens_per_s_per_device") c.predicted /= row.devices;
    c.error = (c.predicted - row.value) / row.value;
    out.push_back(c);
  }
  return out;
}

}  // namespace stackscope::io
