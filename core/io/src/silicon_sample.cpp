// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/silicon_sample.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include "csv_detail.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/limits.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/read_file.hpp"

namespace stackscope::io {
namespace {

using detail::shown;

constexpr std::size_t kMaxReportedIssues = 20;
constexpr long long kMaxWhole = 1LL << 20;
constexpr long long kMaxLength = 10'000'000;
constexpr double kMaxMs = 1e9;

struct RowParser {
  const std::map<std::string, std::size_t>& col;
  const std::vector<std::string>& f;
  std::string where;
  std::vector<Issue>& issues;

  const std::string* get(const char* key) const {
    const auto it = col.find(key);
    if (it == col.end() || it->second >= f.size()) return nullptr;
    return &f[it->second];
  }
  std::string text(const char* key, bool required) {
    const std::string* v = get(key);
    if (!v || v->empty()) {
      if (required) issues.push_back({where + "/" + key, "missing value", "", "required"});
      return {};
    }
    if (v->size() > limits::kMaxJsonStringBytes) {
      issues.push_back({where + "/" + key, "value too long", std::to_string(v->size()) + " bytes",
                        "at most " + std::to_string(limits::kMaxJsonStringBytes)});
      return {};
    }
    return *v;
  }
  std::optional<long long> whole(const char* key, long long lo, long long hi) {
    const std::string* v = get(key);
    if (!v || v->empty()) return std::nullopt;
    long long x = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), x);
    // Whole numbers written as floats by a spreadsheet ("8.0") are read as such.
    if (ec != std::errc() || end != v->data() + v->size()) {
      double d = 0;
      const auto [e2, ec2] = std::from_chars(v->data(), v->data() + v->size(), d);
      if (ec2 == std::errc() && e2 == v->data() + v->size() && std::isfinite(d) &&
          d == std::floor(d) && d >= static_cast<double>(lo) && d <= static_cast<double>(hi))
        return static_cast<long long>(d);
      issues.push_back({where + "/" + key, "not a whole number", shown(*v),
                        std::to_string(lo) + ".." + std::to_string(hi)});
      return std::nullopt;
    }
    if (x < lo || x > hi) {
      issues.push_back({where + "/" + key, "out of range", shown(*v),
                        std::to_string(lo) + ".." + std::to_string(hi)});
      return std::nullopt;
    }
    return x;
  }
  int count(const char* key) { return static_cast<int>(whole(key, 0, kMaxWhole).value_or(0)); }
  int length(const char* key) {
    const auto v = whole(key, 1, kMaxLength);
    if (!v && (!get(key) || get(key)->empty()))
      issues.push_back(
          {where + "/" + key, "missing value", "", "1.." + std::to_string(kMaxLength)});
    return static_cast<int>(v.value_or(0));
  }
  double ms(const char* key) {
    const std::string* v = get(key);
    if (!v || v->empty()) {
      issues.push_back({where + "/" + key, "missing value", "", "a time in ms in (0, 1e9]"});
      return 0;
    }
    double d = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), d);
    if (ec != std::errc() || end != v->data() + v->size() || !std::isfinite(d) || d <= 0 ||
        d > kMaxMs) {
      issues.push_back({where + "/" + key, "not a time in ms", shown(*v), "a number in (0, 1e9]"});
      return 0;
    }
    return d;
  }
  validate::SiliconStage stage(const std::string& prefix) {
    validate::SiliconStage s;
    // The sample's column names (after the stage's prefix) and the fields they fill.
    static constexpr std::pair<const char*, int validate::SiliconStage::*> kColumns[] = {
        {"batch_size", &validate::SiliconStage::batch},
        {"num_workers", &validate::SiliconStage::workers},
        {"tp_size", &validate::SiliconStage::tp},
        {"pp_size", &validate::SiliconStage::pp},
        {"attention_dp_size", &validate::SiliconStage::attention_dp},
        {"moe_tp_size", &validate::SiliconStage::moe_tp},
        {"moe_ep_size", &validate::SiliconStage::moe_ep}};
    for (const auto& [name, field] : kColumns) s.*field = count((prefix + name).c_str());
    return s;
  }
};

}  // namespace

