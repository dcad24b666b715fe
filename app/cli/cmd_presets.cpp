// SPDX-License-Identifier: GPL-3.0-or-later
// `presets`: what is built in, by kind.
#include <algorithm>
#include <array>
#include <ostream>

#include "commands.hpp"
#include "stackscope/io/project.hpp"

namespace stackscope::cli {
namespace {

constexpr std::array<io::PresetKind, 5> kKinds = {io::PresetKind::hardware, io::PresetKind::system,
                                                  io::PresetKind::model, io::PresetKind::project,
                                                  io::PresetKind::search};

std::vector<OptionSpec> presets_options() {
  return {
      {"--kind", "K", "only this kind: hardware | system | model | project | search"},
      {"--json", "", "print the list as JSON"},
      {"--help", "", "show this help"},
  };
}

int run_presets(std::span<const std::string> args, Context& ctx) {
  static const std::vector<OptionSpec> options = presets_options();
  const ParsedArgs a = parse_args("presets", args, options, 0);
  if (a.has("--help")) {
    print_command_help(make_presets_command(), ctx.out);
    return kExitOk;
  }
  std::vector<io::PresetKind> kinds(kKinds.begin(), kKinds.end());
  if (auto k = a.get("--kind")) {
    kinds.clear();
    for (auto kind : kKinds)
      if (io::to_string(kind) == *k) kinds.push_back(kind);
    if (kinds.empty()) {
      throw CliError("--kind: unknown kind '" + *k +
                     "' (allowed: hardware, system, model, project, search)");
    }
  }
  if (a.has("--json")) {
    ctx.out << io::presets_json(ctx.presets, kinds) << "\n";
    return kExitOk;
  }
  bool first = true;
  for (auto kind : kinds) {
    const auto list = ctx.presets.list(kind);
    if (!first) ctx.out << "\n";
    first = false;
    std::size_t w = 0;
    for (const auto& p : list) w = std::max(w, p.id.size());
    ctx.out << io::to_string(kind) << " (" << list.size() << ")\n";
    for (const auto& p : list)
      ctx.out << "  " << p.id << std::string(w - p.id.size() + 2, ' ') << p.name << "\n";
  }
  return kExitOk;
}

}  // namespace

Command make_presets_command() {
  Command c;
  c.name = "presets";
  c.synopsis = "presets [--kind hardware|system|model|project] [--json]";
  c.summary = "list the builtin hardware, system, model and project presets";
  c.description =
      "Lists the ids and names of the presets compiled into the program. Any id can be given\n"
      "to evaluate's --hardware/--system/--model or used in a project file.";
  c.options = presets_options();
  c.run = run_presets;
  return c;
}

}  // namespace stackscope::cli
