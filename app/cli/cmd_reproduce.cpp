// SPDX-License-Identifier: GPL-3.0-or-later
// `reproduce`: a source paper's published results set beside StackScope's (core/repro).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

#include "commands.hpp"
#include "resolve.hpp"
#include "stackscope/io/output.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/repro/deepstack.hpp"

namespace stackscope::cli {
namespace {

std::vector<OptionSpec> reproduce_options() {
  return {
      {"--out", "DIR",
       "write DIR/deepstack.md, its SVG figures and deepstack.json (else print "
       "the Markdown)"},
      {"--runtime", "ID|FILE", "runtime profile for every design (default modern-gpu-2025)"},
      {"--alt-runtime", "ID|FILE|none",
       "second profile for the fig. 16 table (default "
       "accel-native)"},
      {"--quick", "", "the paper's designs and the stack-height curve only (no own search)"},
      {"--json", "", "print the numbers as JSON"},
      {"--help", "", "show this help"},
  };
}

nlohmann::ordered_json point_json(const repro::Point& p) {
  return {{"valid", p.valid},
          {"feasible", p.feasible},
          {"stps", p.stps},
          {"tpot_s", p.tpot_s},
          {"plan", p.plan},
          {"hardware", p.hardware},
          {"infeasible", p.infeasible},
          {"note", p.note},
          {"area_over_die", p.area_over_die},
          {"decode_shares",
           {{"compute", p.compute_share},
            {"dram", p.dram_share},
            {"network", p.network_share},
            {"overhead", p.overhead_share}}}};
}

nlohmann::ordered_json report_json(const repro::Report& r) {
  nlohmann::ordered_json j;
  j["runtime"] = r.runtime;
  j["alt_runtime"] = r.alt_runtime;
  auto& t4 = j["table4"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.table4.size(); ++i) {
    const auto& t = r.table4[i];
    t4.push_back({{"batch", t.batch},
                  {"step", t.step},
                  {"name", t.name},
                  {"paper_stps", t.paper_stps},
                  {"paper_config", t.paper_config},
                  {"paper_design", point_json(t.paper_design)},
                  {"paper_design_gain", repro::step_gain(r.table4, i, false)},
                  {"own", point_json(t.own)},
                  {"own_gain", repro::step_gain(r.table4, i, true)}});
  }
  auto curve = [](const std::vector<repro::StackPoint>& c) {
    auto a = nlohmann::ordered_json::array();
    for (const auto& p : c)
      a.push_back({{"layers", p.layers},
                   {"cores", p.cores},
                   {"bw_GBps", p.bw_GBps},
                   {"bound", p.bound},
                   {"fits", p.fits},
                   {"stps", p.stps}});
    return a;
  };
  j["stack_paper"] = curve(r.stack_paper);
  j["stack_own"] = curve(r.stack_own);
  auto& f16 = j["fig16"] = nlohmann::ordered_json::array();
  for (const auto& f : r.fig16)
    f16.push_back(
        {{"model", f.model_id},
         {"batch", f.batch},
         {"paper", {{"stacked", f.paper_3d}, {"h200", f.paper_h200}, {"h100", f.paper_h100}}},
         {"own",
          {{"stacked", point_json(f.own_3d)},
           {"h200", point_json(f.own_h200)},
           {"h100", point_json(f.own_h100)}}},
         {"alt",
          {{"stacked", point_json(f.alt_3d)},
           {"h200", point_json(f.alt_h200)},
           {"h100", point_json(f.alt_h100)}}}});
  return j;
}

int run_reproduce(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = reproduce_options();
  const ParsedArgs a = parse_args("reproduce", args, options, 1);
  if (a.has("--help")) {
    print_command_help(make_reproduce_command(), ctx.out);
    return kExitOk;
  }
  if (a.positional.empty()) throw CliError("reproduce: which paper? (allowed: deepstack)");
  if (a.positional[0] != "deepstack")
    throw CliError("reproduce: unknown paper '" + a.positional[0] + "' (allowed: deepstack)");

  const auto& presets = ctx.presets;
  repro::Catalogue cat;
  cat.hardware = [&](const std::string& id) { return io::resolve_hardware(id, presets); };
  cat.system = [&](const std::string& id) { return io::resolve_system(id, presets); };
  cat.model = [&](const std::string& id) { return io::resolve_model(id, presets); };
  cat.runtime = [&](const std::string& id) { return io::resolve_runtime(id, presets); };

  repro::Options opt;
  if (auto v = a.get("--runtime")) {
    resolve("--runtime", *v, [&](const std::string& s) { return cat.runtime(s); });
    opt.runtime = *v;
  }
  if (auto v = a.get("--alt-runtime")) {
    if (*v == "none") {
      opt.alt_runtime.clear();
    } else {
      resolve("--alt-runtime", *v, [&](const std::string& s) { return cat.runtime(s); });
      opt.alt_runtime = *v;
    }
  }
  opt.quick = a.has("--quick");

  const repro::Report report = repro::deepstack(cat, opt);
  const repro::Rendered rendered = repro::render(report);
  const auto json = report_json(report);
  if (auto dir = a.get("--out")) {
    io::make_output_dir(*dir, "--out");
    const std::filesystem::path d(*dir);
    io::write_output(d / "deepstack.md", rendered.markdown, "--out");
    for (const auto& [name, svg] : rendered.figures) io::write_output(d / name, svg, "--out");
    io::write_output(d / "deepstack.json", json.dump(2) + "\n", "--out");
    ctx.err << "wrote " << (d / "deepstack.md").string() << ", deepstack.json and "
            << rendered.figures.size() << " figures\n";
  }
  if (a.has("--json"))
    ctx.out << json.dump(2) << "\n";
  else if (!a.get("--out"))
    ctx.out << rendered.markdown;
  return kExitOk;
}

}  // namespace

Command make_reproduce_command() {
  Command c;
  c.name = "reproduce";
  c.synopsis = "reproduce deepstack [--out DIR] [--runtime ID] [--alt-runtime ID|none] [--quick]";
  c.summary = "set a source paper's published results beside StackScope's (DeepStack)";
  c.description =
      "Evaluates DeepStack's published designs (Table 4's seven steps at batch 4 and 1024 on\n"
      "256 devices, the stack-height curve of fig. 17, fig. 16's 3D vs H100/H200 rows) with\n"
      "StackScope's model under one runtime profile for every design, runs StackScope's own\n"
      "search in each step's space, and writes a Markdown report with SVG figures (the one in\n"
      "docs/reproduction is made this way). The full run takes a few minutes on one core.";
  c.options = reproduce_options();
  c.run = run_reproduce;
  return c;
}

}  // namespace stackscope::cli
