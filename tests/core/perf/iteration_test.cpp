// SPDX-License-Identifier: GPL-3.0-or-later
// perf::IterationModel (docs/model.md §11.3) against the static evaluator on the same designs: a
// uniform decode batch is the evaluator's decode step, one prompt is its prefill pass (exact
// up to summation order; pp > 1 through the stage relation stated below), plus monotonicity,
// memoisation and the KV capacity against perf::memory_footprint.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "stackscope/io/project.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/iteration.hpp"
#include "stackscope/perf/validate.hpp"

namespace stackscope::perf {
namespace {

// Same operators, summed in another order: a few ulps.
constexpr double kRel = 1e-9;

Design project(const std::string& json) {
  return io::parse_project(json, io::builtin_presets());
}

// Llama-3-70B on 8 H100 SXM, FP8 weights/activations/KV, TP 8 (pp = 1) or TP 4 x PP 2.
Design llama70b_h100(int tp, int pp) {
  return project(R"({"schema_version": 2, "id": "t", "name": "llama-3-70b h100 tp)" +
                 std::to_string(tp) + " pp" + std::to_string(pp) + R"(", "hardware": "h100-sxm",
    "system": "h100-sxm-x8", "model": "llama-3-70b", "runtime": "modern-gpu-2025",
    "workload": {"batch": 1, "input_len": 1024, "output_len": 256,
      "numerics": {"weights": "fp8", "activations": "fp8", "kv_cache": "fp8"}},
    "parallel": {"tp": )" +
                 std::to_string(tp) + R"(, "pp": )" + std::to_string(pp) + "}}");
}

// DeepSeek-V3 on 256 deepstack-3d chips, TP 2 x EP 64 x PP 2 (attention DP over 64 groups).
// Its decode meets the chip's 400 W cap (docs/model.md §13.4); the cap is lifted so that the
// evaluator and the iteration model compare stages at one clock (the thermal throttle's, which
// both share), not at the clocks each finds under the cap (secant against 64 clock steps).
Design deepseek_256() {
  Design d = io::builtin_presets().project("deepseek-v3-deepstack-256");
  d.hardware.energy.tdp_W = 1e4;
  return d;
}

// The same with 62 MoE layers, so both stages hold 31 identical layers.
Design deepseek_256_even() {
  Design d = deepseek_256();
  d.model.layers = 62;
  d.model.moe.first_dense_layers = 0;
  return d;
}

// Sets the static workload so that the evaluator decodes `batch` sequences whose attention
// sees C + 1 keys (its decode kv_len is input + output / 2), the keys of an iteration's decode
// sequence at context C; one micro-batch, so its decode step is pp passes of the slowest stage.
Design at_decode(Design d, int batch, int context) {
  d.workload.batch_auto = false;
  d.workload.batch = batch;
  d.workload.output_len = 512;
  d.workload.input_len = context + 1 - 256;
  d.parallel.micro_batches = 1;
  return d;
}

Design at_prefill(Design d, int input) {
  d.workload.batch_auto = false;
  d.workload.batch = 1;
  d.workload.input_len = input;
  d.workload.output_len = 2;
  d.parallel.micro_batches = 1;
  return d;
}

std::vector<SequenceChunk> decodes(int batch, int context, bool emits = true) {
  return std::vector<SequenceChunk>(static_cast<std::size_t>(batch), {1, context, emits});
}

// Static power of the replica: the energy one extra second of iteration overhead adds.
double replica_static_W(Design d, std::span<const SequenceChunk> batch) {
  IterationModel base(d);
  d.runtime.iteration_overhead_us = 1e6;
  IterationModel slow(d);
  const IterationCost a = base.cost(batch), b = slow.cost(batch);
  EXPECT_NEAR(b.time_s - a.time_s, 1.0, 1e-9);
  return (b.energy_J - a.energy_J) / (b.time_s - a.time_s);
}

void expect_rel(double got, double want, const char* what) {
  EXPECT_NEAR(got, want, kRel * std::abs(want)) << what;
}

TEST(Iteration, DesignsAreValid) {
  for (const Design& d :
       {llama70b_h100(8, 1), llama70b_h100(4, 2), deepseek_256(), deepseek_256_even()}) {
    const auto issues = validate(d);
    EXPECT_TRUE(issues.empty()) << d.name << ": " << (issues.empty() ? "" : issues[0].message);
  }
}

// pp = 1: the iteration is the evaluator's decode step, time and energy (whole replica).
TEST(Iteration, DecodeEqualsEvaluatorStep) {
  const std::pair<int, int> cases[] = {{1, 1023}, {64, 1023}, {256, 4095}, {37, 300}};
  for (const auto& [batch, context] : cases) {
    const Design d = at_decode(llama70b_h100(8, 1), batch, context);
    const Result r = evaluate(d);
    IterationModel m(d);
    const IterationCost c = m.cost(decodes(batch, context));
    expect_rel(c.time_s, r.decode.time_s, "time");
    expect_rel(c.energy_J, r.decode.energy_J * m.devices(), "energy");
    EXPECT_EQ(m.devices(), 8);
  }
}

// pp > 1, one micro-batch: the evaluator's step is pp x its slowest stage, the iteration the
// sum of the stages. With stages that differ only by the LM head H (the last one's), with A a
// stage without it, the evaluator gives pp (A + H) and the iteration pp A + H; the iteration
// without emitting sequences gives pp A, so evaluator = no_emit + pp (emit - no_emit). Energy
// the same way on the dynamic part (per device in the evaluator, replica in the iteration).
void expect_stage_relation(const Design& d, const Result& r, std::span<const SequenceChunk> emit,
                           std::span<const SequenceChunk> silent, bool decode) {
  IterationModel m(d);
  const int pp = d.parallel.pp;
  const IterationCost e = m.cost(emit), s = m.cost(silent);
  const double t_eval = decode ? r.decode.time_s : r.prefill.time_s;
  expect_rel(s.time_s + pp * (e.time_s - s.time_s), t_eval, "pp time");
  const double w = replica_static_W(d, emit);
  const double dyn_e = e.energy_J - w * e.time_s, dyn_s = s.energy_J - w * s.time_s;
  const double e_eval = (decode ? r.decode.energy_J : r.prefill.energy_J) * m.devices();
  // Evaluator: every device runs pp passes of the slowest stage (dynamic) and idles statically.
  const double dyn_eval = e_eval - w * t_eval;
  EXPECT_NEAR(pp * (dyn_s + pp * (dyn_e - dyn_s)), dyn_eval, 1e-8 * dyn_eval);
  // The stages' imbalance bounds the difference: slowest / pp <= iteration / pp <= slowest.
  EXPECT_LE(e.time_s, t_eval * (1 + kRel));
  EXPECT_GE(e.time_s, t_eval / pp * (1 - kRel));
}

TEST(Iteration, DecodePipelineStages) {
  const std::pair<int, int> cases[] = {{1, 2047}, {96, 2047}};
  for (const auto& [batch, context] : cases) {
    const Design d = at_decode(llama70b_h100(4, 2), batch, context);
    expect_stage_relation(d, evaluate(d), decodes(batch, context), decodes(batch, context, false),
                          true);
  }
}

TEST(Iteration, DeepSeekDecodeAttentionDataParallel) {
  // 100 sequences over 64 attention groups: the busiest holds 2, as ceil(100 / 64) in the
  // evaluator.
  const std::pair<int, int> cases[] = {{64, 2303}, {100, 2303}, {1024, 2303}};
  for (const auto& [batch, context] : cases) {
    const Design even = at_decode(deepseek_256_even(), batch, context);
    expect_stage_relation(even, evaluate(even), decodes(batch, context),
                          decodes(batch, context, false), true);
    // The preset's stages differ (3 dense layers and the embedding on the first): bounds only.
    const Design d = at_decode(deepseek_256(), batch, context);
    const Result r = evaluate(d);
    IterationModel m(d);
    EXPECT_EQ(m.devices(), 256);
    const double t = m.cost(decodes(batch, context)).time_s;
    EXPECT_LE(t, r.decode.time_s * (1 + kRel));
    EXPECT_GE(t, r.decode.time_s / 2 * (1 - kRel));
    std::printf(
        "deepseek-v3-deepstack-256 decode B=%d C=%d: iteration %.4g ms, evaluator step "
        "%.4g ms (2 x slowest stage)\n",
        batch, context, t * 1e3, r.decode.time_s * 1e3);
  }
}

TEST(Iteration, PrefillEqualsEvaluatorPass) {
  for (const int input : {1, 17, 512, 2048, 8192}) {
    const Design d = at_prefill(llama70b_h100(8, 1), input);
    const Result r = evaluate(d);
    IterationModel m(d);
    const std::vector<SequenceChunk> one{{input, 0, true}};
    const IterationCost c = m.cost(one);
    expect_rel(c.time_s, r.prefill.time_s, "time");
    expect_rel(c.energy_J, r.prefill.energy_J * m.devices(), "energy");
  }
  for (const int input : {512, 4096}) {
    const std::vector<SequenceChunk> one{{input, 0, true}}, silent{{input, 0, false}};
    const Design pp2 = at_prefill(llama70b_h100(4, 2), input);
    expect_stage_relation(pp2, evaluate(pp2), one, silent, false);
    const Design ds = at_prefill(deepseek_256_even(), input);
    expect_stage_relation(ds, evaluate(ds), one, silent, false);
  }
}

// A chunk later in its prompt costs more than the same chunk at its start, and less than
// recomputing the whole prefix with it; chunks summing to a prompt cost at least the prompt.
TEST(Iteration, ChunkedPrefillPositions) {
  for (const Design& d : {llama70b_h100(8, 1), deepseek_256()}) {
    IterationModel m(d);
    const std::vector<SequenceChunk> start{{512, 0, false}}, late{{512, 3584, false}},
        whole{{4096, 0, false}};
    const double t_start = m.cost(start).time_s, t_late = m.cost(late).time_s;
    EXPECT_GT(t_late, t_start);
    EXPECT_LT(t_late, m.cost(whole).time_s);
    double chunks = 0;
    for (int p = 0; p < 4096; p += 512) {
      const std::vector<SequenceChunk> c{{512, p, p + 512 == 4096}};
      chunks += m.cost(c).time_s;
    }
    const std::vector<SequenceChunk> prompt{{4096, 0, true}};
    EXPECT_GE(chunks, m.cost(prompt).time_s);
  }
}

std::vector<SequenceChunk> random_batch(std::mt19937& rng) {
  std::uniform_int_distribution<int> n_dec(0, 200), ctx(1, 8000), n_pre(0, 3), len(2, 2048);
  std::vector<SequenceChunk> b;
  for (int i = n_dec(rng); i > 0; --i) b.push_back({1, ctx(rng), true});
  for (int i = n_pre(rng); i > 0; --i) {
    const int n = len(rng);
    b.push_back({n, ctx(rng) % 4 == 0 ? 0 : ctx(rng), (ctx(rng) & 1) != 0});
  }
  if (b.empty()) b.push_back({1, 1, true});
  return b;
}

// More tokens or a longer context is never cheaper (time and energy), on every design.
TEST(Iteration, Monotone) {
  std::mt19937 rng(14);
  for (const Design& d : {llama70b_h100(8, 1), llama70b_h100(4, 2), deepseek_256()}) {
    IterationModel m(d);
    for (int trial = 0; trial < 60; ++trial) {
      std::vector<SequenceChunk> b = random_batch(rng);
      const IterationCost base = m.cost(b);
      EXPECT_GT(base.time_s, 0);
      EXPECT_GT(base.energy_J, 0);
      auto no_cheaper = [&](const std::vector<SequenceChunk>& more, const char* what) {
        const IterationCost c = m.cost(more);
        EXPECT_GE(c.time_s, base.time_s * (1 - 1e-12)) << what << " trial " << trial;
        EXPECT_GE(c.energy_J, base.energy_J * (1 - 1e-12)) << what << " trial " << trial;
      };
      const std::size_t i = std::uniform_int_distribution<std::size_t>(0, b.size() - 1)(rng);
      auto longer = b;
      longer[i].context += 1 + static_cast<int>(rng() % 3000);
      no_cheaper(longer, "longer context");
      auto extra = b;
      extra.push_back({1, 1 + static_cast<int>(rng() % 8000), true});
      no_cheaper(extra, "one more decode sequence");
      auto chunk = b;
      chunk.push_back({2 + static_cast<int>(rng() % 1000), static_cast<int>(rng() % 4000), false});
      no_cheaper(chunk, "one more prefill chunk");
      auto wider = b;
      if (wider[i].new_tokens > 1 || wider[i].context == 0) {
        wider[i].new_tokens += 1 + static_cast<int>(rng() % 500);
        no_cheaper(wider, "longer chunk");
      }
      auto emitting = b;
      emitting[i].emits = true;
      no_cheaper(emitting, "emitting");
    }
  }
}

// The memoised model returns exactly what a fresh one computes for the same mix.
TEST(Iteration, MemoisedEqualsFresh) {
  std::mt19937 rng(7);
  for (const Design& d : {llama70b_h100(8, 1), llama70b_h100(4, 2), deepseek_256()}) {
    IterationModel warm(d);
    std::vector<std::vector<SequenceChunk>> batches;
    for (int i = 0; i < 200; ++i) batches.push_back(random_batch(rng));
    for (const auto& b : batches) (void)warm.cost(b);
    for (int i = 0; i < 200; i += 25) {
      IterationModel fresh(d);
      const IterationCost a = warm.cost(batches[i]), f = fresh.cost(batches[i]);
      EXPECT_EQ(a.time_s, f.time_s);
      EXPECT_EQ(a.energy_J, f.energy_J);
    }
  }
}

// A decode batch at mixed contexts is the batch at their mean context (one kernel over the
// summed work): exact on one attention group.
TEST(Iteration, DecodeContextsAverage) {
  IterationModel m(llama70b_h100(8, 1));
  std::vector<SequenceChunk> mixed;
  for (int i = 0; i < 64; ++i) mixed.push_back({1, 100 + 50 * i, true});
  // Mean keys: 100 + 50 x 31.5 + 1 = 1676.
  expect_rel(m.cost(mixed).time_s, m.cost(decodes(64, 1675)).time_s, "mean context");
}

TEST(Iteration, OverheadOncePerIteration) {
  Design d = llama70b_h100(8, 1);
  IterationModel base(d);
  d.runtime.iteration_overhead_us = 40;
  IterationModel slow(d);
  for (const auto& b : {decodes(1, 100), decodes(128, 3000)}) {
    EXPECT_NEAR(slow.cost(b).time_s - base.cost(b).time_s, 40e-6, 1e-12);
    EXPECT_GT(slow.cost(b).energy_J, base.cost(b).energy_J);
  }
  // The static evaluator ignores it.
  Design without = d;
  without.runtime.iteration_overhead_us = 0;
  EXPECT_EQ(evaluate(d).metrics.tpot_s, evaluate(without).metrics.tpot_s);
  EXPECT_EQ(evaluate(d).metrics.ttft_s, evaluate(without).metrics.ttft_s);
  d.runtime.iteration_overhead_us = -1;
  const auto issues = validate(d);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "/runtime/iteration_overhead_us");
}

