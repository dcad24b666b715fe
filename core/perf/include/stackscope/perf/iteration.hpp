// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Cost of one serving-scheduler iteration (docs/model.md §11.3): a replica of a design runs a mixed
// batch — prefill chunks at their positions in their prompts plus decode sequences at their
// contexts — through every pipeline stage once. The same operator model as evaluate()
// (evaluator.cpp's blocks): GEMMs, norms, MoE and collectives see the iteration's total new
// tokens; attention sees each sequence's own new tokens and context; the LM head the sequences
// that emit a token. Per-operator overheads follow the design's runtime profile, plus
// runtime::Profile::iteration_overhead_us per iteration.
//
// Contract: the design is validated (perf::validate()); units are s, J and tokens. cost() is
// deterministic and equals a direct evaluation of the same mix; it is memoised, so a simulator
// calling it millions of times with recurring mixes stays fast. Not thread-safe: one
// IterationModel per thread.
//
// What the model assumes (iteration.cpp argues each): DRAM refresh and the thermal throttle
// are the operating point evaluate() settles on for the design's own workload; the power cap is
// met per iteration (the highest of 64 clock steps whose power is at or under the TDP);
// pipeline stages run one after the other for the batch (time = sum over stages; evaluate()'s
// decode step is pp x its slowest stage); with attention data parallelism, sequences go to the
// attention groups round-robin in batch order and the slowest group sets each layer's time; a
// prefill chunk attends causally to itself and fully to its `context` cached tokens.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "stackscope/perf/design.hpp"

namespace stackscope::perf {

// One sequence's share of an iteration: new_tokens == 1 with context > 0 is a decode step,
// anything else a prefill chunk; chunks with new_tokens <= 0 are ignored (a batch of only those
// costs nothing).
struct SequenceChunk {
  int new_tokens = 1;  // tokens computed this iteration (a prefill chunk, or 1 for decode)
  int context = 0;     // tokens already in this sequence's KV cache before the iteration
  bool emits = true;   // a token comes out (decode, or the chunk that ends the prompt)
};

struct IterationCost {
  double time_s = 0;    // wall time of the iteration on the replica (all pp stages)
  double energy_J = 0;  // whole replica (all its devices), dynamic + static over time_s
  // The host's floor under time_s when the iteration runs eagerly (it carries a prefill chunk):
  // its kernels x runtime::Profile::eager_launch_us; 0 for a graph-replayed iteration or a
  // profile without eager launches. time_s >= host_floor_s (+ the iteration overhead).
  double host_floor_s = 0;
};

class IterationModel {
 public:
  explicit IterationModel(const Design& design);
  ~IterationModel();
  IterationModel(IterationModel&&) noexcept;
  IterationModel& operator=(IterationModel&&) noexcept;

  IterationCost cost(std::span<const SequenceChunk> batch);

  // KV cache of one replica: bytes per token of context (all layers, K and V, over the
  // replica's devices) and the tokens it holds once weights, activations at the largest
  // iteration (max_batched_tokens) and the reserve are placed (0 if nothing is left), as
  // perf::memory_footprint counts them. With pp > 1 the fullest stage (most weights, most
  // layers) bounds every stage, so the capacity is a lower bound; with pp = 1 it is
  // (capacity - weights - activations - reserve) x devices / kv_bytes_per_token().
  // Sliding-window models (workload::Model::sliding_window) with full layers beside the sliding
  // ones: kv_bytes_per_token() counts the full layers (what a token adds beyond the window), and
  // given max_seqs (> 0) the capacity is in those tokens after every one of max_seqs sequences
  // has its window in the sliding layers set aside.
  double kv_bytes_per_token() const;
  double kv_capacity_tokens(int max_batched_tokens, int max_seqs = 0) const;
  int devices() const;  // devices of one replica (tp x pp x ep x cp)
  // Idle power of the replica's devices (W): what they draw while no iteration runs (cost()
  // counts each phase's busy floor over its iterations' time).
  double idle_power_W() const;

 private:
  struct Impl;
  Design design_;
  // The operating point at the top of the DVFS range: clock (the thermal throttle's share), DRAM
  // command rate and temperature (perf::detail::Operating's fields).
  double base_clock_ = 1, base_memory_ = 1, base_dram_C_ = 50;
  double cap_W_ = 0;                          // per device, with the cap's tolerance
  std::unique_ptr<Impl> impl_;                // at base_
  std::vector<std::unique_ptr<Impl>> steps_;  // lower clock steps, made when first needed
};

}  // namespace stackscope::perf
