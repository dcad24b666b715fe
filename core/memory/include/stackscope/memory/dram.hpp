// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Transaction-aware DRAM bandwidth (MODEL.md §2, after DeepStack): peak from the stack
// organisation; row-cycle efficiency with the layer-connectivity rule; activation-rate cap
// (tFAW/tRRD) with bytes per activation set by the access pattern; Little's-law buffering;
// SRAM staging cap; refresh. Pure functions, SI units (B/s, s).
#include <optional>
#include <string>
#include <string_view>

#include "stackscope/hw/hardware.hpp"

namespace stackscope::memory {

// JEDEC extended temperature range: above 85 C DRAM must refresh twice as often (tREFI/2).
inline constexpr double kRefreshDoublingC = 85.0;
// Above this the DRAM stack is out of its operating range: the design is throttled to it or is
// infeasible (MODEL.md §9; JEDEC HBM extended temperature range ends at 95 C).
inline constexpr double kDramLimitC = 95.0;

enum class PatternKind {
  stream,        // long sequential runs (weight streaming)
  random,        // independent sector-sized accesses
  chunk,         // contiguous runs of chunk_bytes (KV pages, expert slices)
  mix,           // streaming with a read/write mix (read_fraction), turnaround penalties
  row_conflict,  // every access opens a new row in a busy bank (worst case)
};

struct AccessPattern {
  PatternKind kind = PatternKind::stream;
  double chunk_bytes = 0;      // for chunk
  double read_fraction = 1.0;  // for mix (1 = reads only)
};

// Which limit set the effective bandwidth.
enum class DramBound { row_cycle, activation, buffering, sram, none };
std::string_view to_string(DramBound b);

struct DramBandwidth {
  double peak_Bps = 0;          // pin/peak bandwidth of all connected channels
  double eta = 1;               // row-cycle efficiency after the connectivity rule
  double row_limited_Bps = 0;   // peak * eta (* turnaround for mixes)
  double activation_Bps = 0;    // tFAW/tRRD activation-rate cap
  double buffering_Bps = 0;     // Little's law: on-die buffer / round-trip latency
  double sram_Bps = 0;          // SRAM staging cap (SRAM bandwidth / 2)
  double refresh_overhead = 0;  // tRFC / tREFI (doubled refresh rate above 85 C)
  double effective_Bps = 0;     // min(...) * utilisation_cap * (1 - refresh)
  DramBound bound = DramBound::none;
};

// Effective bandwidth of the device memory for an access pattern. `dram_temperature_C` drives
// the refresh rate (tREFI halves above 85 C, JEDEC extended temperature range).
// For MemoryKind::sram_only the "DRAM" is the on-die SRAM: peak = SRAM bandwidth.
DramBandwidth effective_bandwidth(const hw::Memory& mem, const hw::ComputeDie& die,
                                  const AccessPattern& pattern,
                                  double dram_temperature_C = 50.0) noexcept;

// Parses "stream", "random", "row-conflict", "chunk:BYTES", "mix:READ_FRACTION".
// Returns nullopt and sets *error (what and allowed values) on bad input.
std::optional<AccessPattern> parse_pattern(std::string_view text, std::string* error);

}  // namespace stackscope::memory
