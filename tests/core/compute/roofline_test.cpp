// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include "stackscope/compute/roofline.hpp"

namespace stackscope::compute {
namespace {

// H100-like die from the struct defaults: 132 cores, 1.83 GHz, 4096 FLOP/cycle fp16.
const hw::ComputeDie kDie{};
const double kPeak = 132 * 1.83e9 * 4096;  // 989.5 TFLOPS (H100 whitepaper, dense bf16)
// matmul_efficiency 0.75: a fixed value for these tests (runtime profiles supply the real one).
const Rates kRates{kPeak, 132 * 1.83e9 * 256, 3.0e12, 0.0, {}, 0.75};

TEST(Gemm, CountsUsefulFlops) {
  const auto c = gemm(kDie, kRates, 100, 200, 300, {});
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 100 * 200 * 300);
}

TEST(Gemm, LargeGemmRunsNearCalibratedPeak) {
  // 8192^3 has whole tiles and many waves: time ~ FLOPs / (peak x matmul_efficiency).
  const auto c = gemm(kDie, kRates, 8192, 8192, 8192, {});
  const double ideal = 2.0 * 8192.0 * 8192 * 8192 / (kPeak * kRates.matmul_efficiency);
  EXPECT_FALSE(c.memory_bound());
  EXPECT_NEAR(c.t_compute / ideal, 1.0, 0.12);  // wave tail of at most one wave in ~16
  EXPECT_GE(c.t_compute, ideal * (1 - 1e-12));
}

TEST(Gemm, DecodeGemvIsBoundByWeightBytes) {
  // One token through a 4096 x 11008 bf16 matrix: weights dominate the traffic.
  const auto c = gemm(kDie, kRates, 1, 11008, 4096, {});
  EXPECT_TRUE(c.memory_bound());
  const double weights = 4096.0 * 11008 * 2;
  EXPECT_NEAR(c.dram_bytes / weights, 1.0, 0.01);
  EXPECT_NEAR(c.t_memory, c.dram_bytes / 3.0e12, 1e-15);
}

TEST(Gemm, TileQuantisationPadsSmallM) {
  // M = 1 and M = 64 execute the same padded tile: same compute time.
  const auto a = gemm(kDie, kRates, 1, 4096, 4096, {});
  const auto b = gemm(kDie, kRates, 64, 4096, 4096, {});
  EXPECT_DOUBLE_EQ(a.t_compute, b.t_compute);
  EXPECT_LT(a.flops, b.flops);
}

// Swap-AB (hw::ComputeDie::mma_min_n): with N steps of 8 (Hopper wgmma m64nNk16, PTX ISA) a
// 4-token GEMM runs transposed and executes 8 padded rows instead of 64: 1/8 of the compute on
// a large matrix with many tiles (same wave count: 7168 / 64 = 112 row tiles either way).
TEST(Gemm, SwapAbPadsSmallMToTheInstructionN) {
  hw::ComputeDie swap = kDie;
  swap.mma_min_n = 8;
  swap.cores = 1;  // one core: no split-K or wave effects, the padded work alone
  hw::ComputeDie plain = swap;
  plain.mma_min_n = 0;
  const auto a = gemm(plain, kRates, 4, 7168, 7168, {});
  const auto b = gemm(swap, kRates, 4, 7168, 7168, {});
  EXPECT_NEAR(a.t_compute / b.t_compute, 64.0 / 8.0, 1e-9);
  EXPECT_DOUBLE_EQ(a.dram_bytes, b.dram_bytes);  // the bytes moved do not change
  // From M = 64 on, the normal orientation is no worse and is kept.
  EXPECT_DOUBLE_EQ(gemm(plain, kRates, 64, 7168, 7168, {}).t_compute,
                   gemm(swap, kRates, 64, 7168, 7168, {}).t_compute);
  // Never slower than without it, for any M.
  for (double m : {1.0, 7.0, 9.0, 33.0, 63.0})
    EXPECT_LE(gemm(swap, kRates, m, 7168, 7168, {}).t_compute,
              gemm(plain, kRates, m, 7168, 7168, {}).t_compute) << m;
}

TEST(Gemm, MoreBandwidthOrFlopsNeverSlower) {
  for (double m : {1.0, 16.0, 256.0, 4096.0}) {
    const auto base = gemm(kDie, kRates, m, 8192, 8192, {});
    Rates faster_mem = kRates;
    faster_mem.dram_Bps *= 2;
    Rates faster_flops = kRates;
    faster_flops.matrix_flops *= 2;
    EXPECT_LE(gemm(kDie, faster_mem, m, 8192, 8192, {}).time, base.time) << m;
    EXPECT_LE(gemm(kDie, faster_flops, m, 8192, 8192, {}).time, base.time) << m;
  }
}

TEST(Gemm, SmallOnDieBufferCausesReReads) {
  hw::ComputeDie small = kDie;
  small.shared_buffer_MiB = 1;
  const auto big = gemm(kDie, kRates, 16384, 16384, 4096, {});
  const auto tiny = gemm(small, kRates, 16384, 16384, 4096, {});
  EXPECT_GT(tiny.dram_bytes, big.dram_bytes);
}

TEST(Attention, DecodeReadsWholeKvCache) {
  AttentionShape s;
  s.sequences = 8;
  s.q_len = 1;
  s.kv_len = 4096;
  s.heads = 32;
  s.kv_bytes_per_token = 2 * 8 * 128 * 2.0;  // GQA, 8 KV heads, bf16
  const auto c = attention(kDie, kRates, 0.5, s);
  EXPECT_GE(c.dram_bytes, 8 * 4096 * s.kv_bytes_per_token);
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 8 * 32 * 4096 * 256);
  EXPECT_TRUE(c.memory_bound());
}

TEST(Attention, CausalPrefillHalvesScoreWork) {
  AttentionShape s;
  s.q_len = s.kv_len = 2048;
  s.heads = 32;
  s.kv_bytes_per_token = 2 * 32 * 128 * 2.0;
  const auto causal = attention(kDie, kRates, 0.5, s);
  s.causal = false;
  const auto full = attention(kDie, kRates, 0.5, s);
  EXPECT_NEAR(causal.flops / full.flops, 2049.0 / 2.0 / 2048.0, 1e-12);
}

}  // namespace
}  // namespace stackscope::compute
