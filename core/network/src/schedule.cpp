// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 1 (docs/model.md §5.3): collectives as algorithm steps of concurrent flows. Sources:
//  - ring all-reduce / reduce-scatter / all-gather: Patarasuk & Yuan, "Bandwidth optimal
//    all-reduce algorithms for clusters of workstations", JPDC 2009; with several channels per
//    ring when the group spans network units, as NCCL builds one ring per NIC/rail;
//  - recursive halving (reduce-scatter) and recursive doubling (all-gather), Rabenseifner's
//    all-reduce, binomial trees, pairwise all-to-all: Thakur, Rabenseifner & Gropp,
//    "Optimization of collective communication operations in MPICH", IJHPCA 2005;
//  - two_d: reduce-scatter along grid rows, all-reduce along columns, all-gather along rows
//    (Sanders, Speck & Träff 2009 two-tree/2D decompositions; the 2D-torus all-reduce of
//    Mikami et al. 2018 / TPU pods);
//  - hierarchical: the same three phases per network level, recursively (NCCL's tree/"2-level"
//    decomposition, Horovod hierarchical all-reduce);
//  - in_network: one switch-side reduction (NVLink SHARP / NVLS, InfiniBand SHARP).
#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "build.hpp"
#include "stackscope/common/units.hpp"

