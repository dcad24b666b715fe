// SPDX-License-Identifier: GPL-3.0-or-later
// `dram`: the DRAM model's effective bandwidth of one device memory for one access pattern.
#include <cmath>
#include <optional>
#include <ostream>

#include "commands.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/memory_json.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/memory/bank_sim.hpp"
#include "stackscope/memory/dram.hpp"
#include "stackscope/perf/validate.hpp"

namespace stackscope::cli {
namespace {

constexpr double kGB = 1e9;  // bandwidths in decimal GB/s, as datasheets quote them

std::vector<OptionSpec> dram_options() {
  return {
      {"--memory", "ID|FILE", "hardware preset id or hardware JSON file (its memory is used)"},
      {"--pattern", "P", "stream | random | chunk:BYTES | mix:READ_FRACTION | row-conflict"},
      {"--temperature", "C", "DRAM temperature in deg C (refresh doubles above 85; default 50)"},
      {"--reference", "", "also run the bank-level DRAM simulator and compare it with the model"},
      {"--table", "", "model vs reference for every DRAM preset (or --memory) x pattern"},
      {"--json", "", "print the result as JSON"},
      {"--help", "", "show this help"},
  };
}

std::string_view kind_name(hw::MemoryKind k) {
  switch (k) {
    case hw::MemoryKind::hbm: return "2.5D HBM";
    case hw::MemoryKind::stacked_3d: return "3D-stacked DRAM";
    case hw::MemoryKind::sram_only: return "on-die SRAM only";
  }
  return "?";
}

hw::Hardware resolve_memory(const std::string& memory_arg, Context& ctx) {
  hw::Hardware hardware;
  try {
    hardware = io::resolve_hardware(memory_arg, ctx.presets);
  } catch (const ConfigError& e) {
    std::vector<std::string> lines;
    for (const auto& issue : e.issues()) {
      std::string text = format_issue(issue);
      if (issue.path.empty() || issue.path == "/") text.erase(0, text.find(": ") + 2);
      lines.push_back("--memory '" + memory_arg + "': " + text);
    }
    if (lines.empty()) lines.push_back("--memory '" + memory_arg + "': " + e.what());
    throw CliError(std::move(lines));
  }
  // The DRAM model divides by the clock, the banks and the timings: a hardware file with a zero
  // clock or tRFC >= tREFI is refused here, as evaluate refuses it.
  if (const auto issues = perf::validate_memory(hardware, ""); !issues.empty()) {
    std::vector<std::string> lines;
    for (const auto& issue : issues)
      lines.push_back("--memory '" + memory_arg + "': " + format_issue(issue));
    throw CliError(std::move(lines));
  }
  return hardware;
}

// --table: the DRAM agreement table (docs/model.md §4.6, §18.3). The
// simulator runs its default window, so the whole table takes tens of seconds.
int run_table(const ParsedArgs& a, Context& ctx) {
  if (a.has("--pattern") || a.has("--temperature"))
    throw CliError(
        "dram --table: --pattern and --temperature do not apply (the table runs every "
        "pattern at 50 deg C)");
  std::vector<std::pair<std::string, hw::Memory>> memories;
  if (const auto memory_arg = a.get("--memory")) {
    const hw::Hardware h = resolve_memory(*memory_arg, ctx);
    memories = memory::agreement_memories(h.id.empty() ? *memory_arg : h.id, h.memory);
  } else {
    for (const auto& info : ctx.presets.list(io::PresetKind::hardware))
      for (auto& m : memory::agreement_memories(info.id, ctx.presets.hardware(info.id).memory))
        memories.push_back(std::move(m));
  }
  std::vector<memory::AgreementRow> rows;
  for (const auto& [name, mem] : memories)
    for (const auto& pattern : memory::agreement_patterns())
      rows.push_back(memory::agreement_row(name, mem, pattern));
  constexpr double kTolerance = 0.10;  // docs/model.md §18.3
  double worst = 0;
  std::string worst_case;
  int over = 0;
  for (const auto& r : rows) {
    const double e = std::fabs(r.error);
    if (e > kTolerance) ++over;
    if (e >= worst) {
      worst = e;
      worst_case = r.memory + " " + r.pattern;
    }
  }
  if (a.has("--json")) {
    ctx.out << io::dram_agreement_json(rows, kTolerance, worst, over) << "\n";
    return kExitOk;
  }
  ctx.out
      << "DRAM model limit min(row, act) x (1 - refresh) vs the bank-level reference, 50 deg C\n\n";
  Table t({"memory", "pattern", "model GB/s", "reference GB/s", "error %"}, "llrrr");
  for (const auto& r : rows)
    t.row({r.memory, r.pattern, readable(r.model_Bps / kGB), readable(r.reference_Bps / kGB),
           fixed(100.0 * r.error, 1)});
  ctx.out << t.str() << "\n"
          << rows.size() << " rows; worst |error| " << fixed(100.0 * worst, 1) << " % ("
          << worst_case << "); " << over << " above " << fixed(100.0 * kTolerance, 0) << " %\n";
  return kExitOk;
}

int run_dram(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = dram_options();
  const ParsedArgs a = parse_args("dram", args, options, 0);
  if (a.has("--help")) {
    print_command_help(make_dram_command(), ctx.out);
    return kExitOk;
  }
  if (a.has("--table")) return run_table(a, ctx);
  const auto memory_arg = a.get("--memory");
  if (!memory_arg) {
    throw CliError(
        "dram: --memory is required unless --table is given (allowed: a hardware preset id or "
        "JSON file; see 'stackscope-cli presets --kind hardware')");
  }
  const std::string pattern_text = a.get("--pattern").value_or("stream");
  std::string pattern_error;
  const auto pattern = memory::parse_pattern(pattern_text, &pattern_error);
  if (!pattern) throw CliError("--pattern: " + pattern_error);
  const double temperature_C =
      a.has("--temperature") ? parse_double("--temperature", *a.get("--temperature"), -40, 150)
                             : 50.0;

  const hw::Hardware hardware = resolve_memory(*memory_arg, ctx);

  const memory::DramBandwidth bw =
      memory::effective_bandwidth(hardware.memory, hardware.compute, *pattern, temperature_C);
  // --reference: the bank-level simulator vs the model's DRAM-device limit
  // min(row, activation) x (1 - refresh); buffering, SRAM and utilisation caps are not DRAM
  // behaviour, so they are left out of the comparison (bank_sim.hpp).
  const bool reference = a.has("--reference") && hardware.memory.kind != hw::MemoryKind::sram_only;
  memory::BankSimResult sim;
  double dram_limit = 0, ref_error = 0;
  if (reference) {
    memory::BankSimConfig cfg;
    cfg.temperature_C = temperature_C;
    sim = memory::simulate_bank_level(hardware.memory, *pattern, cfg);
    dram_limit = memory::analytic_dram_limit_Bps(bw);
    ref_error = sim.effective_Bps > 0 ? (dram_limit - sim.effective_Bps) / sim.effective_Bps : 0;
  }

  if (a.has("--json")) {
    std::optional<io::DramReference> ref;
    if (reference) ref = io::DramReference{dram_limit, sim, ref_error};
    ctx.out << io::dram_bandwidth_json(hardware, pattern_text, temperature_C, bw, ref) << "\n";
    return kExitOk;
  }

  const auto& m = hardware.memory;
  ctx.out << "memory       " << hardware.name << " (" << hardware.id << "): " << kind_name(m.kind)
          << ", " << m.stacks << " stack(s) x " << m.layers_connected << "/" << m.layers_total
          << " layers connected\n"
          << "pattern      " << pattern_text << "\n"
          << "temperature  " << fixed(temperature_C, 0) << " deg C\n\n";
  Table t({"quantity", "value", "unit"}, "lrl");
  t.row({"peak bandwidth", readable(bw.peak_Bps / kGB), "GB/s"});
  t.row({"row-cycle efficiency (eta)", fixed(bw.eta, 3), ""});
  t.row({"row-cycle limit", readable(bw.row_limited_Bps / kGB), "GB/s"});
  t.row({"activation-rate limit (tFAW/tRRD)", readable(bw.activation_Bps / kGB), "GB/s"});
  t.row({"buffering limit (Little's law)", readable(bw.buffering_Bps / kGB), "GB/s"});
  t.row({"SRAM staging limit", readable(bw.sram_Bps / kGB), "GB/s"});
  t.row({"refresh overhead", fixed(100.0 * bw.refresh_overhead, 2), "%"});
  t.row({"effective bandwidth", readable(bw.effective_Bps / kGB), "GB/s"});
  ctx.out << t.str();
  const double frac = bw.peak_Bps > 0 ? bw.effective_Bps / bw.peak_Bps : 0;
  ctx.out << "\nbound by     " << memory::to_string(bw.bound) << " (" << fixed(100.0 * frac, 1)
          << " % of peak)\n";
  if (reference) {
    ctx.out << "\nbank-level reference (cycle-stepped, open page, FR-FCFS; "
            << sim.banks_per_channel << " banks per channel)\n";
    Table r({"quantity", "value", "unit"}, "lrl");
    r.row({"model DRAM limit min(row, act) x (1 - refresh)", readable(dram_limit / kGB), "GB/s"});
    r.row({"reference bandwidth", readable(sim.effective_Bps / kGB), "GB/s"});
    r.row({"model error vs reference", fixed(100.0 * ref_error, 1), "%"});
    r.row({"reference row hit rate", fixed(100.0 * sim.row_hit_rate, 1), "%"});
    r.row({"reference refresh share", fixed(100.0 * sim.refresh_share, 2), "%"});
    ctx.out << r.str();
  }
  return kExitOk;
}

}  // namespace

Command make_dram_command() {
  Command c;
  c.name = "dram";
  c.synopsis =
      "dram --memory ID|FILE --pattern PATTERN [--temperature C] [--reference] [--json]\n"
      "       dram --table [--memory ID|FILE] [--json]";
  c.summary = "effective DRAM bandwidth of a device memory for an access pattern";
  c.description =
      "Runs the transaction-aware DRAM model (row cycle over the banks behind a channel, bank\n"
      "groups and read/write turnarounds, activation-rate cap, Little's-law buffering, SRAM\n"
      "staging, refresh) for the memory of a\n"
      "hardware preset or file, and prints each limit and the effective bandwidth.\n"
      "--reference also runs the bank-level simulator (tRCD/tRP/tRAS/tFAW/tRRD/tCCD/tWTR,\n"
      "refresh) and compares it with the model's DRAM-device limit\n"
      "min(row-cycle, activation) x (1 - refresh) (reference_GBps, reference_error).\n"
      "--table prints that comparison for every shipped hardware preset with a DRAM (or the\n"
      "--memory one) x stream, random, chunk:256/1024/65536, mix:0.7/0.5, row-conflict, with\n"
      "3D stacks also at 2-16 layers, half and all connected; the model should be within 10 %.";
  c.options = dram_options();
  c.run = run_dram;
  return c;
}

}  // namespace stackscope::cli
