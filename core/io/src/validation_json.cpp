// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/validation.hpp"

#include <nlohmann/json.hpp>

#include "stackscope/parallel/plan.hpp"

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
                            const std::vector<RowCheck>& serving_checks) {
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

}  // namespace stackscope::io
