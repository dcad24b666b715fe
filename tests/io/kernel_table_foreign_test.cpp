// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel tables of other tools (core/io/kernel_table_foreign.hpp): AIConfigurator's gemm,
// generation- and context-attention perf tables on the H200 excerpt of
// tests/data/aic-kernels, Vidur's mlp.csv on the Llama-2-7B excerpt of tests/data/vidur-kernels
// and hand-made rows of its attention.csv; layout detection, merging, errors.
// Golden values are the source rows' latencies (ms) / 1000, compared exactly: the reader only
// divides by 1000.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/kernel_table_foreign.hpp"
#include "stackscope/io/read_file.hpp"
#include "stackscope/kernels/table.hpp"

namespace stackscope {
namespace {

const std::string kAic = STACKSCOPE_SOURCE_DIR "/tests/data/aic-kernels/";
const std::string kVidur = STACKSCOPE_SOURCE_DIR "/tests/data/vidur-kernels/";

std::string text_of(const std::string& file) {
  return io::read_text_file(file, file);
}

template <class Parse>
std::string error_of(Parse parse, const std::string& text) {
  try {
    parse(text, "bad.csv", nullptr);
  } catch (const ConfigError& e) {
    return format_issues(e.issues());
  }
  return "";
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

const io::SkippedRows* skipped(const io::FileReport& r, const std::string& reason_part) {
  for (const auto& s : r.skipped)
    if (has(s.reason, reason_part)) return &s;
  return nullptr;
}

const kernels::GemmRow* gemm(const kernels::Table& t, Precision p, double m, double n, double k) {
  for (const auto& g : t.gemm)
    if (g.precision == p && g.m == m && g.n == n && g.k == k) return &g;
  return nullptr;
}

const kernels::AttentionRow* attention(const kernels::Table& t, kernels::AttentionKind kind,
                                       Precision p, double batch, double seq) {
  for (const auto& a : t.attention)
    if (a.kind == kind && a.precision == p && a.batch == batch && a.seq == seq) return &a;
  return nullptr;
}

// gemm_perf.csv: bfloat16 and fp8 map, fp8_block is counted apart; latency ms -> s.
TEST(AicKernels, GemmPerfExcerpt) {
  io::FileReport rep;
  const auto t = io::parse_aic_gemm_perf(text_of(kAic + "gemm_perf.csv"), "gemm_perf.csv", &rep);
  EXPECT_EQ(t.source, "gemm_perf.csv");
  EXPECT_EQ(t.gemm.size(), 148u);
  EXPECT_TRUE(t.attention.empty());
  EXPECT_EQ(rep.layout, "aic-gemm");
  EXPECT_EQ(rep.rows, 156u);
  EXPECT_EQ(rep.gemm, 148u);
  ASSERT_EQ(rep.skipped.size(), 1u);
  EXPECT_TRUE(has(rep.skipped[0].reason, "gemm_dtype fp8_block")) << rep.skipped[0].reason;
  EXPECT_EQ(rep.skipped[0].rows, 8u);
  EXPECT_EQ(rep.skipped[0].first_line, 150u);
  // Line 7: bfloat16,4096,6144,4096,0.25916266441345215; line 149: fp8,1,...,0.0194400002559...
  const auto* bf16 = gemm(t, Precision::bf16, 4096, 6144, 4096);
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->time_s, 0.25916266441345215 / 1e3);
  const auto* fp8 = gemm(t, Precision::fp8, 1, 6144, 4096);
  ASSERT_NE(fp8, nullptr);
  EXPECT_EQ(fp8->time_s, 0.019440000255902607 / 1e3);
  EXPECT_EQ(*kernels::gemm_time(t, Precision::bf16, 4096, 6144, 4096), bf16->time_s);

  // fp8_block standing for fp8: its 8 rows are the fp8 ones, the plain fp8 rows are left out.
  io::AicOptions block;
  block.fp8_block_as_fp8 = true;
  const auto b = io::parse_aic_gemm_perf(text_of(kAic + "gemm_perf.csv"), "g.csv", &rep, block);
  EXPECT_EQ(b.gemm.size(), 74u + 8u);
  const auto* f8 = gemm(b, Precision::fp8, 8, 6144, 4096);
  ASSERT_NE(f8, nullptr);
  EXPECT_EQ(f8->time_s, 0.012099555797047086 / 1e3);  // line 150
  ASSERT_NE(skipped(rep, "gemm_dtype fp8:"), nullptr);
  EXPECT_EQ(skipped(rep, "gemm_dtype fp8:")->rows, 74u);
}

// generation_attention_perf.csv: seq = isl + step - 1 cached keys, precision the KV cache's.
TEST(AicKernels, GenerationAttentionExcerpt) {
  io::FileReport rep;
  const auto t = io::parse_aic_generation_attention(text_of(kAic + "generation_attention_perf.csv"),
                                                    "gen.csv", &rep);
  EXPECT_EQ(t.attention.size(), 82u);
  EXPECT_EQ(rep.decode, 82u);
  EXPECT_EQ(rep.prefill, 0u);
  const auto* window = skipped(rep, "window_size");
  ASSERT_NE(window, nullptr);
  EXPECT_EQ(window->rows, 6u);
  EXPECT_EQ(window->first_line, 84u);
  // Line 50: batch 256, isl 1, 32/8 heads of 128, fp8 KV, step 1023, 0.14299199978510538 ms.
  const auto* a = attention(t, kernels::AttentionKind::decode, Precision::fp8, 256, 1023);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->heads, (kernels::HeadLayout{32, 8, 128}));
  EXPECT_EQ(a->time_s, 0.14299199978510538 / 1e3);
  // Line 3: batch 1, fp8 KV, step 1: one cached key.
  const auto* one = attention(t, kernels::AttentionKind::decode, Precision::fp8, 1, 1);
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->time_s, 0.005423999701937039 / 1e3);
  EXPECT_EQ(attention(t, kernels::AttentionKind::decode, Precision::bf16, 16, 1)->time_s,
            0.010149333626031876 / 1e3);
}

