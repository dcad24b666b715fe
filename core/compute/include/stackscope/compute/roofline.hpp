// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Per-operator roofline with tile effects (docs/model.md §3.1-§3.2):
//   t = max(FLOPs_padded / (peak x efficiency x wave_efficiency), DRAM bytes / BW,
//           busiest mesh link bytes / link BW) + t_launch + mesh fill
// GEMMs are tiled to fit double-buffered per-core SRAM; small dimensions are padded to the
// matrix-instruction tile (tile quantisation); tiles are spread over cores in waves, with
// split-K when there are fewer tiles than cores (wave quantisation); DRAM traffic counts the
// re-reads implied by the on-die reuse tile; the on-die mesh carries the traffic of the
// operator's mapping (noc.hpp). Pure functions; SI units.
#include <algorithm>

#include "stackscope/compute/noc.hpp"
#include "stackscope/hw/hardware.hpp"

namespace stackscope::compute {

// Rates an operator runs against: the caller resolves precision and memory pattern.
struct Rates {
  double matrix_flops = 0;         // matrix peak at the op's precision, FLOP/s
  double vector_flops = 0;         // vector peak, FLOP/s
  double dram_Bps = 0;             // effective DRAM bandwidth for the op's access pattern
  double launch_s = 0;             // fixed per-operator overhead (runtime::op_overhead_s)
  MeshRates mesh;                  // the on-die mesh (default: none, no traffic)
  double matmul_efficiency = 1.0;  // achieved fraction of matrix_flops on GEMMs (the runtime's)
};

struct OpCost {
  double flops = 0;       // useful FLOPs (not padded)
  double dram_bytes = 0;  // DRAM traffic
  double t_compute = 0;
  double t_memory = 0;
  double t_noc = 0;       // busiest on-die mesh link (noc.hpp)
  double t_overhead = 0;  // launch + mesh fill
  double time = 0;        // max(t_compute, t_memory, t_noc) + t_overhead
  NocTraffic noc;         // the mesh traffic behind t_noc
  bool memory_bound() const { return t_memory > t_compute && t_memory >= t_noc; }
  bool noc_bound() const { return t_noc > t_compute && t_noc > t_memory; }
  double busy() const { return std::max({t_compute, t_memory, t_noc}); }
};

// Element sizes of a GEMM's operands, bytes.
struct GemmBytes {
  double a = 2;  // activations (M x K)
  double b = 2;  // weights (K x N)
  double c = 2;  // output (M x N)
};

// C[M x N] = A[M x K] . B[K x N], repeated `count` times with independent weights (e.g. one
// per expert, each with its own M). `b_resident` = weights already on die (0 DRAM bytes for B).
OpCost gemm(const hw::ComputeDie& die, const Rates& rates, double m, double n, double k,
            const GemmBytes& bytes, double count = 1.0);

// Elementwise/reduction work on the vector unit: flops and DRAM bytes moved.
OpCost vector_op(const Rates& rates, double flops, double bytes);

// Attention core. Prefill: FlashAttention-style, causal; K/V re-read once per query block
// that fits per-core SRAM. Decode: every sequence reads its whole KV cache once.
struct AttentionShape {
  double sequences = 1;           // independent sequences on this device
  double q_len = 1;               // query tokens per sequence (input_len in prefill, 1 in decode)
  double kv_len = 1;              // keys per sequence (context)
  double heads = 1;               // query heads on this device
  double qk_dim = 128;            // per-head dim of q.k
  double v_dim = 128;             // per-head dim of v
  double kv_bytes_per_token = 0;  // K+V (or latent) cache bytes per token on this device
  double q_bytes = 2;             // element size of q / output
  double kv_reads = 1;            // times the KV cache is read in decode (query heads per KV head
                                  // when the kernel does not share KV across a GQA group)
  bool causal = true;
};
OpCost attention(const hw::ComputeDie& die, const Rates& rates, double efficiency,
                 const AttentionShape& s);

}  // namespace stackscope::compute
