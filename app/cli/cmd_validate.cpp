// SPDX-License-Identifier: GPL-3.0-or-later
// `validate`: measured deployments in, error tables out (core/validate runs them; io reads the
// files and writes the JSON).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <ostream>
#include <stdexcept>
#include <thread>

#include "commands.hpp"
#include "long_run.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/output.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/reference.hpp"
#include "stackscope/io/silicon_sample.hpp"
#include "stackscope/io/validation.hpp"
#include "stackscope/validate/explain.hpp"
#include "stackscope/validate/fit.hpp"
#include "stackscope/validate/run.hpp"

namespace stackscope::cli {
namespace {

namespace fs = std::filesystem;

std::vector<OptionSpec> validate_options() {
  return {
      {"--fit-on", "SEL",
       "rows a calibration is fitted on, e.g. system=h100_sxm (keys system, backend, version, "
       "model, mode, precision, id; values v1|v2, a trailing * matches a prefix)"},
      {"--hold-out", "SEL", "rows only checked, never fitted on, e.g. system=h200_sxm|b200_sxm"},
      {"--only", "SEL", "run only these rows (the others are counted as not selected)"},
      {"--fit", "PROFILE",
       "calibrate this runtime profile (e.g. vllm-2025) on the --fit-on rows it runs: a grid "
       "search over --grid, then the report with the best values"},
      {"--grid", "KEY=LO:HI:STEP,...",
       "the profile fields --fit sweeps, e.g. kernel_gap_us=0:8:1,matmul_efficiency=0.5|0.6|0.7"},
      {"--envelope-out", "FILE",
       "write the validation envelope (errors per device, runtime and dense/MoE, fitted and held "
       "out) that evaluate and serve quote; presets/validation/envelope.json is the shipped one"},
      {"--explain", "SEL",
       "for these rows (at most 20), what dominates the decode step and the prefill of one "
       "prompt, split by operator and bounding resource, and what moved them from --baseline"},
      {"--baseline", "PROFILE",
       "runtime profile --explain compares against (default modern-gpu-2025, the uncalibrated "
       "one)"},
      {"--summary", "", "print the partition table only (no per-row table)"},
      {"--json", "", "print the report as JSON"},
      {"--threads", "N", "rows simulated at once (default: all cores)"},
      {"--progress", "", "progress lines on stderr even when it is not a terminal"},
      {"--help", "", "show this help"},
  };
}

std::string pct(double fraction) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100 * fraction);
  return b;
}
std::string apct(double fraction) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f%%", 100 * fraction);
  return b;
}

std::string ms(double v, int digits) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

void print_rows(std::ostream& out, const validate::Report& rep) {
  Table t({"row", "group", "conc", "TTFT ms", "model", "error", "TPOT ms", "model", "error"}, "ll");
  for (const auto& r : rep.results) {
    if (!r.ran) continue;
    const auto& c = rep.cases[r.index];
    t.row({c.row.id, validate::to_string(r.group), std::to_string(c.bench.concurrency),
           ms(c.row.ttft_ms, 1), ms(r.ttft_ms, 1), pct(r.ttft_err), ms(c.row.tpot_ms, 2),
           ms(r.tpot_ms, 2), pct(r.tpot_err)});
  }
  out << t.str() << "\n";
}

void print_partitions(std::ostream& out, const validate::Report& rep) {
  Table t({"partition", "group", "rows", "TTFT", "p90", "max", "TPOT", "p90", "max"}, "ll");
  for (const auto& p : rep.stats)
    t.row({p.partition, validate::to_string(p.group), std::to_string(p.ttft.rows),
           apct(p.ttft.mape), apct(p.ttft.p90), apct(p.ttft.max), apct(p.tpot.mape),
           apct(p.tpot.p90), apct(p.tpot.max)});
  out << t.str()
      << "(TTFT and TPOT columns: mean absolute percentage error of the mean per row, its p90 "
         "and max)\n";
}

