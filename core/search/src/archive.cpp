// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/search/archive.hpp"

#include <algorithm>
#include <cmath>

namespace stackscope::search {

Archive::Archive(std::span<const Objective> objectives) {
  n_ = std::min(objectives.size(), kMaxObjectives);
  for (std::size_t i = 0; i < n_; ++i) {
    objectives_[i] = objectives[i];
    sign_[i] = objectives[i].direction == Direction::maximize ? 1.0 : -1.0;
  }
}

bool Archive::insert(const PointRecord& p) {
  if (!p.feasible || static_cast<std::size_t>(p.n_objectives) != n_) return false;
  for (std::size_t i = 0; i < n_; ++i)
    if (!std::isfinite(p.objectives[i])) return false;
  // -1: q beats p (dominates, or ties with a lower or equal id); +1: p beats q; 0: neither.
  auto compare = [&](const PointRecord& q) {
    bool p_better = false, q_better = false;
    for (std::size_t i = 0; i < n_; ++i) {
      const double a = sign_[i] * p.objectives[i];
      const double b = sign_[i] * q.objectives[i];
      if (a > b)
        p_better = true;
      else if (b > a)
        q_better = true;
    }
    if (p_better == q_better) return p_better ? 0 : (q.id <= p.id ? -1 : 1);
    return p_better ? 1 : -1;
  };
  for (const PointRecord& q : points_)
    if (compare(q) < 0) return false;
  std::erase_if(points_, [&](const PointRecord& q) { return compare(q) > 0; });
  points_.push_back(p);
  return true;
}

bool Archive::dominates(std::span<const double> v) const {
  if (v.size() != n_) return false;
  for (const PointRecord& q : points_) {
    bool all = true, strict = false;
    for (std::size_t i = 0; i < n_; ++i) {
      const double a = sign_[i] * q.objectives[i];
      const double b = sign_[i] * v[i];
      if (a < b) {
        all = false;
        break;
      }
      if (a > b) strict = true;
    }
    if (all && strict) return true;
  }
  return false;
}

void Archive::merge(const Archive& other) {
  for (const PointRecord& p : other.points_) insert(p);
}

std::vector<PointRecord> Archive::sorted() const {
  std::vector<PointRecord> v = points_;
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  return v;
}

}  // namespace stackscope::search
