// SPDX-License-Identifier: GPL-3.0-or-later
// `evaluate`: one design point -> metrics table or the io::result_to_json document.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <optional>
#include <ostream>

#include "commands.hpp"
#include "design_args.hpp"
#include "plan_hint.hpp"
#include "resolve.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/validation.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/limits.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/power_area/energy.hpp"

namespace stackscope::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kGB = 1e9;  // link traffic in decimal GB, as bandwidths are quoted

std::vector<OptionSpec> evaluate_options() {
  std::vector<OptionSpec> o = design_options();
  o.push_back({"--links", "", "show the busiest network links (bytes and utilisation per phase)"});
  o.push_back({"--reference-sim", "",
               "also replay the collectives on the flow-level reference simulator (slow)"});
  o.push_back({"--json", "", "print the result as JSON"});
  o.push_back({"--help", "", "show this help"});
  return o;
}

std::string ms(double s) {
  return readable(s * 1e3);
}

void print_breakdown(const perf::Result& r, std::ostream& out) {
  const auto share = [](double part, double total) {
    return total > 0 ? fixed(100.0 * part / total, 1) + " %" : std::string("-");
  };
  const double pre_total =
      std::accumulate(r.prefill.resource_s.begin(), r.prefill.resource_s.end(), 0.0);
  const double dec_total =
      std::accumulate(r.decode.resource_s.begin(), r.decode.resource_s.end(), 0.0);
  Table res({"time by resource", "prefill ms", "share", "decode step ms", "share"});
  for (std::size_t i = 0; i < perf::kResources; ++i) {
    const double p = r.prefill.resource_s[i], d = r.decode.resource_s[i];
    if (p <= 0 && d <= 0) continue;
    res.row({std::string(perf::to_string(static_cast<perf::Resource>(i))), ms(p),
             share(p, pre_total), ms(d), share(d, dec_total)});
  }
  out << "\n" << res.str();

  const double pre_ops = std::accumulate(r.prefill.op_s.begin(), r.prefill.op_s.end(), 0.0);
  const double dec_ops = std::accumulate(r.decode.op_s.begin(), r.decode.op_s.end(), 0.0);
  std::vector<std::size_t> order(perf::kOpClasses);
  std::iota(order.begin(), order.end(), std::size_t{0});
  // Rank operators by their combined share of both phases: the top few explain the design.
  auto weight = [&](std::size_t i) {
    return (pre_ops > 0 ? r.prefill.op_s[i] / pre_ops : 0) +
           (dec_ops > 0 ? r.decode.op_s[i] / dec_ops : 0);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return weight(x) > weight(y); });
  Table ops({"top operators", "prefill ms", "share", "decode step ms", "share"});
  int shown = 0;
  for (std::size_t i : order) {
    if (shown == 6 || weight(i) <= 0) break;
    ops.row({std::string(perf::to_string(static_cast<perf::OpClass>(i))), ms(r.prefill.op_s[i]),
             share(r.prefill.op_s[i], pre_ops), ms(r.decode.op_s[i]),
             share(r.decode.op_s[i], dec_ops)});
    ++shown;
  }
  out << "\n" << ops.str();
}

// "tp 2, pp 2, dp 1, ep 64" plus whatever differs from the defaults.
std::string plan_text(const parallel::Plan& p) {
  std::string s = "tp " + std::to_string(p.tp) + ", pp " + std::to_string(p.pp) + ", dp " +
                  std::to_string(p.dp) + ", ep " + std::to_string(p.ep);
  if (p.cp != 1) s += ", cp " + std::to_string(p.cp);
  if (p.sequence_parallel) s += ", SP";
  const auto module = [&](const char* name, const parallel::ModulePlan& m) {
    if (m.tp > 0) s += std::string(", ") + name + " tp " + std::to_string(m.tp);
    if (m.ep > 0) s += std::string(", ") + name + " ep " + std::to_string(m.ep);
  };
  module("attention", p.attention);
  module("dense FFN", p.dense_ffn);
  module("MoE", p.moe);
  if (p.redundant_experts_per_rank > 0)
    s += ", +" + std::to_string(p.redundant_experts_per_rank) + " redundant experts/rank";
  if (p.placement != parallel::Plan{}.placement) s += ", placement " + p.placement;
  if (p.experts.strategy != parallel::ExpertStrategy::plan)
    s += ", experts placed " + std::string(parallel::to_string(p.experts.strategy));
  switch (p.overlap) {
    case parallel::Overlap::off: break;
    case parallel::Overlap::fixed:
      s += ", overlap " + std::to_string(p.overlap_tiles) + " tiles";
      break;
    case parallel::Overlap::auto_tiles: s += ", overlap auto"; break;
  }
  return s;
}

