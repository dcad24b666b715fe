// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Search spaces over preset hardware and models, shared by the search tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "stackscope/io/project.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/search/engine.hpp"

namespace stackscope::search::testing {

inline const io::PresetRegistry& presets() {
  return io::builtin_presets();
}

// One switch level holding every device (resized by the devices knob).
inline hw::System switch_system(int devices, double link_GBps) {
  hw::System s;
  s.devices = devices;
  hw::NetworkLevel l;
  l.name = "switch";
  l.size = devices;
  l.link_GBps = link_GBps;
  l.latency_us = 1.0;
  s.levels.push_back(l);
  return s;
}

inline perf::Design base(const char* hardware, const char* model, int devices) {
  perf::Design d;
  d.hardware = presets().hardware(hardware);
  d.model = presets().model(model);
  d.system = switch_system(devices, 200);
  d.workload.batch = 8;
  d.workload.input_len = 1024;
  d.workload.output_len = 256;
  d.workload.numerics = {Precision::fp8, Precision::fp8, Precision::fp8};
  return d;
}

// Dense Llama-3-8B on 3D-stacked chips: stack shape, cores, device count x TP/PP/DP, batch,
// sequence parallelism, overlap: 49,248 points.
inline Space dense_space() {
  Space s;
  s.base = base("deepstack-3d", "llama-3-8b", 4);
  s.hardware = {{"devices", {1, 2, 4, 8}},
                {"memory.layers_total", {4, 8, 12}},
                {"memory.layers_connected", {2, 4, 8}},
                {"compute.cores", {64, 128}},
                {"compute.sram_per_core_KiB", {512, 1024}},
                {"system.link_bw_scale", {0.5, 1, 2}}};
  s.inner.tp = {1, 2, 4, 8};
  s.inner.pp = {1, 2, 4};
  s.inner.dp = {1, 2, 4, 8};
  s.inner.batch = {1, 8, 32, 64, 128, 256};
  s.inner.sequence_parallel = {0, 1};
  s.inner.overlap = {parallel::Overlap::off, parallel::Overlap::auto_tiles};
  s.objectives = {objective(Metric::stps_per_device), objective(Metric::utps)};
  return s;
}

// Mixtral-8x7B (MoE, GQA) on H100-like GPUs with EP, three objectives and a TPOT SLO.
inline Space moe_space() {
  Space s;
  s.base = base("h100-sxm", "mixtral-8x7b", 8);
  s.base.workload.numerics = {Precision::bf16, Precision::bf16, Precision::bf16};
  s.hardware = {{"devices", {2, 4, 8}},
                {"system.link_bw_scale", {0.25, 1, 4}},
                {"system.latency_scale", {0.5, 1, 2}},
                {"compute.clock_GHz", {1.2, 1.83}}};
  s.inner.tp = {1, 2, 4, 8};
  s.inner.pp = {1, 2};
  s.inner.ep = {1, 2, 4, 8};
  s.inner.dp = {1, 2};
  s.inner.batch = {1, 4, 16, 32, 64, 128, 256};
  s.inner.overlap = {parallel::Overlap::off, parallel::Overlap::fixed,
                     parallel::Overlap::auto_tiles};
  s.constraints.tpot_slo_s = 0.05;
  s.objectives = {objective(Metric::stps_per_mm2), objective(Metric::utps),
                  objective(Metric::energy_per_token_j)};
  return s;
}

// Model and workload axes (class axes, like devices): a dense and an MoE model, two prompt
// lengths, on 3D-stacked chips with a stack axis and a network multiplier between them.
inline Space workload_space() {
  Space s;
  s.base = base("deepstack-3d", "llama-3-8b", 8);
  s.models = {presets().model("llama-3-8b"), presets().model("mixtral-8x7b")};
  s.hardware = {{"devices", {4, 8}},
                {"memory.layers_connected", {2, 4}},
                {"model", {0, 1}},
                {"system.link_bw_scale", {0.5, 2}},
                {"workload.input_len", {512, 4096}},
                {"compute.clock_GHz", {1.0, 1.4}}};
  s.inner.tp = {1, 2, 4, 8};
  s.inner.pp = {1, 2};
  s.inner.ep = {1, 2, 4, 8};
  s.inner.dp = {1, 2};
  s.inner.batch = {1, 8, 32, 128};
  s.inner.overlap = {parallel::Overlap::off, parallel::Overlap::auto_tiles};
  s.objectives = {objective(Metric::stps_per_mm2), objective(Metric::utps)};
  return s;
}

// DeepSeek-V2-Lite (MLA, shared experts) on 3D-stacked chips: bandwidth/latency multipliers,
// vertical pitch, power and temperature constraints, STPS vs TTFT vs area.
inline Space mla_space() {
  Space s;
  s.base = base("deepstack-3d", "deepseek-v2-lite", 8);
  s.hardware = {{"devices", {4, 8}},
                {"memory.layers_total", {8, 12}},
                {"memory.layers_connected", {1, 2, 4}},
                {"memory.vertical.pitch_um", {6, 9}},
                {"system.latency_scale", {0.5, 2}},
                {"noc.link_GBps", {100, 200}}};
  s.inner.tp = {1, 2, 4};
  s.inner.pp = {1, 3};
  s.inner.ep = {1, 2, 4, 8};
  s.inner.dp = {1, 2, 4};
  s.inner.batch = {4, 16, 32, 64, 128};
  s.inner.sequence_parallel = {0, 1};
  s.inner.attention_tp = {0, 1};  // 1: attention data-parallel over the stage (DeepSeek-style)
  s.constraints.max_power_W = 330;
  s.constraints.max_dram_C = 80;
  s.objectives = {objective(Metric::stps), objective(Metric::ttft_s), objective(Metric::area_mm2)};
  return s;
}

// Llama-3-8B on 3D-stacked chips under a tight TDP and a poor heat sink: the power wall and the
// thermal throttle (DRAM held at 95 C) act on most points.
inline Space hot_space() {
  Space s;
  s.base = base("deepstack-3d", "llama-3-8b", 2);
  s.base.hardware.energy.tdp_W = 150;
  s.base.hardware.thermal.compact = hw::CompactSource::fixed;
  s.base.hardware.thermal.r_base_K_per_W = 0.3;
  s.hardware = {{"memory.layers_total", {4, 8, 16}},
                {"memory.layers_connected", {2, 4, 8}},
                {"compute.clock_GHz", {0.8, 1.2, 1.6}},
                {"compute.cores", {96, 128}},
                {"system.link_bw_scale", {0.5, 2}}};
  s.inner.tp = {1, 2};
  s.inner.dp = {1, 2};
  s.inner.batch = {1, 4, 16, 64, 128, 256};
  s.inner.overlap = {parallel::Overlap::off, parallel::Overlap::fixed};
  s.objectives = {objective(Metric::stps_per_W), objective(Metric::utps),
                  objective(Metric::energy_per_token_j)};
  return s;
}

// DeepSeek-V3 decode on deepstack-3d chips over the two-level UCIe mesh x SerDes torus system
// (the preset project): device count, stack shape, link bandwidth x full parallelism.
inline Space deepseek_space(bool large) {
  Space s;
  s.base = presets().project("deepseek-v3-deepstack");
  s.hardware = {{"devices", {32, 64}},
                {"memory.layers_total", {8, 12}},
                {"memory.layers_connected", {2, 4, 8}},
                {"system.link_bw_scale", {0.5, 2}}};
  if (large) {
    s.hardware[0].values.push_back(128);
    s.hardware.push_back({"memory.vertical.pitch_um", {6, 9}});
    s.hardware.push_back({"compute.cores", {96, 128}});
  }
  s.inner.tp = {1, 2, 4, 8};
  s.inner.pp = {1, 2, 4};
  s.inner.ep = {1, 2, 4, 8, 16, 32, 64, 128};
  s.inner.dp = {1, 2, 4};
  s.inner.batch = {32, 64, 128, 256, 512, 1024};
  s.inner.sequence_parallel = {0, 1};
  s.inner.overlap = {parallel::Overlap::off, parallel::Overlap::auto_tiles};
  s.objectives = {objective(Metric::stps_per_mm2), objective(Metric::utps)};
  return s;
}

// The DeepSeek-V3 search preset (presets/search/deepseek-v3-deepstack.json: 11 hardware axes
// including the system multipliers, TPOT SLO and DRAM-temperature constraint, STPS per mm2 vs
// UTPS) plus the on-die mesh's two axes, each axis cut to a few values: ~10^5 points, or ~10^6
// when `large`. Exercises every hardware-level pruning rule of the engine (boxes, region
// bounds, infeasible dies, connected > total layers, memory fit).
inline Space deepseek_preset_space(bool large) {
  Space s = io::resolve_search_project("deepseek-v3-deepstack", presets()).space;
  auto keep = [&](const char* knob, std::vector<double> values) {
    for (auto& axis : s.hardware)
      if (axis.knob == knob) axis.values = std::move(values);
  };
  keep("devices", {64, 128});
  keep("memory.layers_total", large ? std::vector<double>{2, 8, 16} : std::vector<double>{2, 16});
  keep("memory.layers_connected", {1, 8});
  keep("memory.vertical.pitch_um", large ? std::vector<double>{3, 12} : std::vector<double>{3});
  keep("compute.cores", {128, 192});
  keep("compute.die_area_mm2", {500, 800});
  keep("compute.sram_per_core_KiB",
       large ? std::vector<double>{256, 2048} : std::vector<double>{256});
  keep("compute.clock_GHz", large ? std::vector<double>{0.8, 1.4} : std::vector<double>{1.4});
  keep("memory.clock_MHz", {1200, 2000});
  // The on-die mesh's axes (the preset leaves them to deepseek-v3-noc-sensitivity), before the
  // system multipliers.
  auto sys = std::find_if(s.hardware.begin(), s.hardware.end(),
                          [](const auto& axis) { return axis.knob == "system.link_bw_scale"; });
  sys = s.hardware.insert(sys, {"noc.hop_latency_ns", {0.5, 2}});
  s.hardware.insert(sys, {"noc.link_GBps", {76.8, 307.2}});
  keep("system.link_bw_scale", {0.5, 2});
  keep("system.latency_scale", {0.5, 2});
  s.inner.tp = {2, 8};
  s.inner.pp = {1, 2};
  s.inner.ep = {1, 2, 4, 8, 16, 32, 64};
  s.inner.dp = {1, 2};
  s.inner.attention_tp = {0};
  s.inner.batch = {1, 128, 2048};
  s.inner.overlap = {parallel::Overlap::off, parallel::Overlap::auto_tiles};
  return s;
}

// Every point evaluated (validate() rejects -> infeasible), no pruning of any kind.
// Identical frontiers: the same points (ids) with bit-identical objective values.
inline void expect_same_frontier(const Archive& a, const Archive& b) {
  const auto x = a.sorted();
  const auto y = b.sorted();
  ASSERT_EQ(x.size(), y.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].id.hw, y[i].id.hw) << i;
    EXPECT_EQ(x[i].id.inner, y[i].id.inner) << i;
    for (int k = 0; k < x[i].n_objectives; ++k) EXPECT_EQ(x[i].objectives[k], y[i].objectives[k]);
  }
}

inline Archive brute_force(const CompiledSpace& cs, std::uint64_t* evaluated = nullptr) {
  Archive a(cs.space().objectives);
  perf::Evaluator ev;
  std::uint64_t n = 0;
  for (std::uint64_t hw = 0; hw < cs.hardware_points(); ++hw) {
    const perf::Design hwd = cs.hardware_design(hw);
    for (std::uint64_t in = 0; in < cs.inner_points(hw); ++in) {
      perf::Design d = hwd;
      cs.apply_inner(d, hw, in);
      if (!perf::validate(d).empty()) continue;
      a.insert(make_record(cs, {hw, in}, d, ev.evaluate(d)));
      ++n;
    }
  }
  if (evaluated) *evaluated = n;
  return a;
}

// Counts what it receives.
class CountingSink : public ResultSink {
 public:
  void on_batch(std::span<const PointRecord> points) override {
    records += points.size();
    ++batches;
  }
  void on_progress(const Progress&) override { ++progress_calls; }
  void on_finished(const Summary& s) override {
    ++finished;
    frontier = s.archive.size();
  }
  std::uint64_t records = 0, batches = 0, progress_calls = 0, finished = 0;
  std::size_t frontier = 0;
};

}  // namespace stackscope::search::testing
