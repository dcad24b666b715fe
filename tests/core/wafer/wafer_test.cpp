// SPDX-License-Identifier: GPL-3.0-or-later
// Wafer-scale serving: the wafer template's area budget and yield
// (hw/wafer.hpp), instance placement on the die grid, hop-aware KV transfer with link
// contention against the network model and its flow-level simulator, KV borrowing, the central
// scheduler's partition search (brute force, known optima, more dies) and determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "stackscope/hw/derived.hpp"
#include "stackscope/hw/wafer.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/network/flow_sim.hpp"
#include "stackscope/network/model.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/serving/kv_reshard.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/wafer/d2d_links.hpp"
#include "stackscope/wafer/partition.hpp"

namespace stackscope::wafer {
namespace {

const io::PresetRegistry& presets() {
  return io::builtin_presets();
}

// The shipped DRAM wafer with its H100-class technology.
hw::Wafer dram_wafer() {
  return presets().wafer("wsc-dram-5x4");
}
hw::Hardware h100() {
  return presets().hardware("h100-sxm");
}

TEST(WaferTemplate, ShippedDramWaferConservesItsAreaBudget) {
  const hw::Wafer w = dram_wafer();
  const auto l = hw::wafer_layout(w, h100());
  ASSERT_TRUE(l.issues.empty()) << format_issues(l.issues);
  EXPECT_EQ(l.dies_x, 5);
  EXPECT_EQ(l.dies_y, 4);
  EXPECT_EQ(l.usable_dies, 20);
  // Dies x tile area within the usable square; each die's blocks within the die.
  EXPECT_LE(l.dies * l.tile_mm2, w.usable_area_mm2);
  EXPECT_LE(l.dies_x * l.tile_width_mm, std::sqrt(w.usable_area_mm2));
  EXPECT_LE(l.dies_y * l.tile_height_mm, std::sqrt(w.usable_area_mm2));
  EXPECT_DOUBLE_EQ(l.die_mm2, 26.0 * 33.0);
  const double blocks = l.cores * h100().compute.area_per_core_mm2 + l.sram_mm2 + l.d2d_phy_mm2 +
                        l.dram_phy_mm2 + l.other_mm2;
  EXPECT_NEAR(blocks + l.free_mm2, l.die_mm2, 1e-9);
  EXPECT_GE(l.free_mm2, 0);
  // Hand values from the preset's notes: 429 / 2.83 = 151 SMs; 4500 / 650 = 6.92 mm of edge
  // per side; 900 GB/s x 13.43 mm² per TB/s = 12.09 mm²; 48 GB x 121 / 24 = 242 mm².
  EXPECT_EQ(l.cores, 151);
  EXPECT_NEAR(l.d2d_shoreline_mm, 6.923, 1e-3);
  EXPECT_NEAR(l.d2d_phy_mm2, 27.69, 1e-2);
  EXPECT_NEAR(l.dram_phy_mm2, 12.09, 1e-2);
  EXPECT_NEAR(l.dram_footprint_mm2, 242.0, 1e-9);
  EXPECT_NEAR(l.shared_sram_MiB, 0.1245 * 858 / 0.35, 1e-9);  // 305 MiB = 320 MB
  // The die as a device: 900 GB/s and 48 GB of DRAM, the cores above, the power limit.
  const hw::Hardware die = hw::die_hardware(w, h100());
  EXPECT_EQ(die.compute.cores, 151);
  const double peak = die.memory.stacks * die.memory.layers_connected *
                      die.memory.channels_per_layer * die.memory.bytes_per_transfer *
                      die.memory.transfers_per_clock * die.memory.clock_MHz * 1e6;
  EXPECT_NEAR(peak, 900e9, 1);
  EXPECT_NEAR(hw::memory_capacity_bytes(die.memory), 48e9, 1);
  EXPECT_DOUBLE_EQ(die.energy.tdp_W, 700);
}

TEST(WaferTemplate, ShippedSramWaferMatchesWse3PublicFigures) {
  const hw::Wafer w = presets().wafer("wse3-sram");
  hw::Hardware t = presets().hardware("wafer-scale");
  t.area.other_mm2 = 5;  // the uncore the preset's notes assume
  const auto l = hw::wafer_layout(w, t);
  ASSERT_TRUE(l.issues.empty()) << format_issues(l.issues);
  EXPECT_EQ(l.dies, 84);
  EXPECT_NEAR(l.dies * l.die_mm2, 46225, 1e-6);  // the dies tile the whole 215 x 215 mm
  // 44 GB of SRAM and 900,000 cores (Cerebras WSE-3 figures, March 2024) within 1.5 %.
  EXPECT_NEAR(l.sram_GB, 44, 44 * 0.015);
  EXPECT_NEAR(l.usable_dies * l.cores, 900000, 900000 * 0.015);
  EXPECT_EQ(l.dram_TB, 0);
}

TEST(WaferTemplate, RefusesWhatCannotBeBuilt) {
  const auto first_path = [](const hw::Wafer& w) {
    const auto l = hw::wafer_layout(w, h100());
    return l.issues.empty() ? std::string() : l.issues.front().path;
  };
  hw::Wafer w = dram_wafer();
  w.die_width_mm = 27;  // wider than the reticle
  EXPECT_EQ(first_path(w), "/wafer/die_width_mm");
  w = dram_wafer();
  w.compute_fraction = 0.9;  // with the SRAM, PHYs and uncore over the die
  EXPECT_EQ(first_path(w), "/wafer/compute_fraction");
  w = dram_wafer();
  w.dies_x = 7;  // 7 tiles of 33.3 mm = 233 mm > 215 mm
  EXPECT_EQ(first_path(w), "/wafer/dies_x");
  w = dram_wafer();
  w.d2d_GBps = 20000;  // 30.8 mm of edge > the 26 mm side
  EXPECT_EQ(first_path(w), "/wafer/d2d_GBps");
  w = dram_wafer();
  w.spare_dies = 20;
  EXPECT_EQ(first_path(w), "/wafer/spare_dies");
  w = dram_wafer();
  w.sram_fraction = -0.1;
  EXPECT_EQ(first_path(w), "/wafer/sram_fraction");
}

// Bounds that keep a wafer a wafer (and its serving search finite): the usable area of one
// 300 mm wafer, at most 1024 dies even from the automatic grid, die power 1 W .. 10 kW, cooling
// 0.01 .. 10 W/mm², and a die yield of at least 0.1 %.
TEST(WaferTemplate, BoundsKeepAWaferPhysicalAndItsGridFinite) {
  const auto issue_at = [](const hw::Wafer& w, const std::string& path) {
    const auto l = hw::wafer_layout(w, h100());
    for (const auto& i : l.issues)
      if (i.path == path) return format_issue(i);
    return std::string();
  };
  hw::Wafer w = dram_wafer();
  w.usable_area_mm2 = 1e6;  // 1000 x 1000 mm: no wafer is that large
  EXPECT_NE(issue_at(w, "/wafer/usable_area_mm2").find("70685.8"), std::string::npos)
      << issue_at(w, "/wafer/usable_area_mm2");
  w.usable_area_mm2 = hw::kMaxUsableAreaMm2;  // the whole 300 mm wafer is allowed
  EXPECT_EQ(issue_at(w, "/wafer/usable_area_mm2"), "");
  // 2 x 2 mm dies over the whole wafer: 132 x 132 = 17,424 automatic dies.
  w = dram_wafer();
  w.usable_area_mm2 = hw::kMaxUsableAreaMm2;
  w.die_width_mm = w.die_height_mm = 2;
  w.dram = hw::WaferDram::none;
  w.dies_x = w.dies_y = 0;
  EXPECT_NE(issue_at(w, "/wafer/dies_x").find("at most 1024 dies"), std::string::npos);
  w.die_width_mm = w.die_height_mm = 1e-6;  // 2.7e8 per side: no int overflow on the way
  EXPECT_NE(issue_at(w, "/wafer/dies_x").find("at most 1024 dies"), std::string::npos);
  w = dram_wafer();
  w.dies_x = 1024;
  w.dies_y = 2;  // each side in range, together over 1024
  EXPECT_NE(issue_at(w, "/wafer/dies_y").find("2048 dies"), std::string::npos);
  for (const auto& [key, value] :
       {std::pair{"cooling_W_per_mm2", 1e-300}, std::pair{"cooling_W_per_mm2", 11.0},
        std::pair{"power_limit_W_per_die", 0.5}, std::pair{"power_limit_W_per_die", 1e5}}) {
    w = dram_wafer();
    (std::string(key) == "cooling_W_per_mm2" ? w.cooling_W_per_mm2 : w.power_limit_W_per_die) =
        value;
    EXPECT_NE(issue_at(w, std::string("/wafer/") + key).find("out of range"), std::string::npos)
        << key << " = " << value;
  }
  // exp(-8.58 x 100) per die: no die works.
  w = dram_wafer();
  w.defect_density_per_cm2 = 100;
  EXPECT_NE(issue_at(w, "/wafer/defect_density_per_cm2").find("almost no die of this size works"),
            std::string::npos);
  w.defect_density_per_cm2 = 8.1;  // exp(-8.58 x 8.1) = 0.096 %
  EXPECT_NE(issue_at(w, "/wafer/defect_density_per_cm2"), "");
  w.defect_density_per_cm2 = 0.1;  // 42 % per die: allowed, the wafer yield is reported
  EXPECT_EQ(issue_at(w, "/wafer/defect_density_per_cm2"), "");
}

TEST(WaferTemplate, AutomaticGridTradesDiesForEdgeDram) {
  hw::Wafer w = dram_wafer();
  w.dies_x = 0;
  w.dies_y = 0;
  // Rows: floor(215 / 33) = 6. Columns: floor(215 / (26 + 5.04 GB / 33)).
  const std::pair<double, int> cases[] = {{0.0, 8}, {16, 7}, {48, 6}, {96, 5}, {144, 4}};
  for (auto [gb, cols] : cases) {
    w.dram_GB = gb > 0 ? gb : 1e-9;
    const auto l = hw::wafer_layout(w, h100());
    ASSERT_TRUE(l.issues.empty()) << gb << ": " << format_issues(l.issues);
    EXPECT_EQ(l.dies_y, 6) << gb;
    EXPECT_EQ(l.dies_x, cols) << gb;
    EXPECT_LE(l.grid_mm2, w.usable_area_mm2);
  }
}

TEST(WaferTemplate, DieHardwareIsIdempotentAndYieldIsBinomial) {
  const hw::Wafer w = dram_wafer();
  const hw::Hardware once = hw::die_hardware(w, h100());
  EXPECT_EQ(io::hardware_to_json(hw::die_hardware(w, once)), io::hardware_to_json(once));
  // Poisson die yield exp(-8.58 cm² x 0.1) and the binomial tail with spares.
  const auto l = hw::wafer_layout(w, h100());
  EXPECT_NEAR(l.die_yield, std::exp(-0.858), 1e-12);
  EXPECT_NEAR(l.wafer_yield, std::pow(std::exp(-0.858), 20), 1e-15);
  EXPECT_NEAR(hw::wafer_yield(3, 1, 0.9), 0.729 + 3 * 0.1 * 0.81, 1e-12);
  EXPECT_NEAR(hw::wafer_yield(3, 3, 0.2), 1.0, 1e-12);
  EXPECT_LT(hw::wafer_yield(84, 2, 0.99), hw::wafer_yield(84, 4, 0.99));
}

TEST(WaferPlacement, RegionsAreDisjointRectanglesAndSparesStayFree) {
  hw::Wafer w = dram_wafer();
  w.spare_dies = 2;
  const auto l = hw::wafer_layout(w, h100());
  ASSERT_TRUE(l.issues.empty());
  PlacementRequest q{2, 4, 3, 2, PlacementOrder::interleaved};
  const auto p = place(l, q);
  ASSERT_TRUE(p.ok) << p.reason;
  ASSERT_EQ(p.regions.size(), 5u);
  std::vector<int> count(5, 0);
  for (std::size_t d = 0; d < p.die_owner.size(); ++d) {
    if (static_cast<int>(d) >= l.usable_dies) {
      EXPECT_EQ(p.die_owner[d], -2) << d;
    }
    if (p.die_owner[d] >= 0) ++count[static_cast<std::size_t>(p.die_owner[d])];
  }
  for (int i = 0; i < 5; ++i) {
    const Region& r = p.regions[static_cast<std::size_t>(i)];
    EXPECT_EQ(count[static_cast<std::size_t>(i)], r.dies());
    EXPECT_EQ(r.dies(), i < 2 ? 4 : 2);
    EXPECT_LE(r.x + r.w, 5);
    EXPECT_LE(r.y + r.h, 4);
    for (int k = 0; k < r.dies(); ++k)
      EXPECT_EQ(p.die_owner[static_cast<std::size_t>(die_of(r, k, 5))], i);
  }
  // Too much to place: the reason names the instance.
  const auto full = place(l, PlacementRequest{3, 4, 3, 4, PlacementOrder::clustered});
  EXPECT_FALSE(full.ok);
  EXPECT_NE(full.reason.find("finds no free rectangle on the 5 x 4 grid (18 usable dies)"),
            std::string::npos)
      << full.reason;
}

TEST(WaferD2d, LoneTransferCostsWhatTheNetworkModelCharges) {
  const hw::Wafer w = dram_wafer();
  const auto l = hw::wafer_layout(w, h100());
  const hw::System s = hw::wafer_system(w, l);
  D2dLinks links(s);
  network::NetworkModel net(s);
  // Die 0 (0,0) to die 19 (4,3): 4 + 3 = 7 hops.
  for (auto [a, b] : {std::pair{0, 19}, std::pair{7, 8}, std::pair{16, 3}}) {
    const double bytes = 64e6;
    const network::Flow f{a, b, bytes};
    const auto t = links.cost(std::span(&f, 1));
    const int ranks[2] = {a, b};
    network::CollectiveRequest r;
    r.op = network::Collective::point_to_point;
    r.bytes = bytes;
    r.ranks = ranks;
    EXPECT_NEAR(t.time_s, net.cost(r).time_s, 1e-12) << a << "->" << b;
    EXPECT_EQ(t.max_hops, hops(a, b, 5));
    // Energy: every hop's link energy (0.3 pJ/bit).
    EXPECT_NEAR(t.energy_J, bytes * 8 * 0.3e-12 * hops(a, b, 5), 1e-12);
  }
  EXPECT_EQ(hops(0, 19, 5), 7);
}

TEST(WaferD2d, SharedLinksQueueDisjointPathsOverlapAndTheMakespanMatchesFlowSim) {
  const hw::Wafer w = dram_wafer();
  const hw::System s = hw::wafer_system(w, hw::wafer_layout(w, h100()));
  D2dLinks links(s);
  const double bytes = 400e6;  // bandwidth-bound: 100 us per link at 4.05 TB/s
  // 0 -> 2 and 1 -> 3 share link 1 -> 2 (X first).
  const network::Flow a{0, 2, bytes}, b{1, 3, bytes};
  const auto ta = links.transfer(std::span(&a, 1), 0.0);
  const auto tb = links.transfer(std::span(&b, 1), 0.0);
  EXPECT_DOUBLE_EQ(ta.start_s, 0.0);
  EXPECT_DOUBLE_EQ(tb.start_s, ta.time_s);  // waits for the shared link
  // A transfer on a disjoint path (row 2) starts at once.
  const network::Flow c{10, 12, bytes};
  EXPECT_DOUBLE_EQ(links.transfer(std::span(&c, 1), 0.0).start_s, 0.0);
  // The reference: both flows at once, max-min sharing the middle link.
  network::Schedule sched;
  sched.op = network::Collective::point_to_point;
  network::Step step;
  step.alpha_s = w.d2d_message_latency_us * 1e-6;
  step.flows = {a, b};
  sched.steps = {step};
  const auto ref = network::simulate(links.topology(), sched);
  const double ours = tb.start_s + tb.time_s;
  // Reservations pay the message and path latency (alpha + 2 hops) once more than max-min
  // sharing does; the bytes cross the shared link once each in both.
  const double extra = step.alpha_s + 2 * w.d2d_hop_latency_ns * 1e-9;
  EXPECT_GE(ours, ref.time_s - 1e-12);
  EXPECT_LE(ours, ref.time_s + extra + 1e-12);
  EXPECT_GT(ours, 1.9 * bytes / (4500e9 * 0.9));
  // Loads: the shared link carried both.
  double most = 0;
  for (const double x : links.link_bytes()) most = std::max(most, x);
  EXPECT_DOUBLE_EQ(most, 2 * bytes);
}

// Llama-3-8B in FP8 on a small DRAM wafer: every die holds the model, so partitions are free to
// take any size.
perf::Design small_wafer(int dies_x, int dies_y) {
  perf::Design d = presets().project("default");
  d.hardware = h100();
  d.model = presets().model("llama-3-8b");
  d.runtime = presets().runtime("modern-gpu-2025");
  d.workload.numerics = {Precision::fp8, Precision::fp8, Precision::fp8};
  d.workload.batch = 1;
  d.workload.batch_auto = false;
  hw::Wafer w = dram_wafer();
  w.dies_x = dies_x;
  w.dies_y = dies_y;
  d.wafer = w;
  hw::apply_wafer(w, d.hardware, d.system);
  d.parallel = {};
  d.parallel.tp = 1;
  d.parallel.dp = dies_x * dies_y;
  return d;
}

serving::ServingSpec spec_with_slo(double ttft, double tpot) {
  serving::ServingSpec s;
  s.slo.ttft_s = ttft;
  s.slo.tpot_s = tpot;
  return s;
}

std::vector<serving::Request> stream(double rate, int input, int output, std::size_t n) {
  serving::GeneratorSpec g;
  g.arrivals.rate_per_s = rate;
  g.input = serving::ServingSpec::fixed_length(input);
  g.output = serving::ServingSpec::fixed_length(output);
  g.requests = n;
  g.seed = 7;
  return serving::generate(g);
}

TEST(WaferServing, DeployedTransfersFollowTheReshardRoutesHopByHop) {
  const perf::Design d = small_wafer(4, 2);
  ASSERT_TRUE(perf::validate(d).empty()) << format_issues(perf::validate(d));
  Partition p;
  p.prefill = 1;
  p.decode = 1;
  p.prefill_pool.tp = 2;
  p.decode_pool.tp = 2;
  p.order = PlacementOrder::clustered;
  p.kv_borrow = false;
  auto wd = deploy(d, spec_with_slo(0, 0), p);
  ASSERT_EQ(wd.deployment.instances.size(), 2u);
  const Region rp = wd.placement.regions[0], rd = wd.placement.regions[1];
  // The transfer of 1000 tokens equals the idle-mesh cost of the routes between the regions.
  const double kv = wd.deployment.instances[0].kv_bytes_per_token;
  const auto routes = serving::kv_reshard_routes(serving::pool_design(d, p.prefill_pool),
                                                 serving::pool_design(d, p.decode_pool));
  std::vector<network::Flow> flows;
  for (const auto& r : routes)
    flows.push_back({die_of(rp, r.from, 4), die_of(rd, r.to, 4), r.bytes_per_token * 1000});
  D2dLinks idle(d.system);
  const auto expect = idle.cost(flows);
  const auto got = wd.deployment.options.kv_transfer(0, 1, kv * 1000, 0.0);
  EXPECT_NEAR(got.time_s, expect.time_s, 1e-15);
  EXPECT_NEAR(got.bytes, kv * 1000, kv * 1e-9);
  EXPECT_GT(expect.max_hops, 0);
  // A second transfer asked at once queues behind the first on the same links.
  const auto again = wd.deployment.options.kv_transfer(0, 1, kv * 1000, 0.0);
  EXPECT_DOUBLE_EQ(again.start_s, got.time_s);
}

TEST(WaferServing, IdleNeighboursLendKvMemoryAtTheirLinkRate) {
  perf::Design d = small_wafer(4, 2);
  // D2D links slower than the DRAM (200 GB/s x 0.9 < 900 GB/s), so remote KV costs time.
  d.wafer->d2d_GBps = 200;
  hw::apply_wafer(*d.wafer, d.hardware, d.system);
  Partition p;
  p.prefill = 1;
  p.decode = 1;
  // First fit, column-major: P at (0,0), D at (0,1); the idle die beside D is (1,1).
  p.order = PlacementOrder::clustered;
  p.kv_borrow = false;
  const auto plain = deploy(d, spec_with_slo(0, 0), p);
  p.kv_borrow = true;
  const auto lent = deploy(d, spec_with_slo(0, 0), p);
  ASSERT_EQ(lent.placement.regions[1], (Region{0, 1, 1, 1}));
  const auto& a = plain.deployment.instances[1];
  const auto& b = lent.deployment.instances[1];
  ASSERT_GT(lent.borrowed_blocks[1], 0);
  EXPECT_EQ(b.kv_blocks, a.kv_blocks + lent.borrowed_blocks[1]);
  ASSERT_EQ(lent.lender_of[5], 1);  // die (1,1)
  int lenders = 0;
  for (const int x : lent.lender_of) lenders += x >= 0;
  EXPECT_EQ(lenders, 1);
  // The lender's whole memory, less the runtime's reserve, at the KV fraction.
  const double lend =
      hw::memory_capacity_bytes(d.hardware.memory) -
      (d.runtime.memory_reserved_GiB + d.hardware.runtime_reserved_GiB) * 1073741824.0;
  EXPECT_EQ(lent.borrowed_blocks[1],
            static_cast<long long>(std::floor(lend * b.scheduler.kv_cache_fraction /
                                              b.kv_bytes_per_token / b.scheduler.block_size)));
  // Within the own blocks the cost is unchanged; beyond them the excess is read at the
  // lender's link rate instead of the own DRAM's.
  const perf::SequenceChunk small[] = {{1, 1000, true}};
  EXPECT_DOUBLE_EQ(b.cost(small).time_s, a.cost(small).time_s);
  std::vector<perf::SequenceChunk> big(64, perf::SequenceChunk{1, 0, true});
  const double own = static_cast<double>(a.kv_blocks) * a.scheduler.block_size;
  for (auto& s : big) s.context = static_cast<int>(own / 64 * 1.5);
  double context = 0;
  for (const auto& s : big) context += s.context + 1;
  const double excess = (context - own) * b.kv_bytes_per_token;
  EXPECT_NEAR(b.cost(big).time_s - a.cost(big).time_s, excess / 180e9 - excess / 900e9, 1e-9);
  EXPECT_NEAR(b.cost(big).energy_J - a.cost(big).energy_J, excess * 8 * 0.3e-12, 1e-9);
}

TEST(WaferScheduler, ScreeningOnTheWholeStreamFindsTheBruteForceOptimum) {
  const perf::Design d = small_wafer(3, 1);
  const auto reqs = stream(40, 512, 64, 150);
  const auto spec = spec_with_slo(0.25, 0.02);
  SchedulerOptions o;
  o.screen_requests = reqs.size();
  o.maximal_only = false;
  o.threads = 1;
  const auto choice = choose_partition(d, spec, reqs, o);
  ASSERT_TRUE(choice.best.feasible) << choice.best.reason;
  // Brute force over every partition of 3 dies (sizes 1 and 2, both orders).
  Candidate best;
  int n = 0;
  for (int kp : {1, 2})
    for (int kd : {1, 2})
      for (int np = 1; np * kp + kd <= 3; ++np)
        for (int nd = 1; np * kp + nd * kd <= 3; ++nd)
          for (auto order : {PlacementOrder::interleaved, PlacementOrder::clustered}) {
            Partition p;
            p.prefill = np;
            p.decode = nd;
            p.prefill_pool.tp = kp;
            p.prefill_pool.pp = 1;
            p.decode_pool.tp = kd;
            p.decode_pool.pp = 1;
            p.order = order;
            const auto c = evaluate_partition(d, spec, p, reqs);
            ++n;
            if (n == 1 || better(c, best)) best = c;
          }
  EXPECT_EQ(static_cast<int>(choice.screened.size()), n);
  EXPECT_EQ(choice.best.text, best.text);
  EXPECT_DOUBLE_EQ(choice.best.goodput_rps, best.goodput_rps);
}

TEST(WaferScheduler, PrefillHeavyAndDecodeHeavyStreamsGetTheirKnownSplits) {
  const perf::Design d = small_wafer(4, 1);
  SchedulerOptions o;
  o.maximal_only = true;
  o.threads = 1;
  o.sizes = {1};
  // Long prompts, one output token: prefill is the work; decodes are trivial. TTFT SLO binds.
  {
    const auto reqs = stream(12, 6000, 2, 200);
    const auto c = choose_partition(d, spec_with_slo(1.0, 1.0), reqs, o);
    ASSERT_TRUE(c.best.feasible);
    EXPECT_EQ(c.best.partition.prefill, 3) << c.best.text;
    EXPECT_EQ(c.best.partition.decode, 1) << c.best.text;
  }
  // Short prompts, long outputs at a tight TPOT: decode is the work.
  {
    const auto reqs = stream(12, 32, 1500, 200);
    const auto c = choose_partition(d, spec_with_slo(5.0, 0.05), reqs, o);
    ASSERT_TRUE(c.best.feasible);
    EXPECT_GE(c.best.partition.decode, 2) << c.best.text;
    EXPECT_GT(c.best.partition.decode, c.best.partition.prefill) << c.best.text;
  }
}

TEST(WaferScheduler, MoreDiesNeverLowerGoodputAtFixedLoad) {
  const auto reqs = stream(30, 1024, 128, 240);
  const auto spec = spec_with_slo(0.5, 0.03);
  SchedulerOptions o;
  o.screen_requests = reqs.size();
  o.maximal_only = false;
  o.threads = 1;
  o.sizes = {1, 2};
  double last = -1;
  for (int x : {2, 3, 4, 5}) {
    const auto c = choose_partition(small_wafer(x, 1), spec, reqs, o);
    ASSERT_TRUE(c.best.feasible) << x;
    EXPECT_GE(c.best.goodput_rps, last - 1e-12) << x << " dies: " << c.best.text;
    last = c.best.goodput_rps;
  }
  EXPECT_GT(last, 0);
}

TEST(WaferScheduler, DeterministicForAGivenInput) {
  const perf::Design d = small_wafer(4, 2);
  const auto reqs = stream(20, 800, 100, 200);
  const auto spec = spec_with_slo(0.5, 0.05);
  SchedulerOptions o;
  o.screen_requests = 120;  // 4 windows of 30, then the finalists on all 200
  o.exhaustive_budget = 0;
  o.threads = 2;
  const auto a = choose_partition(d, spec, reqs, o);
  const auto b = choose_partition(d, spec, reqs, o);
  ASSERT_EQ(a.screened.size(), b.screened.size());
  for (std::size_t i = 0; i < a.screened.size(); ++i) {
    EXPECT_EQ(a.screened[i].text, b.screened[i].text);
    EXPECT_EQ(a.screened[i].goodput_rps, b.screened[i].goodput_rps);
    EXPECT_EQ(a.screened[i].ttft_p90_s, b.screened[i].ttft_p90_s);
  }
  EXPECT_EQ(a.best.text, b.best.text);
  EXPECT_FALSE(a.exhaustive);
  ASSERT_FALSE(a.finals.empty());
  EXPECT_EQ(a.finals.front().requests, reqs.size());
  EXPECT_EQ(a.screened.front().requests, 120u);
}

TEST(WaferServing, RefusesPartitionsThatDoNotFit) {
  const perf::Design d = small_wafer(2, 1);
  Partition p;
  p.prefill = 2;
  p.decode = 1;
  EXPECT_THROW(deploy(d, spec_with_slo(0, 0), p), std::invalid_argument);
  perf::Design gpu = d;
  gpu.wafer.reset();
  EXPECT_THROW(deploy(gpu, spec_with_slo(0, 0), p), std::invalid_argument);
}

}  // namespace
}  // namespace stackscope::wafer
