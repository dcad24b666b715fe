// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/search/visit_order.hpp"

#include <algorithm>
#include <limits>
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

VisitOrder::VisitOrder(const UnitStrata& strata, std::uint64_t seed) : strata_(strata) {
  const std::uint64_t n = strata.count();
  if (n > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("VisitOrder: at most 2^32 - 1 strata (got " + std::to_string(n) +
                                ")");
  stratum_at_.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) stratum_at_[i] = static_cast<std::uint32_t>(i);
  // Fisher-Yates (D. E. Knuth, TAOCP vol. 2, 3rd ed., §3.4.2, Algorithm P). The modulo's bias
  // is below n / 2^64: immaterial for an order that only needs to mix regions.
  std::uint64_t state = detail::splitmix(seed);
  for (std::uint64_t i = n; i > 1; --i) {
    state = detail::splitmix(state);
    std::swap(stratum_at_[i - 1], stratum_at_[state % i]);
  }
  rank_of_.resize(n);
  start_.resize(n + 1);
  std::uint64_t pos = 0;
  for (std::uint64_t r = 0; r < n; ++r) {
    rank_of_[stratum_at_[r]] = static_cast<std::uint32_t>(r);
    start_[r] = pos;
    pos += strata.end(stratum_at_[r]) - strata.begin(stratum_at_[r]);
  }
  start_[n] = pos;
}

std::uint64_t VisitOrder::unit_at(std::uint64_t position) const {
  if (position >= units())
    throw std::invalid_argument("VisitOrder: position " + std::to_string(position) +
                                " is outside [0, " + std::to_string(units()) + ")");
  const auto r = static_cast<std::size_t>(
      std::upper_bound(start_.begin(), start_.end(), position) - start_.begin() - 1);
  return strata_.begin(stratum_at_[r]) + (position - start_[r]);
}

std::uint64_t VisitOrder::position_of(std::uint64_t unit) const {
  const std::uint64_t s = strata_.of(unit);  // throws outside [0, units())
  return start_[rank_of_[s]] + (unit - strata_.begin(s));
}

std::optional<VisitOrder> visit_order(std::uint64_t units) {
  const std::uint64_t n = std::min(kVisitStrata, units / kUnitsPerStratum);
  if (n < 2) return std::nullopt;
  return VisitOrder(UnitStrata(units, n), kVisitSeed);
}

}  // namespace stackscope::search