// Links that carry traffic, busiest first (the order of io's "links" JSON).
std::vector<const perf::LinkUse*> busy_links(const perf::NetworkReport& n) {
  std::vector<const perf::LinkUse*> busy;
  for (const auto& l : n.links)
    if (l.decode_bytes > 0 || l.prefill_bytes > 0) busy.push_back(&l);
  std::stable_sort(busy.begin(), busy.end(), [](const perf::LinkUse* a, const perf::LinkUse* b) {
    if (a->decode_utilisation != b->decode_utilisation)
      return a->decode_utilisation > b->decode_utilisation;
    return a->prefill_utilisation > b->prefill_utilisation;
  });
  return busy;
}

std::string level_name(const hw::System& s, int level) {
  if (level < 0 || static_cast<std::size_t>(level) >= s.levels.size()) return "?";
  const auto& name = s.levels[static_cast<std::size_t>(level)].name;
  return name.empty() ? "level " + std::to_string(level) : name;
}

constexpr std::size_t kLinkRows = 10;

void print_links(const perf::Design& d, const perf::NetworkReport& n, std::ostream& out) {
  const auto busy = busy_links(n);
  out << "\nbusiest links (" << busy.size() << " of " << n.links.size()
      << " directed links carry traffic";
  if (busy.size() > kLinkRows) out << "; top " << kLinkRows << " shown, --json lists all";
  out << ")\n";
  if (busy.empty()) return;
  Table t({"from", "to", "level", "GB/decode step", "util %", "GB/prefill", "util %"}, "lll");
  for (std::size_t i = 0; i < busy.size() && i < kLinkRows; ++i) {
    const auto& l = *busy[i];
    t.row({l.from_name, l.to_name, level_name(d.system, l.level), readable(l.decode_bytes / kGB),
           fixed(100.0 * l.decode_utilisation, 1), readable(l.prefill_bytes / kGB),
           fixed(100.0 * l.prefill_utilisation, 1)});
  }
  out << t.str();
}

std::string error_text(double analytic, double reference) {
  if (!(reference > 0)) return "-";
  const double e = 100.0 * (analytic / reference - 1.0);
  if (std::fabs(e) < 0.05) return "0.0 %";  // not "-0.0 %" from rounding noise
  return (e > 0 ? "+" : "") + fixed(e, 1) + " %";
}

void print_reference(const perf::Result& r, const perf::NetworkReport& n, std::ostream& out) {
  out << "\nreference simulator (flow-level, max-min fair) vs analytic network model\n";
  Table t({"", "analytic ms", "reference ms", "analytic error"}, "l");
  t.row({"network time per decode step", ms(n.decode_comm_analytic_s),
         ms(n.decode_comm_reference_s),
         error_text(n.decode_comm_analytic_s, n.decode_comm_reference_s)});
  t.row({"network time per prefill pass", ms(n.prefill_comm_analytic_s),
         ms(n.prefill_comm_reference_s),
         error_text(n.prefill_comm_analytic_s, n.prefill_comm_reference_s)});
  t.row({"TTFT", ms(r.metrics.ttft_s), ms(n.ttft_reference_s),
         error_text(r.metrics.ttft_s, n.ttft_reference_s)});
  t.row({"TPOT", ms(r.metrics.tpot_s), ms(n.tpot_reference_s),
         error_text(r.metrics.tpot_s, n.tpot_reference_s)});
  out << t.str();
}

// Said when a profile sourced for one device class runs on another (a like-for-like comparison
// does that on purpose; the reader should know).
std::string runtime_class_note(const perf::Design& d) {
  const auto cls = runtime::device_class_of(d.hardware);
  if (d.runtime.device_class == runtime::DeviceClass::any || d.runtime.device_class == cls)
    return {};
  return std::string("; sourced for class ") + runtime::to_string(d.runtime.device_class) +
         ", this device is class " + runtime::to_string(cls);
}

