// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/memory/dram.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <vector>

#include "stackscope/common/units.hpp"
#include "stackscope/hw/stack_layers.hpp"

namespace stackscope::memory {
namespace {

using units::kNano;

double total_channels(const hw::Memory& m) {
  return static_cast<double>(m.stacks) * hw::stack_connected_count(m) * m.channels_per_layer;
}

// Bytes one row activation delivers for the pattern: a whole row for streams, the run length
// for chunked access, one sector for random and row-conflict access (docs/model.md §4.4).
double bytes_per_activation(const hw::Memory& m, const AccessPattern& p) {
  switch (p.kind) {
    case PatternKind::stream:
    case PatternKind::mix: return m.row_bytes;
    case PatternKind::chunk: return std::clamp(p.chunk_bytes, m.sector_bytes, m.row_bytes);
    case PatternKind::random:
    case PatternKind::row_conflict: return m.sector_bytes;
  }
  return m.row_bytes;
}

// The banks a channel interleaves over. hbm: banks_per_channel. stacked_3d: each layer holds
// banks_per_channel banks of every channel, and the layers_total layers share the
// layers_connected vertical links, so floor(T/C) links front `lo` layers and the rest lo + 1
// (the bank-level reference, bank_sim.cpp, simulates the same organisation).
struct LinkKind {
  double layers = 1;  // dies behind the link, each with its own tRRD/tFAW window
  double share = 1;   // fraction of the links of this kind
};

std::array<LinkKind, 2> link_kinds(const hw::Memory& m) {
  if (m.kind != hw::MemoryKind::stacked_3d) return {LinkKind{1, 1}, LinkKind{1, 0}};
  const int total = hw::stack_layer_count(m);
  const int c = std::max(1, hw::stack_connected_count(m));
  const int lo = std::max(1, total / c);
  const double hi_share = std::clamp(static_cast<double>(total - lo * c) / c, 0.0, 1.0);
  return {LinkKind{static_cast<double>(lo), 1.0 - hi_share},
          LinkKind{static_cast<double>(lo + 1), hi_share}};
}

// Row-cycle efficiency of a stream of `bytes`-long runs over `banks` banks: a bank is busy for
// max(tRAS, tRCD + row_read) + tRP per run (JEDEC tRC when tRAS binds) while the data bus is
// busy row_read, so n banks keep the bus full when n x row_read covers a bank's cycle. One
// bank is DeepStack's lock-stepped layer: eta_row = row_read / (row_read + tRP + tRCD), and
// the connectivity rule (recharge hidden while a link fronts >= 2 such layers) follows.
double interleave_eta(const hw::Memory& m, double bytes, double banks) {
  const double t_clk = 1.0 / (m.clock_MHz * units::kMega);
  const double row_read = (bytes / m.sector_bytes) * m.cycles_per_sector * t_clk;
  const double busy = std::max(m.timing.tRAS_ns * kNano, m.timing.tRCD_ns * kNano + row_read) +
                      m.timing.tRP_ns * kNano;
  return std::min(1.0, banks * row_read / busy);
}

double group_rate(double runs, double groups, double ratio, bool sequential);
double runs_in_flight(const hw::Memory& m, double run_bytes);

// Share of a pattern's rows that start in a random bank: all of them for chunks up to a row
// in every channel; 1/n for a chunk that gives a channel n consecutive rows (bank_sim.cpp's
// generator, after the address mapping); none for streams.
double random_row_share(const hw::Memory& m, const AccessPattern& p, double channels) {
  if (p.kind != PatternKind::chunk) return 0.0;
  const double rows_per_channel = std::floor(p.chunk_bytes / (m.row_bytes * channels));
  return rows_per_channel >= 1 ? 1.0 / rows_per_channel : 1.0;
}

// Sequential rows go to consecutive banks (interleave_eta). A row that starts in a random bank
// waits for that bank when another run in flight holds it: with D distinct banks among the
// controller's runs in flight the bus is busy min(1, D x row_read / bank cycle), D from the
// occupancy distribution (group_rate). Only few banks behind a link make this bind (DeepStack's
// one-bank layers sharing a link: two banks, ~2.5 runs in flight).
double connectivity_eta(const hw::Memory& m, double bytes, double random_share) {
  const double t_clk = 1.0 / (m.clock_MHz * units::kMega);
  const double row_read = (bytes / m.sector_bytes) * m.cycles_per_sector * t_clk;
  const double busy = std::max(m.timing.tRAS_ns * kNano, m.timing.tRCD_ns * kNano + row_read) +
                      m.timing.tRP_ns * kNano;
  const double runs = runs_in_flight(m, bytes);
  double eta = 0;
  for (const LinkKind& k : link_kinds(m)) {
    const double banks = k.layers * std::max(1, m.banks_per_channel);
    const double seq = interleave_eta(m, bytes, banks);
    const double rnd = random_share > 0 ? group_rate(runs, banks, busy / row_read, false) : seq;
    eta += k.share * ((1.0 - random_share) * seq + random_share * rnd);
  }
  return eta;
}

// Activations per second one channel (link) can issue, averaged over the links: tRRD and
// four per tFAW per die (JEDEC; DRAMsim3 checks both per rank, and a 3D layer is its own die),
// one row cycle tRC = tRAS + tRP per bank, and one row command per clock on the link, where
// each activation also costs its row's precharge (open page: ACT + PRE per new row).
double channel_activation_rate(const hw::Memory& m) {
  const double per_die =
      std::min(4.0 / (m.timing.tFAW_ns * kNano), 1.0 / (m.timing.tRRD_ns * kNano));
  const double trc = (m.timing.tRAS_ns + m.timing.tRP_ns) * kNano;
  const double bus = 0.5 * m.clock_MHz * units::kMega;
  double rate = 0;
  for (const LinkKind& k : link_kinds(m))
    rate += k.share *
            std::min({k.layers * per_die, k.layers * std::max(1, m.banks_per_channel) / trc, bus});
  return rate;
}

// Column commands: a data burst takes `burst` clocks, and consecutive column commands to one
// bank group are tCCD_L apart (JESD235/JESD238; in whole clocks, as the device counts them),
// so a run of sectors from one row is read at burst / tCCD_L of the bus unless the controller
// interleaves runs from r = tCCD_L / burst bank groups. Bank groups: 4 per die (JESD235A,
// JESD238: 4 x 4 banks; one per bank below 4 banks); the layers behind a 3D link are separate
// dies, so their groups add up.
struct ColumnTiming {
  double burst = 1;  // clocks per sector
  double ratio = 1;  // tCCD_L / burst, >= 1
  double wtr = 0;    // write-to-read gap after the burst, clocks
  double rtw = 0;    // read-to-write gap after the burst (tCCD_L, as the reference), clocks
};

ColumnTiming column_timing(const hw::Memory& m) {
  const double t_ck_ns = 1e3 / m.clock_MHz;
  auto clocks = [&](double ns) { return std::max(1.0, std::ceil(ns / t_ck_ns - 1e-9)); };
  ColumnTiming c;
  c.burst = std::max(1.0, std::round(m.cycles_per_sector));
  const double ccd = std::max(c.burst, clocks(m.timing.tCCD_ns));
  c.ratio = ccd / c.burst;
  c.wtr = clocks(m.timing.tWTR_ns);
  c.rtw = ccd;
  return c;
}

// Runs of `run_bytes` the controller has in flight: its queue holds kControllerQueueRequests
// sectors, the oldest run half served on average, so it spans queue / run + 1/2 runs.
double runs_in_flight(const hw::Memory& m, double run_bytes) {
  return kControllerQueueRequests * m.sector_bytes / std::max(run_bytes, m.sector_bytes) + 0.5;
}

// E[min(1, D / ratio)] over the number D of distinct bank groups among `runs` runs (fractional
// runs interpolate between the whole numbers around it). sequential: consecutive runs go to
// consecutive groups (the row : bank : group : column mapping), so D = min(runs, groups);
// otherwise each run's group is uniform over `groups` (occupancy distribution).
double group_rate(double runs, double groups, double ratio, bool sequential) {
  if (ratio <= 1) return 1.0;
  auto at = [&](int k) {
    if (sequential) return std::min(1.0, std::min<double>(k, groups) / ratio);
    const int g = std::max(1, static_cast<int>(groups));
    std::vector<double> pd(static_cast<std::size_t>(std::min(k, g)) + 1, 0.0);
    pd[1] = 1.0;  // the first run occupies one group
    for (int step = 1; step < k; ++step)
      for (int d = std::min(step, g); d >= 1; --d) {
        const double p = pd[static_cast<std::size_t>(d)];
        pd[static_cast<std::size_t>(d)] = p * d / g;
        if (d < g) pd[static_cast<std::size_t>(d) + 1] += p * (g - d) / static_cast<double>(g);
      }
    double e = 0;
    for (std::size_t d = 1; d < pd.size(); ++d)
      e += pd[d] * std::min(1.0, static_cast<double>(d) / ratio);
    return e;
  };
  const double r = std::clamp(runs, 1.0, static_cast<double>(kControllerQueueRequests) + 1);
  const int lo = static_cast<int>(std::floor(r));
  const double frac = r - lo;
  return frac > 0 ? (1 - frac) * at(lo) + frac * at(lo + 1) : at(lo);
}

// E[min(1, D / ratio)] with D = min(groups, 1 + Binomial(others, q)): the run being drained and
// the other runs in flight that go the same direction (fractional `others` interpolate).
double mode_rate(double others, double q, double groups, double ratio) {
  auto at = [&](int n) {
    double e = 0, pk = std::pow(1.0 - q, n);  // P(k = 0)
    for (int k = 0; k <= n; ++k) {
      e += pk * std::min(1.0, std::min(groups, 1.0 + k) / ratio);
      if (q < 1) pk *= (n - k) / (k + 1.0) * q / (1.0 - q);
    }
    return q >= 1 ? std::min(1.0, std::min(groups, 1.0 + n) / ratio) : e;
  };
  const double o = std::clamp(others, 0.0, static_cast<double>(kControllerQueueRequests));
  const int lo = static_cast<int>(std::floor(o));
  const double frac = o - lo;
  return frac > 0 ? (1 - frac) * at(lo) + frac * at(lo + 1) : at(lo);
}

double column_rate(const hw::Memory& m, const AccessPattern& p, double run_bytes) {
  if (p.kind == PatternKind::random || p.kind == PatternKind::row_conflict) return 1.0;
  const ColumnTiming c = column_timing(m);
  // Streams and mixes go row after row through consecutive banks, hence consecutive groups.
  // A chunk lands in a random bank; one longer than a row in every channel gives a channel
  // n = chunk / (row x channels) consecutive rows, so 1/n of its rows start in a random group
  // (bank_sim.cpp's generator, after the address mapping). Sequential runs are activated as
  // they enter the queue, so every run it touches (queue / run + 1) is ready; random runs
  // count as the mean queue span (runs_in_flight), the youngest not yet activated.
  const double random_share = random_row_share(m, p, total_channels(m));
  const double runs = runs_in_flight(m, run_bytes);
  double rate = 0;
  for (const LinkKind& k : link_kinds(m)) {
    const double groups = k.layers * std::min(4, std::max(1, m.banks_per_channel));
    rate += k.share * ((1.0 - random_share) * group_rate(runs + 0.5, groups, c.ratio, true) +
                       random_share * group_rate(runs, groups, c.ratio, false));
  }
  const double runs_seq = runs + 0.5;
  if (p.kind != PatternKind::mix) return rate;
  // Read/write mix of sequential row-sized runs, each a read with probability f: runs of the
  // other direction cannot interleave with the ones being drained (each write holds reads off
  // for tWTR and each read holds writes off for tCCD_L, longer than the next same-direction
  // command), so a run is read with the groups of the same-direction runs in flight only:
  // D = 1 + Binomial(runs - 1, f) for a read run (1 - f for a write), rate E[min(1, D / ratio)].
  // A switch, with probability 2 f (1 - f) per run, adds the turnaround gap (mean of both).
  const double f = std::clamp(p.read_fraction, 0.0, 1.0);
  const double t_run = (run_bytes / m.sector_bytes) * c.burst;
  double time = 0;  // per run, in units of its bus time
  for (const double q : {f, 1.0 - f}) {
    if (q <= 0) continue;
    double same_rate = 0;
    for (const LinkKind& k : link_kinds(m)) {
      const double groups = k.layers * std::min(4, std::max(1, m.banks_per_channel));
      same_rate += k.share * mode_rate(runs_seq - 1.0, q, groups, c.ratio);
    }
    time += q / same_rate;
  }
  const double gap = 0.5 * (c.wtr + c.rtw);
  return 1.0 / (time + 2.0 * f * (1.0 - f) * gap / t_run);
}

}  // namespace

std::string_view to_string(DramBound b) {
  switch (b) {
    case DramBound::row_cycle: return "row_cycle";
    case DramBound::activation: return "activation";
    case DramBound::buffering: return "buffering";
    case DramBound::sram: return "sram";
    case DramBound::none: return "none";
  }
  return "none";
}

DramBandwidth effective_bandwidth(const hw::Memory& m, const hw::ComputeDie& die,
                                  const AccessPattern& p, double dram_temperature_C) noexcept {
  DramBandwidth r;
  const double core_clock = die.clock_GHz * units::kGiga;
  // SRAM staging: each byte from DRAM is written to and read from SRAM once (docs/model.md §4.5).
  const double sram_bw = die.cores * die.sram_bw_bytes_per_cycle_per_core * core_clock;
  r.sram_Bps = sram_bw / 2.0;

  if (m.kind == hw::MemoryKind::sram_only) {
    // No DRAM: the model's memory is the on-die SRAM itself, read once per use.
    r.peak_Bps = sram_bw;
    r.row_limited_Bps = r.activation_Bps = r.buffering_Bps = sram_bw;
    r.sram_Bps = sram_bw;
    r.effective_Bps = sram_bw * m.utilisation_cap;
    r.bound = DramBound::none;
    return r;
  }

  const double channels = total_channels(m);
  r.peak_Bps = channels * m.bytes_per_transfer * m.transfers_per_clock * m.clock_MHz * units::kMega;

  // Row-cycle efficiency.
  const double act_bytes = bytes_per_activation(m, p);
  if (p.kind == PatternKind::row_conflict) {
    // Same bank, new row every access: one sector per row cycle max(tRAS, tRCD + burst) + tRP
    // (JEDEC tRC); nothing hides the recharge.
    const double t_sector = m.cycles_per_sector / (m.clock_MHz * units::kMega);
    const double busy = std::max(m.timing.tRAS_ns * kNano, m.timing.tRCD_ns * kNano + t_sector);
    r.eta = t_sector / (busy + m.timing.tRP_ns * kNano);
  } else if (p.kind == PatternKind::random) {
    r.eta = 1.0;  // spread over banks; limited by the activation rate below
  } else {
    r.eta = connectivity_eta(m, act_bytes, random_row_share(m, p, channels));
  }
  r.column_rate = column_rate(m, p, act_bytes);
  r.row_limited_Bps = r.peak_Bps * r.eta * r.column_rate;

  // Activation-rate cap: <= 4 activations per tFAW and <= 1 per tRRD per die, a row cycle
  // per bank, a row command per clock per channel (channel_activation_rate).
  r.activation_Bps = channels * channel_activation_rate(m) * act_bytes;

  // Little's law: bytes in flight = bandwidth x round-trip latency. Half of each core's SRAM
  // is staging buffer (double buffering), so in-flight capacity = cores x SRAM / 2.
  const double inflight = die.cores * die.sram_per_core_KiB * units::kKiB / 2.0;
  r.buffering_Bps = inflight / (m.round_trip_latency_ns * kNano);

  // Refresh: tRFC every tREFI; tREFI halves above 85 C.
  double trefi = m.timing.tREFI_ns;
  if (dram_temperature_C > kRefreshDoublingC) trefi *= 0.5;
  r.refresh_overhead = std::min(1.0, m.timing.tRFC_ns / trefi);

  double bw = r.row_limited_Bps;
  r.bound = DramBound::row_cycle;
  if (r.activation_Bps < bw) {
    bw = r.activation_Bps;
    r.bound = DramBound::activation;
  }
  if (r.buffering_Bps < bw) {
    bw = r.buffering_Bps;
    r.bound = DramBound::buffering;
  }
  if (r.sram_Bps < bw) {
    bw = r.sram_Bps;
    r.bound = DramBound::sram;
  }
  r.effective_Bps = bw * m.utilisation_cap * (1.0 - r.refresh_overhead);
  return r;
}

std::optional<AccessPattern> parse_pattern(std::string_view text, std::string* error) {
  auto fail = [&](std::string msg) -> std::optional<AccessPattern> {
    if (error) *error = std::move(msg);
    return std::nullopt;
  };
  constexpr std::string_view kAllowed =
      "stream, random, row-conflict, chunk:BYTES (BYTES >= 1), mix:READ_FRACTION (0..1)";
  AccessPattern p;
  if (text == "stream") return p;
  if (text == "random") {
    p.kind = PatternKind::random;
    return p;
  }
  if (text == "row-conflict") {
    p.kind = PatternKind::row_conflict;
    return p;
  }
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    return fail("unknown access pattern '" + std::string(text) +
                "'; allowed: " + std::string(kAllowed));
  const auto head = text.substr(0, colon);
  const auto arg = text.substr(colon + 1);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), value);
  if (ec != std::errc() || ptr != arg.data() + arg.size() || !std::isfinite(value))
    return fail("access pattern '" + std::string(text) + "': '" + std::string(arg) +
                "' is not a number; allowed: " + std::string(kAllowed));
  if (head == "chunk") {
    if (value < 1) return fail("chunk size must be >= 1 byte (got " + std::string(arg) + ")");
    p.kind = PatternKind::chunk;
    p.chunk_bytes = value;
    return p;
  }
  if (head == "mix") {
    if (value < 0 || value > 1)
      return fail("mix read fraction must be in [0, 1] (got " + std::string(arg) + ")");
    p.kind = PatternKind::mix;
    p.read_fraction = value;
    return p;
  }
  return fail("unknown access pattern '" + std::string(head) +
              "'; allowed: " + std::string(kAllowed));
}

}  // namespace stackscope::memory
