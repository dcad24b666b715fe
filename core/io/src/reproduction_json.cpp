// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/reproduction.hpp"

#include <nlohmann/json.hpp>

namespace stackscope::io {
namespace {

using json = nlohmann::ordered_json;

json point_json(const repro::Point& p) {
  return {{"valid", p.valid},
          {"feasible", p.feasible},
          {"stps", p.stps},
          {"tpot_s", p.tpot_s},
          {"plan", p.plan},
          {"hardware", p.hardware},
          {"infeasible", p.infeasible},
          {"note", p.note},
          {"area_over_die", p.area_over_die},
          {"decode_shares",
           {{"compute", p.compute_share},
            {"dram", p.dram_share},
            {"network", p.network_share},
            {"overhead", p.overhead_share}}}};
}

json curve_json(const std::vector<repro::StackPoint>& c) {
  auto a = json::array();
  for (const auto& p : c)
    a.push_back({{"layers", p.layers},
                 {"cores", p.cores},
                 {"bw_GBps", p.bw_GBps},
                 {"bound", p.bound},
                 {"fits", p.fits},
                 {"stps", p.stps}});
  return a;
}

}  // namespace

std::string reproduction_json(const repro::Report& r) {
  json j;
  j["runtime"] = r.runtime;
  j["alt_runtime"] = r.alt_runtime;
  auto& t4 = j["table4"] = json::array();
  for (std::size_t i = 0; i < r.table4.size(); ++i) {
    const auto& t = r.table4[i];
    t4.push_back({{"batch", t.batch},
                  {"step", t.step},
                  {"name", t.name},
                  {"paper_stps", t.paper_stps},
                  {"paper_config", t.paper_config},
                  {"paper_design", point_json(t.paper_design)},
                  {"paper_design_gain", repro::step_gain(r.table4, i, false)},
                  {"own", point_json(t.own)},
                  {"own_gain", repro::step_gain(r.table4, i, true)}});
  }
  j["stack_paper"] = curve_json(r.stack_paper);
  j["stack_own"] = curve_json(r.stack_own);
  auto& f16 = j["fig16"] = json::array();
  for (const auto& f : r.fig16)
    f16.push_back(
        {{"model", f.model_id},
         {"batch", f.batch},
         {"paper", {{"stacked", f.paper_3d}, {"h200", f.paper_h200}, {"h100", f.paper_h100}}},
         {"own",
          {{"stacked", point_json(f.own_3d)},
           {"h200", point_json(f.own_h200)},
           {"h100", point_json(f.own_h100)}}},
         {"alt",
          {{"stacked", point_json(f.alt_3d)},
           {"h200", point_json(f.alt_h200)},
           {"h100", point_json(f.alt_h100)}}}});
  return j.dump(2);
}

}  // namespace stackscope::io
