// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 2, analytic. A step's flows start together after the step's alpha; flow f reaches its
// destination's side of the network after its path latency lat_f (hops x hop latency) and a
// link drains its bytes once its first flow has arrived, at line rate (work-conserving,
// cut-through). So a step ends at
//   alpha + max( max_f lat_f,  max_l (min_{f on l} lat_f + bytes_l / bw_l) ),
// which is the bottleneck-link term of docs/model.md §5.4 with the links' latency overlapped with
// other links' transfers; it never exceeds alpha + max lat + max bytes/bw, and agrees with the
// flow simulator (flow_sim.hpp) to a fraction of a percent on average.
//
// Every line (min latency, bytes_l / bw_l per byte of S) scales with the message size S, so a
// step is a convex piecewise-linear function of S and so is a schedule: an (op, algorithm,
// group, traffic) shape is routed once and kept as its pieces plus its per-link bytes per byte
// of S; later calls with any size are a hash lookup and a short search.
#include "stackscope/network/model.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <utility>

#include "build.hpp"
#include "stackscope/common/units.hpp"

namespace stackscope::network {

double bus_bandwidth_factor(Collective op, int n) {
  if (n < 2) return op == Collective::broadcast || op == Collective::point_to_point ? 1.0 : 0.0;
  const double dn = n;
  switch (op) {
    case Collective::all_reduce: return 2.0 * (dn - 1.0) / dn;
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all: return (dn - 1.0) / dn;
    case Collective::broadcast:
    case Collective::point_to_point: return 1.0;
  }
  return 1.0;
}

namespace {

// One algorithm on one group, per byte of the request.
// time(S) = latency_s + S x s_per_byte below the first knee; from knee k on (S >= knee.from)
// it is knee.latency_s + S x knee.s_per_byte (a convex piecewise-linear function).
struct Knee {
  double from = 0;
  double latency_s = 0;
  double s_per_byte = 0;
};

struct Costed {
  bool ok = false;
  Algorithm algorithm = Algorithm::ring;
  double latency_s = 0;
  double s_per_byte = 0;
  std::vector<Knee> knees;
  double injected_per_byte = 0;  // all ranks together
  double energy_per_byte = 0;    // all links together (J per byte of S)
  int steps = 0;
  int outermost = -1;
  std::vector<std::pair<int, double>> link_bytes;  // (link, bytes per byte of S), sparse

