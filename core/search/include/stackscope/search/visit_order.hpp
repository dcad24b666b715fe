// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The order in which an exhaustive search visits a shard's work units, chosen so that the rate
// measured over any stretch of the run holds for the rest of it (docs/model.md §16.4).
//
// Why: the units (hardware points) are uneven, and in index order their cost drifts through the
// run. In the shipped DeepStack space the outermost hardware axis is the device count: a
// 256-device point has several times the plans of a 64-device one and its bounds prune less, so
// in index order the last third costs far more per unit than the first, and an ETA from the
// recent pace climbs for hours. Cutting the units into strata of consecutive units and visiting
// the strata in a random order makes every stretch of the run a random sample of the strata
// (sampling without replacement: W. G. Cochran, Sampling Techniques, 3rd ed., Wiley 1977,
// ch. 2), so the pace measured over it is an unbiased pace for the units left, as far as where
// they lie goes (a frontier that matures still makes early units dearer: early in a run the ETA
// is high and falls). Inside a
// stratum the units keep their index order, so neighbouring hardware points (which share
// regions, bound boxes and network models) still follow each other.
//
// Contract
//  - UnitStrata(units, strata): units 0..units-1 cut into `strata` runs of consecutive units
//    whose sizes differ by at most one (the first units % strata runs are one longer);
//    1 <= strata <= units, else std::invalid_argument. Any uint64 unit count works (no overflow).
//  - VisitOrder(strata, seed): the strata in the order a Fisher-Yates shuffle driven by SplitMix64
//    from `seed` alone gives, each stratum's units in index order; unit_at and position_of are
//    inverse bijections of 0..units-1 (std::invalid_argument outside it).
//  - visit_order(units): the order of an exhaustive shard of `units` units: up to
//    kVisitStrata strata of at least kUnitsPerStratum units, seed kVisitSeed; std::nullopt (index
//    order) below two strata. The engine and the search log (io/search.hpp ordinals) both take
//    the order from here, so a log's watermark means the same units to both.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace stackscope::search {

class UnitStrata {
 public:
  UnitStrata(std::uint64_t units, std::uint64_t strata);

  std::uint64_t units() const { return units_; }
  std::uint64_t count() const { return strata_; }
  // The stratum holding `unit` (< units()).
  std::uint64_t of(std::uint64_t unit) const;
  // First unit of stratum s, and one past its last (s < count()).
  std::uint64_t begin(std::uint64_t s) const;
  std::uint64_t end(std::uint64_t s) const { return begin(s + 1); }

 private:
  std::uint64_t units_, strata_, width_, longer_;  // longer_: strata one unit longer
};

class VisitOrder {
 public:
  VisitOrder(const UnitStrata& strata, std::uint64_t seed);
  // The unit visited at `position` (< units()), and the position of `unit` (< units()).
  std::uint64_t unit_at(std::uint64_t position) const;
  std::uint64_t position_of(std::uint64_t unit) const;
  std::uint64_t units() const { return strata_.units(); }
  const UnitStrata& strata() const { return strata_; }

 private:
  UnitStrata strata_;
  std::vector<std::uint32_t> stratum_at_;  // rank -> stratum
  std::vector<std::uint32_t> rank_of_;     // stratum -> rank
  std::vector<std::uint64_t> start_;       // rank -> first position (and units() at the end)
};

// 4,096 strata keep the order's tables small (64 KiB) and give a window of a few percent of a
// run dozens of strata to average over; at least 64 units a stratum keep runs of neighbouring
// hardware points together.
inline constexpr std::uint64_t kVisitStrata = 4096;
inline constexpr std::uint64_t kUnitsPerStratum = 64;
inline constexpr std::uint64_t kVisitSeed = 0x5eedf0cac57ULL;
std::optional<VisitOrder> visit_order(std::uint64_t units);

}  // namespace stackscope::search