// context_attention_perf.csv: seq = isl; FMHA and KV cache at one precision only.
TEST(AicKernels, ContextAttentionExcerpt) {
  io::FileReport rep;
  const auto t = io::parse_aic_context_attention(text_of(kAic + "context_attention_perf.csv"),
                                                 "ctx.csv", &rep);
  EXPECT_EQ(t.attention.size(), 68u);
  EXPECT_EQ(rep.prefill, 68u);
  EXPECT_EQ(rep.rows, 108u);
  const auto* mixed = skipped(rep, "attn_dtype bfloat16 over a fp8 KV cache");
  ASSERT_NE(mixed, nullptr);
  EXPECT_EQ(mixed->rows, 34u);
  EXPECT_EQ(mixed->first_line, 8u);
  ASSERT_NE(skipped(rep, "window_size"), nullptr);
  EXPECT_EQ(skipped(rep, "window_size")->rows, 6u);
  EXPECT_EQ(skipped(rep, "window_size")->first_line, 2u);
  // Line 36: batch 8, isl 4096, bfloat16 over bfloat16, 2.370474656422933 ms.
  const auto* a = attention(t, kernels::AttentionKind::prefill, Precision::bf16, 8, 4096);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->heads, (kernels::HeadLayout{32, 8, 128}));
  EXPECT_EQ(a->time_s, 2.370474656422933 / 1e3);
  // Line 65: batch 1, isl 1024, fp8 over fp8.
  const auto* f = attention(t, kernels::AttentionKind::prefill, Precision::fp8, 1, 1024);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->time_s, 0.04665599763393402 / 1e3);
}

// The CSV text AIConfigurator kept before parquet (power columns, no window_size or
// beam_width) and a pandas export with its index column and floats for whole numbers.
TEST(AicKernels, TxtLayoutAndPandasExport) {
  const auto txt = io::parse_aic_generation_attention(
      "framework,version,device,op_name,kernel_source,batch_size,isl,num_heads,"
      "num_key_value_heads,head_dim,beam_width,attn_dtype,kv_cache_dtype,step,latency,power,"
      "power_limit\n"
      "TRTLLM,0.20.0,NVIDIA H200,generation_attention,torch_flow,4,1,8,8,128,1,bfloat16,"
      "bfloat16,255,0.0125,612.5,700\n",
      "generation_attention_perf.txt");
  ASSERT_EQ(txt.attention.size(), 1u);
  EXPECT_EQ(txt.attention[0].seq, 255);
  EXPECT_EQ(txt.attention[0].heads, (kernels::HeadLayout{8, 8, 128}));
  EXPECT_EQ(txt.attention[0].time_s, 0.0125 / 1e3);

  const auto pandas = io::parse_aic_gemm_perf(
      ",framework,gemm_dtype,m,n,k,latency\r\n0,TRTLLM,bfloat16,16.0,4096.0,4096,0.02\r\n"
      "1,TRTLLM,float16,16,4096,4096,0.03\r\n2,TRTLLM,sq,16,4096,4096,0.01\r\n"
      "3,TRTLLM,nvfp4,16,4096,4096,0.005\r\n4,TRTLLM,int4_wo,16,4096,4096,0.01\r\n",
      "gemm_perf.csv");
  ASSERT_EQ(pandas.gemm.size(), 4u);
  EXPECT_EQ(pandas.gemm[0].m, 16);
  EXPECT_EQ(pandas.gemm[0].n, 4096);
  EXPECT_EQ(pandas.gemm[1].precision, Precision::fp16);
  EXPECT_EQ(pandas.gemm[2].precision, Precision::int8);
  EXPECT_EQ(pandas.gemm[3].precision, Precision::fp4);
}

