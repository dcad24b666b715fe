// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Transaction-aware DRAM bandwidth (docs/model.md §4, after DeepStack): peak from the stack
// organisation; row-cycle efficiency over the banks behind a channel (banks_per_channel per
// layer, the layers sharing a 3D stack's vertical link; one bank per layer gives DeepStack's
// layer-connectivity rule); bank-group (tCCD_L) and read/write-turnaround column rate;
// activation-rate cap (tFAW/tRRD per die) with bytes per activation set by the access
// pattern; Little's-law buffering; SRAM staging cap; refresh. Pure functions, SI units.
#include <optional>
#include <string>
#include <string_view>

#include "stackscope/hw/hardware.hpp"

namespace stackscope::memory {

// JEDEC extended temperature range: above 85 C DRAM must refresh twice as often (tREFI/2).
inline constexpr double kRefreshDoublingC = 85.0;
// Above this the DRAM stack is out of its operating range: the design is throttled to it or is
// infeasible (docs/model.md §14.3; JEDEC HBM extended temperature range ends at 95 C).
inline constexpr double kDramLimitC = 95.0;

// Sector requests one channel's controller holds for scheduling (open page, FR-FCFS): 64 x 32 B
// = 2 KiB, two HBM3 rows. DRAMsim3's HBM2 configuration queues 32 commands per rank
// (cmd_queue_size, queue_structure PER_RANK) plus 16 transactions; the bank-level reference
// (bank_sim.hpp) schedules over the same queue, and it sets how many row-sized runs the
// controller can interleave across bank groups (effective_bandwidth).
inline constexpr int kControllerQueueRequests = 64;

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
  double column_rate = 1;       // bank-group (tCCD_L) and read/write-turnaround factor
  double row_limited_Bps = 0;   // peak * eta * column_rate
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
