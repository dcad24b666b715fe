// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 2, analytic. Every term of a step's time is linear in the message size: alpha and the
// path latency do not depend on it, and every flow's bytes (hence every link's bytes and the
// bottleneck link) scale with it. So a (op, algorithm, group, traffic) shape is routed once and
// kept as time(S) = latency_s + S x seconds_per_byte plus its per-link bytes per byte of S;
// later calls with any size are a hash lookup and a few multiplications.
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
struct Costed {
  bool ok = false;
  Algorithm algorithm = Algorithm::ring;
  double latency_s = 0;
  double s_per_byte = 0;
  double injected_per_byte = 0;  // all ranks together
  double energy_per_byte = 0;    // all links together (J per byte of S)
  int steps = 0;
  int outermost = -1;
  std::vector<std::pair<int, double>> link_bytes;  // (link, bytes per byte of S), sparse
};

// Per-costing scratch: dense per-link accumulators and the route buffer. (Routes are not
// cached: on a VM a cache of every pair's route costs more in page faults than re-routing.)
struct Scratch {
  std::vector<double> step_bytes;
  std::vector<int> step_touched;
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
    for (const auto& st : c.steps) {
      double max_lat = 0;
      int step_level = -1;
      for (const auto& f : c.flows_of(st)) {
        const Routed r = routed(t, s, f.src, f.dst);
        max_lat = std::max(max_lat, r.latency_s);
        for (int id : r.links) {
          auto& slot = s.step_bytes[static_cast<std::size_t>(id)];
          if (slot == 0.0) s.step_touched.push_back(id);
          slot += f.bytes;
        }
        out.injected_per_byte += f.bytes * st.repeat;
        step_level = std::max(step_level, r.level);
      }
      out.outermost = std::max(out.outermost, step_level);
      double max_spb = 0;
      for (int id : s.step_touched) {
        const auto k = static_cast<std::size_t>(id);
        max_spb = std::max(max_spb, s.step_bytes[k] / links[k].bw_Bps);
        add_total(id, s.step_bytes[k] * st.repeat);
        s.step_bytes[k] = 0.0;
      }
      s.step_touched.clear();
      out.latency_s += (detail::level_alpha(t, step_level) + max_lat) * st.repeat;
      out.s_per_byte += max_spb * st.repeat;
      out.steps += st.repeat;
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
      const double time = c.latency_s + bytes * c.s_per_byte;
      if (time < best_t) {
        best_t = time;
        best = &c;
      }
    }
    if (best == nullptr) return trivial(request);
  }
  const double n = static_cast<double>(request.ranks.size());
  CollectiveCost out;
  out.time_s = best->latency_s + bytes * best->s_per_byte;
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
    const double time = k.latency_s + request.bytes * k.s_per_byte;
    if (time < best_t) {
      best_t = time;
      best = std::move(c);
    }
  }
  return detail::expand(t, best, request.op, request.bytes);
}

}  // namespace stackscope::network
