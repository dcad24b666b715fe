// SPDX-License-Identifier: GPL-3.0-or-later
// The single-design evaluator (docs/model.md §3-§8, §13). See evaluator.hpp for the contract. The
// operator blocks it composes live in evaluator_blocks.cpp (evaluator_detail.hpp).
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/expert_placement.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "evaluator_detail.hpp"
#include "stackscope/common/units.hpp"
#include "stackscope/compute/roofline.hpp"
#include "stackscope/hw/stack_layers.hpp"
#include "stackscope/kernels/table.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/network/flow_sim.hpp"
#include "stackscope/network/model.hpp"
#include "stackscope/parallel/placement.hpp"
#include "stackscope/parallel/sharding.hpp"
#include "stackscope/perf/limits.hpp"
#include "stackscope/power_area/area.hpp"
#include "stackscope/power_area/energy.hpp"
#include "stackscope/thermal/compact.hpp"

namespace stackscope::perf {

using namespace detail;

namespace {

// DRAM refreshes twice as often above memory::kRefreshDoublingC (85 C); above 95 C the design
// is infeasible (docs/model.md §14.3).
using memory::kDramLimitC;
using memory::kRefreshDoublingC;
// The power cap is met to within this fraction; a few secant steps reach it.
constexpr double kCapTolerance = 0.005;
constexpr int kCapIterations = 8;

struct PhaseBlocks {
  Block prefill, decode;
  double prefill_passes = 1, decode_passes = 1;
};

// Where one decode step's power goes (docs/model.md §13.1), from the phase's bytes and the energy
// rates the evaluation used; the logic-die dynamic part is the residual (FLOPs, SRAM staging).
PowerSummary power_summary(const Design& d, const Result& r, const power_area::EnergyRates& e) {
  PowerSummary p;
  const auto& mem = d.hardware.memory;
  const double t = r.decode.time_s;
  if (!(t > 0)) return p;
  constexpr double kBits = 8.0;
  p.total_W = r.decode.energy_J / t;
  const double bytes_per_s = r.decode.dram_bytes / t;
  const bool stacked = mem.kind == hw::MemoryKind::stacked_3d;
  if (mem.kind != hw::MemoryKind::sram_only) {
    p.dram_access_W = bytes_per_s * kBits * mem.energy_pJ_per_bit * units::kPico;
  }
  p.noc_W =
      compute::byte_hops(compute::mesh_rates(d.hardware), r.decode.noc) * e.noc_J_per_byte_hop / t;
  if (stacked) {
    p.vertical_W = bytes_per_s * kBits * mem.vertical.energy_pJ_per_bit * units::kPico;
    p.dram_layers = std::max(0, hw::stack_layer_count(mem));
    p.connected_layers = std::clamp(hw::stack_connected_count(mem), 0, p.dram_layers);
    if (!hw::connected_at_bottom(mem))
      for (int k = 0; k < p.dram_layers; ++k)
        p.die_connected.push_back(hw::layer_connected(mem, k));
  }
  const double static_W = std::min(e.static_W, p.total_W);
  p.dram_background_W = stacked && p.dram_layers > 0 ? kDramBackgroundShare * static_W : 0.0;
  p.logic_static_W = static_W - p.dram_background_W;
  p.logic_dynamic_W =
      std::max(0.0, p.total_W - p.dram_access_W - p.vertical_W - p.noc_W - static_W);
  return p;
}

Result evaluate_at(const Design& d, int batch, const Operating& op, NetState* net,
                   PhaseBlocks* blocks = nullptr) {
  Result r;
  r.batch = batch;
  r.clock_scale = op.clock;
  r.thermal.throttle = op.memory;
  r.memory = memory_footprint(d, batch);
  const Ctx c = make_ctx(d, op, net);
  // The prefill runs at its own clock (docs/model.md §13.2: each phase meets the cap alone).
  std::optional<Ctx> own_pre;
  if (op.prefill_clock != op.clock) {
    Operating at = op;
    at.clock = op.prefill_clock;
    own_pre.emplace(make_ctx(d, at, net));
  }
  const Ctx& cpre = own_pre ? *own_pre : c;
  const auto& w = d.workload;
  const double dp = std::max(1, d.parallel.dp);
  const int m = micro_batches(d, batch);
  const double mb = std::ceil(static_cast<double>(batch) / m);

  // Prefill: the static batch in m micro-batches through pp stages: (m + pp - 1) passes.
  const Block pre = slowest_stage(cpre, mb, w.input_len, w.input_len);
  const double pre_passes = m + c.pp - 1.0;
  r.prefill = to_phase(pre, pre_passes, cpre.energy.static_W);
  r.prefill.clock_scale = op.prefill_clock;
  r.prefill.kernels = cpre.table_kernels;
  r.prefill.measured_kernels = cpre.measured_kernels;
  const int kernels_before = c.table_kernels, measured_before = c.measured_kernels;

  // Decode at the mean context of the decode span; each request gets a token every
  // max(m, pp) stage passes (DeepStack: UTPS = 1 / (t_step * PP)).
  const double ctx_len = w.input_len + w.output_len / 2.0;
  const Block dec = slowest_stage(c, mb, 1.0, ctx_len);
  const double dec_passes = std::max<double>(m, c.pp);
  r.decode = to_phase(dec, dec_passes, c.energy.static_W);
  r.decode.clock_scale = op.clock;
  r.decode.kernels = c.table_kernels - kernels_before;
  r.decode.measured_kernels = c.measured_kernels - measured_before;
  if (blocks) *blocks = {pre, dec, pre_passes, dec_passes};

  for (PhaseBreakdown* p : {&r.prefill, &r.decode})
    p->power_W = p->time_s > 0 ? p->energy_J / p->time_s : 0.0;
  auto& mt = r.metrics;
  mt.ttft_s = r.prefill.time_s;
  mt.tpot_s = r.decode.time_s;
  mt.utps = mt.tpot_s > 0 ? 1.0 / mt.tpot_s : 0.0;
  mt.stps = mt.tpot_s > 0 ? batch * dp / mt.tpot_s : 0.0;
  const double steps = std::max(0, w.output_len - 1);
  const double total_s = r.prefill.time_s + steps * r.decode.time_s;
  const double tokens = static_cast<double>(batch) * w.output_len * dp;
  mt.e2e_output_tokens_per_s = total_s > 0 ? tokens / total_s : 0.0;
  const double devices = parallel::devices(d.parallel);
  const double energy_dev = r.prefill.energy_J + steps * r.decode.energy_J;
  mt.energy_per_token_j = tokens > 0 ? energy_dev * devices / tokens : 0.0;
  const double prompt_tokens = static_cast<double>(batch) * w.input_len * dp;
  mt.prefill_energy_per_token_j =
      prompt_tokens > 0 ? r.prefill.energy_J * devices / prompt_tokens : 0.0;
  const double step_tokens = static_cast<double>(batch) * dp;
  mt.decode_energy_per_token_j = step_tokens > 0 ? r.decode.energy_J * devices / step_tokens : 0.0;
  mt.power_w = total_s > 0 ? energy_dev / total_s : 0.0;
  mt.memory_bytes_per_device = r.memory.total();

  const auto a = power_area::area(d.hardware);
  r.power = power_summary(d, r, c.energy);

  // Compact thermal model (docs/model.md §14.2): peak DRAM temperature from the device power.
  if (d.hardware.memory.kind == hw::MemoryKind::stacked_3d) {
    const auto rc = thermal::compact_resistances(d.hardware.thermal, a.die_mm2);
    const auto& mem = d.hardware.memory;
    const double layers = hw::stack_layer_count(mem);
    r.thermal.modelled = true;
    r.thermal.r_base_K_per_W = rc.r_base_K_per_W;
    r.thermal.r_layer_K_per_W = rc.r_layer_K_per_W;
    // Steady state = the decode phase (output_len - 1 of a request's steps; the thermal time
    // constant of a package is seconds), the same power the grid map (thermal_map) uses.
    r.thermal.dram_peak_C = d.hardware.thermal.ambient_C +
                            r.power.total_W * (rc.r_base_K_per_W + rc.r_layer_K_per_W * layers);
    if (!hw::uniform_thickness(mem))
      r.thermal.dram_peak_C +=
          r.power.total_W * thermal::dram_thickness_resistance_K_per_W(mem, a.die_mm2);
    r.thermal.refresh_doubled = op.dram_C > kRefreshDoublingC;
  }

  r.area = {a.cores_mm2, a.shared_sram_mm2, a.noc_mm2, a.phy_mm2,    a.vertical_mm2,
            a.other_mm2, a.used_mm2(),      a.die_mm2, a.reticle_mm2};

  r.reasons = kOk;
  if (r.memory.total() > r.memory.capacity) r.reasons |= kMemoryCapacity;
  if (std::max(r.prefill.power_W, r.decode.power_W) >
      d.hardware.energy.tdp_W * (1.0 + kCapTolerance))
    r.reasons |= kPowerOverTdp;
  if (!a.fits_die()) r.reasons |= kAreaOverDie;
  if (!a.fits_reticle()) r.reasons |= kDieOverReticle;
  if (r.thermal.modelled && r.thermal.dram_peak_C > kDramLimitC) r.reasons |= kDramTooHot;
  r.feasible = (r.reasons & (kMemoryCapacity | kAreaOverDie | kDieOverReticle | kDramTooHot)) == 0;
  return r;
}

int batch_of(const Design& d) {
  return d.workload.batch_auto ? max_batch_that_fits(d) : d.workload.batch;
}

// Thermal throttle (docs/model.md §14.3, "power-limited clock from the temperature limit"): the
// smallest slow-down t in (0, 1] of both the logic clock and the DRAM command rate that keeps the
// compact DRAM peak at or below 95 C. Power falls monotonically with t, so the root of
// T(t) = limit is bracketed by [t_lo, 1] and found by the Illinois false-position method;
// the accepted point lies in [limit - kThrottleBandC, limit]. Returns false when even the
// lowest rate is too hot (static power alone): the design is then infeasible.
constexpr double kThrottleBandC = 0.5;
constexpr double kThrottleMin = 1.0 / 64;
constexpr int kThrottleIterations = 24;

bool throttle_to_limit(const Design& d, int batch, const Operating& capped, NetState* net,
                       PhaseBlocks* blocks, Result& r) {
  // Held at the limit, DRAM is above 85 C: refresh is doubled at every throttled point.
  auto at = [&](double t) {
    return evaluate_at(d, batch, {capped.clock * t, t, kDramLimitC, capped.prefill_clock * t}, net,
                       blocks);
  };
  const double target = kDramLimitC - 0.5 * kThrottleBandC;
  double lo = kThrottleMin, hi = 1.0;
  Result rlo = at(lo);
  if (rlo.thermal.dram_peak_C > kDramLimitC) return false;
  if (rlo.thermal.dram_peak_C >= kDramLimitC - kThrottleBandC) {
    r = rlo;
    return true;
  }
  double flo = rlo.thermal.dram_peak_C - target, fhi = r.thermal.dram_peak_C - target;
  int side = 0;
  Result best = rlo;  // the fastest iterate at or below the limit
  double best_t = lo;
  for (int i = 0; i < kThrottleIterations; ++i) {
    const double t = std::clamp((lo * fhi - hi * flo) / (fhi - flo), lo, hi);
    Result rt = at(t);
    const double T = rt.thermal.dram_peak_C, f = T - target;
    if (T <= kDramLimitC && t > best_t) {
      best = rt;
      best_t = t;
    }
    if (std::abs(f) <= 0.5 * kThrottleBandC) break;
    if (f > 0) {
      hi = t;
      fhi = f;
      if (side == 1) flo *= 0.5;
      side = 1;
    } else {
      lo = t;
      flo = f;
      if (side == -1) fhi *= 0.5;
      side = -1;
    }
  }
  r = best;
  return true;
}

// Power cap per phase (docs/model.md §13.2). `r` is the evaluation at the top clock; on return
// it is the evaluation at the returned clocks. Each capped phase's clock is found by the secant
// method on its power-versus-clock curve, starting from the cubic law's guess; a phase still
// above the cap at the lowest DVFS clock stays there (reported as over the TDP).
Operating cap_clocks(const Design& d, int batch, NetState* net, PhaseBlocks* blocks, Result& r) {
  Operating op;
  const double cap = d.hardware.energy.tdp_W;
  const double lowest = std::clamp(d.hardware.energy.dvfs_min_clock, 1e-3, 1.0);
  struct Track {
    double s0 = 1, p0 = 0, s1 = 1, p1 = 0;
    bool on = false;
  } pre, dec;
  const auto start = [&](Track& t, double p) { t = {1, p, 1, p, p > cap * (1.0 + kCapTolerance)}; };
  start(pre, r.prefill.power_W);
  start(dec, r.decode.power_W);
  if (!pre.on && !dec.on) return op;
  const auto done = [&](const Track& t) {
    return !t.on || std::abs(t.p1 - cap) <= kCapTolerance * cap || (t.s1 <= lowest && t.p1 > cap);
  };
  for (int i = 0; i < kCapIterations && !(done(pre) && done(dec)); ++i) {
    const auto next = [&](const Track& t) {
      return done(t) ? t.s1 : power_area::capped_clock_step(t.s0, t.p0, t.s1, t.p1, cap, lowest);
    };
    op.prefill_clock = pre.on ? next(pre) : 1.0;
    op.clock = dec.on ? next(dec) : 1.0;
    r = evaluate_at(d, batch, op, net, blocks);
    const auto update = [](Track& t, double s, double p) {
      if (!t.on || s == t.s1) return;
      t.s0 = t.s1;
      t.p0 = t.p1;
      t.s1 = s;
      t.p1 = p;
    };
    update(pre, op.prefill_clock, r.prefill.power_W);
    update(dec, op.clock, r.decode.power_W);
  }
  return op;
}

// `used`: the operating point of the returned result (the iteration model runs at it).
Result evaluate_with(const Design& d, NetState* net, PhaseBlocks* blocks = nullptr,
                     Operating* used = nullptr) {
  const int batch = batch_of(d);
  if (used) *used = {};
  if (batch == 0) {
    Result r = evaluate_at(d, 1, {}, net, blocks);
    r.batch = 0;
    r.feasible = false;
    r.reasons |= kZeroBatch | kMemoryCapacity;
    return r;
  }
  Result r = evaluate_at(d, batch, {}, net, blocks);
  // Power cap (docs/model.md §13.2): a phase drawing more than the TDP at the top clock runs at
  // the clock where it meets it, found on the phase's own power-versus-clock curve (re-evaluated
  // at each trial clock: compute-bound work slows, memory-bound work does not).
  Operating op = cap_clocks(d, batch, net, blocks, r);
  const bool throttled = op.clock < 1.0 || op.prefill_clock < 1.0;
  // Thermal coupling (docs/model.md §14.3): DRAM above 85 C refreshes twice as often, which lowers
  // its bandwidth; re-evaluate once at the hot refresh rate.
  if (r.thermal.modelled && r.thermal.dram_peak_C > kRefreshDoublingC) {
    op.dram_C = r.thermal.dram_peak_C;
    r = evaluate_at(d, batch, op, net, blocks);
  }
  // Above 95 C: throttle down to the limit, or report the design too hot.
  if (r.thermal.modelled && r.thermal.dram_peak_C > kDramLimitC && d.hardware.thermal.throttle) {
    Result held = r;
    if (throttle_to_limit(d, batch, op, net, blocks, held)) {
      r = held;
      r.reasons |= kThermalThrottled;
      const double t = r.thermal.throttle;
      op = {op.clock * t, t, kDramLimitC, op.prefill_clock * t};  // throttle_to_limit's point
    }
  }
  if (throttled) r.reasons |= kPowerOverTdp;
  if (used) *used = op;
  return r;
}

}  // namespace

Operating detail::operating_point(const Design& d, NetState* net) {
  Operating op;
  (void)evaluate_with(d, net, nullptr, &op);
  return op;
}

MemoryFootprint memory_footprint(const Design& d, int batch) noexcept {
  MemoryFootprint f;
  const auto& m = d.model;
  const auto& w = d.workload;
  const auto& nm = w.numerics;
  const parallel::Placement place(d.parallel);
  const int pp = std::max(1, d.parallel.pp);
  const int tp_a = place.attention_tp(), tp_f = place.ffn_tp();
  const int tp_m = place.moe_tp();
  const int stage = place.stage_devices();
  const auto p = parallel::param_counts(m);
  const double wb = bytes_per_element(nm.weights);
  const double eb = std::max(wb, kMinEmbeddingBytes);
  const double ab = std::max(bytes_per_element(nm.activations), kMinCommBytes);
  const double kvb = parallel::kv_bytes_per_token_layer(m, bytes_per_element(nm.kv_cache), tp_a);
  // Sequences whose KV cache one device holds: attention groups of tp_a devices share them.
  const double groups = std::max(1, stage / tp_a);
  const double seqs = std::ceil(static_cast<double>(std::max(0, batch)) / groups);
  const double ctx = static_cast<double>(w.input_len) + w.output_len;
  // Routed-expert weights per device, in whole experts, as the expert placement holds them.
  const double experts_per_dev = experts_per_device(d);

  // The fullest pipeline stage.
  for (int s = 0; s < pp; ++s) {
    const auto st = parallel::stage_layers(m, pp, s);
    const int layers = st.dense + st.moe;
    double weights =
        layers * (p.attention_per_layer / tp_a + p.norms_per_layer) * wb +
        st.dense * p.dense_ffn_per_layer / tp_f * wb +
        st.moe * (p.expert * experts_per_dev + p.shared_per_layer / tp_m + p.router_per_layer) * wb;
    if (st.embedding) weights += p.embedding / tp_a * eb;
    if (st.lm_head) weights += p.lm_head / tp_a * eb;
    // A sliding-window layer holds the window's keys at most (workload::Model::sliding_window).
    const double kv =
        seqs * kvb * ((layers - st.sliding) * ctx + st.sliding * parallel::window_keys(m, ctx));
    if (weights + kv > f.weights + f.kv_cache) {
      f.weights = weights;
      f.kv_cache = kv;
    }
  }
  // Peak prefill activations on one device: hidden states (input, residual, output), the
  // widest intermediate of the FFN/experts, and fp32 logits of the last token per sequence.
  const int mbs = micro_batches(d, std::max(1, batch));
  const int cp = place.degree(parallel::Dim::cp);
  const double tokens = std::ceil(seqs * cp / mbs) * w.input_len / cp;
  double inter = static_cast<double>(m.ffn_dim) / tp_f;
  if (parallel::is_moe(m)) {
    inter = std::max(inter, static_cast<double>(m.moe.expert_ffn_dim) * m.moe.top_k / tp_m);
  }
  f.activations = tokens * (3.0 * m.hidden + 2.0 * inter) * ab +
                  seqs * static_cast<double>(m.vocab) / tp_a * 4.0;
  f.reserved = (d.hardware.runtime_reserved_GiB + d.runtime.memory_reserved_GiB) * units::kGiB;
  f.capacity = capacity_bytes(d.hardware);
  return f;
}

int max_batch_that_fits(const Design& d) noexcept {
  auto fits = [&](int b) {
    const auto f = memory_footprint(d, b);
    return f.total() <= f.capacity;
  };
  if (!fits(1)) return 0;
  int lo = 1, hi = 2;
  constexpr int kMaxBatch = 1 << 24;
  while (hi < kMaxBatch && fits(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi >= kMaxBatch && fits(kMaxBatch)) return kMaxBatch;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

struct Evaluator::Impl {
  NetState net;
};

Evaluator::Evaluator() : impl_(std::make_unique<Impl>()) {}
Evaluator::~Evaluator() = default;
Evaluator::Evaluator(Evaluator&&) noexcept = default;
Evaluator& Evaluator::operator=(Evaluator&&) noexcept = default;

namespace {

// The exception boundary of the evaluator: validate() bounds every size the model allocates
// (limits.hpp), so nothing should throw; if something still does (std::bad_alloc on a machine
// short of memory), the design is reported infeasible with kEvaluationFailed instead of the
// exception escaping a noexcept function (std::terminate) or a search's worker thread.
Result failed_result() noexcept {
  Result r;
  r.feasible = false;
  r.reasons = kEvaluationFailed;
  constexpr double inf = std::numeric_limits<double>::infinity();
  r.metrics.ttft_s = inf;
  r.metrics.tpot_s = inf;
  r.metrics.energy_per_token_j = inf;
  return r;
}

}  // namespace

Result Evaluator::evaluate(const Design& d) {
  try {
    return evaluate_with(d, &impl_->net);
  } catch (const std::exception&) {
    impl_->net = NetState{};  // a half-built network model is not reused
    return failed_result();
  }
}

Result evaluate(const Design& d) noexcept {
  try {
    NetState net;
    return evaluate_with(d, &net);
  } catch (const std::exception&) {
    return failed_result();
  }
}

NetworkReport network_report(const Design& d, bool reference_sim) {
  NetworkReport rep;
  rep.reference_sim = reference_sim;
  NetState net;
  PhaseBlocks blocks;
  const Result r = evaluate_with(d, &net, &blocks);
  if (!net.model || parallel::devices(d.parallel) > limits::kMaxNetworkReportDevices) return rep;
  const auto& topo = net.model->topology();
  const parallel::Placement place(d.parallel);
  const int devices = place.devices();

  const auto& links = topo.links();
  rep.links.resize(links.size());
  for (std::size_t i = 0; i < links.size(); ++i) {
    auto& u = rep.links[i];
    u.from = links[i].src;
    u.to = links[i].dst;
    u.from_name = topo.node_name(links[i].src);
    u.to_name = topo.node_name(links[i].dst);
    u.level = links[i].level;
  }

  // Every group of a kind runs its collectives at the same time: replay each recorded call on
  // every group (the slowest stage's counts stand for all stages).
  auto replay = [&](const Block& block, double passes, bool decode, double* analytic_s,
                    double* reference_s) {
    network::LinkLoads loads;
    loads.bytes.assign(links.size(), 0.0);
    for (int i = 0; i < block.n_calls; ++i) {
      const CommCall& call = block.calls[i];
      const int n = place.group_size(call.kind);
      if (n <= 1) continue;
      std::vector<int> first(static_cast<std::size_t>(n));
      for (int dev = 0; dev < devices; ++dev) {
        place.group(call.kind, dev, first.data());
        if (first[0] != dev && call.kind != GroupKind::pp_next) continue;  // one call per group
        if (call.kind == GroupKind::pp_next &&
            place.coord(dev)[parallel::Dim::pp] == place.degree(parallel::Dim::pp) - 1)
          continue;  // the last stage sends nothing onwards
        network::CollectiveRequest req;
        req.op = call.op;
        req.bytes = call.bytes;
        req.ranks = first;
        net.model->cost(req, &loads, call.count * passes);
      }
      // Representative group: analytic and reference times.
      place.group(call.kind, 0, first.data());
      network::CollectiveRequest req;
      req.op = call.op;
      req.bytes = call.bytes;
      req.ranks = first;
      const auto cost = net.model->cost(req);
      *analytic_s += cost.time_s * call.count * passes;
      if (reference_sim) {
        const auto sched = net.model->schedule(req, cost.algorithm);
        // Switch reductions have no rank-to-rank flows to replay: keep the analytic time.
        const double t = cost.algorithm == network::Algorithm::in_network || sched.steps.empty()
                             ? cost.time_s
                             : network::simulate(topo, sched).time_s;
        *reference_s += t * call.count * passes;
      }
    }
    const double phase_s = decode ? r.decode.time_s : r.prefill.time_s;
    for (std::size_t i = 0; i < links.size(); ++i) {
      const double busy = links[i].bw_Bps > 0 ? loads.bytes[i] / links[i].bw_Bps : 0.0;
      auto& u = rep.links[i];
      if (decode) {
        u.decode_bytes = loads.bytes[i];
        u.decode_utilisation = phase_s > 0 ? std::min(1.0, busy / phase_s) : 0.0;
      } else {
        u.prefill_bytes = loads.bytes[i];
        u.prefill_utilisation = phase_s > 0 ? std::min(1.0, busy / phase_s) : 0.0;
      }
    }
  };
  replay(blocks.decode, blocks.decode_passes, true, &rep.decode_comm_analytic_s,
         &rep.decode_comm_reference_s);
  replay(blocks.prefill, blocks.prefill_passes, false, &rep.prefill_comm_analytic_s,
         &rep.prefill_comm_reference_s);
  if (reference_sim) {
    rep.ttft_reference_s =
        r.metrics.ttft_s - rep.prefill_comm_analytic_s + rep.prefill_comm_reference_s;
    rep.tpot_reference_s =
        r.metrics.tpot_s - rep.decode_comm_analytic_s + rep.decode_comm_reference_s;
  }
  return rep;
}

namespace {
std::string kernel_table_name(const Design& design) {
  const std::string& table = design.hardware.kernel_table;
  return table.empty() ? design.hardware.kernel_times->source : table;
}
}  // namespace

std::string kernel_source_text(const Design& design) {
  if (!design.hardware.kernel_times) return "roofline (no measured kernel table)";
  return "measured: table " + kernel_table_name(design) +
         " for the GEMM and attention shapes it covers, the roofline for the rest";
}

std::string kernel_source_text(const Design& design, const Result& result) {
  if (!design.hardware.kernel_times) return kernel_source_text(design);
  const std::string name = kernel_table_name(design);
  const auto& pre = result.prefill;
  const auto& dec = result.decode;
  if (pre.measured_kernels + dec.measured_kernels == 0)
    return "roofline: table " + name + " covers none of this design's kernels";
  const bool all = pre.measured_kernels == pre.kernels && dec.measured_kernels == dec.kernels;
  return "measured: table " + name + ", decode " + std::to_string(dec.measured_kernels) + " of " +
         std::to_string(dec.kernels) + ", prefill " + std::to_string(pre.measured_kernels) +
         " of " + std::to_string(pre.kernels) + " GEMM/attention kernels" +
         (all ? "" : " (the rest on the roofline)");
}

}  // namespace stackscope::perf
