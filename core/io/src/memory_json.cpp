// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/memory_json.hpp"

#include <nlohmann/json.hpp>

#include "stackscope/common/units.hpp"

namespace stackscope::io {
namespace {

constexpr double kGB = units::kGiga;  // decimal GB/s, as datasheets quote bandwidths

}  // namespace

std::string dram_bandwidth_json(const hw::Hardware& hardware, const std::string& pattern,
                                double temperature_C, const memory::DramBandwidth& bw,
                                const std::optional<DramReference>& reference) {
  nlohmann::ordered_json j;
  j["memory"] = hardware.id;
  j["name"] = hardware.name;
  j["pattern"] = pattern;
  j["temperature_C"] = temperature_C;
  j["effective_GBps"] = bw.effective_Bps / kGB;
  j["peak_GBps"] = bw.peak_Bps / kGB;
  j["eta"] = bw.eta;
  j["row_limited_GBps"] = bw.row_limited_Bps / kGB;
  j["activation_GBps"] = bw.activation_Bps / kGB;
  j["buffering_GBps"] = bw.buffering_Bps / kGB;
  j["sram_GBps"] = bw.sram_Bps / kGB;
  j["refresh_overhead"] = bw.refresh_overhead;
  j["bound"] = std::string(memory::to_string(bw.bound));
  if (reference) {
    j["dram_limit_GBps"] = reference->dram_limit_Bps / kGB;
    j["reference_GBps"] = reference->simulated.effective_Bps / kGB;
    j["reference_error"] = reference->error;
    j["reference_row_hit_rate"] = reference->simulated.row_hit_rate;
    j["reference_refresh_share"] = reference->simulated.refresh_share;
    j["reference_banks_per_channel"] = reference->simulated.banks_per_channel;
  }
  return j.dump(2);
}

std::string dram_agreement_json(const std::vector<memory::AgreementRow>& rows, double tolerance,
                                double worst_abs_error, int rows_over_tolerance) {
  nlohmann::ordered_json j;
  j["tolerance"] = tolerance;
  j["worst_abs_error"] = worst_abs_error;
  j["rows_over_tolerance"] = rows_over_tolerance;
  auto& list = j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : rows)
    list.push_back({{"memory", r.memory},
                    {"pattern", r.pattern},
                    {"model_GBps", r.model_Bps / kGB},
                    {"reference_GBps", r.reference_Bps / kGB},
                    {"error", r.error}});
  return j.dump(2);
}

}  // namespace stackscope::io