// Rows that did not run, grouped by reason, every id listed.
void print_not_run(std::ostream& out, const validate::Report& rep) {
  std::map<std::string, std::vector<std::string>> by_reason;
  std::vector<std::string> order;
  const auto add = [&](const std::string& reason, const std::string& id) {
    auto [it, fresh] = by_reason.try_emplace(reason);
    if (fresh) order.push_back(reason);
    it->second.push_back(id);
  };
  for (const auto& r : rep.results) {
    const auto& c = rep.cases[r.index];
    if (!c.unmapped.empty())
      add("not mapped: " + c.unmapped, c.row.id);
    else if (!r.ran)
      add("did not run: " + r.failure, c.row.id);
  }
  for (const auto& reason : order) {
    const auto& ids = by_reason[reason];
    out << "\n" << ids.size() << (ids.size() == 1 ? " row " : " rows ") << reason << "\n  ";
    std::size_t width = 2;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const std::string item = ids[i] + (i + 1 < ids.size() ? "," : "");
      if (width + item.size() + 1 > 100 && width > 2) {
        out << "\n  ";
        width = 2;
      }
      if (width > 2) {
        out << ' ';
        ++width;
      }
      out << item;
      width += item.size();
    }
    out << "\n";
  }
}

// The grid's ten best points and the chosen one.
void print_fit(std::ostream& out, const validate::FitResult& fr) {
  out << "fit of runtime profile " << fr.profile << " on " << fr.rows << " rows, "
      << fr.points.size() << " grid points (objective: mean of TTFT and TPOT MAPE)\n";
  std::vector<std::size_t> order(fr.points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return fr.points[x].objective < fr.points[y].objective;
  });
  std::vector<std::string> header;
  for (const auto& ax : fr.axes) header.push_back(ax.key);
  for (const char* h : {"objective", "TTFT", "TPOT", "failed"}) header.emplace_back(h);
  Table t(header, "r");
  for (std::size_t k = 0; k < order.size() && k < 10; ++k) {
    const auto& p = fr.points[order[k]];
    std::vector<std::string> cells;
    for (double v : p.values) cells.push_back(number_text(v));
    for (double v : {p.objective, p.ttft.mape, p.tpot.mape}) cells.push_back(apct(v));
    cells.push_back(std::to_string(p.failed));
    t.row(std::move(cells));
  }
  out << t.str();
  out << "best:";
  const auto& b = fr.points.at(fr.best);
  for (std::size_t i = 0; i < fr.axes.size(); ++i)
    out << " " << fr.axes[i].key << "=" << number_text(b.values[i]);
  out << "\n\n";
}

// One phase of one explained pool: the operator classes by time beside the baseline's (classes
// under 0.5 % of the step and moved by less than that are left out), then the resources.
void print_phase(std::ostream& out, const validate::PhaseSplit& now,
                 const validate::PhaseSplit& base) {
  std::vector<std::size_t> order(perf::kOpClasses);
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return now.op_ms[x] > now.op_ms[y]; });
  Table t({"operator", "ms", "share", "baseline ms", "moved ms"}, "l");
  const double floor = 0.005 * std::max(now.time_ms, base.time_ms);
  for (const std::size_t k : order) {
    const double a = now.op_ms[k], b = base.op_ms[k];
    if (a < floor && std::abs(a - b) < floor) continue;
    char moved[32];
    std::snprintf(moved, sizeof moved, "%+.3f", a - b);
    t.row({std::string(perf::to_string(static_cast<perf::OpClass>(k))), ms(a, 3),
           apct(now.time_ms > 0 ? a / now.time_ms : 0.0), ms(b, 3), moved});
  }
  out << t.str("      ");
  std::vector<std::size_t> res(perf::kResources);
  for (std::size_t k = 0; k < res.size(); ++k) res[k] = k;
  std::stable_sort(res.begin(), res.end(), [&](std::size_t x, std::size_t y) {
    return now.resource_ms[x] > now.resource_ms[y];
  });
  double total = 0;
  for (const double v : now.resource_ms) total += v;
  out << "      bound by:";
  bool first = true;
  for (const std::size_t k : res) {
    if (!(total > 0) || now.resource_ms[k] < 0.005 * total) continue;
    out << (first ? " " : ", ") << perf::to_string(static_cast<perf::Resource>(k)) << " "
        << apct(now.resource_ms[k] / total);
    first = false;
  }
  out << "\n";
}

