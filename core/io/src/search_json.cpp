// SPDX-License-Identifier: GPL-3.0-or-later
// Search sections of project files and search result files; format in io/search.hpp.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

#include "json_detail.hpp"
#include "mapping.hpp"
#include "sections.hpp"
#include "stackscope/io/search.hpp"

namespace stackscope::io {

using detail::exact_integer;
using detail::integer_at;
using detail::Issues;
using detail::Json;

namespace detail {

void unknown_keys(const Json& obj, const std::string& path, const std::vector<std::string>& known,
                  Issues& issues) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string message = "unknown key '" + key + "'";
    if (auto s = detail::suggest_key(key, known); !s.empty())
      message += "; did you mean '" + s + "'?";
    issues.push_back(
        {child_path(path, key), message, value_text(value), "known keys: " + detail::join(known)});
  }
}

// A list of numbers, or a range object {min, max, step} / {min, max, factor}.
std::vector<double> read_values(const Json& j, const std::string& path, Issues& issues) {
  std::vector<double> out;
  if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      double v = 0;
      const std::size_t before = issues.size();
      detail::read_value(j[i], child_path(path, i), v, issues);
      if (issues.size() == before) out.push_back(v);
    }
    if (j.empty()) issues.push_back({path, "empty value list", "[]", "at least one value"});
    return out;
  }
  if (!j.is_object()) {
    issues.push_back({path, "expected a list of values or a range object, got " + type_text(j),
                      value_text(j), "[v1, v2, ...] or {\"min\", \"max\", \"step\" | \"factor\"}"});
    return out;
  }
  unknown_keys(j, path, {"min", "max", "step", "factor", "knob"}, issues);
  double lo = 0, hi = 0, step = 0, factor = 0;
  const std::size_t before = issues.size();
  for (auto [key, ref] : {std::pair{"min", &lo}, std::pair{"max", &hi}}) {
    if (auto it = j.find(key); it != j.end())
      detail::read_value(*it, child_path(path, key), *ref, issues);
    else
      issues.push_back(
          {child_path(path, key), std::string("range needs '") + key + "'", "", "number"});
  }
  const bool has_step = j.contains("step"), has_factor = j.contains("factor");
  if (has_step == has_factor) {
    issues.push_back({path, "a range needs exactly one of 'step' (linear) or 'factor' (geometric)",
                      value_text(j),
                      "{\"min\", \"max\", \"step\"} or {\"min\", \"max\", \"factor\"}"});
    return out;
  }
  if (has_step) detail::read_value(j["step"], child_path(path, "step"), step, issues);
  if (has_factor) detail::read_value(j["factor"], child_path(path, "factor"), factor, issues);
  if (issues.size() != before) return out;
  try {
    out = has_step ? search::linear_range(lo, hi, step) : search::geometric_range(lo, hi, factor);
  } catch (const std::invalid_argument& e) {
    issues.push_back({path, e.what(), value_text(j),
                      has_step ? "min <= max, step > 0" : "0 < min <= max, factor > 1"});
  }
  constexpr std::size_t kMaxValues = 1u << 20;
  if (out.size() > kMaxValues) {
    issues.push_back({path, "range has " + std::to_string(out.size()) + " values", value_text(j),
                      "at most " + std::to_string(kMaxValues) + " values"});
    out.clear();
  }
  return out;
}

