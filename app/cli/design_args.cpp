// SPDX-License-Identifier: GPL-3.0-or-later
// The design options of `evaluate` and `serve` (design_args.hpp).
#include "design_args.hpp"

#include <array>
#include <filesystem>
#include <memory>
#include <optional>

#include "resolve.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/experts/compare.hpp"
#include "stackscope/hw/wafer.hpp"
#include "stackscope/io/kernel_table.hpp"
#include "stackscope/kernels/table.hpp"
#include "stackscope/parallel/plan.hpp"
#include "stackscope/runtime/profile.hpp"

namespace stackscope::cli {
namespace {

constexpr std::int64_t kMaxDevices = 1'000'000;
constexpr std::int64_t kMaxDegree = 65'536;
constexpr std::int64_t kMaxBatch = 10'000'000;
constexpr std::int64_t kMaxTokens = 100'000'000;
constexpr std::int64_t kMaxOverlapTiles = 1024;  // perf::validate's range

Precision parse_precision(std::string_view text) {
  static constexpr std::array<Precision, 4> kAllowed = {Precision::fp16, Precision::bf16,
                                                        Precision::fp8, Precision::fp4};
  for (Precision p : kAllowed)
    if (to_string(p) == text) return p;
  throw CliError("--precision: unknown format '" + std::string(text) +
                 "' (allowed: fp16, bf16, fp8, fp4)");
}

// --overlap: "off", "auto", or a fixed tile count.
void apply_overlap(parallel::Plan& plan, const std::string& text) {
  if (text == "off") {
    plan.overlap = parallel::Overlap::off;
  } else if (text == "auto") {
    plan.overlap = parallel::Overlap::auto_tiles;
  } else {
    try {
      plan.overlap_tiles = static_cast<int>(parse_int("--overlap", text, 1, kMaxOverlapTiles));
    } catch (const CliError&) {
      throw CliError("--overlap: expected off, auto or a tile count, got '" + text +
                     "' (allowed: off, auto, or integer 1.." + std::to_string(kMaxOverlapTiles) +
                     ")");
    }
    plan.overlap = parallel::Overlap::fixed;
  }
}

}  // namespace

std::vector<OptionSpec> design_options() {
  return {
      {"--hardware", "ID|FILE", "device: hardware preset id or JSON file"},
      {"--system", "ID|FILE",
       "system network: preset id or JSON file (its device count unless --devices, and its "
       "device unless --hardware)"},
      {"--devices", "N", "devices in the system (default: tp*pp*dp*ep*cp when the plan changes)"},
      {"--model", "ID|FILE", "model preset id or JSON file"},
      {"--runtime", "ID|FILE",
       "runtime profile (serving software: kernel efficiencies, launches, KV re-reads): preset "
       "id or JSON file; kept when --hardware changes, so two devices compare under one"},
      {"--kernel-table", "ID|FILE",
       "measured kernel times of the device: a built-in table's id (h200) or a CSV file "
       "(docs/model.md §3.5); GEMM and attention kernels the table covers take its "
       "interpolated time instead of the roofline's; 'none' drops the hardware's own table"},
      {"--wafer", "ID|FILE",
       "wafer template (preset id or JSON file): the device becomes its die (of the hardware's "
       "technology) and the system its die-to-die mesh"},
      {"--wafer-set", "KEY=V,...",
       "change wafer fields by their project keys, e.g. dram_GB=96,dies_x=0,dies_y=0"},
      {"--precision", "P", "fp16|bf16|fp8|fp4 for weights, activations and KV cache"},
      {"--tp", "N", "tensor-parallel degree"},
      {"--pp", "N", "pipeline-parallel stages"},
      {"--dp", "N", "data-parallel replicas"},
      {"--ep", "N", "expert-parallel degree (MoE models)"},
      {"--cp", "N", "context-parallel degree (ring attention over the prompt; divides input-len)"},
      {"--sp", "", "sequence parallelism: TP all-reduce becomes reduce-scatter + all-gather"},
      {"--placement", "ORDER", "rank placement, innermost first: a permutation of tp,ep,cp,pp,dp"},
      {"--attention-tp", "N", "attention TP degree; the rest of a stage is attention-DP"},
      {"--ffn-tp", "N", "dense-FFN TP degree (divides the stage's tp*ep*cp devices)"},
      {"--moe-tp", "N", "TP degree inside each expert"},
      {"--moe-ep", "N", "expert-parallel degree of MoE layers (default: stage devices / moe tp)"},
      {"--redundant-experts", "N", "extra expert slots per EP rank for replicas of hot experts"},
      {"--expert-placement", "S",
       "routed-expert placement: plan (the plan's layout), eplb, balanced; on a mesh system also "
       "tp, ep, hd, hd-dynamic, shadow (scored by the mesh simulator)"},
      {"--eplb-groups", "G", "EPLB groups of ranks (1 = global policy, > 1 hierarchical)"},
      {"--hd-time-limit", "S", "GLPK time limit per MoE layer for hd placements, s"},
      {"--link-iterations", "N", "link-balance annealing proposals for hd placements (0 = none)"},
      {"--fit-tokens", "N",
       "tokens per batch mesh placements are fitted on (default: the workload's batch)"},
      {"--overlap", "off|N|auto", "compute/communication overlap: off, N tiles, auto (best N)"},
      {"--batch", "N|auto", "requests per replica; auto = largest batch that fits memory"},
      {"--input-len", "N", "prompt tokens per request"},
      {"--output-len", "N", "generated tokens per request"},
  };
}

perf::Design load_design(std::string_view command, const ParsedArgs& a,
                         const io::PresetRegistry& presets) {
  if (a.positional.empty()) return presets.project("default");
  const std::filesystem::path file = a.positional.front();
  std::error_code ec;
  // A directory, FIFO or device is refused by load_project, before it reads a byte.
  if (!std::filesystem::exists(file, ec)) {
    throw CliError(std::string(command) + ": cannot read project file '" + file.string() +
                   "' (no such file; allowed: a project JSON file, or none for the builtin "
                   "'default' project)");
  }
  return io::load_project(file, presets);
}

// Applies the command-line overrides to the design (documented in the command description).
void apply_overrides(perf::Design& d, const ParsedArgs& a, const io::PresetRegistry& presets,
                     bool workload) {
  bool plan_touched = false;
  const int project_devices = d.system.devices;
  // A runtime the project did not choose (its device class's default) follows a device of
  // another class given by --hardware/--system; one it named, or --runtime, stays.
  const bool runtime_defaulted =
      d.runtime.id == runtime::default_profile_id(runtime::device_class_of(d.hardware));
  if (auto v = a.get("--hardware")) {
    d.hardware = resolve("--hardware", *v,
                         [&](const std::string& s) { return io::resolve_hardware(s, presets); });
    plan_touched = true;
  }
  if (auto v = a.get("--system")) {
    d.system = resolve("--system", *v,
                       [&](const std::string& s) { return io::resolve_system(s, presets); });
    plan_touched = true;
    // A system built from a named device brings it along unless --hardware chose another.
    if (!a.has("--hardware") && !d.system.hardware.empty()) {
      d.hardware = resolve("--system", d.system.hardware,
                           [&](const std::string& s) { return io::resolve_hardware(s, presets); });
    }
  }
  if (auto v = a.get("--model")) {
    d.model =
        resolve("--model", *v, [&](const std::string& s) { return io::resolve_model(s, presets); });
    plan_touched = true;
    // Expert statistics belong to the old model unless they come from a trace file.
    if (d.workload.routing.kind != workload::RoutingKind::trace)
      d.workload.routing.expert_frequency.clear();
    // EP only means something for MoE models; a dense model given without --ep runs ep = 1
    // and drops the project's MoE module plan.
    if (d.model.moe.experts == 0) {
      if (!a.has("--ep")) d.parallel.ep = 1;
      if (!a.has("--moe-tp")) d.parallel.moe.tp = 0;
      if (!a.has("--moe-ep")) d.parallel.moe.ep = 0;
      if (!a.has("--redundant-experts")) d.parallel.redundant_experts_per_rank = 0;
      if (!a.has("--expert-placement"))
        d.parallel.experts.strategy = parallel::ExpertStrategy::plan;
    }
  }
  if (auto v = a.get("--runtime")) {
    d.runtime = resolve("--runtime", *v,
                        [&](const std::string& s) { return io::resolve_runtime(s, presets); });
  } else if (runtime_defaulted) {
    const std::string id = runtime::default_profile_id(runtime::device_class_of(d.hardware));
    if (id != d.runtime.id && presets.contains(io::PresetKind::runtime, id))
      d.runtime = presets.runtime(id);
  }
  if (auto v = a.get("--kernel-table"); v && *v == "none") {
    d.hardware.kernel_times = nullptr;
    d.hardware.kernel_table.clear();
  } else if (v) {
    d.hardware.kernel_times = resolve("--kernel-table", *v, [&](const std::string& s) {
      return io::resolve_kernel_table(s, {}, "--kernel-table");
    });
    d.hardware.kernel_table = *v;
  }
  if (auto v = a.get("--precision")) {
    const Precision p = parse_precision(*v);
    d.workload.numerics = {p, p, p};
  }
  auto degree = [&](const char* option, int& field) {
    if (auto v = a.get(option)) {
      field = static_cast<int>(parse_int(option, *v, 1, kMaxDegree));
      plan_touched = true;
    }
  };
  degree("--tp", d.parallel.tp);
  degree("--pp", d.parallel.pp);
  degree("--dp", d.parallel.dp);
  degree("--ep", d.parallel.ep);
  degree("--cp", d.parallel.cp);
  // Module plans and the placement re-arrange the same devices: the count is unchanged.
  auto module_degree = [&](const char* option, int& field) {
    if (auto v = a.get(option)) field = static_cast<int>(parse_int(option, *v, 1, kMaxDegree));
  };
  module_degree("--attention-tp", d.parallel.attention.tp);
  module_degree("--ffn-tp", d.parallel.dense_ffn.tp);
  module_degree("--moe-tp", d.parallel.moe.tp);
  module_degree("--moe-ep", d.parallel.moe.ep);
  if (auto v = a.get("--redundant-experts"))
    d.parallel.redundant_experts_per_rank =
        static_cast<int>(parse_int("--redundant-experts", *v, 0, kMaxDegree));
  auto& ex = d.parallel.experts;
  if (auto v = a.get("--expert-placement")) {
    const auto st = parallel::parse_expert_strategy(*v);
    if (!st)
      throw CliError("--expert-placement: unknown strategy '" + *v +
                     "' (allowed: plan, tp, ep, eplb, balanced, hd, hd-dynamic, shadow)");
    ex.strategy = *st;
  }
  if (auto v = a.get("--eplb-groups"))
    ex.eplb_groups = static_cast<int>(parse_int("--eplb-groups", *v, 1, kMaxDegree));
  if (auto v = a.get("--hd-time-limit"))
    ex.hd_time_limit_s = parse_double("--hd-time-limit", *v, 1e-3, 1e5);
  if (auto v = a.get("--fit-tokens"))
    ex.fit_tokens = static_cast<int>(parse_int("--fit-tokens", *v, 1, 65536));
  if (auto v = a.get("--link-iterations"))
    ex.link_iterations =
        static_cast<int>(parse_int("--link-iterations", *v, 0, experts::kMaxLinkIterations));
  if (a.has("--sp")) d.parallel.sequence_parallel = true;
  if (auto v = a.get("--placement")) d.parallel.placement = *v;  // validate() checks it
  if (auto v = a.get("--overlap")) apply_overlap(d.parallel, *v);
  if (auto v = workload ? a.get("--batch") : std::nullopt) {
    if (*v == "auto") {
      d.workload.batch_auto = true;
    } else {
      d.workload.batch_auto = false;
      try {
        d.workload.batch = static_cast<int>(parse_int("--batch", *v, 1, kMaxBatch));
      } catch (const CliError&) {
        throw CliError("--batch: expected 'auto' or an integer, got '" + *v +
                       "' (allowed: auto, or integer 1.." + std::to_string(kMaxBatch) + ")");
      }
    }
  }
  if (auto v = workload ? a.get("--input-len") : std::nullopt)
    d.workload.input_len = static_cast<int>(parse_int("--input-len", *v, 1, kMaxTokens));
  if (auto v = workload ? a.get("--output-len") : std::nullopt)
    d.workload.output_len = static_cast<int>(parse_int("--output-len", *v, 1, kMaxTokens));

  // A wafer (or changed wafer fields) re-derives the die and the mesh; the die count is then
  // the system's, absorbed by dp as for --devices.
  const bool wafer_touched = a.has("--wafer") || a.has("--wafer-set");
  if (auto v = a.get("--wafer")) {
    if (a.has("--system"))
      throw CliError("--wafer: not with --system (a wafer's system is its die-to-die mesh)");
    d.wafer =
        resolve("--wafer", *v, [&](const std::string& s) { return io::resolve_wafer(s, presets); });
  }
  if (auto v = a.get("--wafer-set")) {
    if (!d.wafer)
      throw CliError("--wafer-set: the design has no wafer (give --wafer or a wafer project)");
    d.wafer = io::set_wafer_fields(*d.wafer, *v, "--wafer-set");
  }
  if (wafer_touched) {
    hw::apply_wafer(*d.wafer, d.hardware, d.system);
    const int per_replica = parallel::devices_per_replica(d.parallel);
    if (!a.has("--dp") && per_replica > 0 && d.system.devices % per_replica == 0)
      d.parallel.dp = d.system.devices / per_replica;
  }

  // A device count given by --devices, or by the --system preset itself, is kept: data
  // parallelism absorbs the devices the other degrees leave over (4 devices, tp 4 -> dp 1),
  // so "--devices N --tp T" means what it says whatever the project's dp was. Otherwise a
  // changed plan resizes the system to the plan.
  std::optional<int> fixed_devices;
  if (auto v = a.get("--devices"))
    fixed_devices = static_cast<int>(parse_int("--devices", *v, 1, kMaxDevices));
  else if (a.has("--system"))
    fixed_devices = d.system.devices;
  if (fixed_devices) {
    d.system.devices = *fixed_devices;
    const int per_replica = parallel::devices_per_replica(d.parallel);
    if (!a.has("--dp") && per_replica > 0 && d.system.devices % per_replica == 0)
      d.parallel.dp = d.system.devices / per_replica;
  } else if (plan_touched && !d.wafer) {
    d.system.devices = parallel::devices(d.parallel);
  }
  // The project's name describes its own device, model and device count; a changed one
  // would mislead.
  if (a.has("--hardware") || a.has("--model") || a.has("--system") ||
      d.system.devices != project_devices) {
    d.name = perf::described_name(d);
  }
}

}  // namespace stackscope::cli
