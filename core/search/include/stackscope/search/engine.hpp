// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The search engine (docs/model.md §16.2-§16.3). Hierarchical: hardware points are the
// outer loop (the unit of work handed to threads and to shards), the inner schedule space the inner
// loop.
//
// Pruning, in order, never dropping a true Pareto point:
//  1. construction: a hardware point perf::validate() rejects (e.g. layers_connected >
//     layers_total), a die over its area or the reticle, a constraint that the hardware alone
//     violates (die area; static power vs max power; DRAM temperature at static power), a
//     batch whose memory footprint exceeds the device (the evaluator's own footprint function):
//     counted as pruned, reason recorded in the counters, never evaluated.
//  2. bounds: an optimistic objective vector that no point of the subspace can beat
//     (search/bounds.hpp argues each bound from core/perf/src/evaluator.cpp) for a
//     (parallel group, batch) unit across its sequence-parallel and overlap settings, and for a
//     whole hardware point (the component-wise best of its units). A subspace is skipped when
//     an archived point dominates its bound, or when the bound already violates a TTFT/TPOT SLO.
//     Units are first bounded without collectives (cheap); survivors get the collective-aware
//     bound (network::NetworkModel of the hardware point's system) before evaluation.
//  3. hardware level, exhaustive runs (before any unit of a hardware point is looked at):
//     - boxes: hardware points sharing their leading axes' digits form a box whose aggregate is
//       the best any design below offers (largest rates, shortest launch, smallest die, most
//       free memory); the unit list narrows box by box down the hierarchy and a box with no
//       unit left is skipped whole;
//     - regions: hardware points that differ only in system axes (KnobEffect::system) share the
//       collective-free bound of every unit, computed once from hardware-independent decode work
//       (bounds.hpp DecodeWork) and a few hardware rates, then the bound with the least
//       collectives of any of the region's systems (bounds.hpp CommWork, cached per system and
//       unit); units that region bound proves dominated, over memory or over the TPOT SLO are
//       skipped on every point of the region.
//  4. per point: a unit that survives its hardware point's collective-aware bound is bounded
//     per schedule (sequence parallelism, overlap mode) with this die's own GEMM and attention
//     costs (bounds.hpp hardware_decode_work); its points are evaluated fastest bound first.
// Hardware points of the most promising sampled regions (best collective-free bound per
// objective) are visited first; inside a hardware point, units are visited best bound (first
// objective) first. Both fill the archive early.
// The frontier is the same for any thread count, shard split or visiting order (archive ties go
// to the lowest PointId); the counts of pruned vs evaluated points can differ between thread
// counts (pruning sees a different partial frontier).
#include <chrono>
#include <cstdint>
#include <span>
#include <stop_token>
#include <vector>

#include "stackscope/perf/result.hpp"
#include "stackscope/search/archive.hpp"
#include "stackscope/search/space.hpp"

