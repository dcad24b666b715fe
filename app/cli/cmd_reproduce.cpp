// SPDX-License-Identifier: GPL-3.0-or-later
// `reproduce`: a source paper's published results set beside StackScope's (core/repro).
#include <filesystem>
#include <ostream>

#include "commands.hpp"
#include "resolve.hpp"
#include "stackscope/io/output.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/reproduction.hpp"
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
  const std::string json = io::reproduction_json(report);
  if (auto dir = a.get("--out")) {
    io::make_output_dir(*dir, "--out");
    const std::filesystem::path d(*dir);
    io::write_output(d / "deepstack.md", rendered.markdown, "--out");
    for (const auto& [name, svg] : rendered.figures) io::write_output(d / name, svg, "--out");
    io::write_output(d / "deepstack.json", json + "\n", "--out");
    ctx.err << "wrote " << (d / "deepstack.md").string() << ", deepstack.json and "
            << rendered.figures.size() << " figures\n";
  }
  if (a.has("--json"))
    ctx.out << json << "\n";
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
