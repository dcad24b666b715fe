// SPDX-License-Identifier: GPL-3.0-or-later
// The CLI's --json document for one evaluation (format documented in project.hpp).
#include <algorithm>
#include <limits>
#include <vector>

#include "json_detail.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/validation.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/power_area/energy.hpp"

namespace stackscope::io {

using detail::Json;
using detail::write_value;

namespace {

Json phase_json(const perf::PhaseBreakdown& p) {
  Json j = Json::object();
  j["time_s"] = write_value(p.time_s);
  Json ops = Json::object();
  for (std::size_t i = 0; i < perf::kOpClasses; ++i)
    ops[std::string(perf::to_string(static_cast<perf::OpClass>(i)))] = write_value(p.op_s[i]);
  j["ops"] = std::move(ops);
  Json resources = Json::object();
  for (std::size_t i = 0; i < perf::kResources; ++i)
    resources[std::string(perf::to_string(static_cast<perf::Resource>(i)))] =
        write_value(p.resource_s[i]);
  j["resources"] = std::move(resources);
  j["flops"] = write_value(p.flops);
  j["dram_bytes"] = write_value(p.dram_bytes);
  j["comm_bytes"] = write_value(p.comm_bytes);
  // On-die mesh traffic in compute/noc.hpp's pattern terms (bytes per device).
  j["noc"] = {{"x_link_bytes", write_value(p.noc.x_link_bytes)},
              {"y_link_bytes", write_value(p.noc.y_link_bytes)},
              {"uniform_bytes", write_value(p.noc.uniform_bytes)},
              {"edge_bytes", write_value(p.noc.edge_bytes)}};
  j["energy_J"] = write_value(p.energy_J);
  j["power_W"] = write_value(p.power_W);
  j["clock_scale"] = write_value(p.clock_scale);
  return j;
}

// Relative error of the analytic time against the reference; null (non-finite) without one.
Json relative_error(double analytic, double reference) {
  return write_value(reference > 0 ? analytic / reference - 1.0
                                   : std::numeric_limits<double>::quiet_NaN());
}

Json links_json(const perf::Design& design, const perf::NetworkReport& report, int& idle) {
  std::vector<const perf::LinkUse*> busy;
  for (const auto& l : report.links)
    if (l.decode_bytes > 0 || l.prefill_bytes > 0) busy.push_back(&l);
  idle = static_cast<int>(report.links.size() - busy.size());
  // Busiest first; ties (e.g. the symmetric links of a ring) keep topology order so the
  // document is deterministic.
  std::stable_sort(busy.begin(), busy.end(), [](const perf::LinkUse* a, const perf::LinkUse* b) {
    if (a->decode_utilisation != b->decode_utilisation)
      return a->decode_utilisation > b->decode_utilisation;
    return a->prefill_utilisation > b->prefill_utilisation;
  });
  const auto& levels = design.system.levels;
  Json links = Json::array();
  for (const auto* l : busy) {
    Json e = Json::object();
    e["from"] = l->from_name;
    e["to"] = l->to_name;
    e["level"] = l->level;
    e["level_name"] = l->level >= 0 && static_cast<std::size_t>(l->level) < levels.size()
                          ? levels[static_cast<std::size_t>(l->level)].name
                          : std::string();
    e["bytes"] = write_value(l->decode_bytes);
    e["utilisation"] = write_value(l->decode_utilisation);
    e["prefill_bytes"] = write_value(l->prefill_bytes);
    e["prefill_utilisation"] = write_value(l->prefill_utilisation);
    links.push_back(std::move(e));
  }
  return links;
}

Json reference_json(const perf::Result& result, const perf::NetworkReport& r) {
  Json j = Json::object();
  j["decode_comm_analytic_s"] = write_value(r.decode_comm_analytic_s);
  j["decode_comm_reference_s"] = write_value(r.decode_comm_reference_s);
  j["decode_comm_error"] = relative_error(r.decode_comm_analytic_s, r.decode_comm_reference_s);
  j["prefill_comm_analytic_s"] = write_value(r.prefill_comm_analytic_s);
  j["prefill_comm_reference_s"] = write_value(r.prefill_comm_reference_s);
  j["prefill_comm_error"] = relative_error(r.prefill_comm_analytic_s, r.prefill_comm_reference_s);
  j["ttft_s"] = write_value(result.metrics.ttft_s);
  j["ttft_reference_s"] = write_value(r.ttft_reference_s);
  j["tpot_s"] = write_value(result.metrics.tpot_s);
  j["tpot_reference_s"] = write_value(r.tpot_reference_s);
  return j;
}

Json result_document(const perf::Design& design, const perf::Result& result) {
  Json j = Json::object();
  j["design"] = design.name;
  // Which software the figures assume (core/runtime): results under two profiles are not
  // comparable as hardware.
  j["runtime"] = design.runtime.id;
  // How well designs of this kind are validated (docs/validation.md §6).
  j["validation"] = Json::parse(envelope_match_json(design));
  j["feasible"] = result.feasible;
  Json reasons = Json::array();
  for (auto& r : perf::describe(result.reasons)) reasons.push_back(std::move(r));
  j["reasons"] = std::move(reasons);
  j["batch"] = result.batch;
  j["clock_scale"] = write_value(result.clock_scale);

  const auto& m = result.metrics;
  Json metrics = Json::object();
  metrics["ttft_s"] = write_value(m.ttft_s);
  metrics["tpot_s"] = write_value(m.tpot_s);
  metrics["utps"] = write_value(m.utps);
  metrics["stps"] = write_value(m.stps);
  metrics["e2e_output_tokens_per_s"] = write_value(m.e2e_output_tokens_per_s);
  metrics["energy_per_token_j"] = write_value(m.energy_per_token_j);
  metrics["prefill_energy_per_token_j"] = write_value(m.prefill_energy_per_token_j);
  metrics["decode_energy_per_token_j"] = write_value(m.decode_energy_per_token_j);
  metrics["power_w"] = write_value(m.power_w);
  metrics["memory_bytes_per_device"] = write_value(m.memory_bytes_per_device);
  j["metrics"] = std::move(metrics);

  const auto& f = result.memory;
  Json memory = Json::object();
  memory["weights"] = write_value(f.weights);
  memory["kv_cache"] = write_value(f.kv_cache);
  memory["activations"] = write_value(f.activations);
  memory["reserved"] = write_value(f.reserved);
  memory["capacity"] = write_value(f.capacity);
  memory["total"] = write_value(f.total());
  j["memory"] = std::move(memory);

  const auto& a = result.area;
  Json area = Json::object();
  area["cores_mm2"] = write_value(a.cores);
  area["shared_sram_mm2"] = write_value(a.shared_sram);
  area["noc_mm2"] = write_value(a.noc);
  area["phy_mm2"] = write_value(a.phy);
  area["vertical_mm2"] = write_value(a.vertical);
  area["other_mm2"] = write_value(a.other);
  area["used_mm2"] = write_value(a.used);
  area["die_mm2"] = write_value(a.die);
  area["reticle_mm2"] = write_value(a.reticle);
  j["area"] = std::move(area);

  Json thermal = Json::object();
  thermal["modelled"] = result.thermal.modelled;
  if (result.thermal.modelled) {
    thermal["dram_peak_C"] = write_value(result.thermal.dram_peak_C);
    thermal["refresh_doubled"] = result.thermal.refresh_doubled;
    thermal["throttle"] = write_value(result.thermal.throttle);
    thermal["r_base_K_per_W"] = write_value(result.thermal.r_base_K_per_W);
    thermal["r_layer_K_per_W"] = write_value(result.thermal.r_layer_K_per_W);
  }
  j["thermal"] = std::move(thermal);

  // Decode-phase power per device by component, and per die / layer of the stack (logic die,
  // then bond k and DRAM die k from the logic die up), as core/perf/thermal_map lays it out.
  const auto& p = result.power;
  Json power = Json::object();
  power["phase"] = "decode";
  power["total_W"] = write_value(p.total_W);
  power["logic_dynamic_W"] = write_value(p.logic_dynamic_W);
  power["logic_static_W"] = write_value(p.logic_static_W);
  power["noc_W"] = write_value(p.noc_W);
  power["vertical_W"] = write_value(p.vertical_W);
  power["dram_access_W"] = write_value(p.dram_access_W);
  power["dram_background_W"] = write_value(p.dram_background_W);
  Json layers = Json::array();
  layers.push_back({{"name", "logic"}, {"W", write_value(p.logic_die_W())}});
  for (int k = 1; k <= p.dram_layers; ++k) {
    const std::string n = std::to_string(k);
    layers.push_back({{"name", "bond" + n}, {"W", write_value(p.bond_W(k))}});
    layers.push_back({{"name", "dram" + n}, {"W", write_value(p.dram_die_W(k))}});
  }
  power["layers"] = std::move(layers);
  j["power"] = std::move(power);

  Json breakdown = Json::object();
  breakdown["prefill"] = phase_json(result.prefill);
  breakdown["decode"] = phase_json(result.decode);
  // The logic clock each phase ran at (DVFS under the power cap, docs/model.md §13.2).
  breakdown["prefill"]["clock_MHz"] =
      write_value(power_area::reported_clock_MHz(design.hardware, result.prefill.clock_scale));
  breakdown["decode"]["clock_MHz"] =
      write_value(power_area::reported_clock_MHz(design.hardware, result.decode.clock_scale));
  j["breakdown"] = std::move(breakdown);
  // The measured kernel table in use (docs/model.md §3.5) and the kernels each phase took from it.
  const auto phase_kernels = [](const perf::PhaseBreakdown& phase) {
    return Json{{"kernels", phase.kernels}, {"measured", phase.measured_kernels}};
  };
  j["kernels"] = {{"table", design.hardware.kernel_times ? Json(design.hardware.kernel_table)
                                                         : Json(nullptr)},
                  {"prefill", phase_kernels(result.prefill)},
                  {"decode", phase_kernels(result.decode)},
                  {"text", perf::kernel_source_text(design, result)}};
  return j;
}

}  // namespace

std::string result_to_json(const perf::Design& design, const perf::Result& result, int indent) {
  // nlohmann: indent < 0 gives the compact one-line form.
  return detail::dump(result_document(design, result), indent < 0 ? -1 : indent);
}

std::string result_to_json(const perf::Design& design, const perf::Result& result,
                           const NetworkJson& network, int indent) {
  Json j = result_document(design, result);
  if (network.report != nullptr) {
    if (network.links) {
      int idle = 0;
      j["links"] = links_json(design, *network.report, idle);
      j["idle_links"] = idle;
    }
    if (network.reference_sim && network.report->reference_sim)
      j["reference_sim"] = reference_json(result, *network.report);
  }
  return detail::dump(j, indent < 0 ? -1 : indent);
}

}  // namespace stackscope::io
