// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Work left of an exhaustive search, forecast from a stratified sample of its work units' costs
// (docs/model.md §16.4). The engine feeds the forecast work to search/eta.hpp.
//
// Why: an exhaustive run's work units (hardware points, visited in index order) are uneven, and
// their cost drifts through the run. In the shipped DeepStack space the outermost hardware axis
// is the device count: a 256-device point has several times the plans of a 64-device one and
// its bounds prune less, so the last third of the run costs far more per unit than the first.
// Counting units, the rate measured in the first third says nothing of the last, and the ETA
// climbs for hours. Stratified random sampling (W. G. Cochran, Sampling Techniques, 3rd ed.,
// Wiley 1977, ch. 5) gives an unbiased total: cut the visiting order into S equal strata, visit
// one unit at a random position in each stratum first and time it, and weigh every other unit
// by its stratum's measured cost. Progress is then counted in forecast seconds, so a rate
// measured early holds for the rest of the run up to the spread of unit costs inside a stratum.
//
// Contract
//  - UnitStrata(units, strata): units 0..units-1 cut into `strata` runs of consecutive units
//    whose sizes differ by at most one (the first units % strata runs are one longer);
//    1 <= strata <= units, else std::invalid_argument. Any uint64 unit count works (no overflow).
//  - candidate(s, a, seed): the a-th probe candidate of stratum s, a unit of that stratum drawn
//    from (seed, s, a) alone (SplitMix64), so every run of the same space probes the same units;
//    `from` restricts the draw to units >= from inside the stratum (a resumed run's watermark);
//    std::nullopt when the stratum has no unit >= from.
//  - forecast_work(strata): the work, in forecast seconds of one thread, done and in total over
//    the strata's `todo` units, each unit weighing its stratum's cost_s. A stratum whose probe
//    was not measured (cost_s < 0: its probe was resumed, excluded or cut short) weighs the mean
//    of the measured strata's costs; with none measured every unit weighs 1 (units are counted).
//    done is clamped to todo per stratum. Costs must be finite; NaN or infinite values throw.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

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
  std::optional<std::uint64_t> candidate(std::uint64_t s, std::uint32_t attempt, std::uint64_t seed,
                                         std::uint64_t from = 0) const;

 private:
  std::uint64_t units_, strata_, width_, longer_;  // longer_: strata one unit longer
};

struct StratumWork {
  std::uint64_t todo = 0;  // units the run will do in this stratum (probes and skips excluded)
  std::uint64_t done = 0;  // of those, finished
  double cost_s = -1;      // measured seconds of the stratum's probe; < 0 when not measured
};

struct ForecastWork {
  double done = 0, total = 0;  // forecast seconds of one thread
};

ForecastWork forecast_work(std::span<const StratumWork> strata);

}  // namespace stackscope::search
