// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The MoE-layer estimator for GPU systems (docs/model.md §12.2): the same layer as
// simulate_layer() (mesh_sim.hpp: the same Placement, LayerBatch, CopyChoice, OR rule and
// roofline), with the dispatch and combine all-to-alls run on the system network by
// network::simulate (core/network: routed flows sharing links max-min fairly).
//
// Model:
//  * Dispatch. Token t's hidden state goes from its home GPU to every GPU holding any share of
//    any of its experts' chosen copies, once per (token, GPU) however many of its experts that
//    GPU holds (the OR of mesh_sim.hpp); the home needs no transfer. The bytes per (src, dst)
//    GPU pair form the dispatch matrix, hidden × dispatch_bytes_per_element per token, run as
//    one network::Step: every pair's flow at once, as one all-to-all (NCCL's or DeepEP's).
//  * The step's alpha is the latency_us of the outermost network level its flows cross, the
//    per-step cost core/network charges every collective step (network::detail::expand); each
//    flow then adds its path latency and streams at its max-min fair rate (flow_sim.hpp).
//  * Barrier. Every GPU starts computing when the whole dispatch has arrived (an all-to-all
//    returns on every rank together) and takes the roofline time
//    max(FLOPs / (gpu_flops · flops_efficiency), weight bytes / (mem_Bps · mem_efficiency))
//    (Williams et al., CACM 2009): FLOPs = Σ over its (token, expert) pairs of fraction ·
//    2·3·h·I (gated FFN, three h×I matrices); weight bytes = Σ over the expert shares it
//    serves ≥ 1 token with of fraction · 3·h·I · weight_bytes (each weight read once).
//    flops_efficiency is the grouped GEMM's achieved fraction of peak (1 = the pure roofline).
//  * Combine. When the slowest GPU is done, the partial outputs (hidden ×
//    combine_bytes_per_element per (token, GPU), summed locally over the token's experts) go
//    back to the homes: the transposed matrix, one more step.
//  Layer time = dispatch_s + max over GPUs of compute_s + combine_s. A phase without remote
//  bytes costs 0.
// simulate_gpu_layer() is a pure function of its arguments: reentrant, deterministic, no RNG.
#include <vector>

#include "stackscope/experts/mesh_sim.hpp"
#include "stackscope/experts/placement.hpp"
#include "stackscope/network/topology.hpp"

namespace stackscope::experts {

// Per-GPU rates and the all-to-all payload. Defaults: H100 SXM dense BF16 peak 989.4 TFLOPS and
// HBM3 3.35 TB/s (NVIDIA H100 datasheet; presets/hardware/h100-sxm.json), BF16 activations.
struct GpuConfig {
  double gpu_flops = 989.4e12;            // FLOP/s per GPU at the expert GEMMs' precision
  double mem_Bps = 3.35e12;               // weight-read bytes/s per GPU
  double flops_efficiency = 1;            // grouped-GEMM fraction of gpu_flops, in (0, 1]
  double mem_efficiency = 1;              // achieved fraction of mem_Bps, in (0, 1]
  double dispatch_bytes_per_element = 2;  // per hidden element sent (FP8 + 1×128 scales: 1.03125)
  double combine_bytes_per_element = 2;   // per hidden element returned (BF16)
};

struct GpuStats {
  int tokens = 0;       // distinct tokens this GPU computes for (the OR: once per token)
  int assignments = 0;  // (token, expert) pairs it serves: the grouped GEMM's rows
  double flops = 0;
  double weight_bytes = 0;  // weight bytes read
  double compute_s = 0;     // roofline time
  double dispatch_sent_bytes = 0;
  double dispatch_received_bytes = 0;  // from the flow records of network::simulate
  double combine_sent_bytes = 0;
  double combine_received_bytes = 0;
};

struct GpuLayerResult {
  double time_s = 0;      // dispatch_s + compute_s + combine_s
  double dispatch_s = 0;  // network::simulate of the dispatch step (its alpha included)
  double compute_s = 0;   // max over GPUs of GpuStats::compute_s
  double combine_s = 0;
  double dispatch_alpha_s = 0;  // the steps' alpha (0 for a phase without remote bytes)
  double combine_alpha_s = 0;
  std::vector<GpuStats> gpus;
  // G × G row-major bytes, [src * G + dst]; the diagonal is 0 (no transfer to oneself).
  std::vector<double> dispatch_bytes;
  std::vector<double> combine_bytes;  // the transpose of dispatch_bytes in combine units
  double bytes_injected = 0;          // Σ both matrices
  double bytes_delivered = 0;         // Σ bytes of the flows network::simulate delivered
  // max / mean over all GPUs (1 when everything is 0): of compute_s, of distinct tokens, and of
  // (token, expert) assignments (the "routed tokens per rank" of the TensorRT-LLM EPLB study).
  double compute_imbalance = 1;
  double token_imbalance = 1;
  double assignment_imbalance = 1;
  long long events = 0;  // rate recomputations of both network runs
};

// Simulates one MoE layer on the devices of `topology` (model above); placement shares and
// batch homes are device ids 0..devices-1. Throws std::invalid_argument naming the field, where
// and the allowed range for: rates or efficiencies not finite and > 0 (efficiencies also
// <= 1); a placement that validate() rejects for topology.devices() nodes (a GPU id out of
// range included; capacity is not checked: call validate() with the GPU's capacity); top_k < 1
// or > experts; expert_ids not tokens × top_k long; an expert id out of range or repeated
// within a token; a home GPU out of range; hidden, intermediate or weight_bytes not > 0.
GpuLayerResult simulate_gpu_layer(const network::Topology& topology, const GpuConfig& config,
                                  const Placement& placement, const LayerBatch& batch,
                                  CopyChoice choice = CopyChoice::round_robin);

}  // namespace stackscope::experts