void print_explanation(std::ostream& out, const validate::Case& c, validate::Group g,
                       const validate::Explanation& e) {
  out << "why: " << c.row.id << "  (" << c.partition << ", " << validate::to_string(g) << ")\n";
  out << "  measured    TTFT " << ms(c.row.ttft_ms, 1) << " ms   TPOT " << ms(c.row.tpot_ms, 2)
      << " ms\n";
  const auto line = [&](const char* what, const validate::CaseResult& r, const std::string& rt) {
    out << "  " << what;
    if (!r.ran) {
      out << "did not run: " << r.failure << "   runtime " << rt << "\n";
      return;
    }
    out << "TTFT " << ms(r.ttft_ms, 1) << " ms (" << pct(r.ttft_err) << ")   TPOT "
        << ms(r.tpot_ms, 2) << " ms (" << pct(r.tpot_err) << ")   runtime " << rt << "\n";
  };
  line("predicted   ", e.now, e.runtime);
  line("baseline    ", e.base, e.baseline);
  for (const auto& p : e.pools) {
    out << "  " << p.role << " pool, " << p.instances << " x " << p.plan << "\n";
    if (!p.failure.empty()) {
      out << "    " << p.failure << "\n";
      continue;
    }
    if (p.decode_batch > 0) {
      out << "    decode step at " << p.decode_batch << " sequences per instance, context "
          << p.decode_context << " tokens: " << ms(p.decode.time_ms, 3) << " ms (baseline "
          << ms(p.base_decode.time_ms, 3) << " ms)\n";
      print_phase(out, p.decode, p.base_decode);
    }
    out << "    prefill of one " << p.prompt_tokens << "-token prompt: " << ms(p.prefill.time_ms, 3)
        << " ms (baseline " << ms(p.base_prefill.time_ms, 3) << " ms)\n";
    print_phase(out, p.prefill, p.base_prefill);
    if (p.prefill_host_floor_ms > 0) {
      out << "      as a serving iteration: " << ms(p.prefill_iteration_ms, 3)
          << " ms; its host launches " << ms(p.prefill_host_floor_ms, 3) << " ms (eager_launch_us)"
          << (p.prefill_host_floor_ms >= p.prefill_iteration_ms - 1e-9
                  ? ", which bound it: the device waits for the host\n"
                  : ", under the device time\n");
    }
  }
  out << "\n";
}

