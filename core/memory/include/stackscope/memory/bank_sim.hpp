// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Bank-level DRAM reference (docs/model.md §4.6): a cycle-stepped
// channel/bank scheduler (open page, FR-FCFS, tRCD/tRP/tRAS/tFAW/tRRD/tCCD/tWTR, all-bank
// refresh) driven by the same access patterns as the analytic model in dram.hpp. It checks the
// analytic model's DRAM-side limit, see analytic_dram_limit_Bps().
#include <cstdint>
#include <string>
#include <vector>

#include "stackscope/hw/hardware.hpp"
#include "stackscope/memory/dram.hpp"

namespace stackscope::memory {

struct BankSimConfig {
  double warmup_us = 10;   // simulated time before measuring (queues fill, rows open)
  double window_us = 100;  // measured window (~25 refresh intervals at tREFI 3.9 us)
  int queue_depth = kControllerQueueRequests;  // per-channel request queue (dram.hpp)
  int channels_simulated = 1;  // channels are identical; the result is scaled to all of them
  double temperature_C = 50;   // refresh rate doubles above 85 C, as in the analytic model
  std::uint64_t seed = 1;      // pattern generator seed (random rows/banks/columns)
};

struct BankSimResult {
  double effective_Bps = 0;       // delivered bytes / window, scaled to every channel of `mem`
  double per_channel_Bps = 0;     // the same for one channel
  double row_hit_rate = 0;        // column commands that found their row open / all of them
  std::uint64_t activations = 0;  // ACTs issued in the window (simulated channels)
  std::uint64_t reads = 0;        // sector reads in the window
  std::uint64_t writes = 0;       // sector writes in the window
  double refresh_share = 0;       // fraction of channel time spent draining for / in REF
  int banks_per_channel = 0;      // banks the simulated channel fronts (see bank_sim.cpp)
  double cycle_ns = 0;            // simulator cycle (one memory data clock)
};

// Runs the bank-level simulator for `pattern` on `mem`. Deterministic for a given config.
BankSimResult simulate_bank_level(const hw::Memory& mem, const AccessPattern& pattern,
                                  const BankSimConfig& config = {});

// The analytic model's DRAM-device limit, the quantity the simulator is compared with:
// min(row-cycle limit, activation limit) x (1 - refresh). Little's-law buffering, the SRAM
// staging cap and utilisation_cap are excluded: they describe the compute die's buffers and the
// software/controller, not the DRAM device the simulator models.
double analytic_dram_limit_Bps(const DramBandwidth& bw) noexcept;

// The DRAM agreement table (docs/model.md §4.6, §18.3): the analytic
// DRAM-device limit against the bank-level reference for one memory and pattern.
struct AgreementRow {
  std::string memory;   // preset id, with " L<total>/C<connected>" for a stack variant
  std::string pattern;  // parse_pattern() text
  double model_Bps = 0;
  double reference_Bps = 0;
  double error = 0;  // (model - reference) / reference
};

// Patterns of the table: stream, random, chunk:256 / 1024 / 65536 (a 16-token KV page of a
// GQA layer is tens of KiB), mix:0.7 / mix:0.5, row-conflict.
std::vector<std::string> agreement_patterns();

// The memories of the table for one preset: the preset itself and, for stacked_3d, the
// stack heights 2, 4, 8, 12, 16 with half and all of the layers connected (the preset's own
// height included, so its all-connected variant is in). Empty for sram_only.
std::vector<std::pair<std::string, hw::Memory>> agreement_memories(const std::string& id,
                                                                   const hw::Memory& mem);

// One row: the model's DRAM limit and the simulator's bandwidth at 50 C.
AgreementRow agreement_row(const std::string& name, const hw::Memory& mem,
                           const std::string& pattern, const BankSimConfig& config = {});

}  // namespace stackscope::memory
