// SPDX-License-Identifier: GPL-3.0-or-later
#include <nlohmann/json.hpp>

#include "stackscope/io/hotspot.hpp"

namespace stackscope::io {

std::string thermal_json(const HotspotModel& m, const thermal::Solution& s,
                         std::optional<double> compact_dram_peak_C) {
  nlohmann::ordered_json j;
  j["layers"] = nlohmann::ordered_json::array();
  for (std::size_t l = 0; l < s.layers.size(); ++l) {
    const auto& st = s.layers[l];
    j["layers"].push_back({{"index", l},
                           {"name", st.name},
                           {"max_C", st.max_C},
                           {"mean_C", st.mean_C},
                           {"min_C", st.min_C}});
  }
  j["hottest"] = {
      {"layer", s.hottest.layer}, {"block", s.hottest.block}, {"temperature_C", s.hottest.max_C}};
  j["grid"] = {{"rows", s.rows}, {"cols", s.cols}};
  j["total_power_W"] = s.total_power_W;
  j["ambient_C"] = m.stack.package.ambient_C;
  j["solve_seconds"] = s.solve_seconds;
  if (compact_dram_peak_C) j["compact_dram_peak_C"] = *compact_dram_peak_C;
  j["warnings"] = m.warnings;
  return j.dump(2);
}

}  // namespace stackscope::io
