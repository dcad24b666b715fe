// SPDX-License-Identifier: GPL-3.0-or-later
// AIConfigurator's silicon-sample CSV (io/silicon_sample.hpp) and the mapping and running of its
// rows (validate/silicon.hpp, validate/run.hpp).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/silicon_sample.hpp"
#include "stackscope/io/validation.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/validate/explain.hpp"
#include "stackscope/validate/fit.hpp"
#include "stackscope/validate/run.hpp"

namespace stackscope {
namespace {

const std::string kHeader =
    "id,silicon_data_source,backend,backend_version,model_path,system,precision,mode,isl,osl,"
    "gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,"
    "moe_ep_size,prefill_batch_size,prefill_num_workers,prefill_tp_size,prefill_pp_size,"
    "prefill_attention_dp_size,prefill_moe_tp_size,prefill_moe_ep_size,decode_batch_size,"
    "decode_num_workers,decode_tp_size,decode_pp_size,decode_attention_dp_size,"
    "decode_moe_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms\n";

// Rows copied from data/aic-silicon/h100_sxm.csv.gz (AIConfigurator silicon_sample.csv,
// 095f58a), one per kind of deployment.
const std::string kLlamaAgg =
    "llama8b_c8,source_file=/x/aic-auto-gap-analysis/data/h100_sxm/trtllm/1.0.0rc3/"
    "meta-llama_Llama-3.1-8B-Instruct.csv; silicon_concurrency=8,trtllm,1.0.0rc3,"
    "meta-llama/Llama-3.1-8B-Instruct,h100_sxm,,agg,1024,128,,,8,1,1,,1,1,,,,,,,,,,,,,,,"
    "190.954,7.9435\n";
const std::string kDeepSeekDisagg =
    "dsr1_disagg,source_file=2026-01-01.csv; model=DeepSeek-R1; silicon_concurrency=64; "
    "measured=2026-01-01T00:00:00Z; wip=False; image=lmsysorg/sglang:v0.5.8-cu129,sglang,0.5.8,"
    "deepseek-ai/DeepSeek-R1,h100_sxm,fp8,disagg,1024,1024,fp8,fp8_block,,,,,,,1,1,1,1,16,1,16,"
    "1,1,1,1,16,1,16,1500.0,30.0\n";
const std::string kGptOss =
    "gptoss,source_file=2026-04-06.csv; model=GPT-OSS-120B; silicon_concurrency=4; "
    "measured=2026-04-06T00:00:00Z; wip=False,vllm,0.18.0,openai/gpt-oss-120b,h100_sxm,fp4,agg,"
    "1024,1024,nvfp4,nvfp4,4,2,1,1,2,1,,,,,,,,,,,,,,,50.0,5.0\n";

// A model the operator graph cannot express (Qwen3.5 mixes Gated DeltaNet layers in).
const std::string kQwen35 =
    "qwen35,source_file=2026-04-06.csv; model=Qwen3.5; silicon_concurrency=4; "
    "measured=2026-04-06T00:00:00Z; wip=False,sglang,0.5.9,Qwen/Qwen3.5-397B-A17B,h100_sxm,fp8,"
    "agg,1024,1024,fp8,fp8,4,8,1,1,1,8,,,,,,,,,,,,,,,50.0,5.0\n";

validate::Catalog catalog() {
  static const validate::Catalog c = io::silicon_catalog(io::builtin_presets());
  return c;
}

TEST(SiliconSample, ParsesColumnsByName) {
  const auto rows = io::parse_silicon_sample(kHeader + kLlamaAgg + kDeepSeekDisagg, "t.csv");
  ASSERT_EQ(rows.size(), 2u);
  const auto& a = rows[0];
  EXPECT_EQ(a.id, "llama8b_c8");
  EXPECT_EQ(a.origin, "t.csv:2");
  EXPECT_EQ(a.backend, "trtllm");
  EXPECT_EQ(a.model, "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_EQ(a.mode, "agg");
  EXPECT_EQ(a.isl, 1024);
  EXPECT_EQ(a.osl, 128);
  EXPECT_EQ(a.agg.batch, 8);
  EXPECT_EQ(a.agg.tp, 1);
  EXPECT_EQ(a.agg.attention_dp, 0);  // empty cell
  EXPECT_DOUBLE_EQ(a.ttft_ms, 190.954);
  EXPECT_DOUBLE_EQ(a.tpot_ms, 7.9435);
  const auto& d = rows[1];
  EXPECT_EQ(d.prefill.workers, 1);
  EXPECT_EQ(d.prefill.attention_dp, 16);
  EXPECT_EQ(d.prefill.moe_ep, 16);
  EXPECT_EQ(d.decode.attention_dp, 16);
  EXPECT_EQ(d.moe_quant, "fp8_block");
}

TEST(SiliconSample, QuotedFieldsCrlfAndBom) {
  const std::string text =
      "\xEF\xBB\xBFid,backend,model_path,system,mode,isl,osl,silicon_ttft_ms,silicon_tpot_ms,"
      "batch_size\r\n\"a,\"\"b\"\"\",vllm,Qwen/Qwen3-32B,h100_sxm,agg,1024,128,100.5,\"9.5\",8\r\n";
  const auto rows = io::parse_silicon_sample(text, "q.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, "a,\"b\"");
  EXPECT_DOUBLE_EQ(rows[0].tpot_ms, 9.5);
  EXPECT_EQ(rows[0].agg.batch, 8);
}

std::string error_of(const std::string& text) {
  try {
    io::parse_silicon_sample(text, "bad.csv");
  } catch (const ConfigError& e) {
    return format_issues(e.issues());
  }
  return "";
}

TEST(SiliconSample, BadInputNamesFileLineColumnAndRange) {
  EXPECT_NE(error_of("").find("empty file"), std::string::npos);
  EXPECT_NE(error_of("id,backend\n").find("missing column"), std::string::npos);
  EXPECT_NE(error_of(kHeader.substr(0, kHeader.size() - 1) + ",isl\n").find("duplicate column"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader).find("no measured rows"), std::string::npos);
  std::string bad = kLlamaAgg;
  bad.replace(bad.find(",1024,128,"), 10, ",0,128,");
  const std::string e1 = error_of(kHeader + bad);
  EXPECT_NE(e1.find("bad.csv:2/isl"), std::string::npos) << e1;
  EXPECT_NE(e1.find("1..10000000"), std::string::npos) << e1;
  std::string neg = kLlamaAgg;
  neg.replace(neg.find("190.954"), 7, "-1");
  EXPECT_NE(error_of(kHeader + neg).find("bad.csv:2/silicon_ttft_ms"), std::string::npos);
  std::string big = kLlamaAgg;
  big.replace(big.find(",8,1,1,"), 7, ",9999999,1,1,");
  EXPECT_NE(error_of(kHeader + big).find("bad.csv:2/batch_size"), std::string::npos);
  EXPECT_NE(error_of(kHeader + "\"open,quote\n").find("never closed"), std::string::npos);
  EXPECT_NE(error_of(kHeader + "a,b,c\n").find("wrong number of fields"), std::string::npos);
}

TEST(SiliconSample, ShippedH100SampleLoadsWhole) {
  // data/aic-silicon/README.md: 917 H100 rows.
  const auto rows = io::load_silicon_sample(std::string(STACKSCOPE_SOURCE_DIR) +
                                            "/data/aic-silicon/h100_sxm.csv.gz");
  EXPECT_EQ(rows.size(), 917u);
  std::map<std::string, int> per_backend;
  for (const auto& r : rows) ++per_backend[r.backend];
  // Counted from the CSV's backend column.
  EXPECT_EQ(per_backend["trtllm"], 543);
  EXPECT_EQ(per_backend["vllm"], 240);
  EXPECT_EQ(per_backend["sglang"], 134);
}

TEST(SiliconMapping, AggregatedRowRunsItsPlanUnderItsBenchmark) {
  const auto rows = io::parse_silicon_sample(kHeader + kLlamaAgg, "t.csv");
  const validate::Case c = validate::map_row(rows[0], catalog());
  ASSERT_EQ(c.unmapped, "");
  EXPECT_EQ(c.model_preset, "llama-3.1-8b");
  EXPECT_EQ(c.partition, "meta-llama/Llama-3.1-8B-Instruct|h100_sxm|trtllm|agg");
  EXPECT_FALSE(c.moe);
  ASSERT_EQ(c.workers.size(), 1u);
  EXPECT_EQ(c.workers[0].design.parallel.tp, 1);
  EXPECT_EQ(c.workers[0].design.workload.numerics.weights, Precision::bf16);
  EXPECT_EQ(c.runtime, "trtllm-2025");
  // AIConfigurator's aiperf workflow: concurrency C, 20 x C requests, fixed lengths.
  EXPECT_EQ(c.bench.generator, validate::LoadGenerator::aiperf);
  EXPECT_EQ(c.bench.concurrency, 8);
  EXPECT_EQ(c.bench.requests, 160u);
  EXPECT_EQ(c.bench.isl_min, 1024);
  EXPECT_EQ(c.bench.osl_max, 128);
  EXPECT_EQ(c.workers[0].scheduler.max_num_seqs, 8);
  EXPECT_FALSE(c.workers[0].scheduler.chunked_prefill);
  // AIConfigurator's generator (rule_plugin/benchmark/trtllm.rule): max_num_tokens = batch +
  // ISL + 1500 rounded up to 32-token blocks (8 + 1024 + 1500 = 2532 -> 2560), and the
  // aggregated worker runs the overlap scheduler (disable_overlap_scheduler false).
  EXPECT_EQ(c.workers[0].scheduler.max_num_batched_tokens, 2560);
  EXPECT_TRUE(c.workers[0].scheduler.overlap_scheduler);
}

TEST(SiliconMapping, DisaggregatedMoeRowKeepsAttentionDpAndExpertParallelism) {
  const auto rows = io::parse_silicon_sample(kHeader + kDeepSeekDisagg, "t.csv");
  const validate::Case c = validate::map_row(rows[0], catalog());
  ASSERT_EQ(c.unmapped, "");
  EXPECT_EQ(c.model_preset, "deepseek-v3");
  EXPECT_TRUE(c.moe);
  ASSERT_EQ(c.workers.size(), 2u);
  for (const auto& w : c.workers) {
    EXPECT_EQ(w.design.parallel.tp, 1);
    EXPECT_EQ(w.design.parallel.ep, 16);  // attention-DP ranks
    EXPECT_EQ(w.design.parallel.moe.ep, 16);
    EXPECT_EQ(w.design.system.devices, 32);  // both workers on one system
    EXPECT_EQ(w.design.workload.numerics.weights, Precision::fp8);
  }
  // silicon_concurrency in the source wins over the placeholder decode batch of 1; InferenceX
  // benchmark_serving: 10 x C requests, lengths in [0.8 L, L].
  EXPECT_EQ(c.bench.generator, validate::LoadGenerator::benchmark_serving);
  EXPECT_EQ(c.bench.concurrency, 64);
  EXPECT_EQ(c.bench.requests, 640u);
  EXPECT_EQ(c.bench.isl_min, 820);
  EXPECT_EQ(c.bench.isl_max, 1024);
  EXPECT_GE(c.workers[1].scheduler.max_num_seqs, 64);
}

TEST(SiliconMapping, InexpressibleRowsSayWhy) {
  const auto rows = io::parse_silicon_sample(kHeader + kQwen35, "t.csv");
  const validate::Case c = validate::map_row(rows[0], catalog());
  EXPECT_NE(c.unmapped.find("Gated DeltaNet"), std::string::npos) << c.unmapped;
  EXPECT_TRUE(c.workers.empty());
  validate::SiliconRow r = io::parse_silicon_sample(kHeader + kLlamaAgg, "t.csv")[0];
  r.system = "gb300";
  EXPECT_NE(validate::map_row(r, catalog()).unmapped.find("no device preset"), std::string::npos);
  r = io::parse_silicon_sample(kHeader + kLlamaAgg, "t.csv")[0];
  r.gemm_quant = "nvfp4";
  r.precision = "fp4";
  EXPECT_NE(validate::map_row(r, catalog()).unmapped.find("no FP4 tensor cores"),
            std::string::npos);
  // MiniMax-M2.5 (full attention, 256 experts) maps; Qwen3.5's Gated DeltaNet layers do not.
  r = io::parse_silicon_sample(kHeader + kLlamaAgg, "t.csv")[0];
  r.model = "MiniMaxAI/MiniMax-M2.5";
  r.gemm_quant = r.moe_quant = "fp8";
  r.agg.tp = 4;
  r.agg.moe_tp = 1;
  r.agg.moe_ep = 4;
  const validate::Case mm = validate::map_row(r, catalog());
  ASSERT_EQ(mm.unmapped, "");
  EXPECT_EQ(mm.model_preset, "minimax-m2.5");
  EXPECT_TRUE(mm.moe);
  EXPECT_EQ(mm.workers[0].design.parallel.moe.ep, 4);
  r.model = "Qwen/Qwen3.5-397B-A17B";
  EXPECT_NE(validate::map_row(r, catalog()).unmapped.find("Gated DeltaNet"), std::string::npos);
  r = io::parse_silicon_sample(kHeader + kLlamaAgg, "t.csv")[0];
  r.gemm_quant = "w4a16";
  const validate::Case w4 = validate::map_row(r, catalog());
  ASSERT_EQ(w4.unmapped, "");
  EXPECT_EQ(w4.workers[0].design.workload.numerics.weights, Precision::fp4);
  EXPECT_EQ(w4.workers[0].design.workload.numerics.activations, Precision::bf16);
}

TEST(SiliconSelector, ParsesAndMatches) {
  const auto s = validate::parse_selector("system=h100_sxm|h200_sxm, backend=trt*", "--fit-on");
  ASSERT_EQ(s.terms.size(), 2u);
  validate::SiliconRow r;
  r.system = "h200_sxm";
  r.backend = "trtllm";
  EXPECT_TRUE(validate::matches(s, r));
  r.backend = "vllm";
  EXPECT_FALSE(validate::matches(s, r));
  EXPECT_TRUE(validate::matches(validate::Selector{}, r));
  EXPECT_THROW(validate::parse_selector("colour=red", "--fit-on"), std::invalid_argument);
  EXPECT_THROW(validate::parse_selector("system", "--fit-on"), std::invalid_argument);
  EXPECT_THROW(validate::parse_selector("system=", "--fit-on"), std::invalid_argument);
}

TEST(SiliconStats, MapeP90AndMax) {
  const auto s = validate::error_stats({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0});
  EXPECT_EQ(s.rows, 10u);
  EXPECT_NEAR(s.mape, 0.55, 1e-12);
  EXPECT_DOUBLE_EQ(s.p90, 0.9);  // nearest rank: ceil(0.9 x 10) = 9th
  EXPECT_DOUBLE_EQ(s.max, 1.0);
  EXPECT_EQ(validate::error_stats({}).rows, 0u);
}

TEST(SiliconRun, DeterministicWhateverTheThreadCount) {
  const auto rows = io::parse_silicon_sample(kHeader + kLlamaAgg + kLlamaAgg + kQwen35, "t.csv");
  std::vector<validate::Case> cases;
  for (const auto& r : rows) cases.push_back(validate::map_row(r, catalog()));
  const std::vector<std::size_t> sel{0, 1, 2};
  const std::vector<validate::Group> groups(3, validate::Group::reported);
  validate::RunOptions one;
  const auto a = validate::run_cases(cases, sel, groups, one);
  validate::RunOptions two;
  two.threads = 2;
  const auto b = validate::run_cases(cases, sel, groups, two);
  ASSERT_EQ(a.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(a[i].ran, b[i].ran);
    EXPECT_EQ(a[i].ttft_ms, b[i].ttft_ms);
    EXPECT_EQ(a[i].tpot_ms, b[i].tpot_ms);
  }
  ASSERT_TRUE(a[0].ran) << a[0].failure;
  EXPECT_EQ(a[0].requests, 160u);
  // Llama-3.1-8B on one H100 decodes 8 sequences far faster than 100 ms per token and prefills
  // 1024 tokens in well under a second: the prediction lies within a factor 2 of the measured
  // 7.9 ms and 191 ms.
  EXPECT_GT(a[0].tpot_ms, 7.9435 / 2);
  EXPECT_LT(a[0].tpot_ms, 7.9435 * 2);
  EXPECT_GT(a[0].ttft_ms, 190.954 / 4);
  EXPECT_LT(a[0].ttft_ms, 190.954 * 2);
  EXPECT_FALSE(a[2].ran);
  EXPECT_NE(a[2].failure.find("unmapped"), std::string::npos);
  const auto stats = validate::summarise(cases, a);
  ASSERT_FALSE(stats.empty());
  EXPECT_EQ(stats.back().partition, "all");
  EXPECT_EQ(stats.back().ttft.rows, 2u);
  validate::Report rep;
  rep.cases = cases;
  rep.selected = sel;
  rep.results = a;
  rep.stats = stats;
  const std::string json = io::validation_json(rep);
  EXPECT_NE(json.find("\"unmapped\""), std::string::npos);
  EXPECT_NE(json.find("Gated DeltaNet"), std::string::npos);
}

// gpt-oss-120b (the sample files its MXFP4 experts as nvfp4): the preset's alternating
// 128-token sliding window, MXFP4 weight-only on Hopper (BF16 GEMMs) and MXFP4 x MXFP8 on
// Blackwell's FP4 tensor cores (the GEMMs at the FP8 rate).
TEST(SiliconMapping, GptOssRunsWithItsSlidingWindowAndMxfp4Experts) {
  validate::SiliconRow r = io::parse_silicon_sample(kHeader + kGptOss, "t.csv")[0];
  const validate::Case h = validate::map_row(r, catalog());
  ASSERT_EQ(h.unmapped, "");
  EXPECT_EQ(h.model_preset, "gpt-oss-120b");
  EXPECT_TRUE(h.moe);
  const auto& m = h.workers[0].design.model;
  EXPECT_EQ(m.sliding_window, 128);
  EXPECT_EQ(parallel::sliding_layers(m, 0, m.layers), 18);
  const auto& n = h.workers[0].design.workload.numerics;
  EXPECT_EQ(n.weights, Precision::fp4);
  EXPECT_EQ(n.activations, Precision::bf16);
  EXPECT_EQ(n.kv_cache, Precision::bf16);
  r.system = "b200_sxm";
  const validate::Case b = validate::map_row(r, catalog());
  ASSERT_EQ(b.unmapped, "");
  EXPECT_EQ(b.workers[0].design.workload.numerics.weights, Precision::fp4);
  EXPECT_EQ(b.workers[0].design.workload.numerics.activations, Precision::fp8);
  // Another model filed as nvfp4 on Hopper is still refused (no FP4 tensor cores).
  r.system = "h100_sxm";
  r.model = "nvidia/Qwen3-32B-NVFP4";
  EXPECT_NE(validate::map_row(r, catalog()).unmapped.find("no FP4 tensor cores"),
            std::string::npos);
}

// AIConfigurator's 2026-04-06 export multiplies tp (or attention DP) by ep on some aggregated
// MoE rows; the id names the deployment (rows copied from silicon_sample.csv at 095f58a: the
// MiniMax-M2.5 H100 row 1357 and the DeepSeek-R1 B200 rows 921 and 937, each with its
// 2026-03-25 counterpart's plan as the expected one). Repeated measurements count once.
TEST(SiliconMapping, InflatedExportPlansRunOnTheGpusTheirIdsNameAndRepeatsCountOnce) {
  const std::string minimax =
      "2026_04_06_minimax_m2_5_h100_sxm_vllm_fp8_agg_1024x1024_c4_tp4_ep4_1357,"
      "source_file=2026-04-06.csv; model=MiniMax-M2.5; silicon_concurrency=4; "
      "measured=2026-03-01T00:00:00Z,vllm,0.18.0,MiniMaxAI/MiniMax-M2.5,h100_sxm,fp8,agg,1024,1024,"
      "fp8_block,fp8_block,1,4,1,4,1,16,,,,,,,,,,,,,,,100.0,10.089\n";
  const std::string ds_tp =
      "2026_04_06_deepseek_r1_b200_sxm_trtllm_fp8_agg_1024x1024_c16_tp8_ep8_921,"
      "source_file=2026-04-06.csv; model=DeepSeek-R1; silicon_concurrency=16; "
      "measured=2026-01-14T00:00:00Z,trtllm,1.2.0,deepseek-ai/DeepSeek-R1,b200_sxm,fp8,agg,1024,"
      "1024,fp8_block,fp8_block,16,64,1,1,8,8,,,,,,,,,,,,,,,200.0,11.909\n";
  const std::string ds_adp =
      "2026_04_06_deepseek_r1_b200_sxm_trtllm_fp4_agg_1024x1024_c64_tp8_ep8_937,"
      "source_file=2026-04-06.csv; model=DeepSeek-R1; silicon_concurrency=64; "
      "measured=2026-02-06T00:00:00Z,trtllm,1.2.0,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,"
      "1024,nvfp4,nvfp4,1,1,1,64,8,8,,,,,,,,,,,,,,,300.0,12.289\n";
  // The same measurement as ds_adp under the 2026-03-25 id and plan.
  const std::string ds_twin =
      "2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_agg_1024x1024_c64_tp8_0_ep8_0_976,"
      "source_file=2026-03-25.csv; model=DeepSeek-R1; silicon_concurrency=64; "
      "measured=2026-02-06T00:00:00Z,trtllm,1.2.0,deepseek-ai/DeepSeek-R1,b200_sxm,fp4,agg,1024,"
      "1024,nvfp4,nvfp4,8,1,1,8,1,8,,,,,,,,,,,,,,,300.0,12.289\n";
  const auto rows = io::parse_silicon_sample(kHeader + minimax + ds_tp + ds_adp + ds_twin, "t.csv");
  std::vector<validate::Case> cases;
  for (const auto& r : rows) cases.push_back(validate::map_row(r, catalog()));
  const auto plan_of = [](const validate::Case& c) { return c.workers.at(0).design.parallel; };
  ASSERT_EQ(cases[0].unmapped, "");
  EXPECT_EQ(plan_of(cases[0]).tp, 4);  // tp 4 x attention-DP 4 -> tp 4 on 4 GPUs
  EXPECT_EQ(plan_of(cases[0]).ep, 1);
  EXPECT_EQ(plan_of(cases[0]).moe.ep, 4);
  EXPECT_EQ(plan_of(cases[0]).moe.tp, 1);
  ASSERT_EQ(cases[1].unmapped, "");
  EXPECT_EQ(plan_of(cases[1]).tp, 8);  // tp 64 -> tp 8, experts ep 8
  EXPECT_EQ(plan_of(cases[1]).moe.ep, 8);
  EXPECT_EQ(plan_of(cases[1]).moe.tp, 1);
  ASSERT_EQ(cases[2].unmapped, "");
  EXPECT_EQ(plan_of(cases[2]).tp, 1);  // attention-DP 64 -> 8
  EXPECT_EQ(plan_of(cases[2]).ep, 8);
  EXPECT_EQ(plan_of(cases[2]).moe.ep, 8);
  ASSERT_EQ(cases[3].unmapped, "");
  EXPECT_EQ(plan_of(cases[3]).ep, plan_of(cases[2]).ep);  // the twin's own plan agrees
  for (int k = 0; k < 3; ++k)
    EXPECT_NE(cases[k].notes.back().find("the id names tp"), std::string::npos) << k;
  EXPECT_TRUE(cases[3].notes.empty() ||
              cases[3].notes.back().find("the id names tp") == std::string::npos);
  validate::mark_duplicates(cases);
  EXPECT_EQ(cases[2].unmapped, "");
  EXPECT_NE(cases[3].unmapped.find("repeats an earlier row's measurement"), std::string::npos);
  EXPECT_TRUE(cases[3].workers.empty());
  EXPECT_NE(cases[3].notes.back().find(cases[2].row.id), std::string::npos);
  EXPECT_EQ(cases[0].unmapped, "");
  EXPECT_EQ(cases[1].unmapped, "");
  // batch_size is per attention-DP rank: the repaired plan keeps each worker's batch, so the
  // concurrency is one worker, not several (MiniMax: 1 x 4 ranks -> 4; DeepSeek: 1 x 64 -> 64).
  for (int k = 0; k < 3; ++k) EXPECT_EQ(cases[k].workers.at(0).count, 1) << k;
  EXPECT_EQ(cases[0].workers[0].scheduler.max_num_seqs, 4);
}

// The 2026-04-27 database dump re-exports InferenceX runs: this pair from the public sample
// (AIConfigurator 095f58a) is one measurement -- the same date, container, plan, lengths and
// TTFT / TPOT to the last digit -- the dump naming DeepSeek-R1 by its architecture's
// DeepSeek-V3. Both run as InferenceX's benchmark_serving (10 x C requests, lengths in
// [0.8 L, L]), and the second is counted once.
TEST(SiliconMapping, DatabaseDumpRowsAreInferenceXRunsCountedOnce) {
  const std::string dump =
      "dsr1_h200_sglang_fp8_agg_1024x1024_c4_cfg81,db-dump/2026-04-27; config_id=81; "
      "silicon_concurrency=4; measured=2026-03-25T00:00:00.000Z; workflow_run_id=337; "
      "lmsysorg/sglang:v0.5.9-cu130,sglang,0.5.9,deepseek-ai/DeepSeek-V3,h200_sxm,fp8,agg,1024,"
      "1024,fp8,fp8_block,4,8,1,1,8,1,,,,,,,,,,,,,,,259.9114292766899,10.29225441516629\n";
  const std::string inferencex =
      "2026_03_25_deepseek_r1_h200_sxm_sglang_fp8_agg_1024x1024_c4_tp8_0_ep1_0_289,"
      "source_file=2026-03-25.csv; model=DeepSeek-R1; silicon_concurrency=4; "
      "measured=2026-03-25T16:34:14Z; wip=False; image=lmsysorg/sglang:v0.5.9-cu130,sglang,0.5.9,"
      "deepseek-ai/DeepSeek-R1,h200_sxm,fp8,agg,1024,1024,fp8,fp8_block,4,8,1,1,8,1,,,,,,,,,,,,,,,"
      "259.9114292766899,10.29225441516629\n";
  const auto rows = io::parse_silicon_sample(kHeader + dump + inferencex, "t.csv");
  std::vector<validate::Case> cases;
  for (const auto& r : rows) cases.push_back(validate::map_row(r, catalog()));
  for (const auto& c : cases) {
    ASSERT_EQ(c.unmapped, "") << c.row.id;
    EXPECT_EQ(c.model_preset, "deepseek-v3");
    EXPECT_EQ(c.bench.generator, validate::LoadGenerator::benchmark_serving) << c.row.id;
    EXPECT_EQ(c.bench.requests, 40u);
    EXPECT_EQ(c.bench.isl_min, 820);
  }
  validate::mark_duplicates(cases);
  EXPECT_EQ(cases[0].unmapped, "");
  EXPECT_NE(cases[1].unmapped.find("repeats an earlier row's measurement"), std::string::npos);
  EXPECT_NE(cases[1].notes.back().find(cases[0].row.id), std::string::npos);
  // On B200 InferenceX's SGLang DeepSeek-R1 script sets an FP8 KV cache (dsr1_fp8_b200.sh),
  // under either name; on H200 it leaves "auto" (the BF16 of the model's activations).
  EXPECT_EQ(cases[0].workers.at(0).design.workload.numerics.kv_cache, Precision::bf16);
  validate::SiliconRow b200 = rows[0];
  b200.system = "b200_sxm";
  const validate::Case on_b200 = validate::map_row(b200, catalog());
  ASSERT_EQ(on_b200.unmapped, "");
  EXPECT_EQ(on_b200.workers.at(0).design.workload.numerics.kv_cache, Precision::fp8);
}

// A concurrency that is a whole multiple of one worker's batch is that many aggregated
// workers side by side (AIConfigurator's replicas); a disaggregated row without its worker
// counts cannot be rebuilt and is refused, not run as one worker of each.
TEST(SiliconMapping, AggregatedReplicasAndDisaggregatedRowsWithoutWorkerCounts) {
  // From AIConfigurator's silicon_sample.csv (Qwen3-32B-NVFP4 on B200, TensorRT-LLM 1.3.0rc5).
  const std::string replicas =
      "qwen32_nvfp4_agg,source_file=/x/aic-auto-gap-analysis/data/b200_sxm/trtllm/1.3.0rc5/"
      "nvidia_Qwen3-32B-NVFP4.csv; gtl_job_id=1; silicon_concurrency=416,trtllm,1.3.0rc5,"
      "nvidia/Qwen3-32B-NVFP4,b200_sxm,fp4,agg,15000,500,nvfp4,nvfp4,13,2,1,1,1,1,,,,,,,,,,,,,,,"
      "719.28,13.656\n";
  // DeepSeek-R1 on B200 from the InferenceX import: the worker counts are empty.
  const std::string no_workers =
      "dsr1_disagg_nw,source_file=2026-03-25.csv; model=DeepSeek-R1; silicon_concurrency=2222; "
      "measured=2026-01-29T15:52:16Z; wip=False,trtllm,0.8.1.post1,deepseek-ai/DeepSeek-R1,"
      "b200_sxm,fp4,disagg,8192,1024,nvfp4,nvfp4,,,,,,,,,4,1,1,1,4,,,8,1,1,2,4,4267.16,31.256\n";
  const auto rows = io::parse_silicon_sample(kHeader + replicas + no_workers, "t.csv");
  const validate::Case agg = validate::map_row(rows[0], catalog());
  ASSERT_EQ(agg.unmapped, "");
  ASSERT_EQ(agg.workers.size(), 1u);
  EXPECT_EQ(agg.workers[0].count, 32);  // 416 / 13
  EXPECT_EQ(agg.workers[0].design.parallel.tp, 2);
  EXPECT_GE(agg.workers[0].design.system.devices, 64);
  EXPECT_EQ(agg.bench.concurrency, 416);
  EXPECT_LT(agg.workers[0].scheduler.max_num_seqs, 32);  // one worker's batch, not 416
  EXPECT_GE(agg.workers[0].scheduler.max_num_seqs, 13);
  // Not a whole number of workers: refused with the numbers.
  validate::SiliconRow odd = rows[0];
  odd.agg.batch = 12;
  const validate::Case r12 = validate::map_row(odd, catalog());
  EXPECT_NE(r12.unmapped.find("not a whole number of workers of batch 12"), std::string::npos)
      << r12.unmapped;
  // A concurrency at or below one worker's batch is one worker.
  odd.agg.batch = 416;
  EXPECT_EQ(validate::map_row(odd, catalog()).workers.at(0).count, 1);
  const validate::Case dis = validate::map_row(rows[1], catalog());
  EXPECT_NE(dis.unmapped.find("without its worker counts"), std::string::npos) << dis.unmapped;
  EXPECT_TRUE(dis.workers.empty());
}

// The KV dtype of InferenceX runs is their launch scripts' (FP8 for vLLM Llama-3.1-70B);
// AIConfigurator's own vLLM runs keep vLLM's default, the model's dtype.
TEST(SiliconMapping, InferenceXLaunchScriptsSetTheKvDtype) {
  const std::string llama70 =
      "l70,source_file=2026-04-06.csv; model=Llama-3.1-70B; silicon_concurrency=16; "
      "measured=2025-10-29T00:00:00.000Z; wip=False,vllm,,meta-llama/Llama-3.1-70B,h100_sxm,fp8,"
      "agg,1024,1024,fp8,fp8,16,4,1,1,4,1,,,,,,,,,,,,,,,121.41,13.19\n";
  const auto rows = io::parse_silicon_sample(kHeader + llama70, "t.csv");
  const validate::Case c = validate::map_row(rows[0], catalog());
  ASSERT_EQ(c.unmapped, "");
  EXPECT_EQ(c.workers[0].design.workload.numerics.kv_cache, Precision::fp8);
  validate::SiliconRow own = rows[0];
  own.source = "source_file=/x/aic-auto-gap-analysis/data/h100_sxm/vllm/0.12.0/llama.csv; "
               "gtl_job_id=1; silicon_concurrency=16";
  const validate::Case a = validate::map_row(own, catalog());
  ASSERT_EQ(a.unmapped, "");
  EXPECT_EQ(a.workers[0].design.workload.numerics.kv_cache, Precision::bf16);
}

// validate --explain: the explanation's own simulation is validate's, its phase splits add up
// to the phase, and against a baseline that differs only in the per-kernel gap every moved
// millisecond is kernel overhead.
TEST(SiliconExplain, SplitsTheStepAndAttributesTheMoveToWhatChanged) {
  const auto rows = io::parse_silicon_sample(kHeader + kLlamaAgg, "t.csv");
  const validate::Case c = validate::map_row(rows[0], catalog());
  ASSERT_EQ(c.unmapped, "");
  runtime::Profile no_gap = catalog().runtimes.at(c.runtime);
  ASSERT_GT(no_gap.kernel_gap_us, 0);
  no_gap.id = "no-gap";
  no_gap.kernel_gap_us = 0;
  const validate::Explanation e = validate::explain(c, no_gap);
  const validate::CaseResult direct = validate::run_case(c);
  ASSERT_TRUE(e.now.ran) << e.now.failure;
  EXPECT_EQ(e.now.ttft_ms, direct.ttft_ms);
  EXPECT_EQ(e.now.tpot_ms, direct.tpot_ms);
  ASSERT_TRUE(e.base.ran) << e.base.failure;
  EXPECT_LT(e.base.tpot_ms, e.now.tpot_ms);  // no gap, faster decode
  ASSERT_EQ(e.pools.size(), 1u);
  const auto& p = e.pools[0];
  EXPECT_EQ(p.failure, "");
  EXPECT_EQ(p.role, "aggregated");
  EXPECT_EQ(p.decode_batch, 8);            // concurrency 8 on one instance
  EXPECT_EQ(p.decode_context, 1024 + 64);  // mean input + mean output / 2
  EXPECT_EQ(p.prompt_tokens, 1024);
  for (const auto* ph : {&p.decode, &p.prefill, &p.base_decode, &p.base_prefill}) {
    ASSERT_GT(ph->time_ms, 0);
    double ops = 0, res = 0;
    for (double v : ph->op_ms) ops += v;
    for (double v : ph->resource_ms) res += v;
    EXPECT_NEAR(ops, ph->time_ms, 0.02 * ph->time_ms);
    EXPECT_NEAR(res, ph->time_ms, 0.02 * ph->time_ms);
  }
  constexpr auto kOverhead = static_cast<std::size_t>(perf::Resource::overhead);
  const double moved = p.decode.time_ms - p.base_decode.time_ms;
  EXPECT_GT(moved, 0);
  EXPECT_NEAR(p.decode.resource_ms[kOverhead] - p.base_decode.resource_ms[kOverhead], moved,
              1e-6 + 0.01 * moved);
  // The prompt as one serving iteration: TP 1 runs eight kernels per layer (no collectives) and
  // two outside them (the final norm and the LM head), each launched by the
  // host at the profile's eager_launch_us; one 1,024-token prompt of an 8B model on an H100
  // (about 16 TFLOP at some 500 TFLOPS) outlasts that host floor.
  const double eager_ms = catalog().runtimes.at(c.runtime).eager_launch_us * 1e-3;
  ASSERT_GT(eager_ms, 0);
  EXPECT_NEAR(p.prefill_host_floor_ms, (32 * 8 + 2) * eager_ms, 1e-9);
  EXPECT_GE(p.prefill_iteration_ms, p.prefill_host_floor_ms);
  // The same profile as the baseline moves nothing.
  const validate::Explanation same = validate::explain(c, catalog().runtimes.at(c.runtime));
  EXPECT_EQ(same.base.ttft_ms, same.now.ttft_ms);
  EXPECT_EQ(same.pools[0].decode.time_ms, same.pools[0].base_decode.time_ms);
}

}  // namespace
}  // namespace stackscope

namespace stackscope {
namespace {

TEST(SiliconFit, GridParsing) {
  const auto axes =
      validate::parse_grid("kernel_gap_us=0:4:2, matmul_efficiency=0.5|0.7", "--grid");
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[0].key, "kernel_gap_us");
  EXPECT_EQ(axes[0].values, (std::vector<double>{0, 2, 4}));
  EXPECT_EQ(axes[1].values, (std::vector<double>{0.5, 0.7}));
  EXPECT_THROW(validate::parse_grid("speed=1:2:1", "--grid"), std::invalid_argument);
  EXPECT_THROW(validate::parse_grid("kernel_gap_us=4:0:1", "--grid"), std::invalid_argument);
  EXPECT_THROW(validate::parse_grid("kernel_gap_us=0:1:0", "--grid"), std::invalid_argument);
  EXPECT_THROW(validate::parse_grid("kernel_gap_us=0:1", "--grid"), std::invalid_argument);
  EXPECT_THROW(validate::parse_grid("kernel_gap_us=x", "--grid"), std::invalid_argument);
  EXPECT_THROW(validate::parse_grid("kernel_gap_us=1,kernel_gap_us=2", "--grid"),
               std::invalid_argument);
  EXPECT_THROW(validate::parse_grid("kernel_gap_us=0:1e9:1", "--grid"), std::invalid_argument);
  EXPECT_THROW(validate::parse_grid("", "--grid"), std::invalid_argument);
}

TEST(SiliconFit, PicksThePointWithTheSmallestObjective) {
  const auto rows = io::parse_silicon_sample(kHeader + kLlamaAgg, "t.csv");
  const auto axes = validate::parse_grid("kernel_gap_us=0|6|200", "--grid");
  const auto fr = validate::fit_profile(rows, catalog(), "trtllm-2025", axes, {});
  ASSERT_EQ(fr.points.size(), 3u);
  EXPECT_EQ(fr.rows, 1u);
  for (const auto& p : fr.points) {
    EXPECT_EQ(p.failed, 0u);
    EXPECT_DOUBLE_EQ(p.objective, 0.5 * (p.ttft.mape + p.tpot.mape));
    EXPECT_LE(fr.points[fr.best].objective, p.objective);
  }
  // A gap per kernel can only slow the decode step down: TPOT rises along the axis, and 200 us
  // per kernel (thousands per token) is far off the measured 7.9 ms.
  EXPECT_LT(fr.points[0].tpot.mape, fr.points[2].tpot.mape);
  EXPECT_NE(fr.best, 2u);
  // Rows under another profile are not fitted; an unknown profile is refused.
  EXPECT_THROW(validate::fit_profile(rows, catalog(), "vllm-2025", axes, {}),
               std::invalid_argument);
  EXPECT_THROW(validate::fit_profile(rows, catalog(), "no-such", axes, {}), std::invalid_argument);
  // with_point sets the fields it names and nothing else.
  const auto cat = validate::with_point(catalog(), "trtllm-2025", axes, {6});
  EXPECT_EQ(cat.runtimes.at("trtllm-2025").kernel_gap_us, 6);
  EXPECT_EQ(cat.runtimes.at("trtllm-2025").matmul_efficiency,
            catalog().runtimes.at("trtllm-2025").matmul_efficiency);
}

}  // namespace
}  // namespace stackscope