TEST(AicKernels, BadInputNamesFileLineColumnAndRange) {
  const auto g = [](const std::string& t, const std::string& n, io::FileReport* r) {
    return io::parse_aic_gemm_perf(t, n, r);
  };
  const std::string h = "op_name,gemm_dtype,m,n,k,latency\n";
  EXPECT_TRUE(has(error_of(g, ""), "empty file"));
  EXPECT_TRUE(has(error_of(g, "gemm_dtype,m,n\n"), "missing column"));
  EXPECT_TRUE(has(error_of(g, h), "no row maps"));
  const std::string e = error_of(g, h + "gemm,bfloat16,1,2,3,0.1\ngemm,,0,2.5,3,-1\n");
  EXPECT_TRUE(has(e, "bad.csv:3 gemm_dtype: empty dtype")) << e;
  EXPECT_TRUE(has(e,
                  "bad.csv:3 m: not a whole number in range (got 0; allowed: whole number "
                  "in [1, 16777216])"))
      << e;
  EXPECT_TRUE(has(e, "bad.csv:3 n")) << e;
  EXPECT_TRUE(has(e,
                  "bad.csv:3 latency: not a kernel time (got -1; allowed: finite number of "
                  "milliseconds in (0, 3600000])"))
      << e;
  EXPECT_TRUE(has(error_of(g, h + "moe,bfloat16,1,2,3,0.1\n"), "bad.csv:2 op_name"));
  EXPECT_TRUE(has(error_of(g, h + "gemm,bfloat16,1,2\n"), "bad.csv:2: wrong number of fields"));
  // Every bad row is reported, up to 20.
  std::string many = h;
  for (int i = 0; i < 30; ++i) many += "gemm,bfloat16,1,2,3,nan\n";
  try {
    io::parse_aic_gemm_perf(many, "bad.csv");
    FAIL();
  } catch (const ConfigError& err) {
    EXPECT_EQ(err.issues().size(), 20u);
  }
  // A file with no row StackScope can use says so with the reasons and their first lines.
  const std::string wo = error_of(g, h + "gemm,int4_wo,1,2,3,0.1\ngemm,mxfp9,1,2,3,0.1\n");
  EXPECT_TRUE(has(wo, "bad.csv: no row maps to a StackScope kernel")) << wo;
  EXPECT_TRUE(has(wo, "bad.csv:2: left out: gemm_dtype int4_wo: weight-only")) << wo;
  EXPECT_TRUE(has(wo, "bad.csv:3: left out: gemm_dtype mxfp9: not a dtype this reader maps")) << wo;

  const auto gen = [](const std::string& t, const std::string& n, io::FileReport* r) {
    return io::parse_aic_generation_attention(t, n, r);
  };
  const std::string ah =
      "op_name,batch_size,isl,num_heads,num_key_value_heads,head_dim,kv_cache_dtype,step,"
      "latency\n";
  const std::string a = error_of(gen, ah + "generation_attention,0,1,32,5,128,fp8,1,0.1\n");
  EXPECT_TRUE(has(a, "bad.csv:2 batch_size")) << a;
  EXPECT_TRUE(has(a,
                  "bad.csv:2 num_key_value_heads: not a divisor of the query heads (got 5; "
                  "allowed: a divisor of num_heads (32))"))
      << a;
  EXPECT_TRUE(has(error_of(gen, ah + "context_attention,1,1,32,8,128,fp8,1,0.1\n"),
                  "bad.csv:2 op_name: not this table's kernel (got context_attention; allowed: "
                  "generation_attention)"));
  // isl 1, step 0: no cached key, so nothing to map.
  EXPECT_TRUE(
      has(error_of(gen, ah + "generation_attention,1,1,32,8,128,fp8,0,0.1\n"), "no cached keys"));
  const auto ctx = [](const std::string& t, const std::string& n, io::FileReport* r) {
    return io::parse_aic_context_attention(t, n, r);
  };
  EXPECT_TRUE(has(error_of(ctx, ah), "missing column (got attn_dtype"));
}