// FNV-1a 64 of the text: a fingerprint of the space, so merge refuses archives of different
// searches.
std::string fingerprint(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace detail

namespace {

using detail::child_path;
using detail::fingerprint;
using detail::read_values;
using detail::type_text;
using detail::unknown_keys;
using detail::value_text;

std::vector<int> read_ints(const Json& j, const std::string& path, int min, Issues& issues) {
  std::vector<int> out;
  for (double v : read_values(j, path, issues)) {
    // Checked before the conversion: 3e9 must not wrap to a negative int.
    if (v != std::floor(v) || v < min || v > std::numeric_limits<int>::max()) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", v);
      issues.push_back({path,
                        "value must be a whole number in [" + std::to_string(min) + ", 2147483647]",
                        buf, "integer in [" + std::to_string(min) + ", 2147483647]"});
      continue;
    }
    out.push_back(static_cast<int>(v));
  }
  return out;
}

std::vector<int> read_bools(const Json& j, const std::string& path, Issues& issues) {
  std::vector<int> out;
  if (!j.is_array() || j.empty()) {
    issues.push_back({path, "expected a non-empty list of booleans", value_text(j),
                      "[false], [true] or [false, true]"});
    return out;
  }
  for (std::size_t i = 0; i < j.size(); ++i) {
    bool b = false;
    const std::size_t before = issues.size();
    detail::read_value(j[i], child_path(path, i), b, issues);
    if (issues.size() == before) out.push_back(b ? 1 : 0);
  }
  return out;
}

constexpr std::pair<search::Metric, std::string_view> kMetrics[] = {
    {search::Metric::stps, "stps"},
    {search::Metric::stps_per_device, "stps_per_device"},
    {search::Metric::stps_per_mm2, "stps_per_mm2"},
    {search::Metric::stps_per_W, "stps_per_W"},
    {search::Metric::utps, "utps"},
    {search::Metric::energy_per_token_j, "energy_per_token_j"},
    {search::Metric::area_mm2, "area_mm2"},
    {search::Metric::ttft_s, "ttft_s"},
    {search::Metric::tpot_s, "tpot_s"},
};

std::string metric_names() {
  std::vector<std::string> n;
  for (const auto& [m, name] : kMetrics) n.emplace_back(name);
  return detail::join(n);
}

std::optional<search::Metric> metric_of(std::string_view s) {
  for (const auto& [m, name] : kMetrics)
    if (name == s) return m;
  return std::nullopt;
}

std::optional<search::Objective> read_objective(const Json& j, const std::string& path,
                                                Issues& issues) {
  const Json* metric = &j;
  const Json* direction = nullptr;
  if (j.is_object()) {
    unknown_keys(j, path, {"metric", "direction"}, issues);
    auto it = j.find("metric");
    if (it == j.end()) {
      issues.push_back({child_path(path, "metric"), "objective needs a 'metric'", "",
                        "one of: " + metric_names()});
      return std::nullopt;
    }
    metric = &*it;
    if (auto d = j.find("direction"); d != j.end()) direction = &*d;
  }
  const std::string mpath = j.is_object() ? child_path(path, "metric") : path;
  if (!metric->is_string()) {
    issues.push_back({mpath, "expected a metric name, got " + type_text(*metric),
                      value_text(*metric), "one of: " + metric_names()});
    return std::nullopt;
  }
  const auto m = metric_of(metric->get_ref<const std::string&>());
  if (!m) {
    issues.push_back({mpath, "unknown metric '" + metric->get<std::string>() + "'",
                      value_text(*metric), "one of: " + metric_names()});
    return std::nullopt;
  }
  search::Objective o = search::objective(*m);
  if (direction) {
    const std::string dpath = child_path(path, "direction");
    if (direction->is_string() && *direction == "maximize") {
      o.direction = search::Direction::maximize;
    } else if (direction->is_string() && *direction == "minimize") {
      o.direction = search::Direction::minimize;
    } else {
      issues.push_back(
          {dpath, "unknown direction", value_text(*direction), "\"maximize\" or \"minimize\""});
      return std::nullopt;
    }
  }
  return o;
}

// {"knob": "variant", "variants": [{"name", "hardware": id | object | {"base", ...},
//   "system": ..., "runtime": ... (optional)}]}: the axis takes every variant, in order.
void read_variants(const Json& a, const std::string& apath, search::Space& space,
                   search::HardwareAxis& axis, const PresetRegistry& presets, Issues& issues) {
  unknown_keys(a, apath, {"knob", "variants"}, issues);
  const std::string vpath = child_path(apath, "variants");
  auto it = a.find("variants");
  if (it == a.end() || !it->is_array() || it->empty()) {
    issues.push_back(
        {vpath, "a variant axis needs a non-empty 'variants' list",
         it == a.end() ? "" : value_text(*it),
         "[{\"name\", \"hardware\": preset or object, \"system\": preset or object}]"});
    return;
  }
  if (!space.variants.empty()) {
    issues.push_back({apath, "only one variant axis is allowed", "", "one variant axis"});
    return;
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& v = (*it)[i];
    const std::string p = child_path(vpath, i);
    if (!v.is_object() || !v.contains("hardware") || !v.contains("system")) {
      issues.push_back({p, "a variant needs 'hardware' and 'system'", value_text(v),
                        "{\"name\", \"hardware\", \"system\"}"});
      continue;
    }
    unknown_keys(v, p, {"name", "hardware", "system", "runtime"}, issues);
    search::Variant var;
    if (auto n = v.find("name"); n != v.end())
      detail::read_value(*n, child_path(p, "name"), var.name, issues);
    if (auto s = detail::resolve_section(v["hardware"], PresetKind::hardware,
                                         child_path(p, "hardware"), presets, issues))
      var.hardware = detail::read_hardware(*s, child_path(p, "hardware"), issues);
    if (auto s = detail::resolve_section(v["system"], PresetKind::system, child_path(p, "system"),
                                         presets, issues))
      var.system = detail::read_system(*s, child_path(p, "system"), issues);
    // Optional: without it the variant runs under the base design's profile.
    if (auto r = v.find("runtime"); r != v.end()) {
      if (auto s = detail::resolve_section(*r, PresetKind::runtime, child_path(p, "runtime"),
                                           presets, issues))
        var.runtime = detail::read_runtime(*s, child_path(p, "runtime"), issues);
    }
    if (var.name.empty())
      var.name = var.hardware.id.empty() ? "variant " + std::to_string(i) : var.hardware.id;
    axis.values.push_back(static_cast<double>(space.variants.size()));
    space.variants.push_back(std::move(var));
  }
}

// {"knob": "model", "values": [id | object | {"base", ...}, ...]}: the axis takes every model,
// in order (presets/models ids, or model objects as in a project's "model").
void read_models(const Json& a, const std::string& apath, search::Space& space,
                 search::HardwareAxis& axis, const PresetRegistry& presets, Issues& issues) {
  unknown_keys(a, apath, {"knob", "values"}, issues);
  const std::string vpath = child_path(apath, "values");
  auto it = a.find("values");
  if (it == a.end() || !it->is_array() || it->empty()) {
    issues.push_back({vpath, "a model axis needs a non-empty 'values' list of models",
                      it == a.end() ? "" : value_text(*it),
                      "[model preset id or model object, ...]"});
    return;
  }
  if (!space.models.empty()) {
    issues.push_back({apath, "only one model axis is allowed", "", "one model axis"});
    return;
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const std::string p = child_path(vpath, i);
    if (auto m = detail::resolve_section((*it)[i], PresetKind::model, p, presets, issues)) {
      axis.values.push_back(static_cast<double>(space.models.size()));
      space.models.push_back(detail::read_model(*m, p, issues));
    }
  }
}

void read_search(const Json& s, search::Space& space, search::RunOptions& run,
                 const PresetRegistry& presets, Issues& issues) {
  const std::string root = "/search";
  if (!s.is_object()) {
    issues.push_back({root, "expected an object, got " + type_text(s), value_text(s), "object"});
    return;
  }
  unknown_keys(s, root,
               {"hardware", "parallel", "batch", "overlap", "constraints", "objectives", "strategy",
                "seed", "samples", "population", "generations", "notes"},
               issues);
  if (auto it = s.find("hardware"); it != s.end()) {
    const std::string path = root + "/hardware";
    if (!it->is_array()) {
      issues.push_back({path, "expected a list of axes, got " + type_text(*it), value_text(*it),
                        "[{\"knob\": name, \"values\": [...]} | {\"knob\", \"min\", \"max\", "
                        "\"step\" | \"factor\"}]"});
    } else {
      for (std::size_t i = 0; i < it->size(); ++i) {
        const Json& a = (*it)[i];
        const std::string apath = child_path(path, i);
        if (!a.is_object() || !a.contains("knob")) {
          issues.push_back({apath, "an axis is an object with a 'knob'", value_text(a),
                            "knobs: " + search::knob_names()});
          continue;
        }
        search::HardwareAxis axis;
        detail::read_value(a["knob"], child_path(apath, "knob"), axis.knob, issues);
        if (axis.knob == "variant") {
          read_variants(a, apath, space, axis, presets, issues);
        } else if (axis.knob == "model") {
          read_models(a, apath, space, axis, presets, issues);
        } else if (axis.knob == "experts.placement" && a.contains("values") &&
                   a["values"].is_array()) {
          // Strategy names ("plan", "eplb", "hd", ...) or their indices.
          unknown_keys(a, apath, {"knob", "values"}, issues);
          const Json& vs = a["values"];
          if (vs.empty())
            issues.push_back(
                {child_path(apath, "values"), "empty value list", "[]", "at least one value"});
          for (std::size_t k = 0; k < vs.size(); ++k) {
            if (!vs[k].is_string()) {
              double v = 0;
              const std::size_t before = issues.size();
              detail::read_value(vs[k], child_path(child_path(apath, "values"), k), v, issues);
              if (issues.size() == before) axis.values.push_back(v);
              continue;
            }
            const auto name = vs[k].get<std::string>();
            if (const auto st = parallel::parse_expert_strategy(name))
              axis.values.push_back(static_cast<double>(*st));
            else
              issues.push_back({child_path(child_path(apath, "values"), k),
                                "unknown expert placement strategy", "\"" + name + "\"",
                                "plan, tp, ep, eplb, balanced, hd, hd-dynamic, shadow"});
          }
        } else if (a.contains("values")) {
          unknown_keys(a, apath, {"knob", "values"}, issues);
          axis.values = read_values(a["values"], child_path(apath, "values"), issues);
        } else {
          axis.values = read_values(a, apath, issues);
        }
        space.hardware.push_back(std::move(axis));
      }
    }
  }
  if (auto it = s.find("parallel"); it != s.end()) {
    const std::string path = root + "/parallel";
    if (!it->is_object()) {
      issues.push_back({path, "expected an object, got " + type_text(*it), value_text(*it),
                        "{\"tp\": [...], \"pp\": [...], ...}"});
    } else {
      unknown_keys(*it, path,
                   {"tp", "pp", "ep", "dp", "cp", "sequence_parallel", "attention_tp", "moe_ep"},
                   issues);
      auto& in = space.inner;
      const std::pair<const char*, std::vector<int>*> degrees[] = {
          {"tp", &in.tp}, {"pp", &in.pp}, {"ep", &in.ep}, {"dp", &in.dp}, {"cp", &in.cp}};
      for (const auto& [key, out] : degrees)
        if (auto v = it->find(key); v != it->end())
          *out = read_ints(*v, child_path(path, key), 1, issues);
      if (auto v = it->find("attention_tp"); v != it->end())
        in.attention_tp = read_ints(*v, child_path(path, "attention_tp"), 0, issues);
      if (auto v = it->find("moe_ep"); v != it->end())
        in.moe_ep = read_ints(*v, child_path(path, "moe_ep"), 0, issues);
      if (auto v = it->find("sequence_parallel"); v != it->end())
        in.sequence_parallel = read_bools(*v, child_path(path, "sequence_parallel"), issues);
    }
  }
  if (auto it = s.find("batch"); it != s.end())
    space.inner.batch = read_ints(*it, root + "/batch", 1, issues);
  if (auto it = s.find("overlap"); it != s.end()) {
    const std::string path = root + "/overlap";
    space.inner.overlap.clear();
    if (!it->is_array() || it->empty()) {
      issues.push_back({path, "expected a non-empty list of overlap modes", value_text(*it),
                        "[\"off\", \"fixed\", \"auto\"]"});
    } else {
      for (std::size_t i = 0; i < it->size(); ++i) {
        parallel::Overlap o{};
        const std::size_t before = issues.size();
        detail::read_value((*it)[i], child_path(path, i), o, issues);
        if (issues.size() == before) space.inner.overlap.push_back(o);
      }
    }
  }
  if (auto it = s.find("constraints"); it != s.end()) {
    const std::string path = root + "/constraints";
    if (!it->is_object()) {
      issues.push_back(
          {path, "expected an object, got " + type_text(*it), value_text(*it), "object"});
    } else {
      auto& c = space.constraints;
      const std::pair<const char*, double*> fields[] = {{"max_power_W", &c.max_power_W},
                                                        {"max_die_area_mm2", &c.max_die_area_mm2},
                                                        {"max_dram_C", &c.max_dram_C},
                                                        {"ttft_slo_s", &c.ttft_slo_s},
                                                        {"tpot_slo_s", &c.tpot_slo_s}};
      std::vector<std::string> known;
      for (const auto& [key, out] : fields) {
        known.emplace_back(key);
        auto v = it->find(key);
        if (v == it->end()) continue;
        const std::string p = child_path(path, key);
        detail::read_value(*v, p, *out, issues);
        if (!(*out > 0))
          issues.push_back({p, "constraint must be positive", value_text(*v), "number > 0"});
      }
      unknown_keys(*it, path, known, issues);
    }
  }
  if (auto it = s.find("objectives"); it != s.end()) {
    const std::string path = root + "/objectives";
    space.objectives.clear();
    if (!it->is_array() || it->empty() || it->size() > search::kMaxObjectives) {
      issues.push_back(
          {path, "expected a list of 1.." + std::to_string(search::kMaxObjectives) + " objectives",
           value_text(*it), "metrics: " + metric_names()});
    } else {
      for (std::size_t i = 0; i < it->size(); ++i)
        if (auto o = read_objective((*it)[i], child_path(path, i), issues))
          space.objectives.push_back(*o);
    }
  }
  if (auto it = s.find("strategy"); it != s.end()) {
    const std::string path = root + "/strategy";
    if (it->is_string() && *it == "exhaustive")
      run.strategy = search::Strategy::exhaustive;
    else if (it->is_string() && *it == "random")
      run.strategy = search::Strategy::random;
    else if (it->is_string() && *it == "nsga2")
      run.strategy = search::Strategy::nsga2;
    else
      issues.push_back(
          {path, "unknown strategy", value_text(*it), "\"exhaustive\", \"random\" or \"nsga2\""});
  }
  if (auto it = s.find("seed"); it != s.end())
    detail::read_value(*it, root + "/seed", run.seed, issues);
  for (auto [key, out] :
       {std::pair{"population", &run.population}, std::pair{"generations", &run.generations}}) {
    if (auto it = s.find(key); it != s.end()) {
      std::uint64_t v = 0;
      detail::read_value(*it, child_path(root, key), v, issues);
      if (v == 0)
        issues.push_back({child_path(root, key), std::string(key) + " must be positive",
                          value_text(*it), ">= 1"});
      else
        *out = static_cast<std::size_t>(v);
    }
  }
  if (auto it = s.find("samples"); it != s.end()) {
    detail::read_value(*it, root + "/samples", run.samples, issues);
    if (run.samples == 0)
      issues.push_back({root + "/samples", "samples must be positive", value_text(*it), ">= 1"});
  }
}

SearchProject parse_search_text(std::string_view text, std::string_view where,
                                const PresetRegistry& presets,
                                const std::filesystem::path& base_dir) {
  SearchProject sp;
  sp.space.base = parse_project(text, presets, base_dir);  // throws on design issues
  Issues issues;
  auto root = detail::parse_json_text(text, where, "", issues);
  if (!root) throw ConfigError(std::move(issues));
  // The version was checked by parse_project; this migrates the search section (a schema 1
  // variant's runtime values, sections.cpp).
  if (root->is_object()) {
    Issues checked;  // reported by parse_project already
    (void)detail::check_metadata_and_migrate(*root, PresetKind::project, "", false, checked);
  }
  auto it = root->find("search");
  if (it == root->end()) {
    issues.push_back({"/search", "the project has no 'search' section", "",
                      "object with hardware, parallel, batch, objectives... (see README)"});
    throw ConfigError(std::move(issues));
  }
  read_search(*it, sp.space, sp.run, presets, issues);
  if (!issues.empty()) throw ConfigError(std::move(issues));
  // Of the canonical text: key order, list-vs-range spelling, notes and run options (checked by
  // the log header on their own) are no change of the space.
  sp.canonical = canonical_space_text(sp.space);
  sp.fingerprint = fingerprint(sp.canonical);
  // What logs of format 1 (io/search.hpp) recorded: the hash of the file's own spelling.
  sp.legacy_fingerprint = fingerprint(project_to_json(sp.space.base) + detail::dump(*it, -1));
  return sp;
}

Json record_json(const search::PointRecord& p) {
  Json j = Json::object();
  j["hw"] = p.id.hw;
  j["inner"] = p.id.inner;
  j["feasible"] = p.feasible;
  j["reasons"] = p.reasons;
  Json obj = Json::array();
  for (int i = 0; i < p.n_objectives; ++i)
    obj.push_back(detail::write_value(p.objectives[static_cast<std::size_t>(i)]));
  j["objectives"] = std::move(obj);
  j["devices"] = p.devices;
  j["batch"] = p.batch;
  j["stps"] = detail::write_value(p.stps);
  j["utps"] = detail::write_value(p.utps);
  j["ttft_s"] = detail::write_value(p.ttft_s);
  j["tpot_s"] = detail::write_value(p.tpot_s);
  j["energy_per_token_j"] = detail::write_value(p.energy_per_token_j);
  j["power_w"] = detail::write_value(p.power_w);
  j["die_mm2"] = detail::write_value(p.die_mm2);
  j["dram_peak_C"] = detail::write_value(p.dram_peak_C);
  j["unit"] = p.unit;
  return j;
}

double number_or_nan(const Json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

std::optional<search::PointRecord> record_from(const Json& j) {
  if (!j.is_object()) return std::nullopt;
  try {
    search::PointRecord p;
    p.id.hw = integer_at<std::uint64_t>(j, "hw");
    p.id.inner = integer_at<std::uint64_t>(j, "inner");
    p.feasible = j.at("feasible").get<bool>();
    p.reasons = integer_at<std::uint32_t>(j, "reasons");
    const Json& o = j.at("objectives");
    if (!o.is_array() || o.size() > search::kMaxObjectives) return std::nullopt;
    p.n_objectives = static_cast<int>(o.size());
    for (std::size_t i = 0; i < o.size(); ++i) p.objectives[i] = number_or_nan(o[i]);
    p.devices = integer_at<int>(j, "devices");
    p.batch = integer_at<int>(j, "batch");
    p.stps = number_or_nan(j.at("stps"));
    p.utps = number_or_nan(j.at("utps"));
    p.ttft_s = number_or_nan(j.at("ttft_s"));
    p.tpot_s = number_or_nan(j.at("tpot_s"));
    p.energy_per_token_j = number_or_nan(j.at("energy_per_token_j"));
    p.power_w = number_or_nan(j.at("power_w"));
    p.die_mm2 = number_or_nan(j.at("die_mm2"));
    p.dram_peak_C = number_or_nan(j.at("dram_peak_C"));
    p.unit = j.contains("unit") ? integer_at<std::uint64_t>(j, "unit") : p.id.hw;
    return p;
  } catch (const Json::exception&) {
    return std::nullopt;
  }
}

Json objectives_json(std::span<const search::Objective> objectives) {
  Json a = Json::array();
  for (const auto& o : objectives)
    a.push_back({{"metric", std::string(search::to_string(o.metric))},
                 {"direction", std::string(search::to_string(o.direction))}});
  return a;
}

}  // namespace

SearchProject parse_search_project(std::string_view json_text, const PresetRegistry& presets,
                                   const std::filesystem::path& base_dir) {
  return parse_search_text(json_text, "project", presets, base_dir);
}

SearchProject load_search_project(const std::filesystem::path& file,
                                  const PresetRegistry& presets) {
  const std::string text = detail::read_text_file(file, "");
  std::string where = "'";
  where += file.string();
  where += '\'';
  return parse_search_text(text, where, presets, file.parent_path());
}

SearchProject resolve_search_project(std::string_view id_or_file, const PresetRegistry& presets) {
  if (presets.contains(PresetKind::search, id_or_file))
    return parse_search_text(presets.json_text(PresetKind::search, id_or_file),
                             "search preset '" + std::string(id_or_file) + "'", presets, {});
  const std::filesystem::path file(id_or_file);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    Issue unknown = detail::unknown_preset_issue(presets, PresetKind::search, id_or_file, "");
    unknown.message = "'" + std::string(id_or_file) + "' is neither a search preset id nor a file";
    unknown.allowed = "a project JSON file with a \"search\" section, or " + unknown.allowed;
    throw ConfigError({unknown});
  }
  return load_search_project(file, presets);
}

