// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// AIConfigurator's measured-deployment sample (github.com/ai-dynamo/aiconfigurator,
// aic-core/src/aiconfigurator_core/systems/silicon_sample.csv; data/aic-silicon ships its H100
// rows): CSV (RFC 4180: quoted fields, "" escapes, CRLF or LF), plain or gzip, one header row
// naming the columns (read by name, in any order; columns it does not use are ignored). The
// columns read, with what each must hold:
//   id, silicon_data_source, backend, backend_version, model_path, system, precision, mode,
//   gemm_quant_mode, moe_quant_mode: text (required: id, backend, model_path, system, mode);
//   isl, osl: whole numbers 1..10^7;
//   batch_size, tp_size, pp_size, attention_dp_size, moe_tp_size, moe_ep_size and the same with
//   prefill_ / decode_ (and *_num_workers): empty or whole numbers 0..2^20;
//   silicon_ttft_ms, silicon_tpot_ms: finite numbers in (0, 10^9].
// At most 10^6 rows. Errors name "<file>:<line>" and the column, the value and the allowed
// range, and every bad row is reported (up to 20), never skipped.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/validate/silicon.hpp"

namespace stackscope::io {

inline constexpr std::size_t kMaxSiliconRows = 1'000'000;

// Parses the text of a sample; `name` is the file name errors are reported at.
// Throws ConfigError.
std::vector<validate::SiliconRow> parse_silicon_sample(std::string_view text,
                                                       const std::string& name);
std::vector<validate::SiliconRow> load_silicon_sample(const std::filesystem::path& file);

class PresetRegistry;
// Every hardware, system, model and runtime preset of the registry, for validate::map_row.
validate::Catalog silicon_catalog(const PresetRegistry& presets);

}  // namespace stackscope::io
