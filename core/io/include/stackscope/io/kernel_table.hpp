// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Measured kernel tables (kernels::Table, docs/model.md §3.4) as CSV: RFC 4180 (quoted fields,
// "" escapes, CRLF or LF), plain or gzip, one header row naming the columns (read by name, in
// any order; other columns are ignored). One row per measured kernel:
//   kind: "gemm" (the only kind read so far; any other is refused with its line);
//   precision: fp32, fp16, bf16, fp8, int8 or fp4 (the GEMM's operands);
//   m, n, k: whole numbers 1..2^24 (tokens, output features, input features);
//   time_s: a finite number in (0, 3600], the kernel's median time.
// At most 10^6 rows. Errors name "<file>:<line>" and the column, the value and the allowed
// range; every bad row is reported (up to 20), never skipped. tools/profile-gpu writes it.
#include <filesystem>
#include <string>
#include <string_view>

#include "stackscope/kernels/table.hpp"

namespace stackscope::io {

inline constexpr std::size_t kMaxKernelRows = 1'000'000;

// Parses the text of a table; `name` is the file name errors are reported at. Throws
// ConfigError.
kernels::Table parse_kernel_table(std::string_view text, const std::string& name);
kernels::Table load_kernel_table(const std::filesystem::path& file);

// `kernels --json`: {"source", "gemm_rows", "leave_one_out": {"predicted", "median", "p90",
// "max"}} (relative errors as fractions).
std::string kernel_check_json(const kernels::Table& table, const kernels::LeaveOneOut& loo,
                              int indent = 2);

}  // namespace stackscope::io
