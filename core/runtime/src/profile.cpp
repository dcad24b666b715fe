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
  return device_dispatch_s(die, noc) + p.kernel_gap_us * kMicro +
         (p.graph_capture ? 0.0 : p.host_launch_us * kMicro);
}
}  // namespace

double op_overhead_s(const Profile& p, const hw::ComputeDie& die, const hw::Noc& noc) {
  return p.kernels_per_op * kernel_overhead_s(p, die, noc);
}

double collective_overhead_s(const Profile& p, const hw::ComputeDie& die, const hw::Noc& noc) {
  return p.collective_is_kernel ? kernel_overhead_s(p, die, noc) : 0.0;
}

std::span<const std::string_view> numeric_field_names() {
  static constexpr std::string_view kNames[] = {"matmul_efficiency",
                                                "matmul_efficiency_fp4",
                                                "attention_efficiency",
                                                "decode_kv_reread_fraction",
                                                "kernels_per_op",
                                                "host_launch_us",
                                                "eager_launch_us",
                                                "kernel_gap_us",
                                                "iteration_overhead_us",
                                                "request_latency_us",
                                                "memory_reserved_GiB",
                                                "mixed_iteration_efficiency",
                                                "elementwise_traffic"};
  return kNames;
}

double* numeric_field(Profile& p, std::string_view key) {
  if (key == "matmul_efficiency") return &p.matmul_efficiency;
  if (key == "matmul_efficiency_fp4") return &p.matmul_efficiency_fp4;
  if (key == "attention_efficiency") return &p.attention_efficiency;
  if (key == "decode_kv_reread_fraction") return &p.decode_kv_reread_fraction;
  if (key == "kernels_per_op") return &p.kernels_per_op;
  if (key == "host_launch_us") return &p.host_launch_us;
  if (key == "eager_launch_us") return &p.eager_launch_us;
  if (key == "kernel_gap_us") return &p.kernel_gap_us;
  if (key == "iteration_overhead_us") return &p.iteration_overhead_us;
  if (key == "request_latency_us") return &p.request_latency_us;
  if (key == "memory_reserved_GiB") return &p.memory_reserved_GiB;
  if (key == "mixed_iteration_efficiency") return &p.mixed_iteration_efficiency;
  if (key == "elementwise_traffic") return &p.elementwise_traffic;
  return nullptr;
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
