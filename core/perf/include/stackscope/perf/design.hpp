// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A design point = a project: hardware + system + model + workload + parallel plan.
#include <string>

#include "stackscope/hw/hardware.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/workload/model.hpp"

namespace stackscope::perf {

inline constexpr int kSchemaVersion = 1;

struct Design {
  int schema_version = kSchemaVersion;
  std::string name;
  hw::Hardware hardware;
  hw::System system;
  workload::Model model;
  workload::Workload workload;
  parallel::Plan parallel;
};

}  // namespace stackscope::perf
