// SPDX-License-Identifier: GPL-3.0-or-later
// Stage 1 schedules and the stage-2 analytic model (docs/model.md §5.3-§5.4): conservation of
// bytes, closed forms (ring, in-network), the latency/bandwidth crossover between algorithms, the
// automatic choice, monotonicity in bandwidth, and memoisation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

#include "stackscope/network/model.hpp"

namespace stackscope::network {
namespace {

hw::NetworkLevel level(hw::Topology t, int size, double GBps = 100, double alpha_us = 2) {
  hw::NetworkLevel l;
  l.topology = t;
  l.size = size;
  l.link_GBps = GBps;
  l.efficiency = 0.8;
  l.latency_us = alpha_us;
  l.hop_latency_ns = 100;
  l.energy_pJ_per_bit = 4;
  return l;
}

hw::System system(int devices, std::vector<hw::NetworkLevel> levels) {
  hw::System s;
  s.id = "test";
  s.devices = devices;
  s.levels = std::move(levels);
  return s;
}

std::vector<int> iota(int n, int first = 0) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), first);
  return v;
}

CollectiveRequest request(Collective op, double bytes, const std::vector<int>& ranks,
                          Algorithm a = Algorithm::automatic) {
  CollectiveRequest r;
  r.op = op;
  r.bytes = bytes;
  r.ranks = ranks;
  r.algorithm = a;
  return r;
}

// The systems every property test runs on.
std::vector<hw::System> systems() {
  auto nvs = level(hw::Topology::switch_fabric, 8, 450, 2);
  nvs.in_network_reduction = true;
  return {
      system(8, {nvs}),
      system(16, {level(hw::Topology::ring, 16)}),
      system(16, {level(hw::Topology::torus2d, 16)}),
      system(12, {level(hw::Topology::mesh2d, 12)}),
      system(8, {level(hw::Topology::fully_connected, 8)}),
      system(16, {nvs, level(hw::Topology::switch_fabric, 0, 50, 5)}),
      system(32, {level(hw::Topology::mesh2d, 4), level(hw::Topology::torus2d, 4),
                  level(hw::Topology::switch_fabric, 0, 50, 5)}),
  };
}

struct Case {
  Collective op;
  Algorithm algorithm;
};

std::vector<Case> all_cases() {
  return {{Collective::all_reduce, Algorithm::ring},
          {Collective::all_reduce, Algorithm::halving_doubling},
          {Collective::all_reduce, Algorithm::tree},
          {Collective::all_reduce, Algorithm::two_d},
          {Collective::all_reduce, Algorithm::hierarchical},
          {Collective::all_reduce, Algorithm::in_network},
          {Collective::all_gather, Algorithm::ring},
          {Collective::all_gather, Algorithm::halving_doubling},
          {Collective::all_gather, Algorithm::direct},
          {Collective::reduce_scatter, Algorithm::ring},
          {Collective::reduce_scatter, Algorithm::halving_doubling},
          {Collective::reduce_scatter, Algorithm::direct},
          {Collective::all_to_all, Algorithm::direct},
          {Collective::all_to_all, Algorithm::pairwise},
          {Collective::broadcast, Algorithm::tree},
          {Collective::broadcast, Algorithm::ring}};
}

// Bytes each rank must send under each algorithm (per byte of the request).
double expected_total_sent(Case c, int n) {
  const double dn = n;
  switch (c.op) {
    case Collective::all_reduce:
      if (c.algorithm == Algorithm::tree) return 2.0 * (dn - 1.0);
      return 2.0 * (dn - 1.0);  // 2(n-1)/n per rank
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all: return dn - 1.0;
    case Collective::broadcast: return dn - 1.0;
    case Collective::point_to_point: return 1.0;
  }
  return 0;
}

