// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Designs built in code (independent of the preset files) for evaluator tests.
#include "stackscope/perf/design.hpp"

namespace stackscope::perf::testing {

// H100-SXM-like device (struct defaults), LLaMA-2-7B (struct defaults), bf16, one device.
inline Design small_dense() {
  Design d;
  d.name = "test-dense";
  d.system.devices = 1;
  d.workload.batch = 8;
  d.workload.input_len = 512;
  d.workload.output_len = 128;
  return d;
}

inline hw::System nvswitch(int devices) {
  hw::System s;
  s.devices = devices;
  hw::NetworkLevel l;
  l.name = "nvswitch";
  l.size = 8;
  s.levels.push_back(l);
  return s;
}

// Mixtral-8x7B shape on 8 devices with EP 8.
inline Design moe_ep8() {
  Design d = small_dense();
  d.name = "test-moe";
  d.model.kv_heads = 8;
  d.model.attention = workload::AttentionKind::gqa;
  d.model.ffn_dim = 14336;
  d.model.moe = {8, 2, 0, 14336, 0, 0};
  d.system = nvswitch(8);
  d.parallel.ep = 8;
  d.workload.batch = 64;
  return d;
}

// DeepSeek-V3 on 32 H100-like devices: TP 2 x EP 16, FP8.
inline Design deepseek_v3_32() {
  Design d;
  d.name = "test-deepseek-v3";
  auto& m = d.model;
  m.layers = 61;
  m.hidden = 7168;
  m.heads = 128;
  m.kv_heads = 128;
  m.head_dim = 128;
  m.ffn_dim = 18432;
  m.vocab = 129280;
  m.attention = workload::AttentionKind::mla;
  m.mla = {1536, 512, 128, 64, 128};
  m.moe = {256, 8, 1, 2048, 0, 3};
  d.system = nvswitch(32);
  hw::NetworkLevel ib;
  ib.name = "ib";
  ib.size = 0;
  ib.link_GBps = 50;
  ib.latency_us = 5;
  ib.efficiency = 0.94;
  d.system.levels.push_back(ib);
  d.parallel.tp = 2;
  d.parallel.ep = 16;
  d.workload.batch = 256;
  d.workload.input_len = 1024;
  d.workload.output_len = 256;
  d.workload.numerics = {Precision::fp8, Precision::fp8, Precision::fp8};
  return d;
}

// LLaMA-2-7B shape on one DeepStack-like logic die with 8 hybrid-bonded DRAM layers on top
// (4 connected, 64 x 64-bit channels each at 3.2 Gb/s), a cool package (0.05 + 0.004 L K/W).
inline Design stacked_design() {
  auto d = small_dense();
  d.name = "test-stacked";
  auto& m = d.hardware.memory;
  m.kind = hw::MemoryKind::stacked_3d;
  m.stacks = 1;
  m.layers_total = 8;
  m.layers_connected = 4;
  m.channels_per_layer = 64;
  m.bytes_per_transfer = 8;
  m.clock_MHz = 1600;
  m.capacity_per_layer_GiB = 12;
  m.vertical = {hw::VerticalLinkKind::hybrid_bond, 9.0, 0.5, 3.2, 0.05, 81};
  d.hardware.thermal = {.ambient_C = 45, .r_base_K_per_W = 0.05, .r_layer_K_per_W = 0.004};
  d.workload.batch = 32;
  return d;
}

}  // namespace stackscope::perf::testing
