// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One partition of a wafer serving a request stream, with what the Wafer view, `serve` and the
// co-exploration report about it (docs/model.md §15.2): the simulation, each die's role
// and busy fraction, each D2D link's load, and the whole wafer's power.
//
// Power of the wafer (W): the instances' mean power over the run (their iteration and idle
// energy, serving/simulator.hpp, divided by the makespan) plus the static power of every die
// no instance holds (lenders, spares and unused dies are powered but idle). Goodput per kW =
// 1000 x goodput_rps / power_W.
#include <span>
#include <string>
#include <vector>

#include "stackscope/perf/design.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/serving/simulator.hpp"
#include "stackscope/serving/spec.hpp"
#include "stackscope/wafer/partition.hpp"

namespace stackscope::wafer {

enum class DieRole { prefill, decode, lender, idle, spare };
const char* to_string(DieRole r);

struct WaferRun {
  WaferDeployment wafer;  // links() hold the run's link bytes afterwards
  serving::SimResult result;
  std::vector<DieRole> role;  // per die (row-major)
  std::vector<double> busy;   // per die: its instance's busy fraction of the makespan, else 0
  std::vector<double> link_utilisation;  // per directed link: bytes / (bandwidth x makespan)
  int used_dies = 0;                     // dies that belong to an instance
  double power_W = 0;
  double goodput_per_kW = 0;
};

// The whole-wafer power of a finished run (above).
double wafer_power_W(const WaferDeployment& wafer, const serving::SimResult& result,
                     const perf::Design& design);

// The wafer's die grid as text, top row first, 4 characters a die: P<i> prefill instance i,
// D<j> decode instance j (indices within their role), b<j> an idle die lending its memory to
// decode j, "." idle, "x" spare. `prefill` is the partition's prefill instance count.
std::vector<std::string> die_map_rows(const WaferDeployment& wafer, int prefill);

// The busiest directed D2D link of a finished run: its end nodes, the bytes it carried and the
// share of the makespan it was busy (bytes / bandwidth / makespan).
struct BusiestLink {
  std::string from, to;
  double bytes = 0, utilisation = 0;
};
BusiestLink busiest_link(const WaferDeployment& wafer, double makespan_s);

// deploy() then serving::simulate(). Throws std::invalid_argument as deploy() does. `options`,
// when given, supplies the stop token, progress callback and timeline size, and any finite SLO
// it holds replaces the deployment's (an exact SLO of 0 s is one nothing meets).
WaferRun run_on_wafer(const perf::Design& design, const serving::ServingSpec& spec,
                      const Partition& partition, std::span<const serving::Request> requests,
                      const serving::SimOptions* options = nullptr);

}  // namespace stackscope::wafer
