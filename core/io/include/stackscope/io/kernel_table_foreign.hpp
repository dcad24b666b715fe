// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Measured kernel tables that other tools write, read into kernels::Table (SI units). Each
// reader takes the tool's own CSV (RFC 4180, one header row, columns read by name in any order,
// other columns ignored, an unnamed pandas index column included) and says which rows have no
// StackScope counterpart: those are counted by reason in a FileReport, never dropped silently,
// and a file none of whose rows map is refused with the reasons. Bad rows (a number out of
// range, a missing field) are errors at "<file>:<line> <column>" with the value and the allowed
// range, every one reported up to 20. Rows whose key repeats an earlier row's are counted and
// the first is kept (AIConfigurator's loaders keep the first too).
//
// NVIDIA AIConfigurator per-system perf tables (github.com/ai-dynamo/aiconfigurator,
// systems/data/<system>/...; parquet today, CSV text `*_perf.txt` before; a parquet exported
// with pandas `to_csv` has the same columns). `latency` is in milliseconds (the collectors log
// their benchmark's `latency_ms`); `power`, `power_limit`, `framework`, `version`, `device` and
// `kernel_source` are ignored (no kernel-source filter: rows of several kernels for one shape
// are duplicates, first kept).
//  - gemm_perf: gemm_dtype, m, n, k, latency -> a GEMM row (m tokens, n output and k input
//    features). gemm_dtype: bfloat16 -> bf16, float16 -> fp16, fp8 (per-tensor scales) -> fp8,
//    sq (SmoothQuant W8A8) -> int8, nvfp4 (W4A4, an fp8 scale per 16) -> fp4. fp8_block
//    (block-scaled, DeepSeek) -> fp8 only with AicOptions::fp8_block_as_fp8, and then the plain
//    fp8 rows are the ones left out (both would claim the same fp8 shapes). Counted as unmapped:
//    weight-only modes (int8_wo, int4_wo, nvfp4_wo, w4a16_*, awq, gptq: StackScope looks a GEMM
//    up at its wider operand's precision, bf16 for these, where they would pass for bf16
//    GEMMs), the other fp8 variants (fp8_static reuses fp8's table in AIConfigurator, fp8_ootb)
//    and any name this reader does not know.
//  - generation_attention_perf: batch_size, isl, step, num_heads, num_key_value_heads, head_dim,
//    kv_cache_dtype, latency [, window_size, beam_width, attn_dtype, op_name] -> a decode row.
//    The collectors run one new token per sequence against isl + step - 1 cached keys (isl = 1,
//    step = the cached length: AIConfigurator's collector/*/collect_attn.py; its generation
//    speed-of-light takes kv_len = isl + step - 1), so seq = isl + step - 1; heads are per GPU.
//    precision = kv_cache_dtype (bfloat16, float16, fp8, int8): the K/V bytes a decode step
//    streams; q is bf16 in every collector and attn_dtype is ignored, as AIConfigurator's loader
//    does. Unmapped: window_size > 0 (sliding window), beam_width > 1, seq = 0.
//  - context_attention_perf: batch_size, isl, num_heads, num_key_value_heads, head_dim,
//    attn_dtype, kv_cache_dtype, latency [, step, window_size, beam_width, op_name] -> a prefill
//    row, seq = isl (batch prompts of isl tokens each, causal, from an empty cache: the
//    collectors set no cached tokens, and AIConfigurator applies a cached prefix as a correction
//    on top of these prefix-0 times). precision = attn_dtype when kv_cache_dtype is the same;
//    unmapped: FMHA at one precision over a KV cache at another (bf16 over an fp8 cache),
//    fp8_block, window_size > 0, beam_width > 1, step > 0.
//  An `op_name` column, when present, must name the table's kind (generation_attention or
//  context_attention) on every row.
//
// Vidur profiling CSVs (github.com/microsoft/vidur, data/profiling/compute/<gpu>/<model>/):
// times in milliseconds (CUDA events or the profiler's kernel times, vidur/profiling), the
// `.median` statistic, fp16 (the profilers run torch.float16). Every row carries the model's
// dimensions, so no model is needed to map it.
//  - mlp.csv: n_head, n_kv_head, n_embd, n_expanded_embd, use_gated_mlp, num_tokens,
//    num_tensor_parallel_workers (tp), time_stats.<op>.median for at least one of the four
//    projections; with d = n_embd / n_head and f = n_expanded_embd, per row m = num_tokens and
//      attn_pre_proj:  k = n_embd,  n = (n_head + 2 n_kv_head) d / tp  (fused QKV)
//      attn_post_proj: k = n_head d / tp,  n = n_embd                 (output projection)
//      mlp_up_proj:    k = n_embd,  n = (2 if use_gated_mlp else 1) f / tp
//      mlp_down_proj:  k = f / tp,  n = n_embd
//    (vidur/profiling/mlp/mlp_impl.py). The other timers (emb, norms, rope, act, add) are not
//    GEMMs. An empty time cell leaves that projection out, counted.
//  - attention.csv: n_embd, n_q_head, n_kv_head, num_tensor_parallel_workers, batch_size,
//    prefill_chunk_size, kv_cache_size, is_prefill, time_stats.attn_prefill.median and/or
//    time_stats.attn_decode.median; heads n_q_head / tp and n_kv_head / tp of n_embd / n_q_head.
//    Decode rows (is_prefill false): batch_size sequences of kv_cache_size cached keys, time
//    attn_decode. Prefill rows: batch_size prompts of prefill_chunk_size tokens, time
//    attn_prefill; a chunk after kv_cache_size > 0 cached tokens (chunked prefill) is unmapped.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/kernels/table.hpp"