std::string point_to_jsonl(const search::PointRecord& p) {
  return detail::dump(record_json(p), -1);
}

std::optional<search::PointRecord> point_from_jsonl(std::string_view line) {
  const auto j = detail::parse_json_record(line);
  if (!j) return std::nullopt;
  return record_from(*j);
}

namespace {

// frontier.json's "points": each point with its hardware values, plan and loadable design.
Json frontier_points_json(const search::CompiledSpace& space, const search::Archive& archive) {
  Json points = Json::array();
  for (const auto& p : archive.sorted()) {
    if (p.id.hw >= space.hardware_points() || p.id.inner >= space.inner_points(p.id.hw))
      throw std::invalid_argument("frontier_to_json: point (" + std::to_string(p.id.hw) + ", " +
                                  std::to_string(p.id.inner) + ") is not in the space");
    Json pj = record_json(p);
    const perf::Design d = space.decode(p.id);
    Json knobs = Json::object();
    const auto values = space.hardware_values(p.id.hw);
    for (std::size_t a = 0; a < values.size(); ++a) {
      const auto& knob = space.space().hardware[a].knob;
      if (const auto name = search::axis_value_name(space.space(), a, values[a]); !name.empty())
        knobs[knob] = name;
      else
        knobs[knob] = detail::write_value(values[a]);
    }
    pj["hardware"] = std::move(knobs);
    const auto& pl = d.parallel;
    pj["plan"] = {{"tp", pl.tp},
                  {"pp", pl.pp},
                  {"ep", pl.ep},
                  {"dp", pl.dp},
                  {"cp", pl.cp},
                  {"sequence_parallel", pl.sequence_parallel},
                  {"attention_tp", pl.attention.tp},
                  {"moe_ep", pl.moe.ep},
                  {"overlap", std::string(detail::enum_name(pl.overlap))}};
    pj["design"] = detail::project_json(d);
    points.push_back(std::move(pj));
  }
  return points;
}

}  // namespace

