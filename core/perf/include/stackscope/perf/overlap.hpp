// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tile-level overlap of a producer with its collective (docs/model.md §8), as a pure function of
// the times the evaluator (evaluator.cpp overlap()) hands it, so the pipeline algebra can be
// checked by hand.
//
// A producer split into T tiles hands tile i's output to the collective as soon as it is
// written (T3, Pati et al. ASPLOS 2024: tracked stores trigger the DMA of each tile's
// reduce-scatter step; FLUX, Chang et al. arXiv 2406.06858: the GEMM epilogue writes each
// tile to its peers). The tiles' messages are in flight together, as NCCL's own chunks are
// (NCCL_STEPS = 8 slots in flight per channel, src/include/device.h), so the collective's
// fixed latency - the network model's per-step alpha (software synchronisation) and hop
// latencies, network::CollectiveCost at a vanishing message - is a pipeline depth, paid once,
// not once per tile. What is serial per tile is its bandwidth share (the links carry the
// tiles one after another) and the issue of its messages: one collective command per call and
// tile (a kernel launch when the runtime runs collectives as kernels, else the device front
// end's dispatch of one descriptor). So with tiles of compute c = tc'/T and link occupancy
// m/T, m = bw + (T - 1) x calls x issue, the two-stage pipeline plus the depth is
//   t(T) = max(tc', m) + min(tc', m) / T + lat,
// with tc' the producer's busy time with the collective's DRAM traffic (read at the sender,
// written at the receiver) competing for the DRAM bandwidth.
//
// What is not hidden, and why: the last tile's messages can only leave once the last tile is
// computed, and its data must then cross the network (lat + its bandwidth share) before the
// consumer may use it, so lat stays on the critical path of the producer's own collective
// whatever T is. A consumer that pipelines on arriving tiles too (a third stage) would not
// remove it either: the first tile still needs lat before the consumer can start and the last
// one lat before the consumer can finish, so a three-stage pipeline shortens only the
// consumer's own time, which is not modelled (the operators after a collective - a norm over
// the whole hidden row, the router - need every tile of their row). Latency is hidden only
// behind work that does not depend on the collective: `independent` below (an MoE layer's
// shared experts run while the dispatch and combine all-to-alls are in flight, as
// Megatron-Core's moe_shared_expert_overlap does; DeepSeek-V3's own decode deployment instead
// dispatches the shared expert as a ninth routed one, technical report §3.4.2), which shares
// the compute units and DRAM with the producer:
//   t(T) = max( t_chain(T), R ),  R = max(compute, mesh, DRAM + collective DRAM bytes) of
// producer and independent work together, t_chain(T) = the pipeline above (T = 1: tc + bw +
// lat, no tiling but the independent work still runs beside the collective).
// Overlap off is sequential execution: tc + tind + lat + bw.
#include <algorithm>

namespace stackscope::perf {

// Busy times of the work an overlapped collective pairs with, seconds (compute::OpCost).
struct OverlapWork {
  double t_compute = 0;  // compute-bound time (sums of operator times for a group of ops)
  double t_memory = 0;   // DRAM-bound time
  double t_noc = 0;      // on-die mesh time
  double busy() const { return std::max({t_compute, t_memory, t_noc}); }
};

struct OverlapInputs {
  OverlapWork producer;     // produces (and consumes) the collective's data
  OverlapWork independent;  // neither feeds nor needs the collective (zero: none)
  double lat = 0;           // collective's latency part (all calls), seconds
  double bw = 0;            // collective's bandwidth part (all calls), seconds
  double calls = 1;         // collective calls each tile issues
  double issue_s = 0;       // serial issue cost of one call of one tile, seconds
  double dram_s = 0;        // the collective's DRAM traffic at the producer's DRAM rate, seconds
};

// Sequential (overlap off) time of the pair.
inline double overlap_sequential(const OverlapInputs& in) {
  return in.producer.busy() + in.independent.busy() + in.lat + in.bw;
}

// The pair's time with T >= 1 tiles (T = 1: no tiling; the independent work still overlaps).
inline double overlap_tiled(const OverlapInputs& in, int tiles) {
  const double tc = in.producer.busy();
  const bool has_independent = in.independent.busy() > 0;
  if (tiles <= 1 && !has_independent) return overlap_sequential(in);
  double chain = tc + in.bw + in.lat;
  if (tiles > 1) {
    const double tc_shared =
        std::max({in.producer.t_compute, in.producer.t_noc, in.producer.t_memory + in.dram_s});
    const double m = in.bw + (tiles - 1) * in.calls * in.issue_s;
    chain = std::max(tc_shared, m) + std::min(tc_shared, m) / tiles + in.lat;
  }
  if (!has_independent) return chain;
  const auto& p = in.producer;
  const auto& q = in.independent;
  const double resources =
      std::max({p.t_compute + q.t_compute, p.t_noc + q.t_noc, p.t_memory + q.t_memory + in.dram_s});
  return std::max(chain, resources);
}

}  // namespace stackscope::perf