int run_validate(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = validate_options();
  const ParsedArgs a = parse_args("validate", args, options, 64);
  if (a.has("--help")) {
    print_command_help(make_validate_command(), ctx.out);
    return kExitOk;
  }
  if (a.positional.empty())
    throw CliError(
        "validate: missing FILE (allowed: AIConfigurator silicon-sample CSV, plain or .gz, e.g. "
        "data/aic-silicon/h100_sxm.csv.gz, or measured-row JSON from data/trtllm-measured)");
  const auto selector = [&](const char* opt) {
    validate::Selector s;
    if (auto v = a.get(opt)) {
      try {
        s = validate::parse_selector(*v, std::string("validate: ") + opt);
      } catch (const std::invalid_argument& e) {
        throw CliError(e.what());
      }
    }
    return s;
  };
  const validate::Selector fit = selector("--fit-on");
  const validate::Selector hold = selector("--hold-out");
  const validate::Selector only = selector("--only");
  const validate::Selector explain_sel = selector("--explain");
  if (a.has("--baseline") && !a.has("--explain"))
    throw CliError("validate: --baseline goes with --explain");
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (auto v = a.get("--threads")) threads = static_cast<int>(parse_int("--threads", *v, 1, 256));

  validate::Report rep;
  rep.fit_on = a.get("--fit-on").value_or("");
  rep.hold_out = a.get("--hold-out").value_or("");
  std::vector<io::RowCheck> static_checks, serving_checks;
  validate::Catalog catalog = io::silicon_catalog(ctx.presets);
  std::vector<validate::SiliconRow> sample;
  for (const auto& name : a.positional) {
    const fs::path file = name;
    rep.inputs.push_back(name);
    std::string lower = name;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (lower.ends_with(".json") || lower.ends_with(".json.gz")) {
      // The project's own measured rows: static rows through the evaluator, serving rows
      // (batch "auto") through the trtllm-bench simulation.
      const auto rows = io::load_measured_rows(file);
      std::vector<io::MeasuredRow> st, sv;
      for (const auto& r : rows) (r.batch == 0 ? sv : st).push_back(r);
      auto s1 = io::check_measured_rows(st, ctx.presets);
      auto s2 = io::check_serving_rows(sv, ctx.presets);
      static_checks.insert(static_checks.end(), s1.begin(), s1.end());
      serving_checks.insert(serving_checks.end(), s2.begin(), s2.end());
      continue;
    }
    for (auto& row : io::load_silicon_sample(file)) sample.push_back(std::move(row));
  }
  if (a.has("--fit") != a.has("--grid"))
    throw CliError("validate: --fit PROFILE and --grid KEY=LO:HI:STEP,... go together");
  if (a.has("--fit") && sample.empty())
    throw CliError("validate: --fit needs a silicon-sample CSV among the files");
  // An unwritable output is refused before the run, not after it.
  if (auto out = a.get("--envelope-out")) io::check_output(*out, "--envelope-out");
  LongRun run("validate", a.has("--progress"), a.has("--json"));
  if (auto profile = a.get("--fit")) {
    std::vector<validate::GridAxis> axes;
    try {
      axes = validate::parse_grid(*a.get("--grid"), "validate: --grid");
    } catch (const std::invalid_argument& e) {
      throw CliError(e.what());
    }
    if (!catalog.runtimes.contains(*profile))
      throw CliError("validate: --fit: unknown runtime profile '" + *profile + "'");
    // The calibration's rows: the --fit-on rows (all of --only's when no --fit-on is given).
    std::vector<validate::SiliconRow> fit_rows;
    for (const auto& r : sample)
      if (validate::matches(only, r) && (fit.empty() || validate::matches(fit, r)))
        fit_rows.push_back(r);
    validate::RunOptions fo;
    fo.threads = threads;
    fo.stop = run.token();
    fo.progress = [&](std::size_t done, std::size_t total) {
      run.progress("fit: grid point " + std::to_string(done) + " of " + std::to_string(total));
    };
    validate::FitResult fr;
    try {
      fr = validate::fit_profile(fit_rows, catalog, *profile, axes, fo);
    } catch (const std::invalid_argument& e) {
      throw CliError(std::string("validate: --fit: ") + e.what());
    }
    run.clear();
    if (run.interrupted()) {
      ctx.err << "error: " << run.interrupted_text() << "\n";
      return kExitInterrupted;
    }
    rep.fit = fr;
    catalog = validate::with_point(catalog, *profile, axes, fr.points.at(fr.best).values);
    if (!a.has("--json")) print_fit(ctx.out, fr);
  }
  for (const auto& row : sample) rep.cases.push_back(validate::map_row(row, catalog));
  validate::mark_duplicates(rep.cases);
  // Selections: with --fit-on or --hold-out, a row is in the group it matches (fitted first);
  // rows matching neither (or outside --only) are not run and are counted.
  std::vector<validate::Group> groups;
  std::size_t not_selected = 0;
  const bool grouped = !fit.empty() || !hold.empty();
  for (std::size_t i = 0; i < rep.cases.size(); ++i) {
    const auto& row = rep.cases[i].row;
    if (!validate::matches(only, row)) {
      ++not_selected;
      continue;
    }
    validate::Group g = validate::Group::reported;
    if (grouped) {
      if (!fit.empty() && validate::matches(fit, row))
        g = validate::Group::fitted;
      else if (!hold.empty() && validate::matches(hold, row))
        g = validate::Group::held_out;
      else {
        ++not_selected;
        continue;
      }
    }
    rep.selected.push_back(i);
    groups.push_back(g);
  }
  validate::RunOptions ro;
  ro.threads = threads;
  ro.stop = run.token();
  ro.progress = [&](std::size_t done, std::size_t total) {
    run.progress(std::to_string(done) + " of " + std::to_string(total) + " rows");
  };
  rep.results = validate::run_cases(rep.cases, rep.selected, groups, ro);
  run.clear();
  if (run.interrupted()) {
    ctx.err << "error: " << run.interrupted_text() << "\n";
    return kExitInterrupted;
  }
  rep.stats = validate::summarise(rep.cases, rep.results);
  // --explain: the selected rows it matches that ran, at most kMaxExplained of them.
  constexpr std::size_t kMaxExplained = 20;
  std::vector<io::ExplainedCase> explained;
  std::size_t explain_matched = 0;
  if (a.has("--explain")) {
    const std::string base_id = a.get("--baseline").value_or("modern-gpu-2025");
    if (!catalog.runtimes.contains(base_id))
      throw CliError("validate: --baseline: unknown runtime profile '" + base_id + "'");
    const runtime::Profile& baseline = catalog.runtimes.at(base_id);
    for (const auto& r : rep.results) {
      const validate::Case& c = rep.cases[r.index];
      if (!r.ran || !validate::matches(explain_sel, c.row)) continue;
      if (++explain_matched > kMaxExplained) continue;
      explained.push_back({r.index, r.group, validate::explain(c, baseline, run.token())});
    }
    run.clear();
    if (run.interrupted()) {
      ctx.err << "error: " << run.interrupted_text() << "\n";
      return kExitInterrupted;
    }
  }
  if (auto out = a.get("--envelope-out")) {
    std::string command = "stackscope-cli validate";
    for (const auto& arg : args) command += " " + arg;
    io::write_output(*out, io::envelope_json(validate::envelope_of(rep, command)),
                     "--envelope-out");
  }

  if (a.has("--json")) {
    ctx.out << io::validation_json(rep, static_checks, serving_checks, explained);
    return kExitOk;
  }
  std::size_t ran = 0, unmapped = 0;
  for (const auto& r : rep.results) {
    ran += r.ran ? 1 : 0;
    unmapped += rep.cases[r.index].unmapped.empty() ? 0 : 1;
  }
  if (!static_checks.empty())
    ctx.out << "static rows\n" << io::format_checks(static_checks) << "\n";
  if (!serving_checks.empty())
    ctx.out << "serving rows (trtllm-bench)\n" << io::format_checks(serving_checks) << "\n";
  if (!rep.cases.empty()) {
    ctx.out << "measured deployments: " << rep.cases.size() << " rows read, " << rep.selected.size()
            << " selected, " << ran << " ran, " << unmapped << " not mapped, "
            << rep.selected.size() - ran - unmapped << " failed (reasons below)";
    if (not_selected > 0) ctx.out << ", " << not_selected << " outside the selection";
    ctx.out << "\n\n";
    if (!a.has("--summary")) print_rows(ctx.out, rep);
    print_partitions(ctx.out, rep);
    print_not_run(ctx.out, rep);
  }
  if (a.has("--explain")) {
    ctx.out << "\n";
    if (explained.empty())
      ctx.out << "--explain: no row that ran matches '" << *a.get("--explain") << "'\n";
    for (const auto& x : explained)
      print_explanation(ctx.out, rep.cases[x.index], x.group, x.explanation);
    if (explain_matched > kMaxExplained)
      ctx.out << "--explain: " << explain_matched << " rows match; the first " << kMaxExplained
              << " are explained\n";
  }
  return kExitOk;
}

}  // namespace

