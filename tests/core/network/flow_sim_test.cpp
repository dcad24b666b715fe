// SPDX-License-Identifier: GPL-3.0-or-later
// The reference flow simulator: the max-min solver and event loop on hand-made link sets
// (flow_sim_engine.hpp, private) and simulate() on hand-made Schedules over real Topologies.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "flow_sim_engine.hpp"
#include "stackscope/network/flow_sim.hpp"

namespace stackscope::network {
namespace {

using flow_sim_detail::MaxMinSolver;
using flow_sim_detail::StepEngine;

// Paths as CSR from a list of link lists.
struct Paths {
  std::vector<int> begin{0};
  std::vector<int> links;
  explicit Paths(const std::vector<std::vector<int>>& p) {
    for (const auto& v : p) {
      links.insert(links.end(), v.begin(), v.end());
      begin.push_back(static_cast<int>(links.size()));
    }
  }
  int size() const { return static_cast<int>(begin.size()) - 1; }
};

std::vector<double> max_min(const std::vector<double>& capacity, const Paths& paths) {
  std::vector<int> active(paths.size());
  for (int f = 0; f < paths.size(); ++f) active[f] = f;
  std::vector<double> rate(paths.size(), -1.0);
  MaxMinSolver solver;
  solver.solve(capacity, active, paths.begin, paths.links, rate);
  return rate;
}

// Bertsekas & Gallager §6.5.2 style example: A crosses links 0 and 1, B link 0, C link 1.
TEST(MaxMin, ClassicThreeFlowsTwoLinks) {
  const auto rate = max_min({1.0, 2.0}, Paths({{0, 1}, {0}, {1}}));
  EXPECT_DOUBLE_EQ(rate[0], 0.5);
  EXPECT_DOUBLE_EQ(rate[1], 0.5);
  EXPECT_DOUBLE_EQ(rate[2], 1.5);
}

TEST(MaxMin, SingleLinkSplitsEvenly) {
  const auto rate = max_min({3.0}, Paths({{0}, {0}, {0}}));
  for (const double r : rate) EXPECT_DOUBLE_EQ(r, 1.0);
}

TEST(MaxMin, ChainOfLinks) {
  // Linear network: long flow over links 0..2, one short flow per link; capacities 1, 1, 4.
  // Links 0 and 1 bind at 1/2; the short flow on link 2 gets 4 - 1/2.
  const auto rate = max_min({1.0, 1.0, 4.0}, Paths({{0, 1, 2}, {0}, {1}, {2}}));
  EXPECT_DOUBLE_EQ(rate[0], 0.5);
  EXPECT_DOUBLE_EQ(rate[1], 0.5);
  EXPECT_DOUBLE_EQ(rate[2], 0.5);
  EXPECT_DOUBLE_EQ(rate[3], 3.5);
}

// Defining property of max-min fairness (B&G Prop. 6.5.1 / the bottleneck lemma): the rates
// are feasible and every flow has a bottleneck link, i.e. a saturated link on its path where
// no other flow gets more.
TEST(MaxMin, RandomInstancesHaveABottleneckPerFlow) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int links = 1 + static_cast<int>(rng() % 12);
    const int flows = 1 + static_cast<int>(rng() % 40);
    std::vector<double> capacity(links);
    for (auto& c : capacity) c = 0.5 + static_cast<double>(rng() % 1000) / 100.0;
    std::vector<std::vector<int>> p(flows);
    for (auto& v : p) {
      const int hops = 1 + static_cast<int>(rng() % 4);
      for (int h = 0; h < hops; ++h) {
        const int l = static_cast<int>(rng() % links);
        if (std::find(v.begin(), v.end(), l) == v.end()) v.push_back(l);
      }
    }
    const Paths paths(p);
    const auto rate = max_min(capacity, paths);
    std::vector<double> load(links, 0.0), max_rate(links, 0.0);
    for (int f = 0; f < flows; ++f) {
      ASSERT_GT(rate[f], 0.0);
      for (const int l : p[f]) {
        load[l] += rate[f];
        max_rate[l] = std::max(max_rate[l], rate[f]);
      }
    }
    for (int l = 0; l < links; ++l) EXPECT_LE(load[l], capacity[l] * (1 + 1e-12));
    for (int f = 0; f < flows; ++f) {
      bool bottleneck = false;
      for (const int l : p[f]) {
        bottleneck |= load[l] >= capacity[l] * (1 - 1e-9) && rate[f] >= max_rate[l] * (1 - 1e-9);
      }
      EXPECT_TRUE(bottleneck) << "trial " << trial << " flow " << f;
    }
  }
}

struct EngineRun {
  double end = 0;
  std::vector<double> start, finish;
};

EngineRun run_engine(const std::vector<double>& capacity, const Paths& paths,
                     const std::vector<double>& bytes, const std::vector<double>& delay,
                     double t0 = 0) {
  StepEngine engine(capacity);
  EngineRun r;
  r.start.assign(bytes.size(), -1);
  r.finish.assign(bytes.size(), -1);
  r.end = engine.run(t0, bytes, delay, paths.begin, paths.links, r.start, r.finish);
  return r;
}