// The serving profile's memory reserve comes out of the KV cache one for one; the FP4 GEMM
// efficiency applies to FP4 GEMMs only; out-of-range values are refused with their paths.
TEST(Iteration, RuntimeMemoryReserveAndFp4Efficiency) {
  Design d = llama70b_h100(8, 1);
  const double before = IterationModel(d).kv_capacity_tokens(8192);
  d.runtime.memory_reserved_GiB = 4;
  const double after = IterationModel(d).kv_capacity_tokens(8192);
  const double per_token = IterationModel(d).kv_bytes_per_token();
  EXPECT_NEAR((before - after) * per_token, 4.0 * 8 * (1 << 30), 1e-6 * before * per_token);
  Design fp8 = llama70b_h100(8, 1);
  Design fp8_slow = fp8;
  fp8_slow.runtime.matmul_efficiency_fp4 = 0.2;  // an FP8 design never uses it
  EXPECT_EQ(evaluate(fp8).metrics.tpot_s, evaluate(fp8_slow).metrics.tpot_s);
  d.runtime.memory_reserved_GiB = -1;
  d.runtime.matmul_efficiency_fp4 = 1.5;
  std::vector<std::string> paths;
  for (const auto& i : validate(d)) paths.push_back(i.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"/runtime/matmul_efficiency_fp4",
                                              "/runtime/memory_reserved_GiB"}));
}

