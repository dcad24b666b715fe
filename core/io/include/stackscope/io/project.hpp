// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Project files, presets and JSON output. The only public face of nlohmann/json in the core:
// JSON stays inside core/io; callers get plain structs and strings.
//
// Project JSON (schema_version 2):
//   { "schema_version": 2, "name": "...",
//     "hardware": "h100-sxm" | { ...Hardware fields... } | { "base": "h100-sxm", ...overrides },
//     "system":   "h100-sxm-x8" | {...} | { "base": ..., ... },
//     "model":    "llama-2-70b" | {...} | { "base": ..., ... },
//     "workload": { ...Workload fields... },
//     "parallel": { "tp": 4, "pp": 1, "dp": 1, "ep": 1, "cp": 1, "sequence_parallel": false,
//                   "micro_batches": 0, "placement": "tp,ep,cp,pp,dp",
//                   "attention": {"tp": 0, "ep": 0}, "dense_ffn": {...}, "moe": {...},
//                   "redundant_experts_per_rank": 0,
//                   "overlap": "off" | "fixed" | "auto", "overlap_tiles": 4 },
//     "runtime":  "modern-gpu-2025" | {...} | { "base": "trtllm-2023", ...overrides },
//     "wafer":    "wsc-dram-5x4" | {...} | { "base": ..., ... } }
// "wafer" is optional (hw/wafer.hpp): with it, "hardware" is the dies' technology device and
// the design's device and system are the wafer's die and D2D mesh (hw::apply_wafer), so a
// "system" next to it is an error. A written wafer project carries the derived die as its
// "hardware" and no "system" (die_hardware() is idempotent, so it reads back the same).
// "runtime" is optional: without it the device class's default profile is used
// (runtime::default_profile_id). Schema 1 files kept the runtime's values in
// hardware.compute; they are moved into "runtime" when such a project is read.
// Keys are the struct member names; enums are lower-case strings. Unknown keys, wrong types
// and missing required sections are errors with JSON-pointer paths. Missing keys keep the
// struct defaults, so files written before a member existed still load.
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/common/issue.hpp"
#include "stackscope/hw/hardware.hpp"
#include "stackscope/perf/design.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/result.hpp"
#include "stackscope/runtime/profile.hpp"
#include "stackscope/serving/request.hpp"
#include "stackscope/workload/model.hpp"

namespace stackscope::io {

// search: a project with a "search" section (presets/search/, io/search.hpp); runtime: a
// runtime profile (presets/runtimes/, core/runtime); wafer: a wafer template (presets/wafers/,
// hw/wafer.hpp).
enum class PresetKind { hardware, system, model, project, search, runtime, wafer };
std::string_view to_string(PresetKind k);

struct PresetInfo {
  PresetKind kind;
  std::string id;
  std::string name;  // human-readable name from the file
};

// Name-keyed registry of presets. Built explicitly: register_builtins() adds the presets
// compiled into the binary (presets/ of the source tree); add_file() adds user files.
// Lookups of unknown ids throw ConfigError listing the known ids.
class PresetRegistry {
 public:
  void register_builtins();
  // Adds one preset file; kind comes from the file's "kind" key or its folder name.
  void add_json(PresetKind kind, std::string_view id, std::string json_text);

  std::vector<PresetInfo> list(PresetKind kind) const;
  bool contains(PresetKind kind, std::string_view id) const;

  hw::Hardware hardware(std::string_view id) const;
  hw::System system(std::string_view id) const;
  workload::Model model(std::string_view id) const;
  runtime::Profile runtime(std::string_view id) const;
  hw::Wafer wafer(std::string_view id) const;
  perf::Design project(std::string_view id) const;

  // Raw JSON text of a preset (for `base` merging and export).
  const std::string& json_text(PresetKind kind, std::string_view id) const;

