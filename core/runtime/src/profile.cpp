// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/runtime/profile.hpp"

#include <algorithm>

namespace stackscope::runtime {
namespace {
constexpr double kNano = 1e-9;
constexpr double kMicro = 1e-6;
}  // namespace

double mesh_barrier_s(const hw::Noc& noc) {
  const int hops = std::max(0, noc.mesh_x - 1) + std::max(0, noc.mesh_y - 1);
  return 2.0 * hops * noc.hop_latency_ns * kNano;
}

double device_dispatch_s(const hw::ComputeDie& die, const hw::Noc& noc) {
  return die.op_dispatch_ns * kNano + mesh_barrier_s(noc);
}

namespace {
double kernel_overhead_s(const Profile& p, const hw::ComputeDie& die, const hw::Noc& noc) {
  return device_dispatch_s(die, noc) + (p.graph_capture ? 0.0 : p.host_launch_us * kMicro);
}
}  // namespace

double op_overhead_s(const Profile& p, const hw::ComputeDie& die, const hw::Noc& noc) {
  return p.kernels_per_op * kernel_overhead_s(p, die, noc);
}

double collective_overhead_s(const Profile& p, const hw::ComputeDie& die, const hw::Noc& noc) {
  return p.collective_is_kernel ? kernel_overhead_s(p, die, noc) : 0.0;
}

const char* to_string(DeviceClass c) {
  switch (c) {
    case DeviceClass::gpu: return "gpu";
    case DeviceClass::accelerator: return "accelerator";
    case DeviceClass::any: return "any";
  }
  return "any";
}

const char* default_profile_id(DeviceClass c) {
  return c == DeviceClass::gpu ? kModernGpuProfileId : kAcceleratorProfileId;
}

DeviceClass device_class_of(const hw::Hardware& hardware) {
  return hardware.memory.kind == hw::MemoryKind::hbm ? DeviceClass::gpu : DeviceClass::accelerator;
}

}  // namespace stackscope::runtime