TEST(VidurKernels, MlpExcerptMapsTheFourProjections) {
  io::FileReport rep;
  const auto t = io::parse_vidur_mlp(text_of(kVidur + "mlp.csv"), "mlp.csv", &rep);
  EXPECT_EQ(rep.layout, "vidur-mlp");
  EXPECT_EQ(rep.rows, 42u);
  // 4 projections a row; the source repeats 4 (num_tokens, tp) pairs, whose 16 GEMMs are
  // duplicates (the first kept).
  EXPECT_EQ(t.gemm.size(), 42u * 4 - 16);
  ASSERT_NE(skipped(rep, "duplicate"), nullptr);
  EXPECT_EQ(skipped(rep, "duplicate")->rows, 16u);
  EXPECT_EQ(skipped(rep, "duplicate")->first_line, 3u);
  // Line 2 (num_tokens 4096, tp 1): medians 0.584, 0.193, 0.987, 0.441 ms. Llama-2-7B: 32 heads
  // of 128, n_embd 4096, n_expanded_embd 11008, gated.
  EXPECT_EQ(gemm(t, Precision::fp16, 4096, 12288, 4096)->time_s, 0.584 / 1e3);  // QKV
  EXPECT_EQ(gemm(t, Precision::fp16, 4096, 4096, 4096)->time_s, 0.193 / 1e3);   // output
  EXPECT_EQ(gemm(t, Precision::fp16, 4096, 22016, 4096)->time_s, 0.987 / 1e3);  // gate+up
  EXPECT_EQ(gemm(t, Precision::fp16, 4096, 4096, 11008)->time_s, 0.441 / 1e3);  // down
  // tp 2 splits the column-parallel n and the row-parallel k.
  EXPECT_NE(gemm(t, Precision::fp16, 1, 6144, 4096), nullptr);
  EXPECT_NE(gemm(t, Precision::fp16, 1, 4096, 2048), nullptr);
  EXPECT_NE(gemm(t, Precision::fp16, 1, 11008, 4096), nullptr);
  EXPECT_NE(gemm(t, Precision::fp16, 1, 4096, 5504), nullptr);
}

TEST(VidurKernels, MlpBadInput) {
  const auto p = [](const std::string& t, const std::string& n, io::FileReport* r) {
    return io::parse_vidur_mlp(t, n, r);
  };
  const std::string h =
      "n_head,n_kv_head,n_embd,n_expanded_embd,use_gated_mlp,num_tokens,"
      "num_tensor_parallel_workers,time_stats.mlp_up_proj.median\n";
  EXPECT_TRUE(has(error_of(p,
                           "n_head,n_kv_head,n_embd,n_expanded_embd,use_gated_mlp,num_tokens,"
                           "num_tensor_parallel_workers\n"),
                  "missing column (got time_stats.attn_pre_proj.median"));
  const std::string e = error_of(p, h + "32,32,4001,11008,yes,8,3,0.1\n");
  EXPECT_TRUE(has(e, "bad.csv:2 n_embd: not divisible by n_head")) << e;
  EXPECT_TRUE(has(e, "bad.csv:2 use_gated_mlp: not a bool")) << e;
  EXPECT_TRUE(has(error_of(p, h + "32,32,4096,11008,True,8,3,0.1\n"),
                  "bad.csv:2 n_head: not divisible by num_tensor_parallel_workers"));
  // An empty time cell (pandas' NaN) leaves that projection out, counted.
  io::FileReport rep;
  const auto t = io::parse_vidur_mlp(
      "n_head,n_kv_head,n_embd,n_expanded_embd,use_gated_mlp,num_tokens,"
      "num_tensor_parallel_workers,time_stats.mlp_up_proj.median,"
      "time_stats.mlp_down_proj.median\n32,8,4096,14336,False,8,1,,0.05\n",
      "m.csv", &rep);
  ASSERT_EQ(t.gemm.size(), 1u);
  EXPECT_EQ(t.gemm[0].k, 14336);
  ASSERT_NE(skipped(rep, "no time_stats.mlp_up_proj.median"), nullptr);
}

