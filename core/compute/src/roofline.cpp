// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/compute/roofline.hpp"

#include <algorithm>
#include <cmath>

#include "stackscope/common/units.hpp"

namespace stackscope::compute {
namespace {

double ceil_to(double x, double q) {
  return std::ceil(x / q) * q;
}

// K depth of one pipelined panel (elements): a common choice for tensor-core GEMM mainloops
// (CUTLASS Hopper kernels use 64 for 16-bit types).
constexpr double kPanelK = 64.0;

// Largest square-ish output tile (multiple of the MMA tile) whose double-buffered operand
// panels plus fp32 accumulators fit one core's SRAM.
void core_tile_search(const hw::ComputeDie& die, double in_bytes, double* tm, double* tn) {
  const double sram = die.sram_per_core_KiB * units::kKiB;
  double m = std::max(1, die.mma_tile_m);
  double n = std::max(1, die.mma_tile_n);
  auto fits = [&](double a, double b) {
    return 2.0 * (a + b) * kPanelK * in_bytes + a * b * kAccumulatorBytes <= sram;
  };
  // Grow the smaller side first, doubling, while it fits (bounded: SRAM is finite).
  for (int i = 0; i < 16; ++i) {
    if (m <= n && fits(2 * m, n))
      m *= 2;
    else if (fits(m, 2 * n))
      n *= 2;
    else if (fits(2 * m, n))
      m *= 2;
    else
      break;
  }
  *tm = m;
  *tn = n;
}

// core_tile_search() memoised for the last die shape seen on this thread: an evaluation calls
// gemm() dozens of times with one die and one or two element sizes (a pure function of its
// inputs, so the memo never changes a result).
void core_tile(const hw::ComputeDie& die, double in_bytes, double* tm, double* tn) {
  struct Entry {
    double sram = -1, in_bytes = -1;
    int mma_m = -1, mma_n = -1;
    double tm = 0, tn = 0;
  };
  thread_local Entry memo[2];
  thread_local int next = 0;
  for (const Entry& e : memo) {
    if (e.sram == die.sram_per_core_KiB && e.in_bytes == in_bytes && e.mma_m == die.mma_tile_m &&
        e.mma_n == die.mma_tile_n) {
      *tm = e.tm;
      *tn = e.tn;
      return;
    }
  }
  core_tile_search(die, in_bytes, tm, tn);
  memo[next] = {die.sram_per_core_KiB, in_bytes, die.mma_tile_m, die.mma_tile_n, *tm, *tn};
  next ^= 1;
}

}  // namespace

OpCost gemm(const hw::ComputeDie& die, const Rates& rates, double m, double n, double k,
            const GemmBytes& bytes, double count) {
  OpCost c;
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return c;
  c.flops = 2.0 * m * n * k * count;

  // Tile quantisation: M and N are padded to the matrix-instruction tile. A GEMM with fewer
  // rows than the tile may instead run transposed (swap-AB, hw::ComputeDie::mma_min_n): its
  // N becomes the instruction's M and its M is padded only to the instruction's smallest N.
  double tm = 0, tn = 0;
  core_tile(die, std::max(bytes.a, bytes.b), &tm, &tn);
  const double cores = std::max(1, die.cores);
  auto compute_s = [&](double rows, double cols, double q_rows, double q_cols) {
    const double r_pad = ceil_to(rows, q_rows);
    const double c_pad = ceil_to(cols, q_cols);
    const double br = std::min(tm, r_pad);
    const double bc = std::min(tn, c_pad);
    const double tiles = std::ceil(r_pad / br) * std::ceil(c_pad / bc) * count;
    // Split-K spreads too few tiles over idle cores (bounded by K panels).
    const double split = std::clamp(std::floor(cores / tiles), 1.0, std::ceil(k / kPanelK));
    const double work = tiles * split;
    const double waves = std::ceil(work / cores);
    const double wave_eff = work / (waves * cores);
    // Padded work actually executed: whole tiles.
    const double flops_exec =
        2.0 * std::ceil(r_pad / br) * br * std::ceil(c_pad / bc) * bc * k * count;
    return flops_exec / (rates.matrix_flops * rates.matmul_efficiency * wave_eff);
  };
  const double q_m = std::max(1, die.mma_tile_m);
  const double q_n = std::max(1, die.mma_tile_n);
  c.t_compute = compute_s(m, n, q_m, q_n);
  if (die.mma_min_n > 0 && m < q_m)
    c.t_compute = std::min(c.t_compute, compute_s(n, m, q_m, die.mma_min_n));

  // DRAM traffic. The shared on-die buffer holds a reuse block of the output; A is re-read
  // once per block column, B once per block row (blocked-GEMM traffic, Hong & Kung).
  const double shared = die.shared_buffer_MiB * units::kMiB;
  const double block = std::max(std::min(tm, ceil_to(m, q_m)),
                                std::floor(std::sqrt(shared / (2.0 * std::max(bytes.a, bytes.b)))));
  const double a_bytes = m * k * bytes.a;
  const double b_bytes = k * n * bytes.b;
  const double c_bytes = m * n * bytes.c;
  const double a_reads = std::max(1.0, std::ceil(n / block));
  const double b_reads = std::max(1.0, std::ceil(m / block));
  c.dram_bytes = (a_bytes * a_reads + b_bytes * b_reads + c_bytes) * count;
  c.t_memory = c.dram_bytes / rates.dram_Bps;
  c.noc = gemm_traffic(rates.mesh, m, n, k, bytes.a, count, c.dram_bytes);
  c.t_noc = noc_time_s(rates.mesh, c.noc);
  c.t_overhead = rates.launch_s + fill_time_s(rates.mesh);
  c.time = c.busy() + c.t_overhead;
  return c;
}

OpCost vector_op(const Rates& rates, double flops, double bytes) {
  OpCost c;
  c.flops = flops;
  c.dram_bytes = bytes;
  c.t_compute = flops / rates.vector_flops;
  c.t_memory = bytes / rates.dram_Bps;
  // Each core works on its own slice: only memory bytes entering at the edges use the mesh.
  c.noc = relayout_traffic(rates.mesh, 0.0, bytes);
  c.t_noc = noc_time_s(rates.mesh, c.noc);
  c.t_overhead = rates.launch_s;
  c.time = c.busy() + c.t_overhead;
  return c;
}

OpCost attention(const hw::ComputeDie& die, const Rates& rates, double efficiency,
                 const AttentionShape& s) {
  OpCost c;
  // Keys each query attends to: causal prefill sees on average (kv_len + 1) / 2 when q_len ==
  // kv_len; decode (q_len == 1) sees the whole context.
  const double keys = (s.causal && s.q_len > 1) ? (s.kv_len + 1.0) / 2.0 : s.kv_len;
  // QK^T and PV, 2 FLOP per multiply-add (FlashAttention-2 accounting).
  c.flops = 2.0 * s.sequences * s.heads * s.q_len * keys * (s.qk_dim + s.v_dim);
  // Query/output traffic plus the KV cache; in prefill K/V are re-read once per query block
  // (FlashAttention-2 outer loop over query blocks of one core's SRAM).
  const double q_out =
      2.0 * s.sequences * s.q_len * s.heads * std::max(s.qk_dim, s.v_dim) * s.q_bytes;
  double kv_passes = 1.0;
  if (s.q_len > 1) {
    const double per_row = (s.qk_dim + s.v_dim) * s.q_bytes * 2.0;  // q row + o accumulator
    const double q_block =
        std::max(16.0, std::floor(die.sram_per_core_KiB * units::kKiB / 2.0 / per_row));
    kv_passes = std::max(1.0, std::ceil(s.q_len / q_block) * (s.causal ? 0.5 : 1.0));
    // KV heads shared by several query heads are read once per group; kv_bytes_per_token is
    // already per device and per layer.
  }
  if (s.q_len <= 1) kv_passes = std::max(1.0, s.kv_reads);
  c.dram_bytes = q_out + s.sequences * s.kv_len * s.kv_bytes_per_token * kv_passes;
  c.t_compute = c.flops / (rates.matrix_flops * efficiency);
  c.t_memory = c.dram_bytes / rates.dram_Bps;
  // Queries in and outputs out are re-laid out over the mesh; the KV pages are local.
  c.noc = relayout_traffic(rates.mesh, q_out, c.dram_bytes);
  c.t_noc = noc_time_s(rates.mesh, c.noc);
  c.t_overhead = rates.launch_s + fill_time_s(rates.mesh);
  c.time = c.busy() + c.t_overhead;
  return c;
}

}  // namespace stackscope::compute
