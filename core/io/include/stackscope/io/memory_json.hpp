// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The JSON forms of the `dram` command's results (bandwidths in decimal GB/s, as datasheets quote
// them; errors and shares as fractions; indented by two spaces, no trailing newline).
#include <optional>
#include <string>
#include <vector>

#include "stackscope/hw/hardware.hpp"
#include "stackscope/memory/bank_sim.hpp"
#include "stackscope/memory/dram.hpp"

namespace stackscope::io {

// The bank-level simulator's run beside the model's DRAM-device limit
// min(row, activation) x (1 - refresh) (memory/bank_sim.hpp).
struct DramReference {
  double dram_limit_Bps = 0;
  memory::BankSimResult simulated;
  double error = 0;  // (limit - simulated) / simulated
};

// One memory and access pattern:
//   {"memory", "name", "pattern", "temperature_C", "effective_GBps", "peak_GBps", "eta",
//    "row_limited_GBps", "activation_GBps", "buffering_GBps", "sram_GBps", "refresh_overhead",
//    "bound", with a reference also "dram_limit_GBps", "reference_GBps", "reference_error",
//    "reference_row_hit_rate", "reference_refresh_share", "reference_banks_per_channel"}
std::string dram_bandwidth_json(const hw::Hardware& hardware, const std::string& pattern,
                                double temperature_C, const memory::DramBandwidth& bandwidth,
                                const std::optional<DramReference>& reference);

// The agreement table of the model against the bank-level reference (docs/model.md §18.3):
//   {"tolerance", "worst_abs_error", "rows_over_tolerance",
//    "rows": [{"memory", "pattern", "model_GBps", "reference_GBps", "error"}]}
std::string dram_agreement_json(const std::vector<memory::AgreementRow>& rows, double tolerance,
                                double worst_abs_error, int rows_over_tolerance);

}  // namespace stackscope::io
