// SPDX-License-Identifier: GPL-3.0-or-later
// Measured kernel tables: the CSV reader (core/io/kernel_table.hpp) and the interpolation with
// its leave-one-out check (core/kernels/table.hpp), on hand-made tables and on the H200 GEMMs
// of data/h200-measured.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "stackscope/common/issue.hpp"
#include "stackscope/io/kernel_table.hpp"
#include "stackscope/kernels/table.hpp"

namespace stackscope {
namespace {

std::string error_of(const std::string& text) {
  try {
    io::parse_kernel_table(text, "bad.csv");
  } catch (const ConfigError& e) {
    return format_issues(e.issues());
  }
  return "";
}

TEST(KernelTable, ReadsColumnsByNameInAnyOrder) {
  const auto t = io::parse_kernel_table(
      "\xEF\xBB\xBFtime_s,note,k,n,m,precision,kind\r\n2e-05,\"a, "
      "\"\"b\"\"\",4096,1024,8,fp8,gemm\r\n",
      "t.csv");
  ASSERT_EQ(t.gemm.size(), 1u);
  EXPECT_EQ(t.gemm[0].precision, Precision::fp8);
  EXPECT_EQ(t.gemm[0].m, 8);
  EXPECT_EQ(t.gemm[0].n, 1024);
  EXPECT_EQ(t.gemm[0].k, 4096);
  EXPECT_DOUBLE_EQ(t.gemm[0].time_s, 2e-5);
  EXPECT_EQ(t.source, "t.csv");
}

TEST(KernelTable, BadInputNamesFileLineColumnAndRange) {
  const std::string h = "kind,precision,m,n,k,time_s\n";
  EXPECT_NE(error_of("").find("empty file"), std::string::npos);
  EXPECT_NE(error_of("kind,m\n").find("missing column"), std::string::npos);
  EXPECT_NE(error_of(h).find("no kernel rows"), std::string::npos);
  const std::string e1 = error_of(h + "gemm,bf16,1,2,3,1e-5\ngemm,bf17,0,2.5,3,-1\n");
  EXPECT_NE(e1.find("bad.csv:3 precision"), std::string::npos) << e1;
  EXPECT_NE(e1.find("bad.csv:3 m"), std::string::npos) << e1;
  EXPECT_NE(e1.find("bad.csv:3 n"), std::string::npos) << e1;
  EXPECT_NE(e1.find("bad.csv:3 time_s"), std::string::npos) << e1;
  EXPECT_NE(e1.find("(0, 3600]"), std::string::npos) << e1;
  EXPECT_NE(error_of(h + "attn_decode,bf16,1,2,3,1e-5\n").find("bad.csv:2 kind"),
            std::string::npos);
  EXPECT_NE(error_of(h + "gemm,bf16,1,2\n").find("wrong number of fields"), std::string::npos);
  EXPECT_NE(error_of(h + "gemm,bf16,1,2,3,\"1e-5\n").find("never closed"), std::string::npos);
  EXPECT_NE(error_of(h + "gemm,bf16,16777217,2,3,1e-5\n").find("16777216"), std::string::npos);
  // A column named twice is refused, and a row as wide as the distinct names (narrower than the
  // header) is a wrong number of fields, never read past its end (a fuzzer finding).
  const std::string dup = error_of("kind,precision,m,n,kind,k,time_s\ngemm,bf16,1,2,3,1e-5\n");
  EXPECT_NE(dup.find("bad.csv:1: duplicate column"), std::string::npos) << dup;
  EXPECT_NE(dup.find("kind"), std::string::npos) << dup;
}

// A shape whose rows follow the table's roofline times a smooth factor is reproduced between
// its rows; a measured point returns its own time; outside the measured m range, or for a shape
// or precision that was not measured, there is no answer (the caller keeps the roofline).
TEST(KernelTable, InterpolatesBetweenMeasuredTokenCountsOnly) {
  kernels::Table t;
  const double n = 4096, k = 4096, bw = 4e12, peak = 8e14;
  const auto roof = [&](double m) {
    return std::max(((m * k + k * n) * 2 + m * n * 2) / bw, 2 * m * n * k / peak);
  };
  for (double m : {1.0, 16.0, 256.0, 4096.0})
    t.gemm.push_back({Precision::bf16, m, n, k, roof(m) * 1.25});
  EXPECT_DOUBLE_EQ(*kernels::gemm_time(t, Precision::bf16, 16, n, k), roof(16) * 1.25);
  for (double m : {4.0, 64.0, 1000.0})
    EXPECT_NEAR(*kernels::gemm_time(t, Precision::bf16, m, n, k) / (roof(m) * 1.25), 1.0, 1e-9);
  EXPECT_FALSE(kernels::gemm_time(t, Precision::bf16, 8192, n, k));
  EXPECT_FALSE(kernels::gemm_time(t, Precision::bf16, 64, n, 1024));
  EXPECT_FALSE(kernels::gemm_time(t, Precision::fp8, 64, n, k));
  EXPECT_FALSE(kernels::gemm_time(t, Precision::bf16, 0, n, k));
  const auto loo = kernels::leave_one_out(t);
  EXPECT_EQ(loo.rows, 4);
  EXPECT_EQ(loo.predicted, 2);  // the two ends have one neighbour only
  EXPECT_NEAR(loo.max, 0.0, 1e-9);
}

// The H200 GEMMs (cuBLAS bf16 and fp8 against Llama-3.1-8B and Llama-3-70B weight shapes,
// data/h200-measured): the leave-one-out error the issue's bar asks for (median <= 5 %, p90 <=
// 15 %); measured 2.5 % and 9.2 % over the 162 rows that have two neighbours.
TEST(KernelTable, H200GemmsLeaveOneOut) {
  const auto t = io::load_kernel_table(STACKSCOPE_DATA_DIR "/h200-measured/h200-gemm.csv");
  ASSERT_EQ(t.gemm.size(), 198u);
  const auto loo = kernels::leave_one_out(t);
  std::printf("H200 GEMMs: %d of %d rows predicted, median %.1f %%, p90 %.1f %%, max %.1f %%\n",
              loo.predicted, loo.rows, 100 * loo.median, 100 * loo.p90, 100 * loo.max);
  EXPECT_EQ(loo.predicted, 162);
  EXPECT_LE(loo.median, 0.05);
  EXPECT_LE(loo.p90, 0.15);
  EXPECT_NEAR(loo.median, 0.025, 0.005);
}

}  // namespace
}  // namespace stackscope
