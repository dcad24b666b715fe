// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Pareto archive: the non-dominated feasible points seen so far (docs/model.md §16.3). Memory is
// bounded by the frontier, not by the points visited.
//
// Exact dominance on the objective vector with each objective's direction: a dominates b when a
// is at least as good in every objective and strictly better in one. Points with identical
// objective vectors keep the one with the lowest PointId, so the frontier is the same for any
// insertion order; merging archives (insert every point of one into the other) gives the same
// frontier as one run over the union.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "stackscope/search/space.hpp"

namespace stackscope::search {

// Search-level reasons, beside perf::Infeasibility bits (which use the low bits).
enum SearchReason : std::uint32_t {
  kInvalidPoint = 1u << 16,      // perf::validate() rejects the design (e.g. connected > total)
  kViolatesPower = 1u << 17,     // constraint max_power_W
  kViolatesArea = 1u << 18,      // constraint max_die_area_mm2
  kViolatesDramTemp = 1u << 19,  // constraint max_dram_C
  kViolatesTtft = 1u << 20,      // TTFT SLO
  kViolatesTpot = 1u << 21,      // TPOT SLO
};

// One evaluated point. `objectives` holds the raw metric values (in the Space's objective order,
// `n_objectives` of them); directions are applied only when comparing.
struct PointRecord {
  PointId id;
  bool feasible = false;      // evaluator-feasible and within every constraint
  std::uint32_t reasons = 0;  // perf::Infeasibility | SearchReason bits
  int n_objectives = 0;
  std::array<double, kMaxObjectives> objectives{};
  // Key metrics (perf::Metrics / Result), SI units.
  int devices = 0;
  int batch = 0;
  double stps = 0, utps = 0, ttft_s = 0, tpot_s = 0, energy_per_token_j = 0;
  double power_w = 0;      // mean per device
  double die_mm2 = 0;      // per die
  double dram_peak_C = 0;  // 0 when not modelled
  // Work unit that evaluated the point (the hardware index for exhaustive runs, the sample
  // chunk for random sampling); search logs commit points per finished unit.
  std::uint64_t unit = 0;
};

class Archive {
 public:
  Archive() = default;
  explicit Archive(std::span<const Objective> objectives);

  // Inserts a feasible point; returns true if it is on the frontier afterwards. Infeasible
  // points and points with non-finite objective values are ignored.
  bool insert(const PointRecord& p);
  // True when some archived point dominates the vector `v` of raw objective values (an
  // optimistic bound of a subspace: every point of the subspace is then dominated).
  bool dominates(std::span<const double> v) const;
  void merge(const Archive& other);

  std::span<const PointRecord> points() const { return points_; }
  // The frontier sorted by PointId (the canonical order for comparisons and output).
  std::vector<PointRecord> sorted() const;
  std::size_t size() const { return points_.size(); }
  std::span<const Objective> objectives() const { return {objectives_.data(), n_}; }

 private:
  std::array<Objective, kMaxObjectives> objectives_{};
  std::array<double, kMaxObjectives> sign_{};  // +1 maximize, -1 minimize
  std::size_t n_ = 0;
  std::vector<PointRecord> points_;
};

}  // namespace stackscope::search