// A batch of prefill chunk(s) and decode steps runs its device time (all but the per-iteration
// host overhead) at runtime::Profile::mixed_iteration_efficiency of a pure batch's rate, so it
// takes 1 / efficiency as long; its dynamic energy is unchanged and static power runs over the
// longer time. Pure prefill and pure decode batches do not see it; 0 and 1.5 are refused.
TEST(Iteration, MixedIterationEfficiency) {
  constexpr double kEfficiency = 0.8;
  constexpr double kOverheadUs = 40;
  const std::vector<SequenceChunk> prompt{{512, 0, true}};
  const std::vector<SequenceChunk> chunk{{256, 1024, false}};  // a later chunk of a prompt
  const std::vector<SequenceChunk> one_token_prompt{{1, 0, true}};
  auto with = [](std::vector<SequenceChunk> a, const std::vector<SequenceChunk>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  // Llama-3-70B TP 8 (one attention group) and DeepSeek-V3 (64 attention-DP groups).
  const std::vector<std::pair<Design, std::vector<SequenceChunk>>> cases{
      {llama70b_h100(8, 1), decodes(16, 2000)}, {deepseek_256(), decodes(128, 2000)}};
  for (const auto& [base, decode] : cases) {
    Design d = base;
    d.runtime.iteration_overhead_us = kOverheadUs;
    IterationModel full(d);
    d.runtime.mixed_iteration_efficiency = kEfficiency;
    IterationModel mixed(d);
    const double overhead = kOverheadUs * 1e-6;
    for (const auto& b : {with(decode, prompt), with(prompt, decode), with(decode, chunk),
                          with(decode, one_token_prompt)}) {
      const IterationCost a = full.cost(b), m = mixed.cost(b);
      expect_rel(m.time_s - overhead, (a.time_s - overhead) / kEfficiency, d.name.c_str());
      expect_rel(m.energy_J - a.energy_J, replica_static_W(base, b) * (m.time_s - a.time_s),
                 d.name.c_str());
    }
    for (const auto& b : {prompt, chunk, with(prompt, chunk), one_token_prompt, decode}) {
      EXPECT_EQ(mixed.cost(b).time_s, full.cost(b).time_s) << d.name;
      EXPECT_EQ(mixed.cost(b).energy_J, full.cost(b).energy_J) << d.name;
    }
  }
  for (const double bad : {0.0, 1.5}) {
    Design d = llama70b_h100(8, 1);
    d.runtime.mixed_iteration_efficiency = bad;
    const auto issues = validate(d);
    ASSERT_EQ(issues.size(), 1u) << bad;
    EXPECT_EQ(issues[0].path, "/runtime/mixed_iteration_efficiency");
  }
}

TEST(Iteration, KvBytesPerToken) {
  // Llama-3-70B: 80 layers x K and V x 8 KV heads x 128 x 1 byte (fp8), whatever the TP split.
  EXPECT_DOUBLE_EQ(IterationModel(llama70b_h100(8, 1)).kv_bytes_per_token(), 80 * 2 * 8 * 128);
  EXPECT_DOUBLE_EQ(IterationModel(llama70b_h100(4, 2)).kv_bytes_per_token(), 80 * 2 * 8 * 128);
  // DeepSeek-V3: the MLA latent (512 + 64) of 61 layers, fp8, on both ranks of a TP 2 group.
  EXPECT_DOUBLE_EQ(IterationModel(deepseek_256()).kv_bytes_per_token(), 61 * 576 * 2);
}

// Sequences of the largest iteration's size filling the capacity fit memory_footprint; one
// more KV page per device does not (pp = 1: exact; pp > 1: the fullest stage bounds).
// gpt-oss-120b (18 of 36 layers attend to a 128-token window) on H100 SXM, MXFP4 weight-only.
Design gpt_oss_h100(int tp) {
  return project(R"({"schema_version": 2, "id": "t", "name": "gpt-oss-120b h100 tp)" +
                 std::to_string(tp) + R"(", "hardware": "h100-sxm",
    "system": "h100-sxm-x8", "model": "gpt-oss-120b", "runtime": "modern-gpu-2025",
    "workload": {"batch": 1, "input_len": 1024, "output_len": 256,
      "numerics": {"weights": "fp4", "activations": "bf16", "kv_cache": "bf16"}},
    "parallel": {"tp": )" +
                 std::to_string(tp) + "}}");
}