namespace stackscope::search {

enum class Strategy {
  exhaustive,  // every point of the (shard of the) space, with pruning
  random,      // `samples` points drawn uniformly over the space (with replacement)
  // NSGA-II (Deb et al., IEEE TEC 2002): `population` individuals for `generations`
  // generations; binary tournaments on (front, crowding distance), uniform crossover, per-gene
  // reset mutation, elitist (parents + children) selection; constraint-violating and
  // infeasible points rank behind every feasible one. Genes are one real in [0, 1) per
  // hardware axis and per inner digit (parallel group of the device count, sequence
  // parallelism, batch, overlap). Every random draw is keyed by (seed, generation, individual,
  // gene), so results do not depend on the thread count. Feasibility pruning only (ranking
  // needs objective values); shards are not supported (count must be 1).
  nsga2,
};

// Deterministic 1/count partition of the hardware points (hw % count == index), or of the
// sample numbers for random sampling. The shard archives merge to the single-run frontier.
struct Shard {
  std::uint64_t index = 0;  // 0 <= index < count
  std::uint64_t count = 1;
};

struct RunOptions {
  Strategy strategy = Strategy::exhaustive;
  // Worker threads; 0 = std::thread::hardware_concurrency().
  int threads = 1;
  // Stop after this many evaluations (0 = no limit). With a limit the set of points evaluated
  // depends on scheduling; only complete runs have a thread-independent frontier.
  std::uint64_t max_evals = 0;
  // Wall-clock limit in seconds (0 = none).
  double time_limit_s = 0;
  // Random sampling: sample k draws point rank = hash(seed, k) mod size (a counter-based RNG,
  // so results do not depend on the thread count).
  std::uint64_t seed = 1;
  std::uint64_t samples = 10000;
  // NSGA-II.
  std::size_t population = 64;  // rounded up to an even number
  std::size_t generations = 50;
  double crossover_probability = 0.9;
  double mutation_probability = 0;  // per gene; 0 = 1 / genes
  Shard shard;
  bool prune_bounds = true;  // bound-based pruning (feasibility pruning is always on)
  // Resume (exhaustive and random only): work units finished by an earlier run of the same
  // search are skipped (sorted; hardware indices for exhaustive, sample chunks of
  // kSampleChunk for random), and that run's frontier seeds the archive, so the final frontier
  // equals an uninterrupted run's.
  std::vector<std::uint64_t> done_units;
  // Also resume: every work unit whose ordinal is below this was finished (the ordinal of
  // hardware point hw in shard {k, n} is the position of unit (hw - k) / n in the ordered pass;
  // of sample chunk c it is c). A compact watermark for logs of millions of units; both may be
  // given.
  std::uint64_t resume_below = 0;
  // Exhaustive runs: the ordered pass visits the shard's units in index order instead of
  // search/visit_order.hpp (to resume a log written in index order). Ordinals (and
  // resume_below) are positions in the order used.
  bool index_order = false;
  std::vector<PointRecord> seed_points;
  // Sink batching: a batch is delivered when it holds this many records or is this old.
  std::size_t sink_batch_points = 256;
  double sink_interval_s = 0.1;
  double progress_interval_s = 0.1;
};

// Random sampling hands out samples in chunks of this many (the work unit of a random run).
inline constexpr std::uint64_t kSampleChunk = 64;

struct Progress {
  std::uint64_t evaluated = 0;     // evaluator calls
  std::uint64_t pruned = 0;        // points skipped without evaluation (construction + bounds)
  std::uint64_t pruned_bound = 0;  // of which by optimistic bounds
  std::uint64_t infeasible = 0;    // evaluated, infeasible or violating a constraint
  Count total = 0;                 // points of this run (shard of the space, or samples)
  std::uint64_t resumed = 0;       // points of units an earlier run finished (skipped)
  double rate_per_s = 0;           // (evaluated + pruned) per second since the start
  // Thread-seconds spent inside the evaluator (perf::Evaluator::evaluate), summed over
  // threads: evaluated / evaluator_s is the evaluator's rate per core during the run.
  double evaluator_s = 0;
  // Seconds left at the recent rate of finished work units (hardware points, sample chunks;
  // points for NSGA-II) over a 30 s window (search/eta.hpp); 0 while unknown (too few samples
  // yet, or an exhaustive run still visiting its promising hardware points first, whose full
  // evaluation is no guide to the pruned rest) and once the run is done.
  double eta_s = 0;
  double elapsed_s = 0;
  std::size_t frontier = 0;  // current frontier size (merged archive, may lag)
};

struct Summary;

// Counters of one work unit.
struct UnitStats {
  std::uint64_t evaluated = 0, pruned = 0, pruned_bound = 0, infeasible = 0;
};

// Receives results while the search runs. Calls are serialised (never two at once) but may come
// from any thread: on_batch from the worker that filled the batch (or the NSGA-II thread),
// on_progress (about every progress_interval_s) and on_finished from the thread that called
// run(). Every evaluated point is delivered exactly once, in some batch, before on_finished;
// pruned points are only counted. Implementations must be quick (they hold up a worker).
class ResultSink {
 public:
  virtual ~ResultSink() = default;
  virtual void on_batch(std::span<const PointRecord> /*points*/) {}
  virtual void on_progress(const Progress& /*progress*/) {}
  // The final counters and frontier (the same Summary run() returns), once.
  virtual void on_finished(const Summary& /*summary*/) {}
  // Work unit `unit` (a hardware point, or a chunk of samples) is finished: every point it
  // evaluated has already been delivered through on_batch. Units cut short by a stop or a
  // budget are not reported. Exhaustive and random strategies only.
  virtual void on_unit_done(std::uint64_t /*unit*/, const UnitStats& /*stats*/) {}
};

struct Summary {
  Progress progress;
  Count space_size = 0;  // the whole space (all shards)
  bool stopped = false;  // the stop token was triggered
  bool time_limited = false;
  bool eval_limited = false;
  bool complete = false;  // every point of the shard was evaluated or pruned
  Archive archive;        // the frontier
};

// The work units of the shard a run with `options` covers: its hardware points (exhaustive),
// its sample chunks of kSampleChunk (random); NSGA-II has none (0). Resume watermarks and the
// search log count these.
std::uint64_t shard_units(const CompiledSpace& space, const RunOptions& options);

// Runs a search; returns when done, stopped (within ~1 ms of work per thread after the stop
// request) or out of budget. Throws std::invalid_argument on bad options (shard index >= count).
// An exception thrown by the sink (or anything else) on any worker thread halts the run and is
// rethrown here, after every thread has stopped.
Summary run(const CompiledSpace& space, const RunOptions& options, ResultSink& sink,
            std::stop_token stop = {});

// The record of an evaluated point: objective values (the Space's objectives, raw values), key
// metrics, and feasibility including the Space's constraints.
PointRecord make_record(const CompiledSpace& space, PointId id, const perf::Design& design,
                        const perf::Result& result);

}  // namespace stackscope::search
