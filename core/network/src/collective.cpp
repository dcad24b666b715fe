// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/network/collective.hpp"

#include <algorithm>
#include <cmath>

#include "stackscope/common/units.hpp"

namespace stackscope::network {
namespace {

// Per-device bandwidth actually usable for a collective at a level (B/s).
double level_bw(const hw::NetworkLevel& l) { return l.link_GBps * units::kGiga * l.efficiency; }

// Share of the per-device injection bandwidth uniform all-to-all traffic gets on a topology,
// from its bisection (n ranks): ring 16/n (4 directed links cut, n^2/4 crossing pairs),
// 2D mesh 8/sqrt(n), 2D torus 16/sqrt(n); switch and fully connected are non-blocking.
double all_to_all_share(hw::Topology t, int n) {
  const double dn = n;
  switch (t) {
    case hw::Topology::ring: return std::min(1.0, 16.0 / dn);
    case hw::Topology::mesh2d: return std::min(1.0, 8.0 / std::sqrt(dn));
    case hw::Topology::torus2d: return std::min(1.0, 16.0 / std::sqrt(dn));
    case hw::Topology::switch_fabric:
    case hw::Topology::fully_connected: return 1.0;
  }
  return 1.0;
}

// Latency of one algorithm step at a level (alpha).
double step_alpha(const hw::NetworkLevel& l) { return l.latency_us * units::kMicro; }

// Ring (or, with in-switch reduction, single-pass) all-reduce of `bytes` over n ranks at one
// level: 2(n-1) steps moving 2(n-1)/n of the data (Patarasuk & Yuan 2009).
double all_reduce_flat(const hw::NetworkLevel& l, double bytes, int n, double* sent) {
  if (n <= 1) return 0.0;
  const double dn = n;
  if (l.in_network_reduction && l.topology == hw::Topology::switch_fabric) {
    // Switch reduction (NVLS): every rank sends its buffer once and receives the result once.
    *sent += bytes;
    return 2.0 * step_alpha(l) + bytes / level_bw(l);
  }
  const double moved = 2.0 * (dn - 1.0) / dn * bytes;
  *sent += moved;
  return 2.0 * (dn - 1.0) * step_alpha(l) + moved / level_bw(l);
}

// Ring all-gather / reduce-scatter: n-1 steps moving (n-1)/n of the buffer.
double gather_flat(const hw::NetworkLevel& l, double bytes, int n, double* sent) {
  if (n <= 1) return 0.0;
  const double dn = n;
  const double moved = (dn - 1.0) / dn * bytes;
  *sent += moved;
  return (dn - 1.0) * step_alpha(l) + moved / level_bw(l);
}

}  // namespace

CollectiveCost collective(const hw::System& sys, Collective op, double bytes, int group,
                          int stride) noexcept {
  CollectiveCost c;
  if (group <= 1 || bytes <= 0 || sys.levels.empty()) return c;
  stride = std::max(1, stride);

  // Lay the group over the levels. Members sit `stride` devices apart; one unit of level i
  // spans U_i = size_0 x ... x size_i devices and holds m_i = clamp(U_i / stride, 1, n) of
  // them; per_level[i] = m_i / m_(i-1) units of the level below join at level i.
  constexpr int kMaxLevels = 8;
  const int n_levels = std::min(static_cast<int>(sys.levels.size()), kMaxLevels);
  int per_level[kMaxLevels] = {1, 1, 1, 1, 1, 1, 1, 1};
  int members[kMaxLevels] = {1, 1, 1, 1, 1, 1, 1, 1};
  double unit = 1.0;
  int m_prev = 1;
  for (int i = 0; i < n_levels; ++i) {
    const auto& l = sys.levels[i];
    const bool outermost = (i == n_levels - 1) || l.size <= 0;
    int m = group;
    if (!outermost) {
      unit *= l.size;
      m = static_cast<int>(std::clamp(std::floor(unit / stride), 1.0, static_cast<double>(group)));
    }
    per_level[i] = std::max(1, m / m_prev);
    members[i] = m;
    if (per_level[i] > 1) c.outermost_level = i;
    m_prev = m;
    if (m >= group) break;
  }

  double time = 0.0, sent = 0.0, energy = 0.0;
  auto charge = [&](const hw::NetworkLevel& l, double t, double s) {
    time += t;
    sent += s;
    energy += s * l.energy_pJ_per_bit * units::kPico * units::kBitsPerByte;
  };

  switch (op) {
    case Collective::all_reduce: {
      // Hierarchical: reduce-scatter at each inner level, all-reduce of the remaining shard at
      // the outermost spanned level, all-gather back (2D all-reduce; Sanders et al. 2009).
      double shard = bytes;
      const int top = c.outermost_level;
      for (int i = 0; i < top; ++i) {
        if (per_level[i] <= 1) continue;
        double s = 0;
        const double t = gather_flat(sys.levels[i], shard, per_level[i], &s);
        charge(sys.levels[i], 2.0 * t, 2.0 * s);  // reduce-scatter + all-gather
        shard /= per_level[i];
      }
      double s = 0;
      const double t = all_reduce_flat(sys.levels[top], shard, per_level[top], &s);
      charge(sys.levels[top], t, s);
      break;
    }
    case Collective::all_gather:
    case Collective::reduce_scatter: {
      // Outer levels first on 1/inner of the buffer, then the inner levels (or the reverse);
      // the time is the same sum.
      double shard = bytes;
      for (int i = 0; i < n_levels; ++i) {
        if (per_level[i] <= 1) continue;
        double s = 0;
        const double t = gather_flat(sys.levels[i], shard, per_level[i], &s);
        charge(sys.levels[i], t, s);
        shard /= per_level[i];
      }
      break;
    }
    case Collective::all_to_all: {
      // Data for members outside a level-(i-1) unit but inside the level-i unit crosses level
      // i: (m_i - m_(i-1)) / n of the buffer. Levels use distinct links and run concurrently.
      double t_max = 0.0;
      int inner = 1;
      for (int i = 0; i < n_levels; ++i) {
        if (per_level[i] <= 1) { inner = members[i]; continue; }
        const auto& l = sys.levels[i];
        const double share = bytes * (members[i] - inner) / group;
        const double t = step_alpha(l) + share / (level_bw(l) * all_to_all_share(l.topology, per_level[i]));
        sent += share;
        energy += share * l.energy_pJ_per_bit * units::kPico * units::kBitsPerByte;
        t_max = std::max(t_max, t);
        inner = members[i];
      }
      time = t_max;
      break;
    }
    case Collective::point_to_point: {
      const auto& l = sys.levels[std::max(0, c.outermost_level)];
      charge(l, step_alpha(l) + bytes / level_bw(l), bytes);
      break;
    }
  }
  c.time_s = time;
  c.bytes_per_device = sent;
  c.energy_J = energy;
  return c;
}

}  // namespace stackscope::network
