// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `search --mpi`: rank r of N runs shard r/N of the space and rank 0
// gathers every rank's counters and frontier. The MPI calls are compiled only when CMake found
// MPI (STACKSCOPE_WITH_MPI); without it World() throws a CliError, so the normal CLI never needs
// mpirun. MPI is initialised only by World, i.e. only when --mpi is given.
#include <cstdint>
#include <optional>
#include <span>

#include "stackscope/search/archive.hpp"
#include "stackscope/search/engine.hpp"

namespace stackscope::cli::mpi {

// True when this build can run `search --mpi`.
bool available();

// What one rank sends to rank 0 besides its frontier records (plain bytes: every rank runs the
// same executable).
struct RankCounters {
  std::uint64_t evaluated = 0, pruned = 0, pruned_bound = 0, infeasible = 0, resumed = 0;
  std::uint64_t total_lo = 0, total_hi = 0;  // search::Count, split in two words
  std::uint64_t points = 0;                  // frontier records that follow
  double elapsed_s = 0;
  double evaluator_s = 0;   // thread-seconds inside the evaluator
  std::uint32_t flags = 0;  // kStopped | kTimeLimited | kEvalLimited | kComplete
  std::uint32_t padding = 0;
};
inline constexpr std::uint32_t kStopped = 1, kTimeLimited = 2, kEvalLimited = 4, kComplete = 8;

RankCounters counters_of(const search::Summary& s);
// The summary of the whole run from every rank's counters and frontier records: counters summed,
// elapsed time of the slowest rank, complete only when every rank is, the other flags when any
// rank has them; the archive is the frontier of the union (= the single-process frontier, since
// the ranks' shards partition the space and the archive is insertion-order independent).
search::Summary combine(std::span<const RankCounters> ranks,
                        std::span<const search::PointRecord> points,
                        std::span<const search::Objective> objectives, search::Count space_size);

// MPI_COMM_WORLD for the lifetime of the object (MPI_Init_thread with MPI_THREAD_FUNNELED: the
// search runs worker threads, only the calling thread talks to MPI). One per process.
class World {
 public:
  // Throws CliError when the build has no MPI support.
  World();
  ~World();  // MPI_Finalize
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // Collective: true on every rank when `ok` is true on every rank. Lets the ranks fail their
  // set-up (e.g. a log directory that already exists) together instead of hanging later.
  bool all_ok(bool ok) const;
  // Collective: gathers every rank's counters and frontier; the combined summary at rank 0,
  // nullopt on the other ranks.
  std::optional<search::Summary> gather(const search::Summary& mine,
                                        std::span<const search::Objective> objectives) const;
  // Ends every rank of the job with `code` (after the caller printed why).
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace stackscope::cli::mpi
