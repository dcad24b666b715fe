// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <exception>
#include <filesystem>
#include <ostream>

#include "commands.hpp"
#include "stackscope/cli/command.hpp"
#include "stackscope/cli/text.hpp"
#include "stackscope/common/issue.hpp"
#include "stackscope/io/project.hpp"

namespace stackscope::cli {

std::string_view version() {
  return STACKSCOPE_VERSION;
}

void CommandRegistry::add(Command command) {
  // Re-registering a name replaces it, so a caller can override a builtin on purpose.
  auto it = std::find_if(commands_.begin(), commands_.end(),
                         [&](const Command& c) { return c.name == command.name; });
  if (it != commands_.end()) {
    *it = std::move(command);
  } else {
    commands_.push_back(std::move(command));
  }
}

const Command* CommandRegistry::find(std::string_view name) const {
  for (const auto& c : commands_)
    if (c.name == name) return &c;
  return nullptr;
}

std::string CommandRegistry::known_names() const {
  std::vector<std::string> names;
  for (const auto& c : commands_) names.push_back(c.name);
  std::sort(names.begin(), names.end());
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

namespace {

// The headless build's `report`: the review's figures are drawn with Qt, which only the GUI
// build links (app/report replaces this command there).
Command report_unavailable() {
  return {"report",
          "report PROJECT --out DIR [options]",
          "write a project's design review (HTML and 16:9 PDF; needs the GUI build)",
          "Not in this build: the design review is drawn with Qt. Build with "
          "-DSTACKSCOPE_BUILD_GUI=ON (the default preset) for stackscope-cli report.",
          {},
          [](std::span<const std::string>, Context& ctx) {
            ctx.err << "error: report: this stackscope-cli was built without the GUI "
                       "(STACKSCOPE_BUILD_GUI=OFF), and the review is drawn with Qt; use a "
                       "build with the GUI\n";
            return kExitBadInput;
          }};
}

}  // namespace

void register_builtins(CommandRegistry& registry) {
  registry.add(make_evaluate_command());
  registry.add(make_collective_command());
  registry.add(make_dram_command());
  registry.add(make_presets_command());
  registry.add(make_validate_project_command());
  registry.add(make_validate_command());
  registry.add(make_thermal_command());
  registry.add(make_search_command());
  registry.add(make_merge_command());
  registry.add(make_reproduce_command());
  registry.add(make_serve_command());
  registry.add(make_moe_command());
  registry.add(make_kernels_command());
  registry.add(report_unavailable());
}

void print_command_help(const Command& command, std::ostream& out) {
  out << "usage: stackscope-cli " << command.synopsis << "\n\n" << command.description << "\n";
  if (command.options.empty()) return;
  out << "\noptions:\n";
  std::size_t w = 0;
  for (const auto& o : command.options) {
    w = std::max(w, o.name.size() + (o.value_name.empty() ? 0 : o.value_name.size() + 1));
  }
  for (const auto& o : command.options) {
    std::string left = o.name + (o.value_name.empty() ? "" : " " + o.value_name);
    out << "  " << left << std::string(w - left.size() + 2, ' ') << o.help << "\n";
  }
}

namespace {

void print_usage(const CommandRegistry& registry, std::ostream& out) {
  out << "stackscope-cli " << version()
      << " - design-space exploration of LLM-inference hardware (headless)\n\n"
      << "usage: stackscope-cli <command> [options]\n"
      << "       stackscope-cli help <command> | --help | --version\n\ncommands:\n";
  std::size_t w = 0;
  for (const auto& c : registry.all()) w = std::max(w, c.name.size());
  for (const auto& c : registry.all()) {
    out << "  " << c.name << std::string(w - c.name.size() + 2, ' ') << c.summary << "\n";
  }
  out << "\nRun 'stackscope-cli help <command>' for the options of one command.\n";
}

int dispatch(const CommandRegistry& registry, std::span<const std::string> args, std::ostream& out,
             std::ostream& err) {
  if (args.empty()) {
    throw CliError("no command given (allowed: " + registry.known_names() +
                   "); 'stackscope-cli --help' lists them");
  }
  const std::string& name = args[0];
  if (name == "--version" || name == "version") {
    out << "stackscope-cli " << version() << "\n";
    return kExitOk;
  }
  if (name == "--help" || name == "-h" || name == "help") {
    if (args.size() >= 2) {
      const Command* c = registry.find(args[1]);
      if (c == nullptr) {
        throw CliError("help: unknown command '" + args[1] +
                       "' (allowed: " + registry.known_names() + ")");
      }
      print_command_help(*c, out);
    } else {
      print_usage(registry, out);
    }
    return kExitOk;
  }
  const Command* command = registry.find(name);
  if (command == nullptr) {
    throw CliError("unknown command '" + name + "' (allowed: " + registry.known_names() + ")");
  }
  // Presets are registered per run, explicitly (no global registry).
  io::PresetRegistry presets;
  presets.register_builtins();
  Context ctx{out, err, presets};
  return command->run(args.subspan(1), ctx);
}

}  // namespace

int run(const CommandRegistry& registry, std::span<const std::string> args, std::ostream& out,
        std::ostream& err) {
  try {
    const int rc = dispatch(registry, args, out, err);
    // What was printed must have arrived: a full disk or a closed pipe on stdout is an error,
    // not a silent exit 0 (e.g. `stackscope-cli evaluate > /dev/full`).
    if (!out.flush()) {
      err << "error: standard output: cannot be written (a full disk, or a closed pipe?); the "
             "output is incomplete\n";
      return kExitBadInput;
    }
    return rc;
  } catch (const CliError& e) {
    print_errors(err, e.lines());
  } catch (const ConfigError& e) {
    print_issues(err, e.issues());
    if (e.issues().empty()) err << "error: " << e.what() << "\n";
  } catch (const std::filesystem::filesystem_error& e) {
    err << "error: " << e.what() << "\n";
  } catch (const std::bad_alloc&) {
    err << "error: out of memory\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    // Anything else is a bug on our side, but the user still gets one line, not an abort.
    err << "error: internal: " << e.what() << "\n";
    return kExitInternal;
  }
  return kExitBadInput;
}

}  // namespace stackscope::cli