void print_table(const perf::Design& d, const perf::Result& r, std::ostream& out) {
  const auto& w = d.workload;
  const auto& p = d.parallel;
  const std::string prec = std::string(to_string(w.numerics.weights)) + "/" +
                           std::string(to_string(w.numerics.activations)) + "/" +
                           std::string(to_string(w.numerics.kv_cache));
  out << "design    " << (d.name.empty() ? std::string("(unnamed)") : d.name) << "\n"
      << "hardware  " << d.hardware.name << " (" << d.hardware.id << ") x " << d.system.devices
      << " devices" << (d.system.name.empty() ? "" : ", system " + d.system.name) << "\n"
      << "model     " << d.model.name << " (" << d.model.id << "), weights/act/kv " << prec << "\n"
      << "runtime   " << d.runtime.name << " (" << d.runtime.id << ")" << runtime_class_note(d)
      << "\n"
      << "envelope  " << validate::match_envelope(io::builtin_envelope(), d).text << "\n"
      << "kernels   " << perf::kernel_source_text(d, r) << "\n"
      << "plan      " << plan_text(p) << "; batch " << r.batch << " per replica"
      << (w.batch_auto ? " (auto)" : "") << "; input " << w.input_len << ", output " << w.output_len
      << " tokens\n\n";

  const auto& m = r.metrics;
  const int devices = std::max(1, d.system.devices);
  Table t({"metric", "value", "unit"}, "lrl");
  t.row({"TTFT (time to first token)", ms(m.ttft_s), "ms"});
  t.row({"TPOT (time per output token)", ms(m.tpot_s), "ms"});
  t.row({"UTPS (tokens/s per user)", readable(m.utps), "tok/s"});
  t.row({"STPS (decode tokens/s, system)", readable(m.stps), "tok/s"});
  t.row({"end-to-end output tokens/s", readable(m.e2e_output_tokens_per_s), "tok/s"});
  t.row({"end-to-end per device", readable(m.e2e_output_tokens_per_s / devices), "tok/s"});
  t.row({"energy per output token", readable(m.energy_per_token_j), "J"});
  t.row({"  prefill, per prompt token", readable(m.prefill_energy_per_token_j), "J"});
  t.row({"  decode step, per token", readable(m.decode_energy_per_token_j), "J"});
  t.row({"power per device", readable(m.power_w), "W"});
  const auto clock = [&](double s) {
    return fixed(power_area::reported_clock_MHz(d.hardware, s), 0);
  };
  t.row({"  prefill: power / clock",
         fixed(r.prefill.power_W, 0) + " / " + clock(r.prefill.clock_scale), "W / MHz"});
  t.row({"  decode: power / clock",
         fixed(r.decode.power_W, 0) + " / " + clock(r.decode.clock_scale), "W / MHz"});
  t.row({"memory used per device", fixed(r.memory.total() / kGiB, 1), "GiB"});
  t.row({"memory capacity per device", fixed(r.memory.capacity / kGiB, 1), "GiB"});
  t.row({"die area used / die", fixed(r.area.used, 0) + " / " + fixed(r.area.die, 0), "mm2"});
  if (r.thermal.modelled)
    t.row({"peak DRAM temperature (compact)", fixed(r.thermal.dram_peak_C, 1), "deg C"});
  out << t.str();
  out << "  (weights " << fixed(r.memory.weights / kGiB, 1) << ", KV cache "
      << fixed(r.memory.kv_cache / kGiB, 1) << ", activations "
      << fixed(r.memory.activations / kGiB, 1) << ", reserved "
      << fixed(r.memory.reserved / kGiB, 1) << " GiB)\n";
  if (r.clock_scale < 1.0 || r.prefill.clock_scale < 1.0) {
    out << "  clocks scaled to " << fixed(100.0 * r.prefill.clock_scale, 0) << " % (prefill) and "
        << fixed(100.0 * r.clock_scale, 0)
        << " % (decode) to stay within the power and thermal limits\n";
  }
  if (r.thermal.throttle < 1.0) {
    out << "  DRAM command rate throttled to " << fixed(100.0 * r.thermal.throttle, 0)
        << " % to hold DRAM at 95 C\n";
  }
  // Decode-phase power per die / layer (bond k and DRAM die k counted from the logic die).
  const auto& pw = r.power;
  out << "  decode power " << fixed(pw.total_W, 1) << " W: logic die " << fixed(pw.logic_die_W(), 1)
      << " (cores " << fixed(pw.logic_dynamic_W, 1) << ", static " << fixed(pw.logic_static_W, 1)
      << ", NoC " << fixed(pw.noc_W, 1) << ")";
  if (pw.dram_layers > 0) {
    out << ", vertical links " << fixed(pw.vertical_W, 1) << ", DRAM dies";
    for (int k = 1; k <= pw.dram_layers; ++k)
      out << (k == 1 ? " " : "/") << fixed(pw.dram_die_W(k), 1);
    out << "\n";
  } else {
    out << ", DRAM " << fixed(pw.dram_access_W, 1) << " (off the logic die)\n";
  }
  out << "\nfeasible  " << (r.feasible ? "yes" : "no") << "\n";
  for (const auto& reason : perf::describe(r.reasons)) out << "  - " << reason << "\n";
  print_breakdown(r, out);
}

