// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/network_json.hpp"

#include <nlohmann/json.hpp>

namespace stackscope::io {

std::string collective_json(const CollectiveReport& r) {
  using json = nlohmann::ordered_json;
  json j;
  j["system"] = r.system;
  j["op"] = r.op;
  j["bytes"] = r.bytes;
  j["group"] = r.group;
  j["placement"] = r.placement;
  j["ranks"] = r.ranks;
  j["time_s"] = r.time_s;
  j["algorithm"] = r.algorithm;
  j["bus_GBps"] = r.bus_GBps;
  j["alg_GBps"] = r.alg_GBps;
  j["steps"] = r.steps;
  auto links = json::array();
  for (const auto& l : r.links)
    links.push_back({{"from", l.from},
                     {"to", l.to},
                     {"level", l.level},
                     {"level_name", l.level_name},
                     {"bytes", l.bytes},
                     {"utilisation", l.utilisation}});
  j["links"] = std::move(links);
  j["idle_links"] = r.idle_links;
  if (r.reference_time_s) {
    const double ref = *r.reference_time_s;
    j["reference_time_s"] = ref;
    j["reference_error"] = ref > 0 ? json(r.time_s / ref - 1.0) : json(nullptr);
  }
  return j.dump(2);
}

}  // namespace stackscope::io
