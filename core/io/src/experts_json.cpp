// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/experts_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <vector>

#include "stackscope/common/units.hpp"
#include "stackscope/lp/lp.hpp"

namespace stackscope::io {

std::string expert_comparison_json(const std::string& model_id, const experts::CompareConfig& cfg,
                                   const std::string& fit, const std::string& eval,
                                   const experts::CompareResult& r) {
  using json = nlohmann::ordered_json;
  using experts::Strategy;
  const std::vector<Strategy> over = {Strategy::tp, Strategy::ep, Strategy::balanced};
  json j;
  j["model"] = model_id;
  j["experts"] = r.experts;
  j["top_k"] = r.top_k;
  j["moe_layers"] = r.moe_layers;
  j["mesh"] = {{"x", cfg.mesh.x},
               {"y", cfg.mesh.y},
               {"node_TFLOPS", cfg.mesh.node_flops / units::kTera},
               {"link_GBps", cfg.mesh.link_Bps / units::kGiga},
               {"mem_GBps", cfg.mesh.mem_Bps / units::kGiga},
               {"alpha_s", cfg.mesh.alpha_s}};
  j["batch"] = cfg.batch;
  j["batches"] = cfg.batches;
  j["fit"] = fit;
  j["eval"] = eval;
  j["layers"] = r.layers;
  j["non_moe_s_per_layer"] = r.non_moe_s;
  j["eplb_redundant"] = r.eplb_redundant;
  auto& js = j["strategies"] = json::array();
  for (const auto& o : r.strategies) {
    json s;
    s["strategy"] = std::string(experts::to_string(o.strategy));
    s["moe_s"] = o.moe_s;
    s["end_to_end_s"] = o.end_to_end_s;
    s["imbalance"] = o.imbalance;
    s["busiest_link_utilisation"] = o.link_utilisation;
    s["surrogate_error"] = o.surrogate_error;
    auto& ls = s["layers"] = json::array();
    for (const auto& l : o.layers)
      ls.push_back({{"layer", l.layer},
                    {"time_s", l.time_s},
                    {"imbalance", l.imbalance},
                    {"busiest_link_utilisation", l.link_utilisation},
                    {"link_bytes", l.link_bytes},
                    {"surrogate_s", l.surrogate_s},
                    {"broadcast_bytes", l.broadcast_bytes},
                    {"exposed_broadcast_s", l.exposed_broadcast_s},
                    {"shadowed", l.shadowed}});
    json sp = json::object();
    for (const auto b : over)
      if (const auto x = r.speedup(o.strategy, b)) sp[std::string(experts::to_string(b))] = *x;
    s["speedup_over"] = sp;
    js.push_back(s);
  }
  auto& hd = j["hd_node_balance"] = json::array();
  for (const auto& h : r.hd)
    hd.push_back({{"layer", h.layer},
                  {"status", std::string(lp::to_string(h.status))},
                  {"gap", std::isfinite(h.gap) ? json(h.gap) : json()},
                  {"seconds", h.seconds},
                  {"warm_start", h.warm_start},
                  {"chosen", h.chosen},
                  {"milp_fit_s", h.milp_fit_s},
                  {"chosen_fit_s", h.chosen_fit_s},
                  {"linked_fit_s", h.linked_fit_s},
                  {"link_accepted", h.link_accepted},
                  {"split_experts", h.split_experts},
                  {"sets", h.sets},
                  {"set_coverage", h.set_coverage}});
  return j.dump(2);
}

}  // namespace stackscope::io
