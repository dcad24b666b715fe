// SPDX-License-Identifier: GPL-3.0-or-later
// Board power, DVFS and the torch-eager-graphs runtime against one measured H200 running a plain
// PyTorch Llama-3.1-8B (data/h200-measured: NVML board energy, SM clocks, CUDA-event times).
// The four sustained-energy rows are the ones the power parameters were fitted on
// (tools/fit-power/fit_h200_power.py, docs/model.md §13.4); the decode and prefill timing rows
// check the runtime profile and the clock the power cap sets. Prints the error table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/power_area/energy.hpp"

namespace stackscope {
namespace {

std::vector<nlohmann::json> rows() {
  std::ifstream in(STACKSCOPE_DATA_DIR "/h200-measured/h200-kernels-and-llama8b.jsonl");
  std::vector<nlohmann::json> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

// Llama-3.1-8B, bf16, one H200, under the measured runtime; with `table` (the shipped preset)
// the device's measured kernel table (presets/kernels/h200.csv, docs/model.md §3.5), without
// it the roofline's flat efficiencies.
perf::Design h200_llama8b(const io::PresetRegistry& presets, int batch, int input_len,
                          bool table = true) {
  perf::Design d = presets.project("default");
  d.name = "h200-llama-3.1-8b";
  d.hardware = presets.hardware("h200");
  d.model = presets.model("llama-3.1-8b");
  d.runtime = presets.runtime("torch-eager-graphs");
  d.parallel = {};
  d.system = {};
  d.system.devices = 1;
  d.workload.numerics = {Precision::bf16, Precision::bf16, Precision::bf16};
  d.workload.batch_auto = false;
  d.workload.batch = batch;
  d.workload.input_len = input_len;
  d.workload.output_len = 2;  // one decode step at context input_len + 1
  EXPECT_EQ(d.hardware.kernel_table, "h200");
  EXPECT_TRUE(d.hardware.kernel_times);
  if (!table) {
    d.hardware.kernel_table.clear();
    d.hardware.kernel_times = nullptr;
  }
  return d;
}

// Time error of one timing row (decode or prefill), optionally with the measured GEMM table.
double timing_error(const io::PresetRegistry& presets, const nlohmann::json& r, bool table) {
  const bool decode = r["kind"] == "decode";
  const int batch = r["batch"], length = decode ? r["context"].get<int>() : r["input"].get<int>();
  const perf::Result res =
      perf::evaluate(h200_llama8b(presets, batch, decode ? length - 1 : length, table));
  const double meas = decode ? r["step_s"].get<double>() : r["time_s"].get<double>();
  return (decode ? res.decode : res.prefill).time_s / meas - 1.0;
}

class H200Power : public ::testing::Test {
 protected:
  void SetUp() override {
    presets_.register_builtins();
    data_ = rows();
    ASSERT_GE(data_.size(), 30u);
  }
  io::PresetRegistry presets_;
  std::vector<nlohmann::json> data_;
};

// Fitted rows: energy per token within 10 % (the bar), power within 5 %.
TEST_F(H200Power, SustainedEnergyRowsWithinTenPercent) {
  int n = 0;
  std::printf("%-8s %5s %6s | %9s %9s %7s | %6s %6s | %5s %5s\n", "phase", "batch", "length",
              "J/tok", "model", "error", "W", "model", "MHz", "model");
  for (const auto& r : data_) {
    if (r.value("kind", "") != "energy") continue;
    const bool decode = r["phase"] == "decode";
    const int batch = r["batch"], length = r["length"];
    const perf::Design d = h200_llama8b(presets_, batch, decode ? length - 1 : length);
    const perf::Result res = perf::evaluate(d);
    const auto& phase = decode ? res.decode : res.prefill;
    const double jt =
        decode ? res.metrics.decode_energy_per_token_j : res.metrics.prefill_energy_per_token_j;
    const double meas = r["J_per_token"], watts = r["mean_W"];
    const double err = jt / meas - 1.0;
    const double mhz = power_area::reported_clock_MHz(d.hardware, phase.clock_scale);
    std::printf("%-8s %5d %6d | %9.4f %9.4f %+6.1f%% | %6.0f %6.0f | %5d %5.0f\n",
                decode ? "decode" : "prefill", batch, length, meas, jt, 100 * err, watts,
                phase.power_W, r["mid_sm_MHz"].get<int>(), mhz);
    EXPECT_LE(std::abs(err), 0.10) << r.dump();
    EXPECT_LE(std::abs(phase.power_W / watts - 1.0), 0.05) << r.dump();
    ++n;
  }
  EXPECT_EQ(n, 4);
}

// Timing rows under torch-eager-graphs: prefill long enough to meet the cap runs at a clock in
// the measured range; decode at batch 1 is not throttled; times within the bounds below.
TEST_F(H200Power, DecodeAndPrefillTimesAndClocks) {
  double sum = 0;
  int n = 0;
  for (const auto& r : data_) {
    const std::string kind = r.value("kind", "");
    if (kind != "decode" && kind != "prefill") continue;
    const bool decode = kind == "decode";
    const int batch = r["batch"], length = decode ? r["context"].get<int>() : r["input"].get<int>();
    const perf::Design d = h200_llama8b(presets_, batch, decode ? length - 1 : length);
    const perf::Result res = perf::evaluate(d);
    const auto& phase = decode ? res.decode : res.prefill;
    const double meas = decode ? r["step_s"].get<double>() : r["time_s"].get<double>();
    const double err = phase.time_s / meas - 1.0;
    const double mhz = power_area::reported_clock_MHz(d.hardware, phase.clock_scale);
    std::printf("%-8s B %4d L %6d | %8.3f ms %8.3f ms %+6.1f%% | %5d MHz %5.0f MHz %4.0f W\n",
                kind.c_str(), batch, length, 1e3 * meas, 1e3 * phase.time_s, 100 * err,
                r["sm_MHz"].get<int>(), mhz, phase.power_W);
    sum += std::abs(err);
    ++n;
    // The bar: every row within 10 % (3.9 % MAPE, worst +9.4 % with the shipped table).
    EXPECT_LE(std::abs(err), 0.10) << r.dump();
    if (decode && batch == 1) EXPECT_EQ(phase.clock_scale, 1.0) << r.dump();
    if (!decode && length >= 2048) {
      EXPECT_GE(mhz, 1500.0) << r.dump();
      EXPECT_LE(mhz, 1750.0) << r.dump();
    }
  }
  ASSERT_EQ(n, 19);
  std::printf("time MAPE %.1f %% over %d rows\n", 100 * sum / n, n);
  EXPECT_LE(sum / n, 0.05);
}

// The same timing rows without the measured table, on the roofline's flat efficiencies (the
// runtime profile's): decode at batch 1 and long context is where the table matters, its
// attention streams K/V from 8 of 132 SMs (0.24-0.34 TB/s measured), which the one-block-per-
// KV-head rule puts at +14 and +30 %.
TEST_F(H200Power, MeasuredKernelTableAgainstRoofline) {
  double with = 0, without = 0, worst_without = 0;
  int n = 0;
  for (const auto& r : data_) {
    const std::string kind = r.value("kind", "");
    if (kind != "decode" && kind != "prefill") continue;
    const double e = timing_error(presets_, r, true), f = timing_error(presets_, r, false);
    std::printf("%-8s B %4d | table %+6.1f%%  roofline %+6.1f%%\n", kind.c_str(),
                r["batch"].get<int>(), 100 * e, 100 * f);
    with += std::abs(e);
    without += std::abs(f);
    worst_without = std::max(worst_without, std::abs(f));
    ++n;
  }
  ASSERT_EQ(n, 19);
  std::printf("time MAPE with the kernel table %.1f %%, with the flat efficiencies %.1f %%\n",
              100 * with / n, 100 * without / n);
  EXPECT_LT(with, without);
  EXPECT_GT(worst_without, 0.20);  // the batch-1 long-context row the table corrects
}

// Held out (never fitted): the ML.ENERGY Leaderboard v3 (vLLM 0.11, Llama-3.1-8B, one H100,
// Text Conversation, mean response 717 tokens) reports 486 / 610 / 691 W and 0.455 / 0.119 /
// 0.077 J per output token at batch 8 / 64 / 256 (ml.energy/leaderboard). The static run with
// the vllm-2025 profile, a 1024-token prompt (the dataset's prompts are not published with the
// figures; 512-2048 moves batch 64 by -20 / +44 %) and the largest batch that fits at 256.
TEST_F(H200Power, MlEnergyH100HeldOut) {
  struct Row {
    int batch;
    double watts, j_per_token;
  };
  const Row published[] = {{8, 486, 0.455}, {64, 610, 0.119}, {256, 691, 0.077}};
  for (const Row& row : published) {
    perf::Design d = h200_llama8b(presets_, row.batch, 1024);
    d.hardware = presets_.hardware("h100-sxm");
    d.runtime = presets_.runtime("vllm-2025");
    d.workload.output_len = 717;
    d.workload.batch = std::min(row.batch, perf::max_batch_that_fits(d));
    const perf::Result res = perf::evaluate(d);
    const double pw = res.metrics.power_w / row.watts - 1.0;
    const double jt = res.metrics.energy_per_token_j / row.j_per_token - 1.0;
    std::printf("ML.ENERGY H100 batch %3d (run %3d): %4.0f W (%+5.1f%%), %.3f J/token (%+5.1f%%)\n",
                row.batch, d.workload.batch, res.metrics.power_w, 100 * pw,
                res.metrics.energy_per_token_j, 100 * jt);
    EXPECT_LE(std::abs(pw), 0.15) << row.batch;
    EXPECT_LE(std::abs(jt), 0.25) << row.batch;
  }
}

}  // namespace
}  // namespace stackscope