std::vector<validate::SiliconRow> parse_silicon_sample(std::string_view text,
                                                       const std::string& name) {
  detail::CsvReader reader(detail::without_bom(text));
  std::vector<std::string> fields;
  std::size_t line = 1;
  const detail::CsvHeader header = detail::read_header(
      reader, line, name,
      {"id", "backend", "model_path", "system", "mode", "isl", "osl", "silicon_ttft_ms",
       "silicon_tpot_ms"},
      "measured rows",
      "the silicon_sample.csv header (id, backend, model_path, system, mode, isl, osl, "
      "silicon_ttft_ms, silicon_tpot_ms, ...)");
  const auto& col = header.col;
  const std::size_t width = header.width;
  std::vector<Issue> issues;
  std::vector<validate::SiliconRow> rows;
  while (reader.next(fields, line, name)) {
    if (rows.size() >= kMaxSiliconRows)
      throw ConfigError({{name + ":" + std::to_string(line), "too many rows", "",
                          "at most " + std::to_string(kMaxSiliconRows)}});
    const std::size_t before = issues.size();
    if (fields.size() != width && !(fields.size() == 1 && fields[0].empty()))
      issues.push_back({name + ":" + std::to_string(line), "wrong number of fields",
                        std::to_string(fields.size()), std::to_string(width) + " (as the header)"});
    if (issues.size() > before) {
      if (issues.size() >= kMaxReportedIssues) break;
      continue;
    }
    RowParser p{col, fields, name + ":" + std::to_string(line), issues};
    validate::SiliconRow r;
    r.origin = name + ":" + std::to_string(line);
    r.id = p.text("id", true);
    r.source = p.text("silicon_data_source", false);
    r.backend = p.text("backend", true);
    r.backend_version = p.text("backend_version", false);
    r.model = p.text("model_path", true);
    r.system = p.text("system", true);
    r.precision = p.text("precision", false);
    r.mode = p.text("mode", true);
    r.gemm_quant = p.text("gemm_quant_mode", false);
    r.moe_quant = p.text("moe_quant_mode", false);
    r.isl = p.length("isl");
    r.osl = p.length("osl");
    r.agg = p.stage("");
    r.prefill = p.stage("prefill_");
    r.decode = p.stage("decode_");
    r.ttft_ms = p.ms("silicon_ttft_ms");
    r.tpot_ms = p.ms("silicon_tpot_ms");
    if (issues.size() > before) {
      if (issues.size() >= kMaxReportedIssues) break;
      continue;
    }
    rows.push_back(std::move(r));
  }
  if (!issues.empty()) throw ConfigError(std::move(issues));
  if (rows.empty())
    throw ConfigError({{name, "no measured rows", "", "at least one row after the header"}});
  return rows;
}

std::vector<validate::SiliconRow> load_silicon_sample(const std::filesystem::path& file) {
  const std::string text = read_text_file(file, file.string(), limits::kMaxSiliconSampleBytes);
  return parse_silicon_sample(text, file.string());
}

validate::Catalog silicon_catalog(const PresetRegistry& presets) {
  validate::Catalog c;
  for (const auto& p : presets.list(PresetKind::hardware))
    c.hardware[p.id] = presets.hardware(p.id);
  for (const auto& p : presets.list(PresetKind::system)) c.systems[p.id] = presets.system(p.id);
  for (const auto& p : presets.list(PresetKind::model)) c.models[p.id] = presets.model(p.id);
  for (const auto& p : presets.list(PresetKind::runtime)) c.runtimes[p.id] = presets.runtime(p.id);
  return c;
}

}  // namespace stackscope::io
