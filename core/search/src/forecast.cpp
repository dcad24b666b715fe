// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/search/forecast.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine_detail.hpp"

namespace stackscope::search {

UnitStrata::UnitStrata(std::uint64_t units, std::uint64_t strata)
    : units_(units), strata_(strata) {
  if (strata == 0 || strata > units)
    throw std::invalid_argument("UnitStrata: the stratum count must lie in [1, units] (got " +
                                std::to_string(strata) + " strata of " + std::to_string(units) +
                                " units)");
  width_ = units / strata;
  longer_ = units % strata;
}

std::uint64_t UnitStrata::of(std::uint64_t unit) const {
  if (unit >= units_)
    throw std::invalid_argument("UnitStrata: unit " + std::to_string(unit) +
                                " is outside [0, " + std::to_string(units_) + ")");
  const std::uint64_t long_units = longer_ * (width_ + 1);
  if (unit < long_units) return unit / (width_ + 1);
  return longer_ + (unit - long_units) / width_;
}

std::uint64_t UnitStrata::begin(std::uint64_t s) const {
  if (s > strata_)
    throw std::invalid_argument("UnitStrata: stratum " + std::to_string(s) + " is outside [0, " +
                                std::to_string(strata_) + "]");
  return s * width_ + std::min(s, longer_);
}

std::optional<std::uint64_t> UnitStrata::candidate(std::uint64_t s, std::uint32_t attempt,
                                                   std::uint64_t seed, std::uint64_t from) const {
  if (s >= strata_)
    throw std::invalid_argument("UnitStrata: stratum " + std::to_string(s) + " is outside [0, " +
                                std::to_string(strata_) + ")");
  const std::uint64_t lo = std::max(begin(s), from), hi = end(s);
  if (lo >= hi) return std::nullopt;
  const std::uint64_t draw =
      detail::splitmix(seed ^ detail::splitmix(detail::splitmix(s) ^ attempt));
  return lo + draw % (hi - lo);
}

ForecastWork forecast_work(std::span<const StratumWork> strata) {
  double sum = 0;
  std::size_t measured = 0;
  for (const StratumWork& w : strata) {
    if (!std::isfinite(w.cost_s))
      throw std::invalid_argument("forecast_work: a stratum's cost must be finite (got " +
                                  std::to_string(w.cost_s) + ")");
    if (w.cost_s >= 0) {
      sum += w.cost_s;
      ++measured;
    }
  }
  const double fallback = measured > 0 ? sum / static_cast<double>(measured) : 1.0;
  ForecastWork f;
  for (const StratumWork& w : strata) {
    const double c = w.cost_s >= 0 ? w.cost_s : fallback;
    f.total += c * static_cast<double>(w.todo);
    f.done += c * static_cast<double>(std::min(w.done, w.todo));
  }
  return f;
}

namespace detail {

void plan_forecast(Shared& s) {
  const std::uint64_t n = s.opt.shard.count, k = s.opt.shard.index;
  const std::uint64_t units_total = count_below(s.space.hardware_points(), k, n);
  const std::uint64_t strata_n = std::min(kForecastStrata, units_total / kUnitsPerProbe);
  if (strata_n < 2) return;
  const std::uint64_t watermark = s.opt.resume_below;
  const auto unit_of = [&](std::uint64_t hw) -> std::optional<std::uint64_t> {
    if (hw < k || (hw - k) % n != 0) return std::nullopt;
    const std::uint64_t j = (hw - k) / n;
    if (j >= units_total) return std::nullopt;
    return j;
  };
  // Units the ordered pass skips: the promising points (visited first) and resumed units.
  std::vector<std::uint64_t> skip;
  for (std::uint64_t hw : s.first)
    if (auto j = unit_of(hw)) skip.push_back(*j);
  for (std::uint64_t hw : s.opt.done_units)
    if (auto j = unit_of(hw)) skip.push_back(*j);
  std::sort(skip.begin(), skip.end());
  skip.erase(std::unique(skip.begin(), skip.end()), skip.end());

  // A fixed seed: every run of the same space and shard probes the same units.
  constexpr std::uint64_t kSeed = 0x5eedf0cac57ULL;
  constexpr std::uint32_t kAttempts = 8;
  s.strata.emplace(units_total, strata_n);
  const UnitStrata& st = *s.strata;
  std::vector<std::uint64_t> probes;
  s.first_stratum.assign(s.first.size(), -1);
  const auto skipped = [&](std::uint64_t j) {
    return std::binary_search(skip.begin(), skip.end(), j);
  };
  for (std::uint64_t i = 0; i < strata_n; ++i) {
    for (std::uint32_t a = 0; a < kAttempts; ++a) {
      const auto j = st.candidate(i, a, kSeed, watermark);
      if (!j) break;
      if (skipped(*j)) continue;
      probes.push_back(*j);
      s.first.push_back(*j * n + k);
      s.first_stratum.push_back(static_cast<std::int64_t>(i));
      break;
    }
  }
  skip.insert(skip.end(), probes.begin(), probes.end());
  std::sort(skip.begin(), skip.end());

  s.stratum_todo.assign(strata_n, 0);
  for (std::uint64_t i = 0; i < strata_n; ++i) {
    const std::uint64_t lo = std::max(st.begin(i), watermark), hi = st.end(i);
    s.stratum_todo[i] = hi > lo ? hi - lo : 0;
  }
  for (std::uint64_t j : skip)
    if (j >= watermark) --s.stratum_todo[st.of(j)];
  s.probe_ns = std::make_unique<std::atomic<std::uint64_t>[]>(strata_n);
  s.stratum_done = std::make_unique<std::atomic<std::uint64_t>[]>(strata_n);
}

}  // namespace detail

}  // namespace stackscope::search