namespace stackscope {
namespace {

validate::Envelope small_envelope() {
  validate::Envelope env;
  validate::EnvelopeEntry a;
  a.hardware = "h100-sxm";
  a.runtime = "vllm-2025";
  a.moe = false;
  a.group = validate::Group::fitted;
  a.ttft = {100, 0.30, 0.5, 0.9};
  a.tpot = {100, 0.09, 0.2, 0.4};
  validate::EnvelopeEntry b = a;
  b.group = validate::Group::held_out;
  b.ttft = {40, 0.35, 0.6, 1.0};
  b.tpot = {40, 0.12, 0.25, 0.5};
  validate::EnvelopeEntry c = a;
  c.hardware = "h200";
  c.runtime = "trtllm-2025";
  c.moe = true;
  c.group = validate::Group::held_out;
  env.entries = {a, b, c};
  return env;
}

TEST(ValidationEnvelope, PrefersHeldOutRowsOfTheSameClass) {
  perf::Design d = io::builtin_presets().project("default");
  d.hardware = io::builtin_presets().hardware("h100-sxm");
  d.model = io::builtin_presets().model("llama-3.1-70b");
  d.runtime = io::builtin_presets().runtime("vllm-2025");
  const auto m = validate::match_envelope(small_envelope(), d);
  EXPECT_EQ(m.kind, validate::EnvelopeMatch::Kind::exact);
  EXPECT_EQ(m.entry.group, validate::Group::held_out);
  EXPECT_EQ(m.entry.ttft.rows, 40u);
  EXPECT_NE(m.text.find("held out"), std::string::npos) << m.text;
  EXPECT_NE(m.text.find("12.0 %"), std::string::npos) << m.text;
  // Another runtime on the same device: the nearest entry, saying what differs.
  d.runtime = io::builtin_presets().runtime("modern-gpu-2025");
  const auto n = validate::match_envelope(small_envelope(), d);
  EXPECT_EQ(n.kind, validate::EnvelopeMatch::Kind::nearest);
  EXPECT_EQ(n.entry.hardware, "h100-sxm");
  EXPECT_NE(n.text.find("runtime modern-gpu-2025"), std::string::npos) << n.text;
  // A 3D-stacked device is not validated, whatever the table holds.
  perf::Design s = io::builtin_presets().project("deepseek-v3-deepstack");
  EXPECT_EQ(validate::match_envelope(small_envelope(), s).kind,
            validate::EnvelopeMatch::Kind::none);
  EXPECT_EQ(validate::match_envelope(validate::Envelope{}, d).kind,
            validate::EnvelopeMatch::Kind::none);
}

TEST(ValidationEnvelope, JsonRoundTripAndRefusals) {
  validate::Envelope env = small_envelope();
  env.command = "stackscope-cli validate x.csv";
  env.inputs = {"x.csv"};
  const std::string text = io::envelope_json(env);
  const auto back = io::parse_envelope(text, "e.json");
  ASSERT_EQ(back.entries.size(), 3u);
  EXPECT_EQ(back.command, env.command);
  EXPECT_EQ(back.entries[1].group, validate::Group::held_out);
  EXPECT_DOUBLE_EQ(back.entries[1].tpot.mape, 0.12);
  EXPECT_EQ(back.entries[2].moe, true);
  EXPECT_THROW(io::parse_envelope("{", "e.json"), ConfigError);
  EXPECT_THROW(io::parse_envelope("{\"kind\": \"other\", \"entries\": []}", "e.json"), ConfigError);
  EXPECT_THROW(io::parse_envelope(R"({"kind": "validation_envelope", "entries": [{"hardware": "h",
      "runtime": "r", "moe": false, "group": "sometimes", "ttft": {}, "tpot": {}}]})",
                                  "e.json"),
               ConfigError);
}

TEST(ValidationEnvelope, ShippedTableIsTheValidateCommandsAndCoversTheFittedGpus) {
  // presets/validation/envelope.json, written by validate --envelope-out (docs/validation.md
  // section 6): it names the command, and the H100 rows of every backend profile are in it.
  const auto& env = io::builtin_envelope();
  ASSERT_FALSE(env.entries.empty());
  EXPECT_NE(env.command.find("stackscope-cli validate"), std::string::npos);
  EXPECT_NE(env.command.find("--envelope-out"), std::string::npos);
  for (const char* rt : {"trtllm-2025", "vllm-2025", "sglang-2025"}) {
    bool found = false;
    for (const auto& e : env.entries)
      found = found || (e.hardware == "h100-sxm" && e.runtime == rt &&
                        e.group == validate::Group::fitted && e.ttft.rows > 0);
    EXPECT_TRUE(found) << rt;
  }
}

}  // namespace
}  // namespace stackscope