Command make_validate_command() {
  Command c;
  c.name = "validate";
  c.synopsis = "validate FILE... [--fit-on SEL] [--hold-out SEL] [--only SEL] [--json]";
  c.summary = "run measured deployments and print the model's TTFT/TPOT errors";
  c.description =
      "Reads measured deployments and runs each the way it was measured:\n"
      " - AIConfigurator's silicon-sample CSV (plain or .gz; data/aic-silicon/h100_sxm.csv.gz,\n"
      "   or the whole public sample): each row's model, device, precision and plan (tensor,\n"
      "   pipeline, attention-DP and MoE TP/EP; aggregated or prefill/decode disaggregated\n"
      "   workers) under its backend's scheduler and runtime profile, closed loop at the row's\n"
      "   concurrency with its load generator's request count and lengths (aiperf: 20 x C\n"
      "   requests, fixed lengths; InferenceX benchmark_serving: 10 x C, lengths uniform in\n"
      "   [0.8 L, L]); the simulated mean TTFT and TPOT against the measured means;\n"
      " - the project's measured-row JSON (data/trtllm-measured): static rows through the\n"
      "   evaluator, serving rows (batch \"auto\") through the trtllm-bench simulation.\n"
      "Prints a per-row table, the mean absolute percentage error with p90 and max of TTFT and\n"
      "TPOT per partition (model | system | backend | mode) and over all dense, all MoE and all\n"
      "rows, then every row that could not be mapped or run, with the reason. --fit-on and\n"
      "--hold-out split the rows into the set a calibration is fitted on and the set it is\n"
      "only checked on, reported side by side. Ctrl-C stops (exit 130).";
  c.options = validate_options();
  c.run = run_validate;
  return c;
}

}  // namespace stackscope::cli
