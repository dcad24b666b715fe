// SPDX-License-Identifier: GPL-3.0-or-later
// `evaluate`: one design point -> metrics table or the io::result_to_json document.
#include <algorithm>
#include <array>
#include <filesystem>
#include <numeric>
#include <ostream>

#include "commands.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/perf/evaluator.hpp"
#include "stackscope/perf/validate.hpp"

namespace stackscope::cli {
namespace {

constexpr std::int64_t kMaxDevices = 1'000'000;
constexpr std::int64_t kMaxDegree = 65'536;
constexpr std::int64_t kMaxBatch = 10'000'000;
constexpr std::int64_t kMaxTokens = 100'000'000;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::vector<OptionSpec> evaluate_options() {
  return {
      {"--hardware", "ID|FILE", "device: hardware preset id or JSON file"},
      {"--system", "ID|FILE", "system network: system preset id or JSON file"},
      {"--devices", "N", "devices in the system (default: tp*pp*dp*ep when the plan changes)"},
      {"--model", "ID|FILE", "model preset id or JSON file"},
      {"--precision", "P", "fp16|bf16|fp8|fp4 for weights, activations and KV cache"},
      {"--tp", "N", "tensor-parallel degree"},
      {"--pp", "N", "pipeline-parallel stages"},
      {"--dp", "N", "data-parallel replicas"},
      {"--ep", "N", "expert-parallel degree (MoE models)"},
      {"--batch", "N|auto", "requests per replica; auto = largest batch that fits memory"},
      {"--input-len", "N", "prompt tokens per request"},
      {"--output-len", "N", "generated tokens per request"},
      {"--json", "", "print the result as JSON"},
      {"--help", "", "show this help"},
  };
}

Precision parse_precision(std::string_view text) {
  static constexpr std::array<Precision, 4> kAllowed = {Precision::fp16, Precision::bf16,
                                                        Precision::fp8, Precision::fp4};
  for (Precision p : kAllowed)
    if (to_string(p) == text) return p;
  throw CliError("--precision: unknown format '" + std::string(text) +
                 "' (allowed: fp16, bf16, fp8, fp4)");
}

// An issue about the whole argument has path "/" or none; "--model 'x': /: ..." reads badly.
std::string issue_text(const Issue& issue) {
  std::string s = format_issue(issue);
  if (issue.path.empty() || issue.path == "/") s.erase(0, s.find(": ") + 2);
  return s;
}

// Resolving a preset id or file: ConfigError issues get the option as context.
template <typename F>
auto resolve(std::string_view option, const std::string& value, F&& f) {
  try {
    return f(value);
  } catch (const ConfigError& e) {
    std::vector<std::string> lines;
    for (const auto& issue : e.issues())
      lines.push_back(std::string(option) + " '" + value + "': " + issue_text(issue));
    if (lines.empty()) lines.push_back(std::string(option) + " '" + value + "': " + e.what());
    throw CliError(std::move(lines));
  }
}

// Applies the command-line overrides to the design (documented in the command description).
void apply_overrides(perf::Design& d, const ParsedArgs& a, const io::PresetRegistry& presets) {
  bool plan_touched = false;
  if (auto v = a.get("--hardware")) {
    d.hardware = resolve("--hardware", *v,
                         [&](const std::string& s) { return io::resolve_hardware(s, presets); });
    plan_touched = true;
  }
  if (auto v = a.get("--system")) {
    d.system = resolve("--system", *v,
                       [&](const std::string& s) { return io::resolve_system(s, presets); });
    plan_touched = true;
  }
  if (auto v = a.get("--model")) {
    d.model =
        resolve("--model", *v, [&](const std::string& s) { return io::resolve_model(s, presets); });
    plan_touched = true;
    // Expert statistics belong to the old model unless they come from a trace file.
    if (d.workload.routing.kind != workload::RoutingKind::trace)
      d.workload.routing.expert_frequency.clear();
    // EP only means something for MoE models; a dense model given without --ep runs ep = 1.
    if (d.model.moe.experts == 0 && !a.has("--ep")) d.parallel.ep = 1;
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
  if (auto v = a.get("--batch")) {
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
  if (auto v = a.get("--input-len"))
    d.workload.input_len = static_cast<int>(parse_int("--input-len", *v, 1, kMaxTokens));
  if (auto v = a.get("--output-len"))
    d.workload.output_len = static_cast<int>(parse_int("--output-len", *v, 1, kMaxTokens));

  if (auto v = a.get("--devices")) {
    d.system.devices = static_cast<int>(parse_int("--devices", *v, 1, kMaxDevices));
    // Data parallelism absorbs the devices the other degrees leave over (4 devices, tp 4 ->
    // dp 1), so "--devices N --tp T" means what it says whatever the project's dp was.
    const int per_replica = parallel::devices_per_replica(d.parallel);
    if (!a.has("--dp") && per_replica > 0 && d.system.devices % per_replica == 0)
      d.parallel.dp = d.system.devices / per_replica;
  } else if (plan_touched) {
    d.system.devices = parallel::devices(d.parallel);
  }
  // The project's name describes its own device and model; a swapped one would mislead.
  if (a.has("--hardware") || a.has("--model")) {
    d.name = d.model.name + " on " + std::to_string(d.system.devices) + "x " + d.hardware.name;
  }
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
      << "plan      tp " << p.tp << ", pp " << p.pp << ", dp " << p.dp << ", ep " << p.ep
      << "; batch " << r.batch << " per replica" << (w.batch_auto ? " (auto)" : "") << "; input "
      << w.input_len << ", output " << w.output_len << " tokens\n\n";

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
  t.row({"power per device", readable(m.power_w), "W"});
  t.row({"memory used per device", fixed(r.memory.total() / kGiB, 1), "GiB"});
  t.row({"memory capacity per device", fixed(r.memory.capacity / kGiB, 1), "GiB"});
  out << t.str();
  out << "  (weights " << fixed(r.memory.weights / kGiB, 1) << ", KV cache "
      << fixed(r.memory.kv_cache / kGiB, 1) << ", activations "
      << fixed(r.memory.activations / kGiB, 1) << ", reserved "
      << fixed(r.memory.reserved / kGiB, 1) << " GiB)\n";
  if (r.clock_scale < 1.0) {
    out << "  clocks scaled to " << fixed(100.0 * r.clock_scale, 0)
        << " % to stay within the power limit\n";
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
  perf::Design design;
  if (!a.positional.empty()) {
    const std::filesystem::path file = a.positional.front();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
      throw CliError("evaluate: cannot read project file '" + file.string() +
                     "' (no such file; allowed: a project JSON file, or none for the "
                     "builtin 'default' project)");
    }
    design = io::load_project(file, ctx.presets);
  } else {
    design = ctx.presets.project("default");
  }
  apply_overrides(design, a, ctx.presets);

  if (const auto issues = perf::validate(design); !issues.empty()) {
    for (const auto& issue : issues) ctx.err << "error: " << format_issue(issue) << "\n";
    return kExitBadInput;
  }
  const perf::Result result = perf::evaluate(design);
  if (a.has("--json")) {
    ctx.out << io::result_to_json(design, result) << "\n";
  } else {
    print_table(design, result, ctx.out);
  }
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
      "below overriding it. --precision sets weights, activations and KV cache. When the plan\n"
      "or the device/system/model changes and --devices is not given, the system gets\n"
      "tp*pp*dp*ep devices; when --devices is given without --dp, dp fills the devices left\n"
      "over. The design is validated first (problems are printed as 'error:' lines, exit 2).\n"
      "An infeasible design still prints its metrics with feasible=no and the reasons (exit 0).";
  c.options = evaluate_options();
  c.run = run_evaluate;
  return c;
}

}  // namespace stackscope::cli