TEST(StepEngine, ClassicExampleTimes) {
  // Rates 0.5 / 0.5 / 1.5 until A and B finish at t = 2; C has 3 of 6 bytes left and then
  // gets all of link 1 (2 B/s): finishes at 3.5.
  const auto r = run_engine({1.0, 2.0}, Paths({{0, 1}, {0}, {1}}), {1, 1, 6}, {0, 0, 0});
  EXPECT_DOUBLE_EQ(r.finish[0], 2.0);
  EXPECT_DOUBLE_EQ(r.finish[1], 2.0);
  EXPECT_DOUBLE_EQ(r.finish[2], 3.5);
  EXPECT_DOUBLE_EQ(r.end, 3.5);
}

TEST(StepEngine, LateArrivalTakesItsShare) {
  // Flow 0 alone for 1 s at 2 B/s (2 of 6 bytes), then flow 1 arrives and both get 1 B/s:
  // flow 1 (2 bytes) finishes at 3, flow 0 has 2 left at 2 B/s: 4.
  const auto r = run_engine({2.0}, Paths({{0}, {0}}), {6, 2}, {0, 1}, 10);
  EXPECT_DOUBLE_EQ(r.start[0], 10.0);
  EXPECT_DOUBLE_EQ(r.start[1], 11.0);
  EXPECT_DOUBLE_EQ(r.finish[1], 13.0);
  EXPECT_DOUBLE_EQ(r.finish[0], 14.0);
}

TEST(StepEngine, ZeroBytesAndEmptyPathsFinishAtStepStart) {
  const auto r = run_engine({1.0}, Paths({{0}, {}, {0}}), {0, 5, 4}, {1, 0, 1}, 3);
  EXPECT_DOUBLE_EQ(r.finish[0], 3.0);
  EXPECT_DOUBLE_EQ(r.finish[1], 3.0);
  EXPECT_DOUBLE_EQ(r.finish[2], 8.0);
}

TEST(StepEngine, NoFlowsEndsAtStart) {
  const auto r = run_engine({1.0}, Paths({}), {}, {}, 2.5);
  EXPECT_DOUBLE_EQ(r.end, 2.5);
}

// ---- simulate() on real topologies ----

hw::System switch_system(int devices, double GBps = 100, double hop_ns = 500) {
  hw::System s;
  s.devices = devices;
  hw::NetworkLevel l;
  l.name = "switch";
  l.topology = hw::Topology::switch_fabric;
  l.size = devices;
  l.link_GBps = GBps;
  l.efficiency = 1.0;
  l.hop_latency_ns = hop_ns;
  l.latency_us = 2.0;
  s.levels.push_back(l);
  return s;
}

hw::System ring_system(int devices) {
  hw::System s = switch_system(devices);
  s.levels[0].topology = hw::Topology::ring;
  return s;
}

struct PathInfo {
  double latency = 0;
  double bw = 0;
  std::vector<int> links;
};

PathInfo path_info(const Topology& topo, int a, int b) {
  PathInfo p;
  topo.route(a, b, p.links);
  p.bw = 1e300;
  for (const int l : p.links) {
    p.latency += topo.links()[l].latency_s;
    p.bw = std::min(p.bw, topo.links()[l].bw_Bps);
  }
  return p;
}

TEST(Simulate, SingleFlowIsLatencyPlusBytesOverBandwidth) {
  for (const auto& sys : {switch_system(8), ring_system(8)}) {
    const Topology topo(sys);
    const auto p = path_info(topo, 0, 3);
    ASSERT_FALSE(p.links.empty());
    Schedule s;
    s.steps.push_back({{{0, 3, 1e6}}, 2e-6});
    const auto r = simulate(topo, s, true);
    EXPECT_NEAR(r.time_s, 2e-6 + p.latency + 1e6 / p.bw, 1e-15);
    ASSERT_EQ(r.flows.size(), 1u);
    EXPECT_NEAR(r.flows[0].start_s, 2e-6 + p.latency, 1e-18);
    EXPECT_EQ(r.events, 1);
  }
}

TEST(Simulate, TwoFlowsIntoOneDeviceShareItsPort) {
  const Topology topo(switch_system(8));
  const auto p = path_info(topo, 0, 2);
  Schedule s;
  s.steps.push_back({{{0, 2, 1e6}, {1, 2, 1e6}}, 0});
  const auto r = simulate(topo, s, true);
  // Both cross the switch -> d2 link and get half of it each.
  EXPECT_NEAR(r.time_s, p.latency + 2e6 / p.bw, 1e-15);
  EXPECT_NEAR(r.flows[0].finish_s, r.flows[1].finish_s, 1e-18);
}

TEST(Simulate, SelfAndEmptyFlowsAreInstant) {
  const Topology topo(switch_system(4));
  Schedule s;
  s.steps.push_back({{{1, 1, 1e9}, {0, 2, 0}}, 1e-6});
  const auto r = simulate(topo, s, true);
  EXPECT_DOUBLE_EQ(r.time_s, 1e-6);
  for (const auto& f : r.flows) EXPECT_DOUBLE_EQ(f.finish_s, 1e-6);
}