// Vidur's attention.csv columns (vidur/profiling/attention/attention_wrapper.py), hand-made rows:
// Llama-3-8B (n_embd 4096, 32 query heads, 8 KV heads) at tp 2.
TEST(VidurKernels, AttentionRows) {
  const std::string h =
      "n_embd,n_q_head,n_kv_head,block_size,num_tensor_parallel_workers,max_model_len,"
      "batch_size,prefill_chunk_size,kv_cache_size,is_prefill,attention_backend,"
      "time_stats.attn_prefill.median,time_stats.attn_decode.median\n";
  io::FileReport rep;
  const auto t = io::parse_vidur_attention(
      h + "4096,32,8,16,2,4096,1,512,0,True,AttentionBackend.FLASHINFER,0.25,\n"
          "4096,32,8,16,2,4096,1,512,1024,True,AttentionBackend.FLASHINFER,0.5,\n"
          "4096,32,8,16,2,4096,64,0,2048,False,AttentionBackend.FLASHINFER,,0.125\n"
          "4096,32,8,16,2,4096,32,0,2048,False,AttentionBackend.FLASHINFER,,\n",
      "attention.csv", &rep);
  EXPECT_EQ(rep.layout, "vidur-attention");
  ASSERT_EQ(t.attention.size(), 2u);
  const auto* p = attention(t, kernels::AttentionKind::prefill, Precision::fp16, 1, 512);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->heads, (kernels::HeadLayout{16, 4, 128}));
  EXPECT_EQ(p->time_s, 0.25e-3);
  const auto* d = attention(t, kernels::AttentionKind::decode, Precision::fp16, 64, 2048);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->time_s, 0.125e-3);
  ASSERT_NE(skipped(rep, "kv_cache_size > 0"), nullptr);
  EXPECT_EQ(skipped(rep, "kv_cache_size > 0")->first_line, 3u);
  ASSERT_NE(skipped(rep, "no time_stats.attn_decode.median (an empty cell)"), nullptr);

  const auto bad = [](const std::string& text, const std::string& n, io::FileReport* r) {
    return io::parse_vidur_attention(text, n, r);
  };
  const std::string e = error_of(bad, h + "4096,32,8,16,2,4096,1,0,0,True,FLASHINFER,0.25,\n");
  EXPECT_TRUE(has(e, "bad.csv:2 prefill_chunk_size: a prefill row without tokens")) << e;
  EXPECT_TRUE(has(error_of(bad, h + "4096,32,8,16,2,4096,1,5,0,maybe,FLASHINFER,0.25,\n"),
                  "bad.csv:2 is_prefill: not a bool"));
}

TEST(KernelTables, DetectsLayoutsFromTheHeader) {
  using io::KernelLayout;
  EXPECT_EQ(io::detect_kernel_layout("kind,precision,m,n,k,time_s\n", "a.csv"),
            KernelLayout::stackscope);
  EXPECT_EQ(io::detect_kernel_layout(text_of(kAic + "gemm_perf.csv"), "a.csv"),
            KernelLayout::aic_gemm);
  // The attention tables share their columns: op_name of the first row tells them apart...
  EXPECT_EQ(io::detect_kernel_layout(text_of(kAic + "context_attention_perf.csv"), "a.csv"),
            KernelLayout::aic_context_attention);
  EXPECT_EQ(io::detect_kernel_layout(text_of(kAic + "generation_attention_perf.csv"), "a.csv"),
            KernelLayout::aic_generation_attention);
  // ... or, without op_name, the file name.
  const std::string no_op =
      "batch_size,isl,num_heads,num_key_value_heads,head_dim,kv_cache_dtype,step,latency\n";
  EXPECT_EQ(io::detect_kernel_layout(no_op, "dir/generation_attention_perf.txt"),
            KernelLayout::aic_generation_attention);
  try {
    io::detect_kernel_layout(no_op, "attn.csv");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_TRUE(has(format_issues(e.issues()),
                    "attn.csv: cannot tell a context from a "
                    "generation attention table"));
  }
  EXPECT_EQ(io::detect_kernel_layout(text_of(kVidur + "mlp.csv"), "a.csv"),
            KernelLayout::vidur_mlp);
  try {
    io::detect_kernel_layout("time,shape\n1,2\n", "mystery.csv");
    FAIL();
  } catch (const ConfigError& e) {
    const std::string s = format_issues(e.issues());
    EXPECT_TRUE(has(s,
                    "mystery.csv:1: not a kernel-table layout this program reads (got "
                    "time,shape"))
        << s;
    for (const char* known : {"StackScope (kind", "AIConfigurator gemm_perf",
                              "generation_attention_perf", "Vidur mlp.csv", "Vidur attention.csv"})
      EXPECT_TRUE(has(s, known)) << known;
  }
}

