// SPDX-License-Identifier: GPL-3.0-or-later
#include "mpi_search.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "stackscope/cli/args.hpp"

#ifdef STACKSCOPE_WITH_MPI
#include <mpi.h>
#endif

namespace stackscope::cli::mpi {

// Records and counters travel as bytes between copies of the same executable.
static_assert(std::is_trivially_copyable_v<search::PointRecord>);
static_assert(std::is_trivially_copyable_v<RankCounters>);

bool available() {
#ifdef STACKSCOPE_WITH_MPI
  return true;
#else
  return false;
#endif
}

RankCounters counters_of(const search::Summary& s) {
  const auto& p = s.progress;
  RankCounters c;
  c.evaluated = p.evaluated;
  c.pruned = p.pruned;
  c.pruned_bound = p.pruned_bound;
  c.infeasible = p.infeasible;
  c.resumed = p.resumed;
  c.total_lo = static_cast<std::uint64_t>(p.total);
  c.total_hi = static_cast<std::uint64_t>(p.total >> 64);
  c.points = s.archive.size();
  c.elapsed_s = p.elapsed_s;
  c.evaluator_s = p.evaluator_s;
  c.flags = (s.stopped ? kStopped : 0u) | (s.time_limited ? kTimeLimited : 0u) |
            (s.eval_limited ? kEvalLimited : 0u) | (s.complete ? kComplete : 0u);
  return c;
}

search::Summary combine(std::span<const RankCounters> ranks,
                        std::span<const search::PointRecord> points,
                        std::span<const search::Objective> objectives, search::Count space_size) {
  search::Summary s;
  s.space_size = space_size;
  s.archive = search::Archive(objectives);
  s.complete = !ranks.empty();
  auto& p = s.progress;
  for (const auto& c : ranks) {
    p.evaluated += c.evaluated;
    p.pruned += c.pruned;
    p.pruned_bound += c.pruned_bound;
    p.infeasible += c.infeasible;
    p.resumed += c.resumed;
    p.total += (static_cast<search::Count>(c.total_hi) << 64) | c.total_lo;
    p.elapsed_s = std::max(p.elapsed_s, c.elapsed_s);
    p.evaluator_s += c.evaluator_s;
    s.stopped = s.stopped || (c.flags & kStopped) != 0;
    s.time_limited = s.time_limited || (c.flags & kTimeLimited) != 0;
    s.eval_limited = s.eval_limited || (c.flags & kEvalLimited) != 0;
    s.complete = s.complete && (c.flags & kComplete) != 0;
  }
  for (const auto& r : points) s.archive.insert(r);
  p.frontier = s.archive.size();
  p.rate_per_s = p.elapsed_s > 0 ? static_cast<double>(p.evaluated + p.pruned) / p.elapsed_s : 0;
  return s;
}

#ifdef STACKSCOPE_WITH_MPI

World::World() {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised) throw CliError("search: --mpi: MPI is already initialised in this process");
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

World::~World() {
  MPI_Finalize();
}

bool World::all_ok(bool ok) const {
  int mine = ok ? 1 : 0;
  int all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

std::optional<search::Summary> World::gather(const search::Summary& mine,
                                             std::span<const search::Objective> objectives) const {
  const RankCounters c = counters_of(mine);
  std::vector<RankCounters> counters(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  MPI_Gather(&c, static_cast<int>(sizeof c), MPI_BYTE, counters.data(), static_cast<int>(sizeof c),
             MPI_BYTE, 0, MPI_COMM_WORLD);

  // MPI counts are ints: a frontier above 2 GiB of records per rank cannot be sent in one go
  // (about 10^7 points, far beyond any frontier seen).
  constexpr auto kRecord = sizeof(search::PointRecord);
  constexpr auto kMaxRecords =
      static_cast<std::uint64_t>(std::numeric_limits<int>::max()) / kRecord;
  const std::vector<search::PointRecord> sent = mine.archive.sorted();
  std::vector<int> bytes, offsets;
  std::vector<search::PointRecord> received;
  if (rank_ == 0) {
    std::uint64_t total = 0;
    for (const auto& rc : counters) {
      if (rc.points > kMaxRecords || total + rc.points > kMaxRecords)
        throw CliError("search: --mpi: the gathered frontier is too large for one MPI message");
      bytes.push_back(static_cast<int>(rc.points * kRecord));
      offsets.push_back(static_cast<int>(total * kRecord));
      total += rc.points;
    }
    received.resize(total);
  }
  MPI_Gatherv(sent.data(), static_cast<int>(sent.size() * kRecord), MPI_BYTE, received.data(),
              bytes.data(), offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
  if (rank_ != 0) return std::nullopt;
  return combine(counters, received, objectives, mine.space_size);
}

void World::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

#else  // no MPI in this build

World::World() {
  throw CliError(
      "search: --mpi: this build has no MPI support; install libopenmpi-dev and rebuild "
      "(or run shards with --shard K/N and combine them with `stackscope-cli merge`)");
}

World::~World() = default;

bool World::all_ok(bool ok) const {
  return ok;
}

std::optional<search::Summary> World::gather(const search::Summary& mine,
                                             std::span<const search::Objective> objectives) const {
  const RankCounters c = counters_of(mine);
  const auto points = mine.archive.sorted();
  return combine({&c, 1}, points, objectives, mine.space_size);
}

void World::abort(int /*code*/) const {
  std::abort();
}

#endif

}  // namespace stackscope::cli::mpi
