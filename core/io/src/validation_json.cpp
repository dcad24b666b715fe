// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/validation.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "stackscope/common/issue.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/presets/embedded.hpp"

namespace stackscope::io {
namespace {

using json = nlohmann::ordered_json;

json stats_json(const validate::ErrorStats& s) {
  return json{{"rows", s.rows}, {"mape", s.mape}, {"p90", s.p90}, {"max", s.max}};
}

std::string plan_text(const validate::Case& c) {
  std::string out;
  for (std::size_t i = 0; i < c.workers.size(); ++i) {
    const auto& w = c.workers[i];
    if (!out.empty()) out += " + ";
    if (c.workers.size() == 2) out += i == 0 ? "prefill " : "decode ";
    out += std::to_string(w.count) + " x " + parallel::short_text(w.design.parallel);
    if (w.design.parallel.moe.ep > 0)
      out += " moe tp" + std::to_string(w.design.parallel.moe.tp) + " ep" +
             std::to_string(w.design.parallel.moe.ep);
  }
  return out;
}

}  // namespace

std::string validation_json(const validate::Report& report,
                            const std::vector<RowCheck>& static_checks,
                            const std::vector<RowCheck>& serving_checks,
                            const std::vector<ExplainedCase>& explanations) {
  json j;
  j["inputs"] = report.inputs;
  j["fit_on"] = report.fit_on;
  j["hold_out"] = report.hold_out;
  json rows = json::array(), failed = json::array(), unmapped = json::array();
  for (const auto& r : report.results) {
    const validate::Case& c = report.cases.at(r.index);
    if (!c.unmapped.empty()) {
      unmapped.push_back({{"id", c.row.id}, {"origin", c.row.origin}, {"reason", c.unmapped}});
      continue;
    }
    if (!r.ran) {
      failed.push_back({{"id", c.row.id}, {"origin", c.row.origin}, {"reason", r.failure}});
      continue;
    }
    json row;
    row["id"] = c.row.id;
    row["origin"] = c.row.origin;
    row["partition"] = c.partition;
    row["group"] = validate::to_string(r.group);
    row["model_preset"] = c.model_preset;
    row["moe"] = c.moe;
    row["runtime"] = c.runtime;
    row["generator"] = validate::to_string(c.bench.generator);
    row["concurrency"] = c.bench.concurrency;
    row["requests"] = r.requests;
    row["plan"] = plan_text(c);
    row["isl"] = c.row.isl;
    row["osl"] = c.row.osl;
    row["measured"] = {{"ttft_ms", c.row.ttft_ms}, {"tpot_ms", c.row.tpot_ms}};
    row["predicted"] = {{"ttft_ms", r.ttft_ms}, {"tpot_ms", r.tpot_ms}};
    row["error"] = {{"ttft", r.ttft_err}, {"tpot", r.tpot_err}};
    row["notes"] = c.notes;
    rows.push_back(std::move(row));
  }
  j["rows"] = std::move(rows);
  j["failed"] = std::move(failed);
  j["unmapped"] = std::move(unmapped);
  json parts = json::array();
  for (const auto& p : report.stats)
    parts.push_back({{"partition", p.partition},
                     {"group", validate::to_string(p.group)},
                     {"ttft", stats_json(p.ttft)},
                     {"tpot", stats_json(p.tpot)}});
  j["partitions"] = std::move(parts);
  if (!explanations.empty()) {
    const auto phase = [](const validate::PhaseSplit& p) {
      json ops = json::object(), res = json::object();
      for (std::size_t k = 0; k < perf::kOpClasses; ++k)
        ops[std::string(perf::to_string(static_cast<perf::OpClass>(k)))] = p.op_ms[k];
      for (std::size_t k = 0; k < perf::kResources; ++k)
        res[std::string(perf::to_string(static_cast<perf::Resource>(k)))] = p.resource_ms[k];
      return json{{"time_ms", p.time_ms}, {"op_ms", std::move(ops)}, {"resource_ms", std::move(res)}};
    };
    const auto sim = [](const validate::CaseResult& r) {
      json o = {{"ran", r.ran}};
      if (r.ran) {
        o["ttft_ms"] = r.ttft_ms;
        o["tpot_ms"] = r.tpot_ms;
      } else {
        o["failure"] = r.failure;
      }
      return o;
    };
    json xs = json::array();
    for (const auto& x : explanations) {
      const validate::Case& c = report.cases.at(x.index);
      const auto& e = x.explanation;
      json pools = json::array();
      for (const auto& p : e.pools) {
        json o = {{"role", p.role},
                  {"plan", p.plan},
                  {"instances", p.instances},
                  {"decode_batch", p.decode_batch},
                  {"decode_context", p.decode_context},
                  {"prompt_tokens", p.prompt_tokens}};
        if (!p.failure.empty()) {
          o["failure"] = p.failure;
        } else {
          if (p.decode_batch > 0) {
            o["decode"] = phase(p.decode);
            o["baseline_decode"] = phase(p.base_decode);
          }
          o["prefill"] = phase(p.prefill);
          o["baseline_prefill"] = phase(p.base_prefill);
          o["prefill_iteration_ms"] = p.prefill_iteration_ms;
          o["prefill_host_floor_ms"] = p.prefill_host_floor_ms;
        }
        pools.push_back(std::move(o));
      }
      xs.push_back({{"id", c.row.id},
                    {"partition", c.partition},
                    {"group", validate::to_string(x.group)},
                    {"runtime", e.runtime},
                    {"baseline", e.baseline},
                    {"predicted", sim(e.now)},
                    {"baseline_predicted", sim(e.base)},
                    {"pools", std::move(pools)}});
    }
    j["explanations"] = std::move(xs);
  }
  const auto checks = [](const std::vector<RowCheck>& cs) {
    json a = json::array();
    for (const auto& c : cs)
      a.push_back({{"id", c.row.id},
                   {"metric", c.row.metric},
                   {"measured", c.row.value},
                   {"predicted", c.predicted},
                   {"error", c.error}});
    return a;
  };
  if (report.fit) {
    const auto& f = *report.fit;
    json fit;
    fit["profile"] = f.profile;
    fit["rows"] = f.rows;
    json axes = json::array();
    for (const auto& a : f.axes) axes.push_back({{"key", a.key}, {"values", a.values}});
    fit["axes"] = std::move(axes);
    json best = json::object();
    if (!f.points.empty())
      for (std::size_t i = 0; i < f.axes.size(); ++i)
        best[f.axes[i].key] = f.points[f.best].values[i];
    fit["best"] = std::move(best);
    json pts = json::array();
    for (const auto& p : f.points)
      pts.push_back({{"values", p.values},
                     {"objective", p.objective},
                     {"ttft", stats_json(p.ttft)},
                     {"tpot", stats_json(p.tpot)},
                     {"failed", p.failed}});
    fit["points"] = std::move(pts);
    j["fit"] = std::move(fit);
  }
  j["static_rows"] = checks(static_checks);
  j["serving_rows"] = checks(serving_checks);
  return j.dump(2) + "\n";
}

namespace {

validate::ErrorStats read_stats(const json& j, const std::string& where) {
  validate::ErrorStats s;
  try {
    // A whole number only: a float or negative row count would be cast, not refused.
    if (!j.at("rows").is_number_unsigned()) throw json::type_error::create(302, "rows", &j);
    s.rows = j.at("rows").get<std::size_t>();
    s.mape = j.at("mape").get<double>();
    s.p90 = j.at("p90").get<double>();
    s.max = j.at("max").get<double>();
  } catch (const json::exception&) {
    throw ConfigError({{where, "needs rows, mape, p90 and max", j.dump().substr(0, 80),
                        "numbers (errors as fractions)"}});
  }
  if (!(s.mape >= 0) || !(s.p90 >= 0) || !(s.max >= 0) || !std::isfinite(s.mape + s.p90 + s.max))
    throw ConfigError(
        {{where, "errors must be finite fractions >= 0", j.dump().substr(0, 80), ">= 0"}});
  return s;
}

}  // namespace

std::string envelope_json(const validate::Envelope& env) {
  json j;
  j["kind"] = "validation_envelope";
  j["schema_version"] = 1;
  j["note"] =
      "Written by stackscope-cli validate --envelope-out (docs/validation.md section 6); do not "
      "edit by hand: rerun the command.";
  j["command"] = env.command;
  j["inputs"] = env.inputs;
  json entries = json::array();
  for (const auto& e : env.entries)
    entries.push_back({{"hardware", e.hardware},
                       {"runtime", e.runtime},
                       {"moe", e.moe},
                       {"group", validate::to_string(e.group)},
                       {"ttft", stats_json(e.ttft)},
                       {"tpot", stats_json(e.tpot)}});
  j["entries"] = std::move(entries);
  return j.dump(2) + "\n";
}

validate::Envelope parse_envelope(std::string_view text, const std::string& name) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw ConfigError({{name, "not JSON", e.what(), "a validation envelope"}});
  }
  if (!j.is_object() || !j.contains("kind") || j["kind"] != "validation_envelope" ||
      !j.contains("entries") || !j["entries"].is_array())
    throw ConfigError({{name, "not a validation envelope", "",
                        "{\"kind\": \"validation_envelope\", \"entries\": [...]}"}});
  validate::Envelope env;
  if (j.contains("command") && j["command"].is_string()) env.command = j["command"];
  if (j.contains("inputs") && j["inputs"].is_array())
    for (const auto& i : j["inputs"])
      if (i.is_string()) env.inputs.push_back(i.get<std::string>());
  for (std::size_t k = 0; k < j["entries"].size(); ++k) {
    const json& e = j["entries"][k];
    const std::string where = name + "/entries/" + std::to_string(k);
    validate::EnvelopeEntry x;
    try {
      x.hardware = e.at("hardware").get<std::string>();
      x.runtime = e.at("runtime").get<std::string>();
      x.moe = e.at("moe").get<bool>();
      const std::string g = e.at("group").get<std::string>();
      if (g == "fitted")
        x.group = validate::Group::fitted;
      else if (g == "held out")
        x.group = validate::Group::held_out;
      else if (g == "reported")
        x.group = validate::Group::reported;
      else
        throw ConfigError({{where + "/group", "unknown group", g, "fitted, held out, reported"}});
    } catch (const json::exception&) {
      throw ConfigError({{where, "needs hardware, runtime (strings), moe (bool), group", "",
                          "see validate --envelope-out"}});
    }
    x.ttft = read_stats(e.contains("ttft") ? e["ttft"] : json::object(), where + "/ttft");
    x.tpot = read_stats(e.contains("tpot") ? e["tpot"] : json::object(), where + "/tpot");
    env.entries.push_back(std::move(x));
  }
  return env;
}

std::string envelope_match_json(const perf::Design& design) {
  const validate::EnvelopeMatch m = validate::match_envelope(builtin_envelope(), design);
  json j;
  j["kind"] = m.kind == validate::EnvelopeMatch::Kind::exact     ? "exact"
              : m.kind == validate::EnvelopeMatch::Kind::nearest ? "nearest"
                                                                 : "none";
  j["text"] = m.text;
  if (m.kind != validate::EnvelopeMatch::Kind::none) {
    j["hardware"] = m.entry.hardware;
    j["runtime"] = m.entry.runtime;
    j["moe"] = m.entry.moe;
    j["group"] = validate::to_string(m.entry.group);
    j["rows"] = m.entry.ttft.rows;
    j["ttft_mape"] = m.entry.ttft.mape;
    j["tpot_mape"] = m.entry.tpot.mape;
  }
  return j.dump();
}

const validate::Envelope& builtin_envelope() {
  static const validate::Envelope env = [] {
    for (const auto& f : presets::embedded_presets())
      if (f.path == "validation/envelope.json")
        return parse_envelope(f.text, "presets/validation/envelope.json");
    return validate::Envelope{};
  }();
  return env;
}

}  // namespace stackscope::io