TEST(Simulate, StepsAreSeparatedByABarrier) {
  const Topology topo(switch_system(8));
  const auto p = path_info(topo, 0, 1);
  Schedule s;
  // Step 0: one long flow; step 1: a short flow on disjoint links must still wait for it.
  s.steps.push_back({{{0, 1, 1e8}, {2, 3, 1e3}}, 1e-6});
  s.steps.push_back({{{4, 5, 1e3}}, 3e-6});
  const auto r = simulate(topo, s, true);
  ASSERT_EQ(r.flows.size(), 3u);
  const double step0_end = 1e-6 + p.latency + 1e8 / p.bw;
  EXPECT_NEAR(r.flows[0].finish_s, step0_end, 1e-15);
  EXPECT_EQ(r.flows[2].step, 1);
  EXPECT_GE(r.flows[2].start_s, r.flows[0].finish_s + 3e-6);
  EXPECT_NEAR(r.time_s, step0_end + 3e-6 + p.latency + 1e3 / p.bw, 1e-15);
}

Schedule random_schedule(int devices, int steps, unsigned seed) {
  std::mt19937 rng(seed);
  Schedule s;
  for (int k = 0; k < steps; ++k) {
    Step st;
    st.alpha_s = 1e-6 * static_cast<double>(rng() % 5);
    const int flows = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < flows; ++i) {
      st.flows.push_back({static_cast<int>(rng() % devices), static_cast<int>(rng() % devices),
                          static_cast<double>(1 + rng() % 1000000)});
    }
    s.steps.push_back(std::move(st));
  }
  return s;
}

TEST(Simulate, ConservationAndCausality) {
  hw::System sys = switch_system(16);
  sys.levels[0].topology = hw::Topology::torus2d;
  const Topology topo(sys);
  const Schedule s = random_schedule(16, 6, 11);
  const auto r = simulate(topo, s, true);
  std::size_t total = 0;
  for (const auto& st : s.steps) total += st.flows.size();
  ASSERT_EQ(r.flows.size(), total);
  // Per step: every byte delivered (records keep the bytes), finish >= start >= step start,
  // no flow faster than its slowest link, and no link carries more than capacity x span.
  double step_start = 0;
  std::size_t i = 0;
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    step_start += s.steps[k].alpha_s;
    double step_end = step_start;
    std::vector<double> link_bytes(topo.links().size(), 0.0);
    for (const auto& fl : s.steps[k].flows) {
      const auto& rec = r.flows[i++];
      EXPECT_EQ(rec.src, fl.src);
      EXPECT_EQ(rec.dst, fl.dst);
      EXPECT_EQ(rec.step, static_cast<int>(k));
      EXPECT_DOUBLE_EQ(rec.bytes, fl.bytes);
      EXPECT_GE(rec.start_s, step_start);
      EXPECT_GE(rec.finish_s, rec.start_s);
      if (fl.src != fl.dst) {
        const auto p = path_info(topo, fl.src, fl.dst);
        EXPECT_NEAR(rec.start_s, step_start + p.latency, 1e-15);
        EXPECT_GE(rec.finish_s - rec.start_s, fl.bytes / p.bw * (1 - 1e-9));
        for (const int l : p.links) link_bytes[l] += fl.bytes;
      }
      step_end = std::max(step_end, rec.finish_s);
    }
    for (std::size_t l = 0; l < link_bytes.size(); ++l) {
      EXPECT_LE(link_bytes[l], topo.links()[l].bw_Bps * (step_end - step_start) * (1 + 1e-9));
    }
    step_start = step_end;
  }
  EXPECT_NEAR(r.time_s, step_start, 1e-15);
}

TEST(Simulate, Deterministic) {
  hw::System sys = switch_system(16);
  sys.levels[0].topology = hw::Topology::mesh2d;
  const Topology topo(sys);
  const Schedule s = random_schedule(16, 5, 3);
  const auto a = simulate(topo, s, true);
  const auto b = simulate(topo, s, true);
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.events, b.events);
  ASSERT_EQ(a.flows.size(), b.flows.size());
  for (std::size_t i = 0; i < a.flows.size(); ++i) {
    EXPECT_EQ(a.flows[i].start_s, b.flows[i].start_s);
    EXPECT_EQ(a.flows[i].finish_s, b.flows[i].finish_s);
  }
  const auto c = simulate(topo, s, false);
  EXPECT_EQ(c.time_s, a.time_s);
  EXPECT_TRUE(c.flows.empty());
}

TEST(Simulate, RejectsFlowsOutsideTheSystem) {
  const Topology topo(switch_system(4));
  Schedule s;
  s.steps.push_back({{{0, 4, 1.0}}, 0});
  EXPECT_THROW(simulate(topo, s), std::invalid_argument);
}

}  // namespace
}  // namespace stackscope::network
