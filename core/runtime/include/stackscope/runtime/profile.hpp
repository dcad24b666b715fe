// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runtime profiles (docs/model.md §9): what the serving software adds to or takes from the
// silicon, kept apart from the hardware so that two devices compared under one profile carry
// the same software assumptions. A profile is a plain aggregate; the named profiles are presets
// (presets/runtimes/*.json, each value sourced there). The device-side costs a profile's rules
// use (the front end's dispatch time, the on-die barrier) come from the hardware: a profile
// says *whether* an operator pays a host launch, the hardware says what its own dispatch and
// barrier cost.
#include <span>
#include <string>
#include <string_view>

#include "stackscope/hw/hardware.hpp"

namespace stackscope::runtime {

// The device class a profile's values were sourced for. A profile can be applied to any
// device (that is what a fair comparison does); the class is what the GUI and CLI flag when a
// profile is used outside it.
enum class DeviceClass { gpu, accelerator, any };

// Defaults are modern-gpu-2025's values (presets/runtimes/ sources them), so a design built in
// code without a registry is a current runtime, not an idealised one.
struct Profile {
  std::string id;
  std::string name;
  std::string source;  // where the values come from
  DeviceClass device_class = DeviceClass::any;
  // Achieved fraction of the matrix peak on large, well-shaped GEMMs (the kernel library's
  // quality, calibrated on the measured rows in data/trtllm-measured).
  double matmul_efficiency = 0.7;
  // The same for FP4 GEMMs (block-scaled NVFP4/MXFP4 on Blackwell), which libraries reach a
  // smaller share of than 8- and 16-bit ones; 0 = matmul_efficiency.
  double matmul_efficiency_fp4 = 0.0;
  // Achieved fraction of the matrix peak for attention kernels (FlashAttention-style).
  double attention_efficiency = 0.6;
  // Decode attention without GQA packing (TensorRT-LLM <= 0.6 masked MHA) reads a KV head once
  // per query head of its group; this is the fraction of those re-reads that miss the on-die
  // cache and go to DRAM: 0 = one read per group (XQA / FlashDecoding-style kernels), 1 = every
  // query head re-reads from DRAM. Reads per KV head = 1 + (group - 1) x fraction.
  double decode_kv_reread_fraction = 0.0;
  // Kernels the runtime runs per modelled operator (fusion: quantise + GEMM, RoPE + cache write
  // + attention, residual + norm are one kernel in a fusing runtime, two in an older one).
  double kernels_per_op = 1.0;
  // true: the step's kernels are replayed by the device (CUDA graphs, an on-die sequencer) and
  // pay only the device's dispatch and barrier; false: the host launches and synchronises each
  // kernel, paying host_launch_us on top.
  bool graph_capture = true;
  double host_launch_us = 0.0;  // per kernel when graph_capture is false (launch + host sync)
  // Host time per kernel of a serving iteration that carries a prefill chunk, which no runtime
  // replays from a CUDA graph (TensorRT-LLM's PyTorch executor and SGLang capture decode-only
  // batches; vLLM V1 captures mixed batches only piecewise, attention eager, and nothing above
  // its largest capture size): the framework's per-operator dispatch (Python module calls, the
  // PyTorch dispatcher, argument checks, the launch itself). The host issues kernels ahead of
  // the device asynchronously, so this is a floor, not an addition: such an iteration takes at
  // least kernels x eager_launch_us, however little its kernels compute (a short prompt on a
  // fast device waits for its host). Serving model only (perf::IterationModel); 0 = the host
  // always keeps ahead. us; fitted per backend on measured deployments (docs/validation.md).
  double eager_launch_us = 0.0;
  // Device time every kernel costs beyond its own work, in graph replay and eager launches
  // alike: the gap between consecutive kernels (the next grid is started only after the last
  // block of the previous one retired), a small kernel's ramp-up and tail when its grid does
  // not fill the device, and the prologue/epilogue of quantised GEMMs. Per kernel, in us;
  // measured per backend (fitted on the measured deployments, docs/validation.md), because
  // it is the software's kernel mix, not the silicon, that sets it.
  double kernel_gap_us = 0.0;
  // true: a collective is a kernel of its own (NCCL) and pays one kernel's overhead; false: the
  // device issues it without a kernel boundary (DMA descriptors from the sequencer), so only
  // the collective's own synchronisation (the network model's alpha) is paid.
  bool collective_is_kernel = true;
  // Host time per serving-scheduler iteration, paid once per iteration by the serving model
  // only (perf::IterationModel; the static evaluator has no iterations): the scheduler (vLLM's
  // Python or TensorRT-LLM's C++ batch manager), sampling and detokenisation between steps.
  double iteration_overhead_us = 0.0;
  // Time from a request's arrival at the serving front end to its admission by the engine's
  // scheduler, plus its first token's way back: HTTP parsing, tokenisation, the API server ->
  // engine hand-off, detokenisation and the first streamed chunk. Paid once per request by the
  // serving model only (serving::SimOptions::request_latency_s, set by serving::deploy); it
  // adds to TTFT and E2E, not to TPOT. 0 for offline benchmarks (trtllm-bench) that have no
  // front end. us; fitted per backend on measured deployments (docs/validation.md).
  double request_latency_us = 0.0;
  // Device memory the serving software holds on top of the device's own reserve
  // (hw::Hardware::runtime_reserved_GiB) and the modelled weights, KV cache and activations:
  // CUDA-graph memory pools of every captured batch size, the caching allocator's slack,
  // sampler and decoder buffers. GiB per device; it shrinks the KV cache (and the largest
  // static batch) one for one.
  double memory_reserved_GiB = 0.0;
  // An iteration that carries both prefill chunk(s) and decode sequences runs its GEMM and
  // attention kernels at this fraction of the efficiency of a pure one (SARATHI-Serve, Agrawal
  // et al., OSDI 2024, and vLLM's chunked-prefill notes: mixed batches lose some kernel
  // efficiency). Serving model only (perf::IterationModel); 1 = no loss.
  double mixed_iteration_efficiency = 1.0;
  // DRAM traffic of each elementwise operator (norm with its residual add, the FFN activation)
  // relative to one fused kernel that reads its inputs and writes its output once. An unfused
  // eager runtime computes RMSNorm as separate cast, square, mean, rsqrt, scale and cast kernels
  // and SiLU x gate on strided halves, each reading and writing the tensor (some in fp32): a
  // count of its kernels' tensor reads and writes, not a fitted value. 1 = fused.
  double elementwise_traffic = 1.0;
  // true: decode attention splits each sequence's context over several blocks (FlashDecoding,
  // TensorRT-LLM XQA, FlashInfer), so every core streams KV even at batch 1; false: one block
  // per (sequence, KV head) (FlashAttention-2's forward kernel as PyTorch SDPA calls it for a
  // decode query), so only min(1, sequences x KV heads / cores) of the device streams KV.
  bool decode_attention_split_kv = true;
};

// Fixed time for the device to start one kernel and have all cores finish it when the host is
// out of the loop: the front end's dispatch (hw::ComputeDie::op_dispatch_ns) plus a barrier
// over the on-die mesh, gathered to a corner and released along dimension-ordered routes,
// 2 (X - 1 + Y - 1) hops at the mesh's hop latency. A 1 x 1 mesh (a GPU's crossbar) has no
// barrier term: its dispatch figure is measured with the grid's completion included. Seconds.
double device_dispatch_s(const hw::ComputeDie& die, const hw::Noc& noc);
// The barrier term alone: 2 (X - 1 + Y - 1) x hop latency, seconds.
double mesh_barrier_s(const hw::Noc& noc);

// Fixed overhead of one modelled compute operator under `profile`, seconds:
// kernels_per_op x (device dispatch + kernel_gap_us + host launch when not graph-captured).
double op_overhead_s(const Profile& profile, const hw::ComputeDie& die, const hw::Noc& noc);

// Fixed overhead a collective pays on top of its network time (whose alpha is its own
// synchronisation), seconds: one kernel's dispatch and gap (+ host launch when not captured) when
// the runtime runs collectives as kernels, else 0.
double collective_overhead_s(const Profile& profile, const hw::ComputeDie& die, const hw::Noc& noc);

const char* to_string(DeviceClass c);

// The profile's numeric fields by their JSON keys (matmul_efficiency, kernel_gap_us, ...), for
// calibrations that sweep them: numeric_field() is null for any other key.
std::span<const std::string_view> numeric_field_names();
double* numeric_field(Profile& p, std::string_view key);

// Registry ids (presets/runtimes/) of the profile a project gets when it names none: current
// GPU runtimes for GPUs, the accelerator-native profile for mesh devices. Comparisons (search
// variants, the GUI's Compare view) apply one profile to every side instead.
inline constexpr const char* kModernGpuProfileId = "modern-gpu-2025";
inline constexpr const char* kAcceleratorProfileId = "accel-native";
// The profile schema 1 projects' values are migrated onto: 2023 TensorRT-LLM, the calibration
// of data/trtllm-measured/measured-gpu.json.
inline constexpr const char* kLegacyProfileId = "trtllm-2023";
const char* default_profile_id(DeviceClass c);

// The class a device belongs to for the purpose of runtime profiles: HBM devices driven by a
// host (GPUs) are `gpu`, 3D-stacked, near-memory and SRAM-only mesh devices `accelerator`.
DeviceClass device_class_of(const hw::Hardware& hardware);

}  // namespace stackscope::runtime
