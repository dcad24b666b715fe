// SPDX-License-Identifier: GPL-3.0-or-later
// The CLI's --json document for one evaluation (format documented in project.hpp).
#include "json_detail.hpp"
#include "stackscope/io/project.hpp"

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
  j["energy_J"] = write_value(p.energy_J);
  return j;
}

}  // namespace

std::string result_to_json(const perf::Design& design, const perf::Result& result, int indent) {
  Json j = Json::object();
  j["design"] = design.name;
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

  Json breakdown = Json::object();
  breakdown["prefill"] = phase_json(result.prefill);
  breakdown["decode"] = phase_json(result.decode);
  j["breakdown"] = std::move(breakdown);
  // nlohmann: indent < 0 gives the compact one-line form.
  return detail::dump(j, indent < 0 ? -1 : indent);
}

}  // namespace stackscope::io
