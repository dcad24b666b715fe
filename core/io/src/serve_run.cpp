// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/io/serve_run.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

#include "stackscope/io/validation.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/wafer/run.hpp"

namespace stackscope::io {

namespace {

using json = nlohmann::ordered_json;

json pct_json(const serving::Percentiles& p) {
  return {{"mean", p.mean}, {"p50", p.p50}, {"p90", p.p90},
          {"p99", p.p99},   {"max", p.max}, {"count", p.count}};
}

const char* role_text(serving::Role role) {
  return role == serving::Role::prefill  ? "prefill"
         : role == serving::Role::decode ? "decode"
                                         : "co-located";
}

}  // namespace

std::string serve_run_json(const perf::Design& design, const runs::ServeRun& run,
                           const std::string& source) {
  const serving::SimResult& r = run.result;
  const serving::SchedulerConfig& sched = run.scheduler;
  const auto& pools = run.pools;
  int instances = 0;
  for (const auto& p : pools) instances += p.count;
  const int devices = pools.empty() ? 0 : pools.front().devices;
  const long long kv_blocks = pools.empty() ? 0 : pools.front().kv_blocks;
  const std::size_t requests = run.requests;
  const std::string& layout = run.layout;
  const wafer::WaferRun* on_wafer = run.wafer ? &*run.wafer : nullptr;
  const bool partition_line = run.partition_chosen || on_wafer;
  json j;
  j["design"] = design.name;
  j["runtime"] = design.runtime.id;
  j["validation"] = json::parse(envelope_match_json(design));
  j["kernels"] = {{"table", design.hardware.kernel_times
                                ? json(design.hardware.kernel_table)
                                : json(nullptr)},
                  {"text", perf::kernel_source_text(design)}};
  j["source"] = source;
  j["instances"] = instances;
  j["devices_per_instance"] = devices;
  j["kv_blocks_per_instance"] = kv_blocks;
  j["scheduler"] = {{"max_num_seqs", sched.max_num_seqs},
                    {"max_num_batched_tokens", sched.max_num_batched_tokens},
                    {"chunked_prefill", sched.chunked_prefill},
                    {"mixed_batches", sched.mixed_batches},
                    {"overlap_scheduler", sched.overlap_scheduler},
                    {"block_size", sched.block_size}};
  j["requests"] = requests;
  j["completed"] = r.completed;
  j["rejected"] = r.rejected;
  auto& jr = j["rejected_by"] = json::object();
  for (std::size_t k = 1; k < serving::kRejectionKinds; ++k)
    jr[serving::key(static_cast<serving::Rejection>(k))] = r.rejected_by[k];
  j["makespan_s"] = r.makespan_s;
  j["input_tokens_per_s"] = r.input_tokens_per_s;
  j["output_tokens_per_s"] = r.output_tokens_per_s;
  j["requests_per_s"] = r.requests_per_s;
  j["goodput_rps"] = r.goodput_rps;
  j["slo_attainment"] = r.slo_attainment;
  j["energy_per_output_token_J"] = r.energy_per_output_token_J;
  j["iterations"] = r.iterations;
  j["layout"] = layout;
  if (partition_line)
    j["partition"] = {{"mode", run.partition_chosen ? "auto" : "given"},
                      {"text", run.partition_text},
                      {"prefill", run.partition.prefill},
                      {"decode", run.partition.decode},
                      {"note", run.partition_note}};
  if (on_wafer) {
    const auto b = wafer::busiest_link(on_wafer->wafer, r.makespan_s);
    const auto& l = on_wafer->wafer.layout;
    // Power of the whole wafer (wafer/run.hpp): the instances' and every idle die's static.
    const double power = on_wafer->power_W;
    j["wafer"] = {
        {"dies_x", l.dies_x},
        {"dies_y", l.dies_y},
        {"usable_dies", l.usable_dies},
        {"spare_dies", l.dies - l.usable_dies},
        {"wafer_yield", l.wafer_yield},
        // The figures above are those of a wafer that works; per wafer made, only the
        // yield's share of them serves (the rest has a defective die and no spare for it).
        {"expected_goodput_rps", r.goodput_rps * l.wafer_yield},
        {"power_W", power},
        {"goodput_per_kW", power > 0 ? 1e3 * r.goodput_rps / power : 0.0},
        {"map", wafer::die_map_rows(on_wafer->wafer, run.partition.prefill)},
        {"borrowed_kv_blocks", on_wafer->wafer.borrowed_blocks},
        {"busiest_link",
         {{"from", b.from}, {"to", b.to}, {"bytes", b.bytes}, {"utilisation", b.utilisation}}}};
  }
  auto& jp = j["pools"] = json::array();
  for (const auto& p : pools)
    jp.push_back({{"role", role_text(p.role)},
                  {"plan", p.plan},
                  {"instances", p.count},
                  {"devices_per_instance", p.devices},
                  {"kv_blocks_per_instance", p.kv_blocks},
                  {"max_num_seqs", p.scheduler.max_num_seqs},
                  {"max_num_batched_tokens", p.scheduler.max_num_batched_tokens}});
  j["kv_transfers"] = r.kv_transfers;
  j["kv_transfer_bytes"] = r.kv_transfer_bytes;
  j["kv_transfer_energy_J"] = r.kv_transfer_energy_J;
  j["kv_transfer_s"] = pct_json(r.kv_transfer_s);
  j["ttft_s"] = pct_json(r.ttft);
  j["tpot_s"] = pct_json(r.tpot);
  j["itl_s"] = pct_json(r.itl);
  j["e2e_s"] = pct_json(r.e2e);
  j["queue_s"] = pct_json(r.queue);
  auto& js = j["per_instance"] = json::array();
  for (const auto& s : r.instances)
    js.push_back({{"name", s.name},
                  {"requests", s.requests},
                  {"iterations", s.iterations},
                  {"preemptions", s.preemptions},
                  {"busy_fraction", r.makespan_s > 0 ? s.busy_s / r.makespan_s : 0.0},
                  {"kv_peak_utilisation", s.kv_peak_utilisation},
                  {"energy_J", s.energy_J},
                  {"idle_energy_J", s.idle_energy_J},
                  {"average_power_W", r.makespan_s > 0 ? s.energy_J / r.makespan_s : 0.0}});
  return j.dump(2);
}

std::string per_request_csv(const serving::SimResult& r) {
  std::ostringstream s;
  s << "id,instance,arrival_s,input_tokens,output_tokens,first_scheduled_s,first_token_s,"
       "finish_s,ttft_s,tpot_s,e2e_s,preemptions,rejected\n";
  s.precision(9);
  for (const auto& q : r.requests) {
    s << q.id << ',' << q.instance << ',' << q.arrival_s << ',' << q.input_tokens << ','
      << q.output_tokens << ',';
    if (q.done())
      s << q.first_scheduled_s << ',' << q.first_token_s << ',' << q.finish_s << ',' << q.ttft_s()
        << ',' << q.tpot_s() << ',' << q.e2e_s();
    else
      s << ",,,,,";
    s << ',' << q.preemptions << ','
      << (q.rejected == serving::Rejection::none ? "" : serving::to_string(q.rejected)) << '\n';
  }
  return s.str();
}

}  // namespace stackscope::io