// Sliding-window layers in serving iterations: a uniform decode batch and one prompt are still
// the evaluator's decode step and prefill pass; a window no sequence reaches changes nothing;
// past the window the sliding layers' attention stops growing, so a decode step grows with
// context at the full layers' rate only (half of the same model without a window).
TEST(Iteration, SlidingWindowLayers) {
  const Design d = gpt_oss_h100(8);
  ASSERT_TRUE(validate(d).empty()) << validate(d)[0].message;
  for (const auto& [batch, context] : {std::pair{8, 1023}, std::pair{64, 4095}, std::pair{3, 60}}) {
    const Design dd = at_decode(d, batch, context);
    IterationModel m(dd);
    expect_rel(m.cost(decodes(batch, context)).time_s, evaluate(dd).decode.time_s, "decode");
  }
  for (const int input : {100, 2048}) {
    const Design dp = at_prefill(d, input);
    IterationModel m(dp);
    const std::vector<SequenceChunk> one{{input, 0, true}};
    expect_rel(m.cost(one).time_s, evaluate(dp).prefill.time_s, "prefill");
  }
  Design full = d;
  full.model.sliding_window = 0;
  IterationModel with(d), without(full);
  // Contexts inside the window: identical.
  EXPECT_EQ(with.cost(decodes(16, 100)).time_s, without.cost(decodes(16, 100)).time_s);
  const std::vector<SequenceChunk> short_prompt{{120, 0, true}};
  EXPECT_EQ(with.cost(short_prompt).time_s, without.cost(short_prompt).time_s);
  // Past it: cheaper, and growing at half the rate (18 of 36 layers still grow) while decode
  // attention is bound by the KV bytes it reads.
  const double w1 = with.cost(decodes(64, 8000)).time_s, w2 = with.cost(decodes(64, 16000)).time_s;
  const double f1 = without.cost(decodes(64, 8000)).time_s,
               f2 = without.cost(decodes(64, 16000)).time_s;
  EXPECT_LT(w1, f1);
  EXPECT_NEAR((w2 - w1) / (f2 - f1), 0.5, 0.02);
  const std::vector<SequenceChunk> long_prompt{{8192, 0, true}};
  EXPECT_LT(with.cost(long_prompt).time_s, without.cost(long_prompt).time_s);
}