namespace stackscope::io {

// Rows of one file left out for one reason: how many, and the line of the first.
struct SkippedRows {
  std::string reason;
  std::size_t rows = 0;
  std::size_t first_line = 0;
};

// What a reader made of one file.
struct FileReport {
  std::string file;
  std::string layout;    // a KernelLayout's name
  std::size_t rows = 0;  // data rows read (a Vidur mlp.csv row gives up to four GEMMs)
  std::size_t gemm = 0;  // GEMM rows mapped
  std::size_t decode = 0;
  std::size_t prefill = 0;
  std::vector<SkippedRows> skipped;
};

struct AicOptions {
  bool fp8_block_as_fp8 = false;  // gemm_perf: fp8_block rows stand for fp8 (plain fp8 left out)
};

// Each parser takes the file's text and its name (errors are reported at it) and throws
// ConfigError; `report`, when given, is filled. The table is index()ed.
kernels::Table parse_aic_gemm_perf(std::string_view text, const std::string& name,
                                   FileReport* report = nullptr, const AicOptions& options = {});
kernels::Table parse_aic_generation_attention(std::string_view text, const std::string& name,
                                              FileReport* report = nullptr);
kernels::Table parse_aic_context_attention(std::string_view text, const std::string& name,
                                           FileReport* report = nullptr);
kernels::Table parse_vidur_mlp(std::string_view text, const std::string& name,
                               FileReport* report = nullptr);
kernels::Table parse_vidur_attention(std::string_view text, const std::string& name,
                                     FileReport* report = nullptr);

enum class KernelLayout {
  stackscope,                // io::parse_kernel_table: columns kind and time_s
  aic_gemm,                  // gemm_dtype and latency
  aic_generation_attention,  // num_key_value_heads, kv_cache_dtype, latency; op_name of the
  aic_context_attention,     //   first row, or without op_name the file name, tells which
  vidur_mlp,                 // n_expanded_embd and num_tokens
  vidur_attention,           // is_prefill, kv_cache_size and prefill_chunk_size
};
std::string_view to_string(KernelLayout layout);

// The layout of a table from its header (and, for AIConfigurator's attention tables, the first
// row's op_name or the file name: context_attention* / generation_attention*). Throws
// ConfigError naming the file and listing the known layouts when none fits.
KernelLayout detect_kernel_layout(std::string_view text, const std::string& name);
// Detects the layout and reads the table with its reader.
kernels::Table parse_any_kernel_table(std::string_view text, const std::string& name,
                                      FileReport* report = nullptr, const AicOptions& options = {});

// One table of the rows of all `tables`, in order; a row whose kernel (precision and shape, or
// kind, precision, heads, batch and seq) an earlier row already gives is left out and counted
// in `dropped[i]` for table i when `dropped` is given. `source` lists the sources, ", "-joined.
kernels::Table merge_kernel_tables(const std::vector<kernels::Table>& tables,
                                   std::vector<std::size_t>* dropped = nullptr);

// Reads each file (plain or gzip, at most limits::kMaxKernelTableBytes), detects its layout,
// and merges the tables, earlier files first. `reports`, when given, gets one per file (rows
// left out by the merge appear there as skipped). Throws ConfigError naming the file.
kernels::Table load_kernel_tables(const std::vector<std::filesystem::path>& files,
                                  std::vector<FileReport>* reports = nullptr,
                                  const AicOptions& options = {});

}  // namespace stackscope::io
