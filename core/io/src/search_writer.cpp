// SPDX-License-Identifier: GPL-3.0-or-later
// Writing search projects (io/search_writer.hpp); the reader is search_json.cpp.
#include "stackscope/io/search_writer.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "json_detail.hpp"
#include "mapping.hpp"
#include "sections.hpp"

namespace stackscope::io {

using detail::Issues;
using detail::Json;

namespace {

// Whole numbers as JSON integers ("64", not "64.0"); others as the shortest text that reads
// back to the same double (nlohmann's dtoa). Non-finite values cannot be JSON: null, which the
// reader rejects with its path.
Json number(double v) {
  if (!std::isfinite(v)) return Json(nullptr);
  if (v == std::floor(v) && std::abs(v) <= 9007199254740992.0 && !(v == 0 && std::signbit(v)))
    return Json(static_cast<std::int64_t>(v));
  return Json(v);
}

// `v` rounded to `digits` significant digits.
double round_to(double v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return std::strtod(buf, nullptr);
}

bool expands_to(const ValueRange& r, std::span<const double> values) {
  // The candidate's length first, without expanding it: a rounded end far past the values (a
  // list 500, 600, 700, 8e98 tried as 500..8e98 step 100) would otherwise be expanded to 10^96
  // values (found by fuzzing, tests/data/fuzz/search_space/range-candidate-8e98.json).
  const double span =
      r.geometric() ? std::log(r.max / r.min) / std::log(r.factor) : (r.max - r.min) / r.step;
  if (!(span >= 0) || span > static_cast<double>(values.size())) return false;
  try {
    const auto e = expand(r);
    return std::equal(e.begin(), e.end(), values.begin(), values.end());
  } catch (const std::invalid_argument&) {
    return false;
  }
}

Json values_json(std::span<const double> values) {
  if (const auto r = as_range(values)) {
    Json j = Json::object();
    j["min"] = number(r->min);
    j["max"] = number(r->max);
    if (r->geometric())
      j["factor"] = number(r->factor);
    else
      j["step"] = number(r->step);
    return j;
  }
  Json a = Json::array();
  for (double v : values) a.push_back(number(v));
  return a;
}

Json ints_json(const std::vector<int>& values) {
  std::vector<double> d(values.begin(), values.end());
  return values_json(d);
}

Json objective_json(const search::Objective& o) {
  const std::string metric(search::to_string(o.metric));
  if (o.direction == search::default_direction(o.metric)) return Json(metric);
  return Json{{"metric", metric}, {"direction", std::string(search::to_string(o.direction))}};
}

std::string_view strategy_name(search::Strategy s) {
  switch (s) {
    case search::Strategy::exhaustive: return "exhaustive";
    case search::Strategy::random: return "random";
    case search::Strategy::nsga2: return "nsga2";
  }
  return "exhaustive";
}

Json variant_axis_json(const search::Space& space, const search::HardwareAxis& axis) {
  Json list = Json::array();
  for (double v : axis.values) {
    if (!(v >= 0 && v < static_cast<double>(space.variants.size()))) continue;
    const auto& var = space.variants[static_cast<std::size_t>(v)];
    Json j = Json::object();
    j["name"] = var.name;
    j["hardware"] = detail::write_value(var.hardware);
    j["system"] = detail::write_value(var.system);
    if (var.runtime) j["runtime"] = detail::write_value(*var.runtime);
    list.push_back(std::move(j));
  }
  return Json{{"knob", "variant"}, {"variants", std::move(list)}};
}

Json model_axis_json(const search::Space& space, const search::HardwareAxis& axis) {
  Json list = Json::array();
  for (double v : axis.values)
    if (v >= 0 && v < static_cast<double>(space.models.size()))
      list.push_back(detail::write_value(space.models[static_cast<std::size_t>(v)]));
  return Json{{"knob", "model"}, {"values", std::move(list)}};
}

Json section_json(const search::Space& space, const search::RunOptions& run) {
  Json s = Json::object();
  Json hw = Json::array();
  for (const auto& axis : space.hardware) {
    if (axis.knob == "variant") {
      hw.push_back(variant_axis_json(space, axis));
    } else if (axis.knob == "model") {
      hw.push_back(model_axis_json(space, axis));
    } else {
      // {"knob", "values": [...]} or, for a range, {"knob", "min", "max", "step" | "factor"}.
      Json a = Json::object();
      a["knob"] = axis.knob;
      Json v = values_json(axis.values);
      if (v.is_object())
        for (auto& [key, value] : v.items()) a[key] = value;
      else
        a["values"] = std::move(v);
      hw.push_back(std::move(a));
    }
  }
  if (!hw.empty()) s["hardware"] = std::move(hw);

  const auto& in = space.inner;
  const search::InnerAxes defaults;
  Json par = Json::object();
  const std::pair<const char*, const std::vector<int>*> degrees[] = {
      {"tp", &in.tp}, {"pp", &in.pp}, {"ep", &in.ep}, {"dp", &in.dp}, {"cp", &in.cp}};
  for (const auto& [key, v] : degrees)
    if (*v != std::vector<int>{1}) par[key] = ints_json(*v);
  if (!in.attention_tp.empty()) par["attention_tp"] = ints_json(in.attention_tp);
  if (!in.moe_ep.empty()) par["moe_ep"] = ints_json(in.moe_ep);
  if (in.sequence_parallel != defaults.sequence_parallel) {
    Json a = Json::array();
    for (int v : in.sequence_parallel) {
      if (v == 0 || v == 1)
        a.push_back(v == 1);
      else
        a.push_back(v);  // not a boolean: the reader reports it
    }
    par["sequence_parallel"] = std::move(a);
  }
  if (!par.empty()) s["parallel"] = std::move(par);
  if (!in.batch.empty()) s["batch"] = ints_json(in.batch);
  if (in.overlap != defaults.overlap) {
    Json a = Json::array();
    for (auto o : in.overlap) a.push_back(std::string(detail::enum_name(o)));
    s["overlap"] = std::move(a);
  }

  Json c = Json::object();
  const auto& k = space.constraints;
  for (const auto& [key, v] :
       {std::pair{"max_power_W", k.max_power_W}, std::pair{"max_die_area_mm2", k.max_die_area_mm2},
        std::pair{"max_dram_C", k.max_dram_C}, std::pair{"ttft_slo_s", k.ttft_slo_s},
        std::pair{"tpot_slo_s", k.tpot_slo_s}})
    if (!std::isinf(v) || v < 0) c[key] = number(v);
  if (!c.empty()) s["constraints"] = std::move(c);

  Json obj = Json::array();
  for (const auto& o : space.objectives) obj.push_back(objective_json(o));
  s["objectives"] = std::move(obj);

  // Run options: written when they differ from the defaults or the strategy uses them.
  const search::RunOptions d;
  const bool random = run.strategy == search::Strategy::random;
  const bool nsga2 = run.strategy == search::Strategy::nsga2;
  if (run.strategy != d.strategy) s["strategy"] = std::string(strategy_name(run.strategy));
  if (run.seed != d.seed || random || nsga2) s["seed"] = run.seed;
  if (run.samples != d.samples || random) s["samples"] = run.samples;
  if (run.population != d.population || nsga2)
    s["population"] = static_cast<std::uint64_t>(run.population);
  if (run.generations != d.generations || nsga2)
    s["generations"] = static_cast<std::uint64_t>(run.generations);
  return s;
}

// One-line JSON in the presets' style: {"knob": "devices", "values": [64, 128]}.
std::string inline_text(const Json& j) {
  if (j.is_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < j.size(); ++i) s += (i ? ", " : "") + inline_text(j[i]);
    return s + "]";
  }
  if (j.is_object()) {
    std::string s = "{";
    bool first = true;
    for (const auto& [key, value] : j.items()) {
      s += (first ? "" : ", ") + detail::dump(Json(key), -1) + ": " + inline_text(value);
      first = false;
    }
    return s + "}";
  }
  return detail::dump(j, -1);
}

// Pretty-printed like the preset files: a value that fits on its line stays on one line.
constexpr std::size_t kLineWidth = 100;

void pretty(const Json& j, std::size_t indent, std::size_t key_width, std::string& out) {
  const bool container = j.is_array() || j.is_object();
  if (!container || j.empty()) {
    out += inline_text(j);
    return;
  }
  if (indent > 0) {
    const std::string one = inline_text(j);
    if (indent + key_width + one.size() + 1 <= kLineWidth) {
      out += one;
      return;
    }
  }
  const std::string pad(indent + 2, ' ');
  out += j.is_array() ? "[\n" : "{\n";
  std::size_t i = 0;
  for (const auto& [key, value] : j.items()) {
    out += pad;
    std::size_t width = 0;
    if (j.is_object()) {
      const std::string k = detail::dump(Json(key), -1) + ": ";
      out += k;
      width = k.size();
    }
    pretty(value, indent + 2, width, out);
    out += ++i < j.size() ? ",\n" : "\n";
  }
  out += std::string(indent, ' ') + (j.is_array() ? "]" : "}");
}

std::string pretty(const Json& j) {
  std::string out;
  pretty(j, 0, 0, out);
  return out + "\n";
}

// Variant and model axes of `space` that equal the ones `original` defines keep the original
// text (preset ids rather than inlined objects).
void keep_original_axes(Json& section, const Json& original_section, const search::Space& space,
                        const search::Space& original) {
  const auto find_axis = [](const search::Space& s, std::string_view knob) -> int {
    for (std::size_t a = 0; a < s.hardware.size(); ++a)
      if (s.hardware[a].knob == knob) return static_cast<int>(a);
    return -1;
  };
  const auto same_variants = [&](const search::HardwareAxis& a, const search::HardwareAxis& b) {
    if (a.values != b.values) return false;
    for (double v : a.values) {
      const auto i = static_cast<std::size_t>(v);
      if (!(v >= 0) || i >= space.variants.size() || i >= original.variants.size()) return false;
      const auto &x = space.variants[i], &y = original.variants[i];
      if (x.name != y.name || hardware_to_json(x.hardware) != hardware_to_json(y.hardware) ||
          system_to_json(x.system) != system_to_json(y.system) ||
          x.runtime.has_value() != y.runtime.has_value() ||
          (x.runtime && detail::dump(detail::write_value(*x.runtime), -1) !=
                            detail::dump(detail::write_value(*y.runtime), -1)))
        return false;
    }
    return true;
  };
  const auto same_models = [&](const search::HardwareAxis& a, const search::HardwareAxis& b) {
    if (a.values != b.values) return false;
    for (double v : a.values) {
      const auto i = static_cast<std::size_t>(v);
      if (!(v >= 0) || i >= space.models.size() || i >= original.models.size()) return false;
      if (model_to_json(space.models[i]) != model_to_json(original.models[i])) return false;
    }
    return true;
  };
  const auto orig_hw = original_section.find("hardware");
  if (orig_hw == original_section.end() || !orig_hw->is_array()) return;
  for (std::string_view knob : {"variant", "model"}) {
    const int mine = find_axis(space, knob), theirs = find_axis(original, knob);
    if (mine < 0 || theirs < 0 || static_cast<std::size_t>(theirs) >= orig_hw->size()) continue;
    const auto &a = space.hardware[static_cast<std::size_t>(mine)],
               &b = original.hardware[static_cast<std::size_t>(theirs)];
    if (knob == "variant" ? same_variants(a, b) : same_models(a, b))
      section["hardware"][static_cast<std::size_t>(mine)] =
          (*orig_hw)[static_cast<std::size_t>(theirs)];
  }
}

}  // namespace