// All four real excerpts in one table, and the lookups' leave-one-out check runs over it.
TEST(KernelTables, LoadsAndMergesFilesOfEveryLayout) {
  std::vector<io::FileReport> reps;
  const auto t = io::load_kernel_tables(
      {kAic + "gemm_perf.csv", kAic + "generation_attention_perf.csv",
       kAic + "context_attention_perf.csv", kVidur + "mlp.csv", kAic + "gemm_perf.csv"},
      &reps);
  ASSERT_EQ(reps.size(), 5u);
  EXPECT_EQ(reps[0].layout, "aic-gemm");
  EXPECT_EQ(reps[1].layout, "aic-generation-attention");
  EXPECT_EQ(reps[2].layout, "aic-context-attention");
  EXPECT_EQ(reps[3].layout, "vidur-mlp");
  EXPECT_EQ(t.gemm.size(), 148u + 152u);
  EXPECT_EQ(t.attention.size(), 82u + 68u);
  EXPECT_TRUE(has(t.source, "gemm_perf.csv, ")) << t.source;
  // The repeated file adds nothing, and says so.
  ASSERT_NE(skipped(reps[4], "an earlier file"), nullptr);
  EXPECT_EQ(skipped(reps[4], "an earlier file")->rows, 148u);

  const auto loo = kernels::leave_one_out(t);
  EXPECT_EQ(loo.gemm.rows, 300);
  EXPECT_EQ(loo.decode_attention.rows, 82);
  EXPECT_EQ(loo.prefill_attention.rows, 68);
  EXPECT_EQ(loo.all.rows, 450);
  EXPECT_GT(loo.gemm.predicted, 0);
  for (const auto& f : {loo.gemm, loo.decode_attention, loo.prefill_attention, loo.all}) {
    EXPECT_LE(f.predicted, f.rows);
    EXPECT_TRUE(std::isfinite(f.p90));
    EXPECT_LE(f.median, f.max + 1e-12);
  }
  std::printf(
      "leave-one-out on the excerpts: gemm %d of %d predicted, median %.1f %%; decode "
      "%d of %d, median %.1f %%; prefill %d of %d, median %.1f %%\n",
      loo.gemm.predicted, loo.gemm.rows, 100 * loo.gemm.median, loo.decode_attention.predicted,
      loo.decode_attention.rows, 100 * loo.decode_attention.median, loo.prefill_attention.predicted,
      loo.prefill_attention.rows, 100 * loo.prefill_attention.median);

  EXPECT_THROW(io::load_kernel_tables({}), ConfigError);
  EXPECT_THROW(io::load_kernel_tables({kAic + "no-such-file.csv"}), ConfigError);
}

TEST(KernelTables, MergeKeepsTheFirstOfEachKernel) {
  kernels::Table a, b;
  a.source = "a";
  b.source = "b";
  a.gemm.push_back({Precision::bf16, 1, 2, 3, 1e-5});
  b.gemm.push_back({Precision::bf16, 1, 2, 3, 2e-5});
  b.gemm.push_back({Precision::fp8, 1, 2, 3, 2e-5});
  b.attention.push_back({kernels::AttentionKind::decode, Precision::bf16, {8, 8, 64}, 1, 2, 1e-6});
  b.attention.push_back({kernels::AttentionKind::prefill, Precision::bf16, {8, 8, 64}, 1, 2, 1e-6});
  std::vector<std::size_t> dropped;
  const auto m = io::merge_kernel_tables({a, b}, &dropped);
  EXPECT_EQ(m.source, "a, b");
  ASSERT_EQ(m.gemm.size(), 2u);
  EXPECT_EQ(m.gemm[0].time_s, 1e-5);
  EXPECT_EQ(m.attention.size(), 2u);
  EXPECT_EQ(dropped, (std::vector<std::size_t>{0, 1}));
}

}  // namespace
}  // namespace stackscope
