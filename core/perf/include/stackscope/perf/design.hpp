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

// The name a design gets when its device, model or device count is changed from what its own
// name describes: "<model> on <devices>x <device>" (names as the presets give them, else ids).
inline std::string described_name(const Design& d) {
  const std::string& model = d.model.name.empty() ? d.model.id : d.model.name;
  const std::string& device = d.hardware.name.empty() ? d.hardware.id : d.hardware.name;
  return model + " on " + std::to_string(d.system.devices) + "x " + device;
}

}  // namespace stackscope::perf
