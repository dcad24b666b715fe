// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/kernel_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "csv_detail.hpp"
#include "json_detail.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/kernel_table_foreign.hpp"
#include "stackscope/io/limits.hpp"
#include "stackscope/io/read_file.hpp"
#include "stackscope/presets/embedded.hpp"

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
  const std::string header_text =
      "a kernel-table header (kind, precision, time_s; m, n, k for gemm rows; batch, seq, heads, "
      "kv_heads, head_dim for attention rows)";
  const detail::CsvHeader header = detail::read_header(
      reader, line, name, {"kind", "precision", "time_s"}, "measured kernels", header_text);
  const auto& col = header.col;
  const std::size_t width = header.width;
  const auto has = [&](std::initializer_list<const char*> keys) {
    return std::all_of(keys.begin(), keys.end(), [&](const char* k) { return col.contains(k); });
  };
  const bool gemm_columns = has({"m", "n", "k"});
  const bool attention_columns = has({"batch", "seq", "heads", "kv_heads", "head_dim"});
  std::vector<Issue> issues;
  kernels::Table table;
  table.source = name;
  while (reader.next(fields, line, name)) {
    if (table.gemm.size() + table.attention.size() >= kMaxKernelRows)
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
    // A whole number in [1, 2^24] from column `key` into `dst`.
    const auto whole = [&](const char* key, double& dst) {
      bool ok = false;
      const double v = number(field(key), ok);
      if (!ok || v < 1 || v > kMaxDim || v != std::floor(v))
        issues.push_back({at + " " + key, "not a whole number in range", detail::shown(field(key)),
                          "whole number in [1, 16777216]"});
      else
        dst = v;
    };
    Precision precision = Precision::bf16;
    if (!precision_of(field("precision"), precision))
      issues.push_back({at + " precision", "unknown precision", detail::shown(field("precision")),
                        "fp32, fp16, bf16, fp8, int8 or fp4"});
    bool ok = false;
    const double time_s = number(field("time_s"), ok);
    if (!ok || !(time_s > 0) || time_s > kMaxTime)
      issues.push_back({at + " time_s", "not a kernel time", detail::shown(field("time_s")),
                        "finite number of seconds in (0, 3600]"});
    const std::string& kind = field("kind");
    if (kind == "gemm") {
      kernels::GemmRow r;
      r.precision = precision;
      r.time_s = time_s;
      if (!gemm_columns) {
        issues.push_back({at + " kind", "gemm row without the m, n, k columns", "gemm",
                          "a header with m, n and k"});
      } else {
        whole("m", r.m);
        whole("n", r.n);
        whole("k", r.k);
      }
      if (issues.size() == before) table.gemm.push_back(r);
    } else if (kind == "attn_decode" || kind == "attn_prefill") {
      kernels::AttentionRow r;
      r.kind = kind == "attn_decode" ? kernels::AttentionKind::decode
                                     : kernels::AttentionKind::prefill;
      r.precision = precision;
      r.time_s = time_s;
      if (!attention_columns) {
        issues.push_back({at + " kind", "attention row without the attention columns", kind,
                          "a header with batch, seq, heads, kv_heads and head_dim"});
      } else {
        whole("batch", r.batch);
        whole("seq", r.seq);
        whole("heads", r.heads.heads);
        whole("kv_heads", r.heads.kv_heads);
        whole("head_dim", r.heads.head_dim);
        if (issues.size() == before &&
            std::fmod(r.heads.heads, r.heads.kv_heads) != 0.0)
          issues.push_back({at + " kv_heads", "query heads not a multiple of the KV heads",
                            detail::shown(field("kv_heads")),
                            "a divisor of heads (" + field("heads") + ")"});
      }
      if (issues.size() == before) table.attention.push_back(r);
    } else {
      issues.push_back({at + " kind", "not a kernel kind this reader takes", detail::shown(kind),
                        "gemm, attn_decode or attn_prefill"});
    }
    if (issues.size() >= kMaxReportedIssues) break;
  }
  if (!issues.empty()) throw ConfigError(std::move(issues));
  if (table.gemm.empty() && table.attention.empty())
    throw ConfigError({{name, "no kernel rows", "", "at least one measured kernel"}});
  kernels::index(table);
  return table;
}