// KV capacity with sliding-window layers: a sequence holds at most the window in them (set aside
// for max_seqs sequences), and its tokens beyond it cost the full layers' bytes only. The model
// without a window counts every layer per token: 36 x kv per token over `free`; with it,
// (free - seqs x 128 tokens x 18 layers) / 18 layers = 2 x that capacity - seqs x 128.
TEST(Iteration, SlidingWindowKvCapacity) {
  const Design d = gpt_oss_h100(8);
  Design full = d;
  full.model.sliding_window = 0;
  const double cap_full = IterationModel(full).kv_capacity_tokens(8192, 64);
  ASSERT_GT(cap_full, 0);
  EXPECT_EQ(IterationModel(full).kv_capacity_tokens(8192), cap_full);
  const IterationModel m(d);
  EXPECT_NEAR(m.kv_capacity_tokens(8192, 64), 2 * cap_full - 64 * 128.0, 1e-6 * cap_full);
  EXPECT_EQ(m.kv_capacity_tokens(8192), cap_full);  // no sequence cap: every layer per token
  EXPECT_NEAR(m.kv_bytes_per_token(), IterationModel(full).kv_bytes_per_token() / 2, 1e-9);
  // The static footprint: 18 layers of the whole context and 18 of the window.
  Design big = d;
  big.workload.batch = 4;
  big.workload.input_len = 4000;
  big.workload.output_len = 96;
  Design big_full = big;
  big_full.model.sliding_window = 0;
  const double kv = memory_footprint(big, 4).kv_cache, kv_full = memory_footprint(big_full, 4).kv_cache;
  EXPECT_NEAR(kv / kv_full, (18.0 * 4096 + 18.0 * 128) / (36.0 * 4096), 1e-12);
}

