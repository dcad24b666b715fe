// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Measured kernel tables (kernels::Table, docs/model.md §3.5) as CSV: RFC 4180 (quoted fields,
// "" escapes, CRLF or LF), plain or gzip, one header row naming the columns (read by name, in
// any order; other columns are ignored). One row per measured kernel:
//   kind: "gemm", "attn_decode" or "attn_prefill" (any other is refused with its line);
//   precision: fp32, fp16, bf16, fp8, int8 or fp4 (the GEMM's operands, attention's q/K/V);
//   gemm rows: m, n, k, whole numbers 1..2^24 (tokens, output features, input features);
//   attention rows: batch (sequences), seq (decode: cached keys per sequence; prefill: prompt
//     tokens, causal, no prefix), heads (query heads), kv_heads (a divisor of heads), head_dim,
//     whole numbers 1..2^24;
//   time_s: a finite number in (0, 3600], the kernel's median time.
// Columns a row's kind does not use may be absent or empty; a file of GEMM rows alone needs
// only kind, precision, m, n, k, time_s. At most 10^6 rows. Errors name "<file>:<line>" and the
// column, the value and the allowed range; every bad row is reported (up to 20), never skipped.
// tools/profile-gpu writes this format.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>
#include <string_view>

#include "stackscope/kernels/table.hpp"

namespace stackscope::io {

inline constexpr std::size_t kMaxKernelRows = 1'000'000;

// Parses the text of a table; `name` is the file name errors are reported at. Throws
// ConfigError.
kernels::Table parse_kernel_table(std::string_view text, const std::string& name);
kernels::Table load_kernel_table(const std::filesystem::path& file);

// The tables built into the programs (presets/kernels/<id>.csv), by id.
std::vector<std::string> builtin_kernel_tables();

// Whether a hardware's `kernel_table` value names files rather than a built-in table: it has a
// '.' or a path separator (built-in ids have neither).
bool is_kernel_table_file(std::string_view ref);

// The table a hardware description names (hw::Hardware::kernel_table): "" gives null; a file
// (is_kernel_table_file), or several comma-separated, each relative to `base_dir` when relative
// (and `base_dir` is not empty), in this format or one that io/kernel_table_foreign.hpp reads
// (AIConfigurator, Vidur; plain or gzip), merged in order; anything else a built-in table's id,
// parsed once per process and shared. Throws ConfigError: at "<where>" for an unknown id
// (listing the built-in ones), or the file's own issues.
std::shared_ptr<const kernels::Table> resolve_kernel_table(std::string_view ref,
                                                           const std::filesystem::path& base_dir,
                                                           const std::string& where);

// `kernels --json`: {"source", "gemm_rows", "attention_rows", "leave_one_out": {"gemm",
// "decode_attention", "prefill_attention", "all"}}, each {"rows", "predicted", "median", "p90",
// "max"} (relative errors as fractions).
std::string kernel_check_json(const kernels::Table& table, const kernels::LeaveOneOutReport& loo,
                              int indent = 2);

}  // namespace stackscope::io