kernels::Table load_kernel_table(const std::filesystem::path& file) {
  const std::string text = read_text_file(file, file.string(), limits::kMaxKernelTableBytes);
  return parse_kernel_table(text, file.string());
}

std::vector<std::string> builtin_kernel_tables() {
  std::vector<std::string> ids;
  for (const auto& f : presets::embedded_presets()) {
    std::string_view path = f.path;
    if (!path.starts_with("kernels/") || !path.ends_with(".csv")) continue;
    path.remove_prefix(8);
    path.remove_suffix(4);
    if (path.find('/') == std::string_view::npos) ids.emplace_back(path);
  }
  return ids;
}

bool is_kernel_table_file(std::string_view ref) {
  return ref.find_first_of("./\\") != std::string_view::npos;
}

std::shared_ptr<const kernels::Table> resolve_kernel_table(std::string_view ref,
                                                           const std::filesystem::path& base_dir,
                                                           const std::string& where) {
  if (ref.empty()) return nullptr;
  if (is_kernel_table_file(ref)) {
    // One file or several, comma-separated, in any layout io/kernel_table_foreign.hpp detects.
    std::vector<std::filesystem::path> files;
    for (std::size_t at = 0; at <= ref.size();) {
      const std::size_t comma = std::min(ref.find(',', at), ref.size());
      std::filesystem::path file{std::string(ref.substr(at, comma - at))};
      if (file.empty())
        throw ConfigError({{where, "empty file name in the list", detail::shown(std::string(ref)),
                            "files separated by single commas"}});
      if (file.is_relative() && !base_dir.empty()) file = base_dir / file;
      files.push_back(std::move(file));
      at = comma + 1;
    }
    return std::make_shared<const kernels::Table>(load_kernel_tables(files));
  }
  // Built-in tables, parsed on first use and shared by every design that names them.
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const kernels::Table>, std::less<>> parsed;
  const std::lock_guard lock(mutex);
  if (auto it = parsed.find(ref); it != parsed.end()) return it->second;
  const std::string path = "kernels/" + std::string(ref) + ".csv";
  for (const auto& f : presets::embedded_presets())
    if (f.path == path) {
      auto table = std::make_shared<const kernels::Table>(parse_kernel_table(f.text, path));
      parsed.emplace(std::string(ref), table);
      return table;
    }
  std::string known;
  for (const std::string& id : builtin_kernel_tables()) known += (known.empty() ? "" : ", ") + id;
  throw ConfigError({{where, "unknown kernel table", detail::shown(std::string(ref)),
                      "a built-in table (" + (known.empty() ? std::string("none") : known) +
                          ") or a file (a name with a '.' or a '/')"}});
}

std::string kernel_check_json(const kernels::Table& table, const kernels::LeaveOneOutReport& loo,
                              int indent) {
  using detail::Json;
  using detail::write_value;
  const auto family = [](const kernels::LeaveOneOut& l) {
    return Json{{"rows", l.rows},
                {"predicted", l.predicted},
                {"median", write_value(l.median)},
                {"p90", write_value(l.p90)},
                {"max", write_value(l.max)}};
  };
  Json j;
  j["source"] = table.source;
  j["gemm_rows"] = table.gemm.size();
  j["attention_rows"] = table.attention.size();
  j["leave_one_out"] = {{"gemm", family(loo.gemm)},
                        {"decode_attention", family(loo.decode_attention)},
                        {"prefill_attention", family(loo.prefill_attention)},
                        {"all", family(loo.all)}};
  return j.dump(indent) + "\n";
}

}  // namespace stackscope::io