// Independent stage 2: route every flow of every (expanded) step; a step ends at
// alpha + max(longest path latency, max over links of (first arrival + bytes / bandwidth)).
// `overlap` false: the conservative alpha + max latency + max bytes / bandwidth.
double reference_time(const Topology& t, const Schedule& s, bool overlap = true) {
  double total = 0;
  std::vector<int> route;
  for (const auto& step : s.steps) {
    std::map<int, double> link_bytes;
    std::map<int, double> first;
    double max_lat = 0;
    for (const auto& f : step.flows) {
      route.clear();
      t.route(f.src, f.dst, route);
      double lat = 0;
      for (int id : route) lat += t.links()[static_cast<std::size_t>(id)].latency_s;
      for (int id : route) {
        link_bytes[id] += f.bytes;
        first[id] = first.count(id) ? std::min(first[id], lat) : lat;
      }
      max_lat = std::max(max_lat, lat);
    }
    double end = max_lat;
    double max_t = 0;
    for (const auto& [id, b] : link_bytes) {
      const double drain = b / t.links()[static_cast<std::size_t>(id)].bw_Bps;
      end = std::max(end, first[id] + drain);
      max_t = std::max(max_t, drain);
    }
    total += step.alpha_s + (overlap ? end : max_lat + max_t);
  }
  return total;
}

TEST(Schedule, Names) {
  EXPECT_EQ(to_string(Collective::all_to_all), "all_to_all");
  EXPECT_EQ(to_string(Algorithm::halving_doubling), "halving_doubling");
  EXPECT_EQ(to_string(Algorithm::in_network), "in_network");
}

TEST(Schedule, Applicability) {
  const auto r6 = iota(6), r8 = iota(8), r7 = iota(7);
  EXPECT_TRUE(applicable(Algorithm::halving_doubling, request(Collective::all_reduce, 1, r8)));
  EXPECT_FALSE(applicable(Algorithm::halving_doubling, request(Collective::all_reduce, 1, r6)));
  EXPECT_TRUE(applicable(Algorithm::two_d, request(Collective::all_reduce, 1, r6)));
  EXPECT_FALSE(applicable(Algorithm::two_d, request(Collective::all_reduce, 1, r7)));
  EXPECT_FALSE(applicable(Algorithm::pairwise, request(Collective::all_reduce, 1, r8)));
  EXPECT_TRUE(applicable(Algorithm::pairwise, request(Collective::all_to_all, 1, r7)));
  EXPECT_FALSE(applicable(Algorithm::ring, request(Collective::all_to_all, 1, r7)));
  EXPECT_TRUE(applicable(Algorithm::direct, request(Collective::point_to_point, 1, {0, 3})));
  EXPECT_FALSE(applicable(Algorithm::ring, request(Collective::point_to_point, 1, {0, 3})));
  EXPECT_TRUE(applicable(Algorithm::automatic, request(Collective::broadcast, 1, r7)));
}