std::string frontier_to_json(const search::CompiledSpace& space, const search::Archive& archive,
                             std::string_view space_fingerprint) {
  Json j = Json::object();
  j["schema_version"] = perf::kSchemaVersion;
  j["kind"] = "frontier";
  j["space_fingerprint"] = std::string(space_fingerprint);
  j["space_size"] = search::to_string(space.size());
  j["objectives"] = objectives_json(archive.objectives());
  j["points"] = frontier_points_json(space, archive);
  return detail::dump(j, 2) + "\n";
}

MergedFrontier merge_frontier_files(const std::vector<std::filesystem::path>& files) {
  MergedFrontier out;
  if (files.empty()) throw ConfigError({{"", "nothing to merge", "", "one or more frontier.json"}});
  std::vector<Json> docs;
  Json objectives;
  std::string fp, size;
  // PointId -> the point's JSON (with its design), to write the merged frontier.
  std::vector<std::pair<search::PointId, Json>> by_id;
  for (const auto& file : files) {
    Issues issues;
    const std::string text = detail::read_text_file(file, "");
    auto doc = detail::parse_json_text(text, "'" + file.string() + "'", "", issues);
    if (!doc) throw ConfigError(std::move(issues));
    auto bad = [&](const std::string& what) {
      throw ConfigError({{"", "'" + file.string() + "': " + what, "",
                          "a frontier.json written by stackscope-cli search"}});
    };
    if (!doc->is_object() || !(*doc)["kind"].is_string() || (*doc)["kind"] != "frontier" ||
        !(*doc)["space_fingerprint"].is_string() || !(*doc)["space_size"].is_string() ||
        !(*doc)["objectives"].is_array())
      bad("not a frontier file");
    const Json& obj = (*doc)["objectives"];
    const std::string f = doc->value("space_fingerprint", "");
    const std::string sz = doc->value("space_size", "");
    if (out.shards == 0) {
      objectives = obj;
      fp = f;
      size = sz;
      std::vector<search::Objective> objs;
      for (const auto& o : obj) {
        if (!o.is_object() || !o.contains("metric") || !o["metric"].is_string() ||
            !o.contains("direction") || !o["direction"].is_string())
          bad("malformed objectives");
        const auto m = metric_of(o.value("metric", ""));
        if (!m) bad("unknown metric in objectives");
        objs.push_back({*m, o.value("direction", "") == "minimize" ? search::Direction::minimize
                                                                   : search::Direction::maximize});
      }
      out.archive = search::Archive(objs);
    } else if (obj != objectives || f != fp) {
      bad("it comes from a different search (objectives or space differ from '" +
          files.front().string() + "')");
    }
    const Json& pts = (*doc)["points"];
    if (!pts.is_array()) bad("no 'points' list");
    for (const auto& pj : pts) {
      auto rec = record_from(pj);
      if (!rec) bad("a point is malformed");
      out.archive.insert(*rec);
      by_id.emplace_back(rec->id, pj);
    }
    ++out.shards;
  }
  Json j = Json::object();
  j["schema_version"] = perf::kSchemaVersion;
  j["kind"] = "frontier";
  j["space_fingerprint"] = fp;
  j["space_size"] = size;
  j["objectives"] = objectives;
  Json points = Json::array();
  for (const auto& p : out.archive.sorted()) {
    auto it =
        std::find_if(by_id.begin(), by_id.end(), [&](const auto& e) { return e.first == p.id; });
    points.push_back(it->second);
  }
  j["points"] = std::move(points);
  out.json = detail::dump(j, 2) + "\n";
  return out;
}

