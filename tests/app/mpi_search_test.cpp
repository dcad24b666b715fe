// SPDX-License-Identifier: GPL-3.0-or-later
// What rank 0 of `search --mpi` makes of the ranks' counters and frontier records (the MPI
// transport itself is checked end to end by the cli-search-mpi-2-ranks CTest under mpirun).
#include "mpi_search.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace stackscope::cli::mpi {
namespace {

search::PointRecord point(std::uint64_t hw, std::uint64_t inner, double stps, double utps) {
  search::PointRecord p;
  p.id = {hw, inner};
  p.feasible = true;
  p.n_objectives = 2;
  p.objectives[0] = stps;
  p.objectives[1] = utps;
  return p;
}

const std::vector<search::Objective> kObjectives = {search::objective(search::Metric::stps),
                                                    search::objective(search::Metric::utps)};

TEST(MpiCombine, SumsCountersAndMergesFrontiersLikeOneArchive) {
  search::Summary a, b;
  a.archive = search::Archive(kObjectives);
  b.archive = search::Archive(kObjectives);
  // Across ranks: rank 0's (2, 0) is dominated by rank 1's (3, 0), and rank 1's (5, 1) ties
  // rank 0's (0, 0), which keeps the lower id. Frontier: (0, 0), (1, 0), (3, 0).
  const std::vector<search::PointRecord> all = {point(0, 0, 10, 1), point(2, 0, 5, 5),
                                                point(3, 0, 6, 6), point(1, 0, 1, 10),
                                                point(5, 1, 10, 1)};
  a.archive.insert(all[0]);
  a.archive.insert(all[1]);
  b.archive.insert(all[2]);
  b.archive.insert(all[3]);
  b.archive.insert(all[4]);
  a.progress.evaluated = 7;
  a.progress.pruned = 3;
  a.progress.pruned_bound = 2;
  a.progress.infeasible = 1;
  a.progress.total = (static_cast<search::Count>(1) << 70) + 5;  // beyond 64 bits
  a.progress.elapsed_s = 2;
  a.complete = true;
  b.progress.evaluated = 4;
  b.progress.pruned = 6;
  b.progress.total = 10;
  b.progress.elapsed_s = 3;
  b.time_limited = true;

  std::vector<RankCounters> ranks = {counters_of(a), counters_of(b)};
  EXPECT_EQ(ranks[0].points, 2u);
  EXPECT_EQ(ranks[1].points, 3u);
  std::vector<search::PointRecord> records;
  for (const auto& p : a.archive.sorted()) records.push_back(p);
  for (const auto& p : b.archive.sorted()) records.push_back(p);
  const search::Summary s = combine(ranks, records, kObjectives, 1234);

  search::Archive reference(kObjectives);
  for (const auto& p : all) reference.insert(p);
  const auto got = s.archive.sorted();
  const auto want = reference.sorted();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].id, want[i].id) << i;
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].id, (search::PointId{0, 0}));
  EXPECT_EQ(got[1].id, (search::PointId{1, 0}));
  EXPECT_EQ(got[2].id, (search::PointId{3, 0}));
  EXPECT_EQ(s.progress.evaluated, 11u);
  EXPECT_EQ(s.progress.pruned, 9u);
  EXPECT_EQ(s.progress.pruned_bound, 2u);
  EXPECT_EQ(s.progress.infeasible, 1u);
  EXPECT_TRUE(s.progress.total == (static_cast<search::Count>(1) << 70) + 15);
  EXPECT_EQ(s.progress.elapsed_s, 3);
  EXPECT_EQ(s.progress.frontier, got.size());
  EXPECT_TRUE(s.space_size == 1234);
  EXPECT_FALSE(s.complete);  // rank 1 hit its time limit
  EXPECT_TRUE(s.time_limited);
  EXPECT_FALSE(s.stopped);
}

TEST(MpiCombine, CompleteOnlyWhenEveryRankIs) {
  search::Summary done;
  done.complete = true;
  const std::vector<RankCounters> both = {counters_of(done), counters_of(done)};
  EXPECT_TRUE(combine(both, {}, kObjectives, 0).complete);
  EXPECT_FALSE(combine({}, {}, kObjectives, 0).complete);
}

}  // namespace
}  // namespace stackscope::cli::mpi