int run_evaluate(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = evaluate_options();
  const ParsedArgs a = parse_args("evaluate", args, options, 1);
  if (a.has("--help")) {
    print_command_help(make_evaluate_command(), ctx.out);
    return kExitOk;
  }
  perf::Design design = load_design("evaluate", a, ctx.presets);
  apply_overrides(design, a, ctx.presets);

  const auto hint = plan_convention_hint(design, a);
  if (const auto issues = perf::validate(design); !issues.empty()) {
    print_issues(ctx.err, issues);
    if (hint) ctx.err << *hint;
    return kExitBadInput;
  }
  if (hint) ctx.err << *hint;  // valid, but on more devices than the user probably meant
  const perf::Result result = perf::evaluate(design);
  const bool links = a.has("--links");
  const bool reference = a.has("--reference-sim");
  if ((links || reference) && design.system.devices > perf::limits::kMaxNetworkReportDevices)
    throw CliError(std::string(links ? "--links" : "--reference-sim") + ": " +
                   std::to_string(design.system.devices) +
                   " devices; the per-link replay grows with devices^2 (allowed: systems of at "
                   "most " +
                   std::to_string(perf::limits::kMaxNetworkReportDevices) +
                   " devices, or evaluate without it)");
  std::optional<perf::NetworkReport> network;
  if (links || reference) network = perf::network_report(design, reference);
  if (a.has("--json")) {
    ctx.out << io::result_to_json(design, result,
                                  io::NetworkJson{network ? &*network : nullptr, links, reference})
            << "\n";
    return kExitOk;
  }
  print_table(design, result, ctx.out);
  if (links) print_links(design, *network, ctx.out);
  if (reference) print_reference(result, *network, ctx.out);
  return kExitOk;  // an infeasible design is a valid answer: feasible=false plus reasons
}

}  // namespace

Command make_evaluate_command() {
  Command c;
  c.name = "evaluate";
  c.synopsis = "evaluate [PROJECT.json] [options]";
  c.summary = "evaluate one design point: latency, throughput, energy, memory, breakdown";
  c.description =
      "Evaluates a project (default: the builtin project preset 'default') with the options\n"
      "below overriding it. --precision sets weights, activations and KV cache. The device\n"
      "count comes from --devices, else from the --system preset; then dp (unless given) fills\n"
      "the devices the other degrees leave over. Without either, a changed plan, device or\n"
      "model resizes the system to tp*pp*dp*ep*cp devices. Module plans (--attention-tp,\n"
      "--ffn-tp, --moe-tp, --moe-ep) re-partition the tp*ep*cp devices of each pipeline stage.\n"
      "--links lists the busiest directed links; --reference-sim replays the same collectives\n"
      "on the flow-level simulator and compares network time, TTFT and TPOT (JSON keys\n"
      "\"links\" and \"reference_sim\"). The design is validated first (problems are printed\n"
      "as 'error:' lines, exit 2). An infeasible design still prints its metrics with\n"
      "feasible=no and the reasons (exit 0).";
  c.options = evaluate_options();
  c.run = run_evaluate;
  return c;
}

}  // namespace stackscope::cli