  double time(double S) const {
    if (knees.empty() || S < knees.front().from) return latency_s + S * s_per_byte;
    const auto it = std::upper_bound(knees.begin(), knees.end(), S,
                                     [](double x, const Knee& k) { return x < k.from; });
    const Knee& k = *(it - 1);
    return k.latency_s + S * k.s_per_byte;
  }
};

// Per-costing scratch: dense per-link accumulators and the route buffer. (Routes are not
// cached: on a VM a cache of every pair's route costs more in page faults than re-routing.)
struct Line {
  double a = 0;  // intercept (s)
  double b = 0;  // slope (s per byte of S)
};

struct Scratch {
  std::vector<double> step_bytes;
  std::vector<double> step_first;  // per link: earliest arrival of a flow in this step
  std::vector<int> step_touched;
  std::vector<Line> lines;
  std::vector<Line> hull;
  std::vector<std::pair<double, Line>> deltas;  // (S, change of intercept and slope)
  std::vector<double> total_bytes;
  std::vector<int> total_touched;
  std::vector<int> route;
};

struct Routed {
  std::span<const int> links;
  double latency_s = 0;
  int level = -1;  // outermost level crossed
};

// The links, path latency and outermost level of a -> b (valid until the next call).
Routed routed(const Topology& t, Scratch& s, int a, int b) {
  const auto& links = t.links();
  s.route.clear();
  t.route(a, b, s.route);
  Routed r{std::span<const int>(s.route), 0.0, -1};
  for (int id : s.route) {
    r.latency_s += links[static_cast<std::size_t>(id)].latency_s;
    r.level = std::max(r.level, links[static_cast<std::size_t>(id)].level);
  }
  return r;
}

// Upper envelope over S >= 0 of `lines` (reordered): hull[0] wins at S = 0, each next line
// takes over at the returned breakpoints (ascending).
void upper_envelope(std::vector<Line>& lines, std::vector<Line>& hull,
                    std::vector<double>& breaks) {
  hull.clear();
  breaks.clear();
  // Steepest first; for equal slopes only the highest matters.
  std::sort(lines.begin(), lines.end(),
            [](const Line& x, const Line& y) { return x.b != y.b ? x.b > y.b : x.a > y.a; });
  Line cur = lines.front();
  for (const Line& l : lines)
    if (l.a > cur.a || (l.a == cur.a && l.b > cur.b)) cur = l;
  hull.push_back(cur);
  for (;;) {
    // The line with a larger slope that overtakes `cur` first (ties: the steepest).
    double best_x = std::numeric_limits<double>::infinity();
    const Line* next = nullptr;
    for (const Line& l : lines) {
      if (l.b <= cur.b) break;  // sorted by slope, steepest first
      const double x = (cur.a - l.a) / (l.b - cur.b);
      if (x < best_x) {
        best_x = x;
        next = &l;
      }
    }
    if (next == nullptr) return;
    breaks.push_back(std::max(best_x, 0.0));
    cur = *next;
    hull.push_back(cur);
  }
}

Costed cost_compact(const Topology& t, const detail::CompactSchedule& c, std::span<const int> ranks,
                    Scratch& s) {
  Costed out;
  out.ok = c.ok;
  out.algorithm = c.algorithm;
  if (!c.ok) return out;
  const auto& links = t.links();
  const std::size_t n_links = links.size();
  s.step_bytes.assign(n_links, 0.0);
  s.total_bytes.assign(n_links, 0.0);
  s.step_touched.clear();
  s.total_touched.clear();
  auto add_total = [&](int id, double bytes) {
    auto& slot = s.total_bytes[static_cast<std::size_t>(id)];
    if (slot == 0.0) s.total_touched.push_back(id);
    slot += bytes;
  };

  if (c.in_network_level >= 0) {
    // Switch reduction (NVLS-like): every rank sends its buffer up to the switch and receives
    // the result down, pipelined, at the switch's achieved reduction rate (the fraction of the
    // port line rate nccl-tests measures for NVLS); two steps, one hop each.
    const auto& l = t.system().levels[static_cast<std::size_t>(c.in_network_level)];
    double hop = 0;
    for (int r : ranks) {
      const Routed up = routed(t, s, r, r == ranks[0] ? ranks[1] : ranks[0]);
      hop = std::max(hop, up.latency_s);
      add_total(up.links.front(), 1.0);  // device -> switch
    }
    for (int r : ranks) {
      const Routed down = routed(t, s, r == ranks[0] ? ranks[1] : ranks[0], r);
      add_total(down.links.back(), 1.0);  // switch -> device
    }
    for (const auto& st : c.steps) out.latency_s += st.alpha_s;
    out.latency_s += hop;  // one hop up, one hop down
    out.s_per_byte = 1.0 / (l.link_GBps * units::kGiga * l.in_network_efficiency);
    out.injected_per_byte = static_cast<double>(ranks.size());
    out.steps = static_cast<int>(c.steps.size());
    out.outermost = c.in_network_level;
  } else {
    s.step_first.assign(n_links, std::numeric_limits<double>::infinity());
    s.deltas.clear();
    std::vector<double> breaks;
    for (const auto& st : c.steps) {
      double max_lat = 0;
      int step_level = -1;
      for (const auto& f : c.flows_of(st)) {
        const Routed r = routed(t, s, f.src, f.dst);
        max_lat = std::max(max_lat, r.latency_s);
        for (int id : r.links) {
          const auto k = static_cast<std::size_t>(id);
          if (s.step_bytes[k] == 0.0) s.step_touched.push_back(id);
          s.step_bytes[k] += f.bytes;
          s.step_first[k] = std::min(s.step_first[k], r.latency_s);
        }
        out.injected_per_byte += f.bytes * st.repeat;
        step_level = std::max(step_level, r.level);
      }
      out.outermost = std::max(out.outermost, step_level);
      // Lines of this step: every link (first arrival, drain time per byte of S) and the
      // longest path alone. Links with the same first arrival collapse to their slowest.
      s.lines.clear();
      s.lines.push_back({max_lat, 0.0});
      for (int id : s.step_touched) {
        const auto k = static_cast<std::size_t>(id);
        s.lines.push_back({s.step_first[k], s.step_bytes[k] / links[k].bw_Bps});
        add_total(id, s.step_bytes[k] * st.repeat);
        s.step_bytes[k] = 0.0;
        s.step_first[k] = std::numeric_limits<double>::infinity();
      }
      s.step_touched.clear();
      upper_envelope(s.lines, s.hull, breaks);
      const double r = st.repeat;
      out.latency_s += (detail::level_alpha(t, step_level) + s.hull[0].a) * r;
      out.s_per_byte += s.hull[0].b * r;
      for (std::size_t k = 0; k < breaks.size(); ++k) {
        const Line& from = s.hull[k];
        const Line& to = s.hull[k + 1];
        s.deltas.push_back({breaks[k], {(to.a - from.a) * r, (to.b - from.b) * r}});
      }
      out.steps += st.repeat;
    }
    // Sum of the steps' convex pieces: one knee per distinct breakpoint.
    std::sort(s.deltas.begin(), s.deltas.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    double a = out.latency_s, b = out.s_per_byte;
    for (const auto& [x, d] : s.deltas) {
      a += d.a;
      b += d.b;
      if (x <= 0.0) {
        out.latency_s = a;
        out.s_per_byte = b;
      } else if (!out.knees.empty() && out.knees.back().from == x) {
        out.knees.back().latency_s = a;
        out.knees.back().s_per_byte = b;
      } else {
        out.knees.push_back({x, a, b});
      }
    }
  }
  std::sort(s.total_touched.begin(), s.total_touched.end());
  out.link_bytes.reserve(s.total_touched.size());
  for (int id : s.total_touched) {
    const double b = s.total_bytes[static_cast<std::size_t>(id)];
    out.link_bytes.emplace_back(id, b);
    out.energy_per_byte += b * links[static_cast<std::size_t>(id)].energy_J_per_byte;
  }
  return out;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  // splitmix64 finaliser over a running combination.
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

std::uint64_t traffic_hash(std::span<const double> traffic) {
  // Four multiply-xor lanes over the bit patterns, finished with the splitmix mixer; the
  // matrix (n^2 values) is identified by this hash alone.
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  std::uint64_t lane[4] = {traffic.size(), 0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL,
                           0x94d049bb133111ebULL};
  std::size_t i = 0;
  auto bits = [](double v) {
    const auto b = std::bit_cast<std::uint64_t>(v);
    return b ^ (b >> 29);  // multiplication only carries upwards: fold the exponent down
  };
  for (; i + 4 <= traffic.size(); i += 4)
    for (std::size_t k = 0; k < 4; ++k) lane[k] = (lane[k] ^ bits(traffic[i + k])) * kPrime;
  for (; i < traffic.size(); ++i) lane[0] = (lane[0] ^ bits(traffic[i])) * kPrime;
  return mix(mix(mix(lane[0], lane[1]), lane[2]), lane[3]);
}

// Four independent multiply-xor lanes (the lookup of a 256-rank group stays well under 1 us);
// the ranks are compared exactly on a hit, so this only has to spread them.
std::uint64_t ranks_hash(std::span<const int> ranks) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  std::uint64_t lane[4] = {ranks.size(), 1, 2, 3};
  std::size_t i = 0;
  for (; i + 4 <= ranks.size(); i += 4)
    for (std::size_t k = 0; k < 4; ++k)
      lane[k] = (lane[k] ^ static_cast<std::uint32_t>(ranks[i + k])) * kPrime;
  for (; i < ranks.size(); ++i) lane[0] = (lane[0] ^ static_cast<std::uint32_t>(ranks[i])) * kPrime;
  return mix(mix(mix(lane[0], lane[1]), lane[2]), lane[3]);
}

CollectiveCost trivial(const CollectiveRequest& r) {
  CollectiveCost c;
  c.algorithm =
      r.algorithm == Algorithm::automatic ? detail::candidates(r.op).front() : r.algorithm;
  return c;
}

bool is_trivial(const CollectiveRequest& r) {
  const std::size_t n = r.ranks.size();
  if (n < 2 || !(r.bytes > 0)) return true;
  if (r.op == Collective::point_to_point) return n != 2 || r.ranks[0] == r.ranks[1];
  return false;
}

}  // namespace

struct NetworkModel::Impl {
  Topology topology;
  Scratch scratch;
  detail::CompactSchedule work;  // stage-1 buffer reused by every build