namespace stackscope::network {

std::string_view to_string(Collective c) {
  switch (c) {
    case Collective::all_reduce: return "all_reduce";
    case Collective::all_gather: return "all_gather";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::all_to_all: return "all_to_all";
    case Collective::broadcast: return "broadcast";
    case Collective::point_to_point: return "point_to_point";
  }
  return "?";
}

std::string_view to_string(Algorithm a) {
  switch (a) {
    case Algorithm::automatic: return "automatic";
    case Algorithm::ring: return "ring";
    case Algorithm::halving_doubling: return "halving_doubling";
    case Algorithm::tree: return "tree";
    case Algorithm::two_d: return "two_d";
    case Algorithm::hierarchical: return "hierarchical";
    case Algorithm::direct: return "direct";
    case Algorithm::pairwise: return "pairwise";
    case Algorithm::in_network: return "in_network";
  }
  return "?";
}

namespace {

bool power_of_two(std::size_t n) {
  return n >= 1 && std::has_single_bit(n);
}

// Largest divisor of n that is <= sqrt(n).
int small_divisor(int n) {
  int c = 1;
  for (int f = 1; static_cast<long long>(f) * f <= n; ++f)
    if (n % f == 0) c = f;
  return c;
}

}  // namespace

bool applicable(Algorithm algorithm, const CollectiveRequest& request) {
  const std::size_t n = request.ranks.size();
  if (algorithm == Algorithm::automatic) return true;
  switch (request.op) {
    case Collective::all_reduce:
      switch (algorithm) {
        case Algorithm::ring:
        case Algorithm::tree:
        case Algorithm::hierarchical:  // needs a group spanning network levels (topology)
        case Algorithm::in_network:    // needs a reducing switch (topology)
          return true;
        case Algorithm::halving_doubling: return power_of_two(n);
        case Algorithm::two_d: return n >= 4 && small_divisor(static_cast<int>(n)) >= 2;
        default: return false;
      }
    case Collective::all_gather:
    case Collective::reduce_scatter:
      return algorithm == Algorithm::ring || algorithm == Algorithm::direct ||
             (algorithm == Algorithm::halving_doubling && power_of_two(n));
    case Collective::all_to_all:
      return (algorithm == Algorithm::direct || algorithm == Algorithm::pairwise) &&
             (request.traffic.empty() || request.traffic.size() == n * n);
    case Collective::broadcast: return algorithm == Algorithm::tree || algorithm == Algorithm::ring;
    case Collective::point_to_point: return algorithm == Algorithm::direct && n == 2;
  }
  return false;
}

namespace detail {
namespace {

using Group = std::vector<int>;  // device ids

int outermost(const Topology& t, std::span<const int> ranks) {
  int level = -1;
  for (std::size_t i = 1; i < ranks.size(); ++i)
    level = std::max(level, t.level_between(ranks[0], ranks[i]));
  return level;
}

// Ranks grouped by their unit of `level`, in order of first appearance.
std::vector<Group> group_by_unit(const Topology& t, std::span<const int> ranks, int level) {
  std::vector<Group> groups;
  std::vector<int> unit_of_group;
  const int size = t.unit_size(level);
  for (int r : ranks) {
    const int u = r / size;
    auto it = std::find(unit_of_group.begin(), unit_of_group.end(), u);
    if (it == unit_of_group.end()) {
      unit_of_group.push_back(u);
      groups.push_back({r});
    } else {
      groups[static_cast<std::size_t>(it - unit_of_group.begin())].push_back(r);
    }
  }
  return groups;
}

bool equal_sizes(const std::vector<Group>& groups) {
  for (const auto& g : groups)
    if (g.size() != groups.front().size()) return false;
  return true;
}

// The groups of a group spanning network levels: its members per unit of the level below the
// outermost one crossed, if there are >= 2 such units holding the same number (>= 2) of ranks.
std::vector<Group> level_groups(const Topology& t, std::span<const int> ranks) {
  const int level = outermost(t, ranks);
  if (level < 1) return {};
  auto groups = group_by_unit(t, ranks, level - 1);
  if (groups.size() < 2 || groups.front().size() < 2 || !equal_sizes(groups)) return {};
  return groups;
}

// One step of a ring in which every rank sends `chunk` to its successor. A group spanning
// network units runs g rings (channels) side by side, g = ranks per unit: channel c visits
// each unit's members starting at position c, so it leaves every unit from position c-1 and
// the g channels cross between units on g different rails (NCCL's rings over DGX NICs). Each
// rank then sends (g-1)/g of its chunk inside its unit and 1/g to the next unit.
void ring_step(const Topology& t, std::span<const int> ranks, double chunk,
               std::vector<Flow>& out) {
  const std::size_t n = ranks.size();
  if (n < 2) return;
  const auto groups = level_groups(t, ranks);
  if (groups.empty()) {
    for (std::size_t i = 0; i < n; ++i) out.push_back({ranks[i], ranks[(i + 1) % n], chunk});
    return;
  }
  const std::size_t ng = groups.size();
  const std::size_t g = groups.front().size();
  const double dg = static_cast<double>(g);
  for (std::size_t gi = 0; gi < ng; ++gi) {
    for (std::size_t p = 0; p < g; ++p) {
      const int self = groups[gi][p];
      out.push_back({self, groups[gi][(p + 1) % g], chunk * (dg - 1.0) / dg});
      out.push_back({self, groups[(gi + 1) % ng][(p + 1) % g], chunk / dg});
    }
  }
}

// Closes the step holding the flows appended since `begin` (drops it if it has none).
void close_step(CompactSchedule& s, std::size_t begin, int repeat) {
  if (repeat < 1 || s.flows.size() == begin) {
    s.flows.resize(begin);
    return;
  }
  s.steps.push_back({static_cast<int>(begin), static_cast<int>(s.flows.size()), 0.0, repeat});
}

// Ring all-reduce: n-1 reduce-scatter steps then n-1 all-gather steps, each moving 1/n.
void ring_all_reduce(const Topology& t, std::span<const int> ranks, double frac,
                     CompactSchedule& s) {
  const int n = static_cast<int>(ranks.size());
  const std::size_t begin = s.flows.size();
  ring_step(t, ranks, frac / n, s.flows);
  close_step(s, begin, 2 * (n - 1));
}

// Recursive halving (reduce-scatter): distance n/2, n/4, ..., 1 exchanging 1/2, 1/4, ... 1/n.
void halving(std::span<const int> r, CompactSchedule& s) {
  const std::size_t n = r.size();
  double part = 0.5;
  for (std::size_t d = n / 2; d >= 1; d /= 2, part /= 2) {
    const std::size_t begin = s.flows.size();
    for (std::size_t i = 0; i < n; ++i) s.flows.push_back({r[i], r[i ^ d], part});
    close_step(s, begin, 1);
  }
}

// Recursive doubling (all-gather): distance 1, 2, ..., n/2 exchanging 1/n, 2/n, ..., 1/2.
void doubling(std::span<const int> r, CompactSchedule& s) {
  const std::size_t n = r.size();
  for (std::size_t d = 1; d < n; d *= 2) {
    const std::size_t begin = s.flows.size();
    const double part = static_cast<double>(d) / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i) s.flows.push_back({r[i], r[i ^ d], part});
    close_step(s, begin, 1);
  }
}

// Binomial tree rooted at r[0]: reduce (leaves first) and broadcast (root first) of the whole
// buffer, ceil(log2 n) steps each.
void binomial_reduce(std::span<const int> r, CompactSchedule& s) {
  const std::size_t n = r.size();
  for (std::size_t d = 1; d < n; d *= 2) {
    const std::size_t begin = s.flows.size();
    for (std::size_t i = d; i < n; i += 2 * d) s.flows.push_back({r[i], r[i - d], 1.0});
    close_step(s, begin, 1);
  }
}

void binomial_broadcast(std::span<const int> r, CompactSchedule& s) {
  const std::size_t n = r.size();
  std::size_t top = 1;
  while (top < n) top *= 2;
  for (std::size_t d = top / 2; d >= 1; d /= 2) {
    const std::size_t begin = s.flows.size();
    for (std::size_t i = 0; i + d < n; i += 2 * d) s.flows.push_back({r[i], r[i + d], 1.0});
    close_step(s, begin, 1);
  }
}

// Runs several equally shaped sub-schedules side by side (step k = union of their step k).
bool merge_parallel(const std::vector<CompactSchedule>& parts, CompactSchedule& out) {
  if (parts.empty()) return true;
  const auto& first = parts.front().steps;
  for (const auto& p : parts) {
    if (p.steps.size() != first.size()) return false;
    for (std::size_t k = 0; k < first.size(); ++k)
      if (p.steps[k].repeat != first[k].repeat) return false;
  }
  for (std::size_t k = 0; k < first.size(); ++k) {
    const std::size_t begin = out.flows.size();
    for (const auto& p : parts) {
      const auto f = p.flows_of(p.steps[k]);
      out.flows.insert(out.flows.end(), f.begin(), f.end());
    }
    close_step(out, begin, first[k].repeat);
  }
  return true;
}

// Rows-then-columns all-reduce: reduce-scatter along rows, all-reduce of the row shard along
// columns, all-gather along rows. Moves 2(n-1)/n of the buffer per rank like a flat ring, in
// 2(R-1) + 2(C-1) steps instead of 2(n-1).
void grid_all_reduce(const Topology& t, const std::vector<Group>& rows, double frac,
                     CompactSchedule& s) {
  const std::size_t len = rows.front().size();
  const std::size_t n_rows = rows.size();
  std::size_t begin = s.flows.size();
  for (const auto& row : rows) ring_step(t, row, frac / static_cast<double>(len), s.flows);
  close_step(s, begin, static_cast<int>(len) - 1);
  const CompactStep along = s.steps.back();
  begin = s.flows.size();
  Group col(n_rows);
  for (std::size_t j = 0; j < len; ++j) {
    for (std::size_t i = 0; i < n_rows; ++i) col[i] = rows[i][j];
    ring_step(t, col, frac / static_cast<double>(len * n_rows), s.flows);
  }
  close_step(s, begin, 2 * (static_cast<int>(n_rows) - 1));
  s.steps.push_back(along);  // the all-gather moves the same flows as the reduce-scatter
}

bool two_d(const Topology& t, std::span<const int> ranks, CompactSchedule& s) {
  const int n = static_cast<int>(ranks.size());
  auto rows = level_groups(t, ranks);
  if (rows.empty()) {
    int len = n / small_divisor(n);
    const int level = outermost(t, ranks);
    if (level >= 0) {
      const auto& l = t.system().levels[static_cast<std::size_t>(level)];
      const bool grid = l.topology == hw::Topology::mesh2d || l.topology == hw::Topology::torus2d;
      // A whole mesh/torus: rows are its X lines (when it has >= 2 of them).
      if (grid && level == 0 && n == t.unit_size(0)) {
        int dx = l.dims_x;
        if (dx <= 0) {
          const int dy = small_divisor(n);
          dx = n / dy;
        }
        if (dx >= 2 && n / dx >= 2) len = dx;
      }
    }
    if (len >= n || len < 2) return false;
    for (int i = 0; i < n; i += len) rows.emplace_back(ranks.begin() + i, ranks.begin() + i + len);
  }
  grid_all_reduce(t, rows, 1.0, s);
  return true;
}

// Hierarchical all-reduce of `frac` of the buffer: reduce-scatter inside each unit of the level
// below the outermost one crossed, all-reduce (recursively) among the ranks with the same
// position in their unit, all-gather inside the units.
bool hierarchical(const Topology& t, std::span<const int> ranks, double frac, CompactSchedule& s) {
  const int level = outermost(t, ranks);
  if (level < 1) {
    ring_all_reduce(t, ranks, frac, s);
    return true;
  }
  const auto groups = group_by_unit(t, ranks, level - 1);
  if (!equal_sizes(groups)) return false;
  const std::size_t g = groups.front().size();
  if (g == 1) {
    ring_all_reduce(t, ranks, frac, s);
    return true;
  }
  const double shard = frac / static_cast<double>(g);
  const std::size_t begin = s.flows.size();
  for (const auto& grp : groups) ring_step(t, grp, shard, s.flows);
  close_step(s, begin, static_cast<int>(g) - 1);
  const CompactStep inner = s.steps.back();
  std::vector<CompactSchedule> parts(g);
  Group across(groups.size());
  for (std::size_t j = 0; j < g; ++j) {
    for (std::size_t i = 0; i < groups.size(); ++i) across[i] = groups[i][j];
    if (!hierarchical(t, across, shard, parts[j])) return false;
  }
  if (!merge_parallel(parts, s)) return false;
  s.steps.push_back(inner);
  return true;
}

// Pipelined chain broadcast from r[0]: the message in n-1 chunks flows down the chain
// r[0] -> r[1] -> ... ; link k carries chunk c at step k + c (2n-3 steps).
void chain_broadcast(std::span<const int> r, CompactSchedule& s) {
  const int n = static_cast<int>(r.size());
  const int chunks = n - 1;
  for (int step = 0; step < (n - 1) + chunks - 1; ++step) {
    const std::size_t begin = s.flows.size();
    for (int k = 0; k < n - 1; ++k)
      if (step - k >= 0 && step - k < chunks) s.flows.push_back({r[k], r[k + 1], 1.0 / chunks});
    close_step(s, begin, 1);
  }
}

double pair_share(std::span<const double> traffic, std::size_t n, std::size_t i, std::size_t j) {
  return traffic.empty() ? 1.0 / static_cast<double>(n) : traffic[i * n + j];
}

}  // namespace

std::span<const Algorithm> candidates(Collective op) {
  static constexpr Algorithm kAllReduce[] = {Algorithm::ring,         Algorithm::halving_doubling,
                                             Algorithm::tree,         Algorithm::two_d,
                                             Algorithm::hierarchical, Algorithm::in_network};
  static constexpr Algorithm kGather[] = {Algorithm::ring, Algorithm::halving_doubling,
                                          Algorithm::direct};
  // Pairwise exchange carries the same flows as direct split over n-1 steps, so under the
  // analytic step formula it is never faster (a sum of per-step maxima >= the maximum of the
  // sums, plus more alphas): automatic does not cost it. It stays available by name.
  static constexpr Algorithm kAllToAll[] = {Algorithm::direct};
  static constexpr Algorithm kBroadcast[] = {Algorithm::tree, Algorithm::ring};
  static constexpr Algorithm kP2p[] = {Algorithm::direct};
  switch (op) {
    case Collective::all_reduce: return kAllReduce;
    case Collective::all_gather:
    case Collective::reduce_scatter: return kGather;
    case Collective::all_to_all: return kAllToAll;
    case Collective::broadcast: return kBroadcast;
    case Collective::point_to_point: return kP2p;
  }
  return {};
}

int in_network_level(const Topology& t, std::span<const int> ranks) {
  if (ranks.size() < 2) return -1;
  const int level = outermost(t, ranks);
  if (level < 0) return -1;
  const auto& l = t.system().levels[static_cast<std::size_t>(level)];
  if (l.topology != hw::Topology::switch_fabric || !l.in_network_reduction) return -1;
  const int below = t.unit_size(level - 1);
  const int rail = ranks[0] % below;
  std::vector<int> units;
  units.reserve(ranks.size());
  for (int r : ranks) {
    if (r % below != rail) return -1;
    units.push_back(r / below);
  }
  std::sort(units.begin(), units.end());
  return std::adjacent_find(units.begin(), units.end()) == units.end() ? level : -1;
}

void build(const Topology& t, Collective op, std::span<const int> ranks,
           std::span<const double> traffic, Algorithm algorithm, CompactSchedule& s) {
  s.clear();
  s.algorithm = algorithm;
  for (int r : ranks)
    if (r < 0 || r >= t.devices())
      throw std::invalid_argument("network: rank on device " + std::to_string(r) +
                                  " outside the system's " + std::to_string(t.devices()) +
                                  " devices");
  CollectiveRequest req;
  req.op = op;
  req.ranks = ranks;
  req.traffic = traffic;
  if (algorithm == Algorithm::automatic || !applicable(algorithm, req)) return;
  const std::size_t n = ranks.size();
  s.ok = true;
  if (n < 2) return;
  switch (op) {
    case Collective::all_reduce:
      switch (algorithm) {
        case Algorithm::ring: ring_all_reduce(t, ranks, 1.0, s); break;
        case Algorithm::halving_doubling:
          halving(ranks, s);
          doubling(ranks, s);
          break;
        case Algorithm::tree:
          binomial_reduce(ranks, s);
          binomial_broadcast(ranks, s);
          break;
        case Algorithm::two_d: s.ok = two_d(t, ranks, s); break;
        case Algorithm::hierarchical:
          s.ok = outermost(t, ranks) >= 1 && hierarchical(t, ranks, 1.0, s);
          break;
        case Algorithm::in_network:
          s.in_network_level = in_network_level(t, ranks);
          s.ok = s.in_network_level >= 0;
          if (s.ok) {
            // Reduce into the switch, then multicast the result back: no device-to-device
            // flows, two steps of the level's alpha.
            const double alpha = level_alpha(t, s.in_network_level);
            s.steps.push_back({0, 0, alpha, 1});
            s.steps.push_back({0, 0, alpha, 1});
          }
          return;
        default: s.ok = false; break;
      }
      break;
    case Collective::all_gather:
    case Collective::reduce_scatter:
      if (algorithm == Algorithm::ring) {
        ring_step(t, ranks, 1.0 / static_cast<double>(n), s.flows);
        close_step(s, 0, static_cast<int>(n) - 1);
      } else if (algorithm == Algorithm::halving_doubling) {
        if (op == Collective::all_gather)
          doubling(ranks, s);
        else
          halving(ranks, s);
      } else {
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t j = 0; j < n; ++j)
            if (i != j) s.flows.push_back({ranks[i], ranks[j], 1.0 / static_cast<double>(n)});
        close_step(s, 0, 1);
      }
      break;
    case Collective::all_to_all:
      if (algorithm == Algorithm::direct) {
        s.flows.reserve(n * (n - 1));
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t j = 0; j < n; ++j) {
            const double share = pair_share(traffic, n, i, j);
            if (i != j && share > 0) s.flows.push_back({ranks[i], ranks[j], share});
          }
        close_step(s, 0, 1);
      } else {
        for (std::size_t k = 1; k < n; ++k) {
          const std::size_t begin = s.flows.size();
          for (std::size_t i = 0; i < n; ++i) {
            const std::size_t j = (i + k) % n;
            const double share = pair_share(traffic, n, i, j);
            if (share > 0) s.flows.push_back({ranks[i], ranks[j], share});
          }
          close_step(s, begin, 1);
        }
      }
      break;
    case Collective::broadcast:
      if (algorithm == Algorithm::tree)
        binomial_broadcast(ranks, s);
      else
        chain_broadcast(ranks, s);
      break;
    case Collective::point_to_point:
      if (ranks[0] != ranks[1]) {
        s.flows.push_back({ranks[0], ranks[1], 1.0});
        close_step(s, 0, 1);
      }
      break;
  }
  if (!s.ok) {
    s.steps.clear();
    s.flows.clear();
  }
}

CompactSchedule build(const Topology& t, Collective op, std::span<const int> ranks,
                      std::span<const double> traffic, Algorithm algorithm) {
  CompactSchedule s;
  build(t, op, ranks, traffic, algorithm, s);
  return s;
}

double level_alpha(const Topology& t, int level) {
  return level < 0 ? 0.0
                   : t.system().levels[static_cast<std::size_t>(level)].latency_us * units::kMicro;
}

Schedule expand(const Topology& t, const CompactSchedule& compact, Collective op, double bytes) {
  Schedule s;
  s.op = op;
  s.algorithm = compact.algorithm;
  for (const auto& st : compact.steps) {
    Step step;
    step.alpha_s = st.alpha_s;
    const auto flows = compact.flows_of(st);
    if (!flows.empty()) {
      int level = -1;
      for (const auto& f : flows) level = std::max(level, t.level_between(f.src, f.dst));
      step.alpha_s = level_alpha(t, level);
    }
    step.flows.assign(flows.begin(), flows.end());
    for (auto& f : step.flows) f.bytes *= bytes;
    for (int r = 0; r < st.repeat; ++r) s.steps.push_back(step);
  }
  return s;
}

}  // namespace detail
}  // namespace stackscope::network