 private:
  struct Entry {
    PresetKind kind;
    std::string id;
    std::string name;
    std::string json;
  };
  std::vector<Entry> entries_;
  const Entry& find(PresetKind kind, std::string_view id) const;
};

// The presets compiled into the programs, registered once per process (thread-safe static
// initialisation); for callers that need no presets of their own.
const PresetRegistry& builtin_presets();

// The ids and names of the presets of `kinds`, as `presets --json` prints them:
// {"<kind>": [{"id", "name"}], ...} in the order of `kinds`, each list in registry order.
// Indented by two spaces, no trailing newline.
std::string presets_json(const PresetRegistry& presets, std::span<const PresetKind> kinds);

// Parse a project document. Structural problems (syntax with line/column, unknown keys, wrong
// types, unknown preset ids, bad enum strings) throw ConfigError with every issue found.
// Semantic checks are perf::validate()'s job (run it after applying CLI overrides).
// Relative routing-trace paths resolve against `base_dir`.
perf::Design parse_project(std::string_view json_text, const PresetRegistry& presets,
                           const std::filesystem::path& base_dir = {});
perf::Design load_project(const std::filesystem::path& file, const PresetRegistry& presets);

// `id_or_file`: a preset id, or a path to a JSON file holding one object of that kind.
hw::Hardware resolve_hardware(std::string_view id_or_file, const PresetRegistry& presets);
hw::System resolve_system(std::string_view id_or_file, const PresetRegistry& presets);
workload::Model resolve_model(std::string_view id_or_file, const PresetRegistry& presets);
runtime::Profile resolve_runtime(std::string_view id_or_file, const PresetRegistry& presets);
hw::Wafer resolve_wafer(std::string_view id_or_file, const PresetRegistry& presets);
// `wafer` with the fields of "key=value,key=value" changed (keys as in a project's "wafer"
// section; numbers, or the DRAM kind none|edge|stacked). Throws ConfigError at
// "<what>/<key>" for an unknown key or a value of the wrong type.
hw::Wafer set_wafer_fields(const hw::Wafer& wafer, std::string_view text, std::string_view what);

// Fills routing.expert_frequency from routing.trace (the format of data/mixtral-routing:
// {"<layer>": [[e0, e1], ...]}). Throws ConfigError on a bad file.
void load_routing_trace(workload::Routing& routing, int experts,
                        const std::filesystem::path& base_dir);

// Reads a request trace (serving::parse_trace formats: Azure LLM inference CSV or plain) of at
// most limits::kMaxTraceFileBytes; issues are at "<file>:<line>". Throws ConfigError naming the
// file when it is missing, not a regular file, too large, unreadable or malformed.
std::vector<serving::Request> load_trace(
    const std::filesystem::path& file,
    serving::TraceFormat format = serving::TraceFormat::automatic,
    serving::TraceStats* stats = nullptr);

// Serialise a design with every preset inlined (a self-contained, loadable project).
std::string project_to_json(const perf::Design& design);
std::string runtime_to_json(const runtime::Profile& profile);
std::string hardware_to_json(const hw::Hardware& hw);
std::string model_to_json(const workload::Model& m);
std::string system_to_json(const hw::System& s);
std::string wafer_to_json(const hw::Wafer& w);

// Write text atomically (io/output.hpp write_output: only over a regular file or a new one,
// temp file in the same directory, every write checked, then rename). Throws OutputError.
void save_text_atomic(const std::filesystem::path& file, std::string_view text);

// The CLI's --json document for one evaluation:
// { "design": name, "feasible", "reasons": [...], "batch", "metrics": {...},
//   "memory": {...}, "area": {cores_mm2, ..., used_mm2, die_mm2, reticle_mm2},
//   "thermal": {modelled, dram_peak_C, refresh_doubled}, "breakdown": { "prefill": {"time_s",
//   "ops": {...}, "resources": {...}},
//                                   "decode": {...} } }
std::string result_to_json(const perf::Design& design, const perf::Result& result, int indent = 2);

// Network sections appended to the evaluate document from perf::network_report():
//   "links": [{ "from": "d0", "to": "d1", "level": 0, "level_name": "...",
//               "bytes": B, "utilisation": U, "prefill_bytes": B, "prefill_utilisation": U }]
//     bytes/utilisation are per decode step, prefill_* per prefill pass (utilisation = link
//     busy time / phase time, 0..1). Only links that carry traffic, busiest first (decode
//     utilisation, then prefill utilisation); "idle_links" counts the rest.
//   "reference_sim": { "decode_comm_analytic_s", "decode_comm_reference_s", "decode_comm_error",
//                      "prefill_comm_analytic_s", "prefill_comm_reference_s",
//                      "prefill_comm_error", "ttft_s", "ttft_reference_s", "tpot_s",
//                      "tpot_reference_s" }
//     *_error = analytic / reference - 1 (null when the reference time is 0).
struct NetworkJson {
  const perf::NetworkReport* report = nullptr;  // nothing is added without one
  bool links = false;
  bool reference_sim = false;  // needs report->reference_sim
};
std::string result_to_json(const perf::Design& design, const perf::Result& result,
                           const NetworkJson& network, int indent = 2);

}  // namespace stackscope::io
