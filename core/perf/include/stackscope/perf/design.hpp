// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A design point = a project: hardware + system + model + workload + parallel plan + the
// runtime profile (the serving software's part, core/runtime).
#include <optional>
#include <string>

#include "stackscope/hw/hardware.hpp"
#include "stackscope/hw/wafer.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/runtime/profile.hpp"
#include "stackscope/workload/model.hpp"

namespace stackscope::perf {

// 2: the runtime profile (kernel efficiencies, launch, KV re-reads) left hardware.compute.
inline constexpr int kSchemaVersion = 2;

struct Design {
  int schema_version = kSchemaVersion;
  std::string name;
  hw::Hardware hardware;
  hw::System system;
  workload::Model model;
  workload::Workload workload;
  parallel::Plan parallel;
  runtime::Profile runtime;
  // A wafer-scale design: `hardware` is then one die and `system` the wafer's D2D
  // mesh, both derived by hw::apply_wafer() from this template (io does it on load; whoever
  // edits the wafer calls it again).
  std::optional<hw::Wafer> wafer;
};

}  // namespace stackscope::perf