TEST(Iteration, KvCapacityMatchesFootprint) {
  constexpr int kMaxBatched = 8192;
  struct Case {
    Design d;
    int groups;  // attention groups (one sequence each)
    bool tight;
  };
  for (const Case& k : {Case{llama70b_h100(8, 1), 1, true}, Case{llama70b_h100(4, 2), 1, false},
                        Case{deepseek_256(), 64, false}}) {
    IterationModel m(k.d);
    const double cap = m.kv_capacity_tokens(kMaxBatched);
    ASSERT_GT(cap, 0);
    EXPECT_GE(m.kv_capacity_tokens(1), cap);
    Design d = k.d;
    d.workload.batch_auto = false;
    d.workload.batch = k.groups;
    d.workload.input_len = kMaxBatched / k.groups;
    const int per_seq = static_cast<int>(std::floor(cap / k.groups));
    d.workload.output_len = per_seq - d.workload.input_len;
    const MemoryFootprint f = memory_footprint(d, k.groups);
    EXPECT_LE(f.total(), f.capacity);
    std::printf("%s: KV capacity %.0f tokens (%.3g B/token), footprint at it %.4f of capacity\n",
                k.d.name.c_str(), cap, m.kv_bytes_per_token(), f.total() / f.capacity);
    if (k.tight) {
      d.workload.output_len += 64;
      EXPECT_GT(memory_footprint(d, k.groups).total(), f.capacity);
    } else {
      EXPECT_GT(f.total(), 0.95 * f.capacity);
    }
  }
  // Nothing is left when the weights alone fill the device.
  Design tiny = llama70b_h100(8, 1);
  tiny.parallel.tp = 1;
  tiny.system.devices = 1;
  tiny.workload.numerics.weights = Precision::bf16;
  EXPECT_EQ(IterationModel(tiny).kv_capacity_tokens(kMaxBatched), 0.0);
}

