// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/wafer/run.hpp"

#include <cmath>
#include <cstdio>

#include "stackscope/wafer/d2d_links.hpp"

namespace stackscope::wafer {

const char* to_string(DieRole r) {
  switch (r) {
    case DieRole::prefill: return "prefill";
    case DieRole::decode: return "decode";
    case DieRole::lender: return "lends KV memory";
    case DieRole::idle: return "idle";
    case DieRole::spare: return "spare";
  }
  return "?";
}

double wafer_power_W(const WaferDeployment& wafer, const serving::SimResult& result,
                     const perf::Design& design) {
  int used = 0;
  for (const int o : wafer.placement.die_owner) used += o >= 0;
  double power = (wafer.layout.dies - used) * design.hardware.energy.static_power_W;
  if (result.makespan_s > 0)
    for (const auto& s : result.instances) power += s.energy_J / result.makespan_s;
  return power;
}

std::vector<std::string> die_map_rows(const WaferDeployment& w, int np) {
  const int nx = w.layout.dies_x, ny = w.layout.dies_y;
  std::vector<std::string> rows;
  for (int y = ny - 1; y >= 0; --y) {
    std::string row;
    for (int x = 0; x < nx; ++x) {
      const auto d = static_cast<std::size_t>(y * nx + x);
      const int owner = w.placement.die_owner[d];
      // snprintf rather than "D" + std::to_string(): GCC 12 warns falsely (-Wrestrict) on the
      // inlined concatenation.
      char cell[16] = ".";
      if (owner == -2)
        std::snprintf(cell, sizeof cell, "x");
      else if (owner >= np)
        std::snprintf(cell, sizeof cell, "D%d", owner - np);
      else if (owner >= 0)
        std::snprintf(cell, sizeof cell, "P%d", owner);
      else if (w.lender_of[d] >= 0)
        std::snprintf(cell, sizeof cell, "b%d", w.lender_of[d] - np);
      const std::string c = cell;
      row += std::string(c.size() < 4 ? 4 - c.size() : 0, ' ') + c;
    }
    rows.push_back(row);
  }
  return rows;
}

BusiestLink busiest_link(const WaferDeployment& w, double makespan_s) {
  BusiestLink b;
  const auto& loads = w.links->link_bytes();
  const auto& links = w.links->topology().links();
  for (std::size_t i = 0; i < loads.size() && i < links.size(); ++i)
    if (loads[i] > b.bytes) {
      b.bytes = loads[i];
      b.from = w.links->topology().node_name(links[i].src);
      b.to = w.links->topology().node_name(links[i].dst);
      b.utilisation = makespan_s > 0 && links[i].bw_Bps > 0 ? loads[i] / links[i].bw_Bps / makespan_s : 0;
    }
  return b;
}

WaferRun run_on_wafer(const perf::Design& design, const serving::ServingSpec& spec,
                      const Partition& partition, std::span<const serving::Request> requests,
                      const serving::SimOptions* options) {
  WaferRun run;
  run.wafer = deploy(design, spec, partition);
  serving::Deployment& dep = run.wafer.deployment;
  serving::SimOptions opt = dep.options;
  if (options) {
    opt.stop = options->stop;
    opt.progress = options->progress;
    opt.max_timeline_points = options->max_timeline_points;
    if (std::isfinite(options->slo_ttft_s)) opt.slo_ttft_s = options->slo_ttft_s;
    if (std::isfinite(options->slo_tpot_s)) opt.slo_tpot_s = options->slo_tpot_s;
  }
  run.result = serving::simulate(requests, dep.instances, opt);
  const auto& owner = run.wafer.placement.die_owner;
  const double span = run.result.makespan_s;
  run.role.resize(owner.size(), DieRole::idle);
  run.busy.resize(owner.size(), 0.0);
  for (std::size_t d = 0; d < owner.size(); ++d) {
    const int o = owner[d];
    if (o == -2) {
      run.role[d] = DieRole::spare;
    } else if (o >= 0) {
      ++run.used_dies;
      run.role[d] = o < partition.prefill ? DieRole::prefill : DieRole::decode;
      const auto i = static_cast<std::size_t>(o);
      if (span > 0 && i < run.result.instances.size())
        run.busy[d] = run.result.instances[i].busy_s / span;
    } else if (run.wafer.lender_of[d] >= 0) {
      run.role[d] = DieRole::lender;
    }
  }
  const auto& bytes = run.wafer.links->link_bytes();
  const auto& links = run.wafer.links->topology().links();
  run.link_utilisation.resize(bytes.size(), 0.0);
  for (std::size_t i = 0; i < bytes.size() && i < links.size(); ++i)
    if (span > 0 && links[i].bw_Bps > 0)
      run.link_utilisation[i] = bytes[i] / links[i].bw_Bps / span;
  run.power_W = wafer_power_W(run.wafer, run.result, design);
  run.goodput_per_kW = run.power_W > 0 ? 1e3 * run.result.goodput_rps / run.power_W : 0;
  return run;
}

}  // namespace stackscope::wafer