std::vector<double> expand(const ValueRange& r) {
  return r.geometric() ? search::geometric_range(r.min, r.max, r.factor)
                       : search::linear_range(r.min, r.max, r.step);
}

std::optional<ValueRange> as_range(std::span<const double> values) {
  if (values.size() < kMinRangeValues) return std::nullopt;
  const double lo = values.front(), hi = values.back();
  // Candidates: the step or factor of the first two values rounded to what a person would
  // have typed (6, then 12 significant digits), the end likewise or exact. A list that only
  // a 17-digit step reproduces stays a list.
  const double step = values[1] - values[0];
  const double factor = values[0] != 0 ? values[1] / values[0] : 0;
  for (int digits : {6, 12}) {
    for (double end : {round_to(hi, digits), hi}) {
      if (factor > 1) {
        const ValueRange g{lo, end, 0, round_to(factor, digits)};
        if (expands_to(g, values)) return g;
      }
      if (step > 0) {
        const ValueRange l{lo, end, round_to(step, digits), 0};
        if (expands_to(l, values)) return l;
      }
    }
  }
  return std::nullopt;
}

std::string search_section_to_json(const search::Space& space, const search::RunOptions& run) {
  return pretty(section_json(space, run));
}

std::string canonical_space_text(const search::Space& space) {
  // The design without what names or describes it (a renamed project is the same space).
  Json design = detail::project_json(space.base);
  for (const char* k : {"name", "notes", "description"}) design.erase(k);
  Json j = Json::object();
  j["design"] = std::move(design);
  j["search"] = section_json(space, search::RunOptions{});
  return detail::dump(j, -1);
}

std::string search_project_to_json(const search::Space& space, const search::RunOptions& run) {
  Json root = detail::project_json(space.base);
  root["search"] = section_json(space, run);
  return pretty(root);
}

std::string replace_search_section(std::string_view project_text, const search::Space& space,
                                   const search::RunOptions& run, const PresetRegistry& presets) {
  Issues issues;
  auto root = detail::parse_json_text(project_text, "project", "", issues);
  if (!root) throw ConfigError(std::move(issues));
  if (!root->is_object())
    throw ConfigError({{"", "a project is a JSON object", detail::value_text(*root), "object"}});
  Json section = section_json(space, run);
  if (auto old = root->find("search"); old != root->end() && old->is_object()) {
    try {
      const SearchProject original = parse_search_project(project_text, presets);
      keep_original_axes(section, *old, space, original.space);
    } catch (const ConfigError&) {
      // the old section does not parse: nothing of it is worth keeping
    }
    if (auto notes = old->find("notes"); notes != old->end()) section["notes"] = *notes;
  }
  (*root)["search"] = std::move(section);
  return pretty(*root);
}

}  // namespace stackscope::io