// Cost per call after warm-up, printed (timing goals live in tests/bench/iteration_bench.cpp).
TEST(Iteration, PrintsCallCost) {
  for (const Design& d : {llama70b_h100(8, 1), deepseek_256()}) {
    IterationModel m(d);
    std::vector<SequenceChunk> b = decodes(128, 2000);
    for (int i = 0; i < 128; ++i) b[static_cast<std::size_t>(i)].context += i;
    b.push_back({512, 1024, false});
    (void)m.cost(b);
    constexpr int kCalls = 20000;
    double sink = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) {
      b[static_cast<std::size_t>(i % 128)].context += 1;  // contexts grow as in decode
      sink += m.cost(b).time_s;
    }
    const auto t1 = std::chrono::steady_clock::now();
    std::printf("%s: %.3f us per cost() of 128 decodes + 1 chunk (sink %g)\n", d.name.c_str(),
                std::chrono::duration<double, std::micro>(t1 - t0).count() / kCalls, sink);
  }
}

// An iteration that carries a prefill chunk is launched eagerly by the host, kernel by kernel
// (runtime::Profile::eager_launch_us), and takes at least its kernels x that time. Llama-3-70B
// TP 8 runs ten kernels per layer (docs/model.md §3: RMSNorm, QKV, attention, O projection, TP
// all-reduce, RMSNorm, gate/up, SiLU x up, down projection, TP all-reduce), eight when the
// runtime issues collectives without kernels. Decode-only iterations replay a graph and never
// see the floor; a long prompt whose kernels outlast the host keeps its device time.
TEST(Iteration, EagerLaunchFloor) {
  constexpr double kLaunch = 1e-2;  // s per kernel: far above any kernel's own time here
  const std::vector<SequenceChunk> prompt{{16, 0, true}};
  auto floor_kernels = [&](Design d, int layers) {
    d.model.layers = layers;
    d.runtime.eager_launch_us = kLaunch * 1e6;
    return IterationModel(d).cost(prompt).time_s / kLaunch;
  };
  const Design d = llama70b_h100(8, 1);
  EXPECT_NEAR(floor_kernels(d, 80) - floor_kernels(d, 40), 40 * 10, 1e-6);
  Design no_collective_kernels = d;
  no_collective_kernels.runtime.collective_is_kernel = false;
  EXPECT_NEAR(floor_kernels(no_collective_kernels, 80) - floor_kernels(no_collective_kernels, 40),
              40 * 8, 1e-6);
  Design fused_pairs = d;
  fused_pairs.runtime.kernels_per_op = 2;
  EXPECT_NEAR(floor_kernels(fused_pairs, 80) - floor_kernels(fused_pairs, 40), 40 * (2 * 8 + 2),
              1e-6);

  IterationModel graph(d);
  Design eager_design = d;
  eager_design.runtime.eager_launch_us = 80;
  IterationModel eager(eager_design);
  const auto decode = decodes(64, 2000);
  EXPECT_EQ(eager.cost(decode).time_s, graph.cost(decode).time_s);
  EXPECT_EQ(eager.cost(decode).energy_J, graph.cost(decode).energy_J);
  // 16 prompt tokens on 8 H100s: the device finishes long before the host's 803 launches (three
  // beyond the layers: the final norm, the LM head and the all-gather of its logits).
  EXPECT_NEAR(eager.cost(prompt).time_s, (80 * 10 + 3) * 80e-6, 1e-12);
  EXPECT_GT(eager.cost(prompt).energy_J, graph.cost(prompt).energy_J);  // static power runs on
  // With decodes beside it, each layer runs a decode and a prefill attention kernel.
  std::vector<SequenceChunk> mixed = decode;
  mixed.push_back({16, 0, true});
  EXPECT_NEAR(eager.cost(mixed).time_s, (80 * 11 + 3) * 80e-6, 1e-12);
  const std::vector<SequenceChunk> long_prompt{{8192, 0, true}};
  EXPECT_GT(graph.cost(long_prompt).time_s, (80 * 10 + 3) * 80e-6);
  EXPECT_EQ(eager.cost(long_prompt).time_s, graph.cost(long_prompt).time_s);

  Design bad = d;
  bad.runtime.eager_launch_us = -1;
  const auto issues = validate(bad);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].path, "/runtime/eager_launch_us");
}

}  // namespace
}  // namespace stackscope::perf