std::string frontier_to_csv(const search::CompiledSpace& space, const search::Archive& archive) {
  const auto pts = archive.sorted();
  return points_to_csv(space, pts, nullptr);
}

std::string points_to_csv(const search::CompiledSpace& space,
                          std::span<const search::PointRecord> points,
                          const search::Archive* frontier) {
  std::string out = "hw,inner";
  for (const auto& axis : space.space().hardware)
    if (axis.knob != "devices") out += "," + axis.knob;  // devices has its own column
  out += ",devices,tp,pp,ep,dp,cp,sequence_parallel,batch,overlap";
  for (const auto& o : space.space().objectives) {
    out += ",obj_";  // objective values, then the key metrics (which may repeat them)
    out += search::to_string(o.metric);
  }
  out += ",stps,utps,ttft_s,tpot_s,energy_per_token_j,power_w,die_mm2,dram_peak_C,feasible";
  if (frontier) out += ",on_frontier";
  out += '\n';
  std::vector<search::PointId> front;
  if (frontier)
    for (const auto& p : frontier->points()) front.push_back(p.id);
  std::sort(front.begin(), front.end());
  char buf[64];
  auto num = [&](double v) {
    std::snprintf(buf, sizeof buf, "%.17g", v);
    out += ',';
    out += buf;
  };
  for (const auto& p : points) {
    const perf::Design d = space.decode(p.id);
    const auto& pl = d.parallel;
    out += std::to_string(p.id.hw) + ',' + std::to_string(p.id.inner);
    const auto values = space.hardware_values(p.id.hw);
    for (std::size_t k = 0; k < values.size(); ++k) {
      const auto& knob = space.space().hardware[k].knob;
      if (const auto name = search::axis_value_name(space.space(), k, values[k]); !name.empty())
        out += "," + name;
      else if (knob != "devices")
        num(values[k]);
    }
    out += ',' + std::to_string(p.devices) + ',' + std::to_string(pl.tp) + ',' +
           std::to_string(pl.pp) + ',' + std::to_string(pl.ep) + ',' + std::to_string(pl.dp) + ',' +
           std::to_string(pl.cp) + ',' + (pl.sequence_parallel ? "1" : "0") + ',' +
           std::to_string(p.batch) + ',' + std::string(detail::enum_name(pl.overlap));
    for (int i = 0; i < p.n_objectives; ++i) num(p.objectives[static_cast<std::size_t>(i)]);
    for (double v : {p.stps, p.utps, p.ttft_s, p.tpot_s, p.energy_per_token_j, p.power_w, p.die_mm2,
                     p.dram_peak_C})
      num(v);
    out += p.feasible ? ",1" : ",0";
    if (frontier) out += std::binary_search(front.begin(), front.end(), p.id) ? ",1" : ",0";
    out += '\n';
  }
  return out;
}

