// SPDX-License-Identifier: GPL-3.0-or-later
// `validate-project`: parse + semantic checks of a project file, without evaluating it.
#include <filesystem>
#include <ostream>

#include "commands.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/project.hpp"
#include "stackscope/perf/validate.hpp"

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
  const perf::Design design = io::load_project(file, ctx.presets);  // structural issues throw
  const auto issues = perf::validate(design);
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
      "checks (ranges, parallel plan vs devices and heads, batch vs memory). Prints 'ok' or one\n"
      "'error:' line per problem with its JSON path and the allowed values (exit 2).";
  c.options = validate_options();
  c.run = run_validate_project;
  return c;
}

}  // namespace stackscope::cli