  // Memo: one entry per (op, algorithm, ranks, traffic). Entries of an explicit algorithm own
  // a Costed; Algorithm::automatic entries list the Costed of every applicable candidate.
  struct Entry {
    std::uint64_t hash = 0;
    Collective op = Collective::all_reduce;
    Algorithm algorithm = Algorithm::ring;
    std::vector<int> ranks;
    std::uint64_t traffic = 0;
    int next = -1;  // next entry with the same hash bucket
    int costed = -1;
    int alts[8] = {};
    int n_alts = 0;
  };
  std::vector<Entry> entries;
  std::vector<Costed> costed;
  std::unordered_map<std::uint64_t, int> heads;

  explicit Impl(const hw::System& system) : topology(system) {}

  int find_or_add(Collective op, Algorithm alg, std::span<const int> ranks,
                  std::span<const double> traffic, std::uint64_t th) {
    std::uint64_t h = mix(mix(static_cast<std::uint64_t>(op), static_cast<std::uint64_t>(alg)), th);
    h = mix(h, ranks_hash(ranks));
    auto head = heads.find(h);
    if (head != heads.end()) {
      for (int i = head->second; i >= 0; i = entries[static_cast<std::size_t>(i)].next) {
        const auto& e = entries[static_cast<std::size_t>(i)];
        // The traffic matrix is compared by its 64-bit hash (n^2 values; a collision is
        // astronomically unlikely), the ranks exactly.
        if (e.op == op && e.algorithm == alg && e.traffic == th &&
            std::equal(e.ranks.begin(), e.ranks.end(), ranks.begin(), ranks.end()))
          return i;
      }
    }
    Entry e;
    e.hash = h;
    e.op = op;
    e.algorithm = alg;
    e.ranks.assign(ranks.begin(), ranks.end());
    e.traffic = th;
    if (alg == Algorithm::automatic) {
      CollectiveRequest probe;
      probe.op = op;
      probe.ranks = ranks;
      probe.traffic = traffic;
      for (Algorithm a : detail::candidates(op)) {
        if (!applicable(a, probe)) continue;
        const int sub = find_or_add(op, a, ranks, traffic, th);
        const int ci = entries[static_cast<std::size_t>(sub)].costed;
        if (costed[static_cast<std::size_t>(ci)].ok && e.n_alts < 8) e.alts[e.n_alts++] = ci;
      }
    } else {
      detail::build(topology, op, ranks, traffic, alg, work);
      costed.push_back(cost_compact(topology, work, ranks, scratch));
      e.costed = static_cast<int>(costed.size()) - 1;
    }
    const int id = static_cast<int>(entries.size());
    head = heads.find(h);
    e.next = head == heads.end() ? -1 : head->second;
    entries.push_back(std::move(e));
    heads[h] = id;
    return id;
  }
};

NetworkModel::NetworkModel(const hw::System& system) : impl_(std::make_unique<Impl>(system)) {}
NetworkModel::~NetworkModel() = default;
NetworkModel::NetworkModel(NetworkModel&&) noexcept = default;
NetworkModel& NetworkModel::operator=(NetworkModel&&) noexcept = default;

const Topology& NetworkModel::topology() const {
  return impl_->topology;
}

CollectiveCost NetworkModel::cost(const CollectiveRequest& request, LinkLoads* loads,
                                  double multiplicity) {
  if (is_trivial(request)) return trivial(request);
  auto& m = *impl_;
  const double bytes = request.bytes;
  const std::uint64_t th = request.op == Collective::all_to_all && !request.traffic.empty()
                               ? traffic_hash(request.traffic)
                               : 0;
  const Costed* best = nullptr;
  if (request.algorithm != Algorithm::automatic) {
    const int e = m.find_or_add(request.op, request.algorithm, request.ranks, request.traffic, th);
    const Costed& c =
        m.costed[static_cast<std::size_t>(m.entries[static_cast<std::size_t>(e)].costed)];
    if (c.ok) best = &c;
  }
  if (best == nullptr) {
    // Automatic, or the requested algorithm cannot run here: the fastest applicable one.
    const int e =
        m.find_or_add(request.op, Algorithm::automatic, request.ranks, request.traffic, th);
    const auto& entry = m.entries[static_cast<std::size_t>(e)];
    double best_t = std::numeric_limits<double>::infinity();
    for (int k = 0; k < entry.n_alts; ++k) {
      const Costed& c = m.costed[static_cast<std::size_t>(entry.alts[k])];
      const double time = c.time(bytes);
      if (time < best_t) {
        best_t = time;
        best = &c;
      }
    }
    if (best == nullptr) return trivial(request);
  }
  const double n = static_cast<double>(request.ranks.size());
  CollectiveCost out;
  out.time_s = best->time(bytes);
  out.algorithm = best->algorithm;
  out.steps = best->steps;
  out.bytes_per_device = best->injected_per_byte * bytes / n;
  out.energy_J = best->energy_per_byte * bytes / n;
  out.bus_bandwidth_Bps =
      out.time_s > 0 ? bytes / out.time_s * bus_bandwidth_factor(request.op, static_cast<int>(n))
                     : 0.0;
  out.outermost_level = best->outermost;
  if (loads != nullptr) {
    const std::size_t n_links = m.topology.links().size();
    if (loads->bytes.size() < n_links) loads->bytes.resize(n_links, 0.0);
    const double scale = bytes * multiplicity;
    for (const auto& [id, b] : best->link_bytes)
      loads->bytes[static_cast<std::size_t>(id)] += b * scale;
  }
  return out;
}

Schedule NetworkModel::schedule(const CollectiveRequest& request, Algorithm algorithm) const {
  const auto& t = impl_->topology;
  if (algorithm != Algorithm::automatic) {
    const auto c = detail::build(t, request.op, request.ranks, request.traffic, algorithm);
    return detail::expand(t, c, request.op, request.bytes);
  }
  // Automatic: cost every candidate afresh (const: the memo is not touched) and expand the
  // fastest one.
  Scratch s;
  detail::CompactSchedule best;
  double best_t = std::numeric_limits<double>::infinity();
  for (Algorithm a : detail::candidates(request.op)) {
    auto c = detail::build(t, request.op, request.ranks, request.traffic, a);
    if (!c.ok) continue;
    const Costed k = request.ranks.size() < 2 ? Costed{} : cost_compact(t, c, request.ranks, s);
    const double time = k.time(request.bytes);
    if (time < best_t) {
      best_t = time;
      best = std::move(c);
    }
  }
  return detail::expand(t, best, request.op, request.bytes);
}

}  // namespace stackscope::network