std::string summary_to_json(const search::CompiledSpace& space, const search::Summary& s) {
  Json j = Json::object();
  j["schema_version"] = perf::kSchemaVersion;
  j["kind"] = "search_summary";
  j["space_size"] = search::to_string(s.space_size);
  j["space_size_approx"] = detail::write_value(search::to_double(space.size()));
  j["hardware_points"] = space.hardware_points();
  const auto& p = s.progress;
  j["points_in_run"] = search::to_string(p.total);
  j["evaluated"] = p.evaluated;
  j["pruned"] = p.pruned;
  j["pruned_by_bound"] = p.pruned_bound;
  j["infeasible"] = p.infeasible;
  j["elapsed_s"] = detail::write_value(p.elapsed_s);
  j["evaluations_per_second"] =
      detail::write_value(p.elapsed_s > 0 ? static_cast<double>(p.evaluated) / p.elapsed_s : 0.0);
  // Points decided (evaluated or pruned) per second of wall time, and the evaluator's own rate
  // per core (evaluations per thread-second spent evaluating).
  j["points_per_second"] = detail::write_value(
      p.elapsed_s > 0
          ? (static_cast<double>(p.evaluated) + static_cast<double>(p.pruned)) / p.elapsed_s
          : 0.0);
  j["evaluator_seconds"] = detail::write_value(p.evaluator_s);
  j["evaluations_per_core_second"] = detail::write_value(
      p.evaluator_s > 0 ? static_cast<double>(p.evaluated) / p.evaluator_s : 0.0);
  j["frontier"] = s.archive.size();
  j["complete"] = s.complete;
  j["stopped"] = s.stopped;
  j["time_limited"] = s.time_limited;
  j["eval_limited"] = s.eval_limited;
  return detail::dump(j, 2) + "\n";
}

