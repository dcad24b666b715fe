// SPDX-License-Identifier: GPL-3.0-or-later
#include "stackscope/memory/dram.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "stackscope/common/units.hpp"

namespace stackscope::memory {
namespace {

using units::kNano;

double total_channels(const hw::Memory& m) {
  return static_cast<double>(m.stacks) * m.layers_connected * m.channels_per_layer;
}

// Bytes one row activation delivers for the pattern: a whole row for streams, the run length
// for chunked access, one sector for random and row-conflict access (MODEL.md §2).
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

// Row-cycle efficiency for reading `bytes` from an open row before it must be recharged:
// row_read / (row_read + tRP + tRCD), row_read = (bytes / sector) x cycles_per_sector.
double row_efficiency(const hw::Memory& m, double bytes) {
  const double t_clk = 1.0 / (m.clock_MHz * units::kMega);
  const double row_read = (bytes / m.sector_bytes) * m.cycles_per_sector * t_clk;
  const double recharge = (m.timing.tRP_ns + m.timing.tRCD_ns) * kNano;
  return row_read / (row_read + recharge);
}

// Row-cycle efficiency after hiding recharge behind other banks.
// hbm: each channel interleaves over banks_per_channel banks, so a stream hides recharge
// (eta = 1) whenever there are at least two banks to alternate between.
// stacked_3d, DeepStack's connectivity rule: a channel's slice of one layer is one
// lock-stepped bank, and the layers_total layers are spread over the layers_connected vertical
// connections. While layers_connected <= layers_total / 2 every connection fronts >= 2 layers
// and one recharges while another streams (eta = 1); above that, 2C - T connections front a
// single layer and pay eta_row, the other T - C still hide it. This is DeepStack's rule with
// the ramp between T/2 and T taken from whole layers per connection (it matches the
// bank-level reference, core/memory/src/bank_sim.cpp, at every C; DeepStack's straight line
// meets it at both ends).
double connectivity_eta(const hw::Memory& m, double eta_row) {
  if (m.kind == hw::MemoryKind::hbm) return m.banks_per_channel >= 2 ? 1.0 : eta_row;
  const double t = m.layers_total, c = std::max(1, m.layers_connected);
  if (c <= 0.5 * t) return 1.0;
  const double single = std::clamp(2.0 * c - t, 0.0, c);  // connections with one layer
  return ((c - single) + single * eta_row) / c;
}

// Banks a channel can have activating at once: HBM banks, or the layers behind a vertical
// connection (at least one) for stacked_3d.
double banks_behind_channel(const hw::Memory& m) {
  if (m.kind == hw::MemoryKind::stacked_3d)
    return std::max(1.0, std::floor(static_cast<double>(m.layers_total) /
                                    std::max(1, m.layers_connected)));
  return std::max(1, m.banks_per_channel);
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
  // SRAM staging: each byte from DRAM is written to and read from SRAM once (MODEL.md §2).
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
  const double eta_row = row_efficiency(m, act_bytes);
  if (p.kind == PatternKind::row_conflict) {
    // Same bank, new row every access: one sector per row cycle max(tRAS, tRCD + burst) + tRP
    // (JEDEC tRC); nothing hides the recharge.
    const double t_sector = m.cycles_per_sector / (m.clock_MHz * units::kMega);
    const double busy = std::max(m.timing.tRAS_ns * kNano, m.timing.tRCD_ns * kNano + t_sector);
    r.eta = t_sector / (busy + m.timing.tRP_ns * kNano);
  } else if (p.kind == PatternKind::random) {
    r.eta = 1.0;  // spread over banks; limited by the activation rate below
  } else {
    r.eta = connectivity_eta(m, eta_row);
  }
  double turnaround = 1.0;
  if (p.kind == PatternKind::mix) {
    // Read/write switches cost a write-to-read turnaround; with independent row-sized bursts a
    // switch follows a burst with probability 2 r (1 - r).
    const double rf = std::clamp(p.read_fraction, 0.0, 1.0);
    const double t_clk = 1.0 / (m.clock_MHz * units::kMega);
    const double t_burst = (m.row_bytes / m.sector_bytes) * m.cycles_per_sector * t_clk;
    const double p_switch = 2.0 * rf * (1.0 - rf);
    turnaround = t_burst / (t_burst + p_switch * (m.timing.tWTR_ns + m.timing.tCCD_ns) * kNano);
  }
  r.row_limited_Bps = r.peak_Bps * r.eta * turnaround;

  // Activation-rate cap: <= 4 activations per tFAW and <= 1 per tRRD per channel.
  // A bank can open a new row once per row cycle tRC = tRAS + tRP, so the banks behind a
  // channel bound its activation rate too.
  const double act_rate =
      std::min({4.0 / (m.timing.tFAW_ns * kNano), 1.0 / (m.timing.tRRD_ns * kNano),
                banks_behind_channel(m) / ((m.timing.tRAS_ns + m.timing.tRP_ns) * kNano)});
  r.activation_Bps = channels * act_rate * act_bytes;

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
  if (r.activation_Bps < bw) { bw = r.activation_Bps; r.bound = DramBound::activation; }
  if (r.buffering_Bps < bw) { bw = r.buffering_Bps; r.bound = DramBound::buffering; }
  if (r.sram_Bps < bw) { bw = r.sram_Bps; r.bound = DramBound::sram; }
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
  if (text == "random") { p.kind = PatternKind::random; return p; }
  if (text == "row-conflict") { p.kind = PatternKind::row_conflict; return p; }
  const auto colon = text.find(':');
  if (colon == std::string_view::npos)
    return fail("unknown access pattern '" + std::string(text) + "'; allowed: " +
                std::string(kAllowed));
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
  return fail("unknown access pattern '" + std::string(head) + "'; allowed: " +
              std::string(kAllowed));
}

}  // namespace stackscope::memory
