// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reproduction of DeepStack's published results (arXiv 2604.04750; the numbers are in
// shared/reference/deepstack-published.md and the paper's public artifact, tile-ai/DeepStack:
// data/table4/fixed_configs.csv, configs/fig16_decode_winners_march2026.csv) with StackScope's
// own model, like for like: one runtime profile for every design, the paper's global batch,
// STPS averaged over the paper's four KV lengths, the paper's 256-device and 32-GPU systems.
//
// Contract: deepstack() is a pure function of the catalogue and the options (no I/O, no global
// state); it evaluates only designs that perf::validate() accepts and reports each one it had to
// change (a plan StackScope cannot express) with the reason. Times in s, rates in tokens/s,
// bandwidth in GB/s. Cost: Options::quick evaluates the paper's winners and the stack-height
// curve only (well under a second); the full report adds StackScope's own search per Table 4
// step and per fig. 16 row (about a minute on one core).
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "stackscope/hw/hardware.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/runtime/profile.hpp"
#include "stackscope/workload/model.hpp"

namespace stackscope::repro {

// The presets the report reads, by id (the CLI and the tests fill it from core/io). Each
// function throws (any exception) for an unknown id; deepstack() lets it through.
struct Catalogue {
  std::function<hw::Hardware(const std::string&)> hardware;
  std::function<hw::System(const std::string&)> system;
  std::function<workload::Model(const std::string&)> model;
  std::function<runtime::Profile(const std::string&)> runtime;
};

struct Options {
  // One profile for every design of the report (the same software on both sides).
  std::string runtime = "modern-gpu-2025";
  // A second profile, also for every design, shown beside the first in the fig. 16 table
  // (empty: none).
  std::string alt_runtime = "accel-native";
  bool quick = false;  // no own search: the paper's winners and the stack-height curve only
};

// The paper's four decode KV lengths (input 1024, decode to 2048; fixed_configs.csv kv_len_1..4):
// STPS is the mean of the four steps' STPS.
inline constexpr int kKvLengths[4] = {1024, 1365, 1707, 2048};

// One evaluated design of the report.
struct Point {
  bool valid = false;      // a design perf::validate() accepts
  bool feasible = false;   // perf::Result::feasible at the longest KV length
  std::string infeasible;  // the reasons, "; "-joined
  double stps = 0;         // mean over kKvLengths, tokens/s over the whole system
  double tpot_s = 0;       // at the mean KV length
  // Shares of the decode step (mean KV length) by bounding resource (perf::Resource), 0..1.
  double compute_share = 0, dram_share = 0, network_share = 0, overhead_share = 0;
  bool area_over_die = false;  // our area model does not fit the design's SM count
  std::string plan;            // "TP16·EP16 (MoE EP256)"
  std::string hardware;        // "10/10 layers, 4 SMs, 256 KiB, 1024 B/cycle"
  std::string note;            // what was changed to make the paper's design valid here, and why
};

struct Table4Row {
  int step = 0;   // 1..7
  int batch = 0;  // global batch (all replicas)
  std::string name;
  double paper_stps = 0;
  std::string paper_config;
  Point paper_design;  // the paper's winner of this step, evaluated by StackScope
  Point own;           // StackScope's best design in the step's space (not in quick mode)
  std::string reason;  // why the step's gain differs from the paper's, when it does
};

struct Fig16Row {
  std::string model_id;  // preset id
  std::string model_name;
  int batch = 0;
  double paper_3d = 0, paper_h200 = 0, paper_h100 = 0;
  std::string paper_arch;  // the paper's stacked winner's SM profile (sealed in its artifact)
  int stacked_sms = 0, gpu_sms = 0;  // SMs in the whole system on each side (own designs)
  Point own_3d, own_h200, own_h100;  // own best designs under Options::runtime
  Point alt_3d, alt_h200, alt_h100;  // the same plans under Options::alt_runtime
  std::string reason;
};

struct StackPoint {
  int layers = 0;
  int cores = 0;  // SMs the logic die holds beside the TSV field (hw::Area::fit_cores)
  double bw_GBps = 0;
  std::string bound;  // the DRAM limit that binds
  bool fits = false;  // the die holds the stack's field and at least one core
  double stps = 0;    // DeepSeek-V3 decode on 256 devices (the deepseek-v3-deepstack-paper-256
                      // project at this height), 0 where it does not fit
};

// A measured row of a current GPU runtime, set beside StackScope's GPU model under the report's
// runtime profile: the evidence for how fast the GPU side of fig. 16 should be.
struct GpuAnchor {
  std::string id;       // shared/reference/serving-measured.json row id
  double measured = 0;  // total output tokens/s (trtllm-bench, in-flight batching, max load)
  double ours = 0;      // static batch at the largest batch that fits (perf::Metrics e2e)
};

struct Report {
  std::string runtime, runtime_name, alt_runtime;
  std::vector<Table4Row> table4;  // BS 4 steps 1..7, then BS 1024 steps 1..7
  std::vector<Fig16Row> fig16;
  std::vector<StackPoint> stack_paper;  // deepstack-paper, every layer connected, 1..16
  std::vector<StackPoint> stack_own;    // deepstack-3d (StackScope's own 3D device), half connected
  std::vector<GpuAnchor> gpu_anchors;
  double gpu_area_mm2 = 0, stacked_area_mm2 = 0;  // total logic silicon of each fig. 16 side
};

// Throws std::invalid_argument for an unknown runtime id (from the catalogue) and stops early,
// returning what it has, when `stop` is requested.
Report deepstack(const Catalogue& catalogue, const Options& options, std::stop_token stop = {});

// Step-to-step gain (STPS of step k / step k-1 at the same batch; 1 for step 1; 0 when either
// is missing).
double step_gain(const std::vector<Table4Row>& rows, std::size_t i, bool own);

// The report as Markdown with the figures referenced by file name, and the figures as SVG
// (file name -> content), rendered by core/report.
struct Rendered {
  std::string markdown;
  std::vector<std::pair<std::string, std::string>> figures;
};
Rendered render(const Report& report);

}  // namespace stackscope::repro