// Every algorithm delivers the right amount, and the model's stage 2 equals an independent
// re-costing of the expanded schedule.
TEST(Schedule, ConservationAndStageTwoFormula) {
  int checked = 0;
  for (const auto& sys : systems()) {
    NetworkModel model(sys);
    for (int n : {2, 4, 6, 8, 12, 16}) {
      if (n > sys.devices) continue;
      // Ranks spread over the system (a stride that crosses levels when there are several).
      std::vector<int> ranks;
      const int stride = sys.devices / n;
      for (int i = 0; i < n; ++i) ranks.push_back(i * stride);
      for (const Case c : all_cases()) {
        const auto req = request(c.op, 1e6, ranks, c.algorithm);
        const Schedule s = model.schedule(req, c.algorithm);
        if (!applicable(c.algorithm, req) || s.steps.empty()) continue;
        std::vector<double> sent(static_cast<std::size_t>(sys.devices), 0.0);
        double total = 0;
        for (const auto& step : s.steps)
          for (const auto& f : step.flows) {
            sent[static_cast<std::size_t>(f.src)] += f.bytes;
            total += f.bytes;
          }
        const std::string what = std::string(to_string(c.op)) + "/" +
                                 std::string(to_string(c.algorithm)) + " n=" + std::to_string(n) +
                                 " levels=" + std::to_string(sys.levels.size());
        const CollectiveCost cost = model.cost(req);
        EXPECT_EQ(cost.algorithm, c.algorithm) << what;
        if (c.algorithm == Algorithm::in_network) {
          EXPECT_EQ(s.steps.size(), 2u);
          EXPECT_DOUBLE_EQ(cost.bytes_per_device, 1e6) << what;
          continue;
        }
        EXPECT_NEAR(total, expected_total_sent(c, n) * 1e6, 1e-3) << what;
        // Symmetric algorithms: every rank sends the same.
        const bool symmetric = c.op != Collective::broadcast && c.algorithm != Algorithm::tree;
        if (symmetric) {
          for (int r : ranks)
            EXPECT_NEAR(sent[static_cast<std::size_t>(r)], total / n, 1e-3) << what << " r" << r;
        }
        EXPECT_NEAR(cost.bytes_per_device, total / n, 1e-6 * total) << what;
        EXPECT_EQ(cost.steps, static_cast<int>(s.steps.size())) << what;
        EXPECT_NEAR(cost.time_s, reference_time(model.topology(), s), 1e-9 * cost.time_s) << what;
        // The memoised piecewise-linear form holds at every size.
        for (double S : {1e2, 3e3, 7e4, 2e6, 5e7, 3e9}) {
          auto other = req;
          other.bytes = S;
          const double memo = model.cost(other).time_s;
          const Schedule big = model.schedule(other, c.algorithm);
          EXPECT_NEAR(memo, reference_time(model.topology(), big), 1e-9 * memo) << what << " " << S;
          EXPECT_LE(memo, reference_time(model.topology(), big, false) * (1 + 1e-12)) << what;
        }
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 300);
}

TEST(Schedule, AlgorithmStepCounts) {
  NetworkModel m(system(16, {level(hw::Topology::switch_fabric, 16)}));
  const auto r = iota(16);
  auto steps = [&](Collective op, Algorithm a) {
    return m.schedule(request(op, 1, r), a).steps.size();
  };
  EXPECT_EQ(steps(Collective::all_reduce, Algorithm::ring), 30u);
  EXPECT_EQ(steps(Collective::all_reduce, Algorithm::halving_doubling), 8u);
  EXPECT_EQ(steps(Collective::all_reduce, Algorithm::tree), 8u);
  EXPECT_EQ(steps(Collective::all_reduce, Algorithm::two_d), 12u);  // 4x4: 3 + 6 + 3
  EXPECT_EQ(steps(Collective::all_gather, Algorithm::ring), 15u);
  EXPECT_EQ(steps(Collective::reduce_scatter, Algorithm::halving_doubling), 4u);
  EXPECT_EQ(steps(Collective::all_gather, Algorithm::direct), 1u);
  EXPECT_EQ(steps(Collective::all_to_all, Algorithm::pairwise), 15u);
  EXPECT_EQ(steps(Collective::broadcast, Algorithm::tree), 4u);
  EXPECT_EQ(steps(Collective::broadcast, Algorithm::ring), 29u);  // 2n-3 pipelined
  // Ring all-reduce: step k sends 1/n to the next rank.
  const auto s = m.schedule(request(Collective::all_reduce, 1600, r), Algorithm::ring);
  for (const auto& f : s.steps[3].flows) {
    EXPECT_EQ(f.dst, (f.src + 1) % 16);
    EXPECT_DOUBLE_EQ(f.bytes, 100);
  }
  // Recursive halving: first partner at distance n/2 with half the buffer.
  const auto h = m.schedule(request(Collective::all_reduce, 1600, r), Algorithm::halving_doubling);
  for (const auto& f : h.steps[0].flows) {
    EXPECT_EQ(f.dst, f.src ^ 8);
    EXPECT_DOUBLE_EQ(f.bytes, 800);
  }
  // Point to point: one flow.
  const auto p = m.schedule(request(Collective::point_to_point, 5, {3, 9}), Algorithm::direct);
  ASSERT_EQ(p.steps.size(), 1u);
  ASSERT_EQ(p.steps[0].flows.size(), 1u);
  EXPECT_EQ(p.steps[0].flows[0].src, 3);
  EXPECT_EQ(p.steps[0].flows[0].dst, 9);
}

TEST(Schedule, SkewedAllToAllFollowsTheTrafficMatrix) {
  NetworkModel m(system(4, {level(hw::Topology::switch_fabric, 4)}));
  const auto r = iota(4);
  // Rank i sends 70% to (i+1) mod 4, 10% to each other rank and itself.
  std::vector<double> traffic(16, 0.1);
  for (int i = 0; i < 4; ++i) traffic[static_cast<std::size_t>(i * 4 + (i + 1) % 4)] = 0.7;
  auto req = request(Collective::all_to_all, 1000, r, Algorithm::direct);
  req.traffic = traffic;
  const auto s = m.schedule(req, Algorithm::direct);
  double total = 0;
  for (const auto& f : s.steps[0].flows) total += f.bytes;
  EXPECT_NEAR(total, 4 * 900.0, 1e-9);
  // Every port carries 900 bytes (700 + 2 x 100 in, 900 out) against 750 when uniform.
  const double skewed = m.cost(req).time_s;
  req.traffic = {};
  const double uniform = m.cost(req).time_s;
  EXPECT_GT(skewed, uniform);
  const double bw = 100e9 * 0.8;
  EXPECT_NEAR(skewed, 2e-6 + 200e-9 + 900 / bw, 1e-15);
}

// Ring all-reduce on one switch: 2(n-1) steps of alpha + two hops + (S/n) / bw.
TEST(Model, RingAllReduceClosedForm) {
  NetworkModel m(system(8, {level(hw::Topology::switch_fabric, 8, 450, 2)}));
  const auto r = iota(8);
  const double S = 256e6, bw = 450e9 * 0.8;
  const auto c = m.cost(request(Collective::all_reduce, S, r, Algorithm::ring));
  EXPECT_NEAR(c.time_s, 14 * (2e-6 + 200e-9) + 14 * (S / 8) / bw, 1e-12);
  EXPECT_EQ(c.steps, 14);
  EXPECT_DOUBLE_EQ(c.bytes_per_device, 2.0 * 7 / 8 * S);
  EXPECT_NEAR(c.bus_bandwidth_Bps, S / c.time_s * 14 / 8, 1);
  EXPECT_EQ(c.outermost_level, 0);
  // Energy: every byte crosses the switch once at the level's 4 pJ/bit.
  EXPECT_NEAR(c.energy_J, c.bytes_per_device * 4 * 8e-12, 1e-15);
}

TEST(Model, RingOnRingTopologyClosedForm) {
  NetworkModel m(system(8, {level(hw::Topology::ring, 8)}));
  const double S = 1e8, bw = 100e9 * 0.8;
  const auto c = m.cost(request(Collective::all_reduce, S, iota(8), Algorithm::ring));
  EXPECT_NEAR(c.time_s, 14 * (2e-6 + 100e-9) + 14 * (S / 8) / bw, 1e-12);
}

TEST(Model, InNetworkClosedForm) {
  auto l = level(hw::Topology::switch_fabric, 8, 450, 2);
  l.in_network_reduction = true;
  l.in_network_efficiency = 0.61;
  NetworkModel m(system(8, {l}));
  const double S = 1e9;
  const auto c = m.cost(request(Collective::all_reduce, S, iota(8), Algorithm::in_network));
  EXPECT_EQ(c.algorithm, Algorithm::in_network);
  EXPECT_NEAR(c.time_s, 2 * 2e-6 + 200e-9 + S / (450e9 * 0.61), 1e-12);
  EXPECT_EQ(c.steps, 2);
  // nccl-tests NVLS anchor: busBW = 2(n-1)/n x 0.61 x 450 = 480 GB/s at large sizes.
  EXPECT_NEAR(c.bus_bandwidth_Bps / 1e9, 480, 2);
  // Links: each rank's port up and down carries the buffer once.
  LinkLoads loads;
  m.cost(request(Collective::all_reduce, S, iota(8), Algorithm::in_network), &loads);
  EXPECT_NEAR(std::accumulate(loads.bytes.begin(), loads.bytes.end(), 0.0), 16 * S, 1);
  // Not possible across two levels without a reducing outer switch: falls back.
  NetworkModel two(system(16, {l, level(hw::Topology::switch_fabric, 0, 50, 5)}));
  const auto f = two.cost(request(Collective::all_reduce, S, iota(16), Algorithm::in_network));
  EXPECT_NE(f.algorithm, Algorithm::in_network);
  EXPECT_GT(f.time_s, 0);
}

// Latency-bound small messages favour few steps (tree, halving-doubling); bandwidth-bound large
// messages favour the ring on a ring topology.
TEST(Model, CrossoverOnARing) {
  NetworkModel m(system(16, {level(hw::Topology::ring, 16, 100, 5)}));
  const auto r = iota(16);
  auto t = [&](double S, Algorithm a) {
    return m.cost(request(Collective::all_reduce, S, r, a)).time_s;
  };
  for (double S : {1e3, 8e3}) {
    EXPECT_LT(t(S, Algorithm::tree), t(S, Algorithm::ring)) << S;
    EXPECT_LT(t(S, Algorithm::halving_doubling), t(S, Algorithm::ring)) << S;
  }
  for (double S : {1e8, 1e9}) {
    EXPECT_LT(t(S, Algorithm::ring), t(S, Algorithm::tree)) << S;
    EXPECT_LT(t(S, Algorithm::ring), t(S, Algorithm::halving_doubling)) << S;
  }
  EXPECT_NE(m.cost(request(Collective::all_reduce, 1e3, r)).algorithm, Algorithm::ring);
  EXPECT_EQ(m.cost(request(Collective::all_reduce, 1e9, r)).algorithm, Algorithm::ring);
}

TEST(Model, AutomaticPicksTheFastest) {
  for (const auto& sys : systems()) {
    NetworkModel m(sys);
    const auto r = iota(std::min(sys.devices, 16));
    for (Collective op : {Collective::all_reduce, Collective::all_gather, Collective::all_to_all,
                          Collective::broadcast}) {
      for (double S : {1e3, 1e6, 1e9}) {
        const auto best = m.cost(request(op, S, r));
        for (const Case c : all_cases()) {
          if (c.op != op || !applicable(c.algorithm, request(op, S, r))) continue;
          const auto other = m.cost(request(op, S, r, c.algorithm));
          EXPECT_LE(best.time_s, other.time_s * (1 + 1e-12))
              << to_string(op) << " " << to_string(c.algorithm) << " " << S;
        }
      }
    }
  }
  // NVSwitch with in-switch reduction: NVLS for large all-reduces; direct all-to-all.
  auto nvs = level(hw::Topology::switch_fabric, 8, 450, 2);
  nvs.in_network_reduction = true;
  NetworkModel m(system(8, {nvs}));
  EXPECT_EQ(m.cost(request(Collective::all_reduce, 1e9, iota(8))).algorithm, Algorithm::in_network);
  EXPECT_EQ(m.cost(request(Collective::all_to_all, 1e9, iota(8))).algorithm, Algorithm::direct);
  // A whole 2D torus: the rows-then-columns algorithm beats the flat ring (fewer steps, same
  // bytes).
  NetworkModel torus(system(16, {level(hw::Topology::torus2d, 16)}));
  EXPECT_EQ(torus.cost(request(Collective::all_reduce, 64e6, iota(16))).algorithm,
            Algorithm::two_d);
}

// More bandwidth on any level never makes any collective slower.
TEST(Model, MonotoneInBandwidth) {
  for (const auto& sys : systems()) {
    for (std::size_t li = 0; li < sys.levels.size(); ++li) {
      auto faster = sys;
      faster.levels[li].link_GBps *= 2;
      NetworkModel a(sys), b(faster);
      const auto r = iota(std::min(sys.devices, 16));
      for (const Case c : all_cases()) {
        for (double S : {1e4, 1e7, 1e9}) {
          const auto req = request(c.op, S, r, c.algorithm);
          EXPECT_LE(b.cost(req).time_s, a.cost(req).time_s * (1 + 1e-12));
          const auto aut = request(c.op, S, r);
          EXPECT_LE(b.cost(aut).time_s, a.cost(aut).time_s * (1 + 1e-12));
        }
      }
    }
  }
}

TEST(Model, MemoisationGivesIdenticalResults) {
  const auto sys = systems()[5];
  NetworkModel warm(sys);
  const auto r = iota(16);
  for (const Case c : all_cases()) {
    for (double S : {1e3, 3e6, 2e9}) {
      const auto req = request(c.op, S, r, c.algorithm);
      LinkLoads l1, l2, l3;
      const auto first = warm.cost(req, &l1, 3.0);
      const auto again = warm.cost(req, &l2, 3.0);
      NetworkModel cold(sys);
      const auto fresh = cold.cost(req, &l3, 3.0);
      for (const auto* x : {&again, &fresh}) {
        EXPECT_EQ(first.time_s, x->time_s);
        EXPECT_EQ(first.algorithm, x->algorithm);
        EXPECT_EQ(first.steps, x->steps);
        EXPECT_EQ(first.bytes_per_device, x->bytes_per_device);
        EXPECT_EQ(first.energy_J, x->energy_J);
        EXPECT_EQ(first.outermost_level, x->outermost_level);
      }
      EXPECT_EQ(l1.bytes, l2.bytes);
      EXPECT_EQ(l1.bytes, l3.bytes);
    }
  }
}

TEST(Model, LinkLoadsAccumulateHopsTimesBytes) {
  NetworkModel m(system(16, {level(hw::Topology::torus2d, 16)}));
  const auto r = iota(16);
  const auto req = request(Collective::all_to_all, 1.6e6, r, Algorithm::direct);
  LinkLoads loads;
  m.cost(req, &loads, 2.0);
  ASSERT_EQ(loads.bytes.size(), m.topology().links().size());
  double expected = 0;
  std::vector<int> route;
  for (int a : r)
    for (int b : r) {
      route.clear();
      m.topology().route(a, b, route);
      expected += 1e5 * static_cast<double>(route.size());
    }
  EXPECT_NEAR(std::accumulate(loads.bytes.begin(), loads.bytes.end(), 0.0), 2 * expected, 1e-3);
  m.cost(req, &loads, 1.0);
  EXPECT_NEAR(std::accumulate(loads.bytes.begin(), loads.bytes.end(), 0.0), 3 * expected, 1e-3);
}

TEST(Model, TrivialRequestsCostNothing) {
  NetworkModel m(system(8, {level(hw::Topology::switch_fabric, 8)}));
  EXPECT_EQ(m.cost(request(Collective::all_reduce, 1e6, {3})).time_s, 0);
  EXPECT_EQ(m.cost(request(Collective::all_reduce, 0, iota(8))).time_s, 0);
  EXPECT_EQ(m.cost(request(Collective::point_to_point, 1e6, {2, 2})).time_s, 0);
  EXPECT_EQ(m.cost(request(Collective::all_reduce, 1e6, {3})).outermost_level, -1);
  EXPECT_THROW(m.cost(request(Collective::all_reduce, 1e6, {3, 8})), std::invalid_argument);
}

TEST(Model, PointToPointAndBusBandwidth) {
  NetworkModel m(system(16, {level(hw::Topology::switch_fabric, 8, 450, 2),
                             level(hw::Topology::switch_fabric, 0, 50, 5)}));
  const double S = 1e9;
  const auto in = m.cost(request(Collective::point_to_point, S, {0, 5}));
  EXPECT_EQ(in.algorithm, Algorithm::direct);
  EXPECT_NEAR(in.time_s, 2e-6 + 200e-9 + S / 360e9, 1e-12);
  EXPECT_NEAR(in.bus_bandwidth_Bps, S / in.time_s, 1e-3);
  const auto out = m.cost(request(Collective::point_to_point, S, {0, 13}));
  EXPECT_EQ(out.outermost_level, 1);
  EXPECT_NEAR(out.time_s, 5e-6 + 400e-9 + S / 40e9, 1e-12);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::all_gather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::all_to_all, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(Collective::broadcast, 8), 1.0);
}

// A group spanning nodes: the ring runs one channel per rail (NCCL's rings over the DGX
// NICs), so all 8 NICs carry traffic, unlike a single ring through one NIC.
TEST(Model, MultiNodeRingUsesEveryRail) {
  NetworkModel m(system(16, {level(hw::Topology::switch_fabric, 8, 450, 2),
                             level(hw::Topology::switch_fabric, 0, 50, 5)}));
  LinkLoads loads;
  m.cost(request(Collective::all_reduce, 1e9, iota(16), Algorithm::ring), &loads);
  int rails_used = 0;
  for (std::size_t i = 0; i < loads.bytes.size(); ++i)
    if (m.topology().links()[i].level == 1 && m.topology().links()[i].src < 16 &&
        loads.bytes[i] > 0)
      ++rails_used;
  EXPECT_EQ(rails_used, 16);  // 8 rails, both nodes send
  // Hierarchical: reduce-scatter in the node, all-reduce across on every rail, gather.
  const auto h = m.schedule(request(Collective::all_reduce, 1, iota(16)), Algorithm::hierarchical);
  EXPECT_EQ(h.steps.size(), 7u + 2u + 7u);
}

}  // namespace
}  // namespace stackscope::network
