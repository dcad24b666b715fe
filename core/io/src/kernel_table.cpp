// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/kernel_table.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "csv_detail.hpp"
#include "json_detail.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/limits.hpp"
#include "stackscope/io/read_file.hpp"

namespace stackscope::io {
namespace {

constexpr std::size_t kMaxReportedIssues = 20;
constexpr double kMaxDim = 1 << 24;
constexpr double kMaxTime = 3600;

bool precision_of(const std::string& s, Precision& p) {
  for (Precision q : {Precision::fp32, Precision::fp16, Precision::bf16, Precision::fp8,
                      Precision::int8, Precision::fp4})
    if (s == to_string(q)) {
      p = q;
      return true;
    }
  return false;
}

double number(const std::string& s, bool& ok) {
  double v = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  ok = ec == std::errc() && ptr == end && std::isfinite(v);
  return v;
}

}  // namespace

kernels::Table parse_kernel_table(std::string_view text, const std::string& name) {
  detail::CsvReader reader(detail::without_bom(text));
  std::vector<std::string> fields;
  std::size_t line = 1;
  const detail::CsvHeader header = detail::read_header(
      reader, line, name, {"kind", "precision", "m", "n", "k", "time_s"}, "measured kernels",
      "a kernel-table header (kind, precision, m, n, k, time_s)");
  const auto& col = header.col;
  const std::size_t width = header.width;
  std::vector<Issue> issues;
  kernels::Table table;
  table.source = name;
  while (reader.next(fields, line, name)) {
    if (table.gemm.size() >= kMaxKernelRows)
      throw ConfigError({{name + ":" + std::to_string(line), "too many rows", "",
                          "at most " + std::to_string(kMaxKernelRows)}});
    const std::string at = name + ":" + std::to_string(line);
    if (fields.size() == 1 && fields[0].empty()) continue;
    if (fields.size() != width) {
      issues.push_back({at, "wrong number of fields", std::to_string(fields.size()),
                        std::to_string(width) + " (as the header)"});
      if (issues.size() >= kMaxReportedIssues) break;
      continue;
    }
    const auto field = [&](const char* key) -> const std::string& { return fields[col.at(key)]; };
    const std::size_t before = issues.size();
    kernels::GemmRow r;
    if (field("kind") != "gemm")
      issues.push_back({at + " kind", "not a kernel kind this reader takes",
                        detail::shown(field("kind")), "gemm"});
    if (!precision_of(field("precision"), r.precision))
      issues.push_back({at + " precision", "unknown precision", detail::shown(field("precision")),
                        "fp32, fp16, bf16, fp8, int8 or fp4"});
    for (auto [key, dst] : {std::pair{"m", &r.m}, std::pair{"n", &r.n}, std::pair{"k", &r.k}}) {
      bool ok = false;
      const double v = number(field(key), ok);
      if (!ok || v < 1 || v > kMaxDim || v != std::floor(v))
        issues.push_back({at + " " + key, "not a whole number in range", detail::shown(field(key)),
                          "whole number in [1, 16777216]"});
      else
        *dst = v;
    }
    bool ok = false;
    r.time_s = number(field("time_s"), ok);
    if (!ok || !(r.time_s > 0) || r.time_s > kMaxTime)
      issues.push_back({at + " time_s", "not a kernel time", detail::shown(field("time_s")),
                        "finite number of seconds in (0, 3600]"});
    if (issues.size() > before) {
      if (issues.size() >= kMaxReportedIssues) break;
      continue;
    }
    table.gemm.push_back(r);
  }
  if (!issues.empty()) throw ConfigError(std::move(issues));
  if (table.gemm.empty())
    throw ConfigError({{name, "no kernel rows", "", "at least one measured kernel"}});
  return table;
}

kernels::Table load_kernel_table(const std::filesystem::path& file) {
  const std::string text = read_text_file(file, file.string(), limits::kMaxSiliconSampleBytes);
  return parse_kernel_table(text, file.string());
}

std::string kernel_check_json(const kernels::Table& table, const kernels::LeaveOneOut& loo,
                              int indent) {
  using detail::Json;
  using detail::write_value;
  Json j;
  j["source"] = table.source;
  j["gemm_rows"] = table.gemm.size();
  j["leave_one_out"] = {{"predicted", loo.predicted},
                        {"median", write_value(loo.median)},
                        {"p90", write_value(loo.p90)},
                        {"max", write_value(loo.max)}};
  return j.dump(indent) + "\n";
}

}  // namespace stackscope::io
