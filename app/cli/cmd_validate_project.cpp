// SPDX-License-Identifier: GPL-3.0-or-later
// `validate-project`: parse + semantic checks of a project file, without evaluating it.
#include <filesystem>
#include <ostream>

#include "commands.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/coexplore.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/io/search.hpp"
#include "stackscope/io/serving.hpp"
#include "stackscope/perf/validate.hpp"
#include "stackscope/search/space.hpp"
#include "stackscope/serving/spec.hpp"
#include "stackscope/wafer/partition.hpp"

namespace stackscope::cli {
namespace {

std::vector<OptionSpec> validate_options() {
  return {{"--help", "", "show this help"}};
}

int run_validate_project(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = validate_options();
  const ParsedArgs a = parse_args("validate-project", args, options, 1);
  if (a.has("--help")) {
    print_command_help(make_validate_project_command(), ctx.out);
    return kExitOk;
  }
  if (a.positional.empty()) {
    throw CliError("validate-project: missing PROJECT.json (allowed: a project JSON file)");
  }
  const std::filesystem::path file = a.positional.front();
  std::error_code ec;
  // A directory, FIFO or device is refused by load_project, before it reads a byte.
  if (!std::filesystem::exists(file, ec)) {
    throw CliError("validate-project: cannot read project file '" + file.string() +
                   "' (no such file)");
  }
  // The checks of the command that runs the project, one function per section (structural
  // issues throw): a co-exploration as `search` runs it (coexplore::validate, which holds
  // serve's serving checks), a search space as `search` (search::validate), else the design as
  // `evaluate` and, with a serving section, as `serve` (perf::validate, serving::validate).
  const std::string text = io::read_project_text(file);
  std::vector<Issue> issues;
  if (io::has_coexplore_section(text)) {
    const io::CoexploreProject p = io::load_coexplore_project(file, ctx.presets);
    issues = coexplore::validate(coexplore::CompiledSpace(p.space));
  } else if (io::has_search_section(text)) {
    io::SearchProject sp = io::load_search_project(file, ctx.presets);
    issues = search::validate(search::CompiledSpace(std::move(sp.space)));
  } else {
    const perf::Design design = io::load_project(file, ctx.presets);
    const auto spec = io::load_serving_section(file);
    // serve's default partition on a wafer is the central scheduler's (--partition auto).
    issues = perf::validate(spec ? wafer::design_to_validate(design, !spec->disaggregate.enabled())
                                 : design);
    if (spec)
      for (Issue& i : serving::validate(*spec)) issues.push_back(std::move(i));
  }
  if (issues.empty()) {
    ctx.out << "ok\n";
    return kExitOk;
  }
  print_issues(ctx.err, issues);
  return kExitBadInput;
}

}  // namespace

Command make_validate_project_command() {
  Command c;
  c.name = "validate-project";
  c.synopsis = "validate-project PROJECT.json";
  c.summary = "check a project file and print every problem, or 'ok'";
  c.description =
      "Parses the project (unknown keys, wrong types, unknown preset ids) and runs the semantic\n"
      "checks of the command that runs it: a \"coexplore\" section as `search` checks it (its\n"
      "axes, the base workload and the serving section with serve's ranges), a \"search\"\n"
      "section as `search` (its space, the base workload and models), else the design as\n"
      "`evaluate` (ranges, parallel plan vs devices and heads, batch vs memory) and a \"serving\"\n"
      "section as `serve`. Prints 'ok' or one 'error:' line per problem with its JSON path and\n"
      "the allowed values (exit 2).";
  c.options = validate_options();
  c.run = run_validate_project;
  return c;
}

}  // namespace stackscope::cli