std::string search_report_to_json(const search::CompiledSpace& space, const search::Summary& s,
                                  std::string_view status) {
  using detail::write_value;
  const auto& p = s.progress;
  Json j = Json::object();
  j["space_size"] = search::to_string(s.space_size);
  j["points_in_run"] = search::to_string(p.total);
  j["evaluated"] = p.evaluated;
  j["pruned"] = p.pruned;
  j["pruned_by_bound"] = p.pruned_bound;
  j["infeasible"] = p.infeasible;
  j["evaluations_per_second"] =
      write_value(p.elapsed_s > 0 ? static_cast<double>(p.evaluated) / p.elapsed_s : 0.0);
  j["points_per_second"] = write_value(
      p.elapsed_s > 0
          ? (static_cast<double>(p.evaluated) + static_cast<double>(p.pruned)) / p.elapsed_s
          : 0.0);
  j["evaluations_per_core_second"] = write_value(
      p.evaluator_s > 0 ? static_cast<double>(p.evaluated) / p.evaluator_s : 0.0);
  j["elapsed_s"] = write_value(p.elapsed_s);
  j["complete"] = s.complete;
  j["feasible_found"] = s.archive.size() > 0;
  j["status"] = std::string(status);
  j["frontier"] = frontier_points_json(space, s.archive);
  return detail::dump(j, 2) + "\n";
}

}  // namespace stackscope::io
