// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Name-keyed registry of CLI commands, filled explicitly by register_builtins()
// (docs/architecture.md §5). Commands write to the streams they are given, so tests run them
// in-process.
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "stackscope/cli/args.hpp"

namespace stackscope::io {
class PresetRegistry;
}

namespace stackscope::cli {

struct Context {
  std::ostream& out;
  std::ostream& err;
  const io::PresetRegistry& presets;
};

struct Command {
  std::string name;
  std::string synopsis;     // "evaluate [PROJECT.json] [options]"
  std::string summary;      // one line for the command list
  std::string description;  // paragraph for `help <command>`
  std::vector<OptionSpec> options;
  // Returns the exit code; throws CliError / ConfigError on bad input.
  std::function<int(std::span<const std::string> args, Context& ctx)> run;
};

class CommandRegistry {
 public:
  void add(Command command);
  const Command* find(std::string_view name) const;
  const std::vector<Command>& all() const { return commands_; }
  std::string known_names() const;  // "dram, evaluate, ..." for error messages

 private:
  std::vector<Command> commands_;
};

// Adds evaluate, collective, dram, presets, validate-project, thermal, search and merge.
void register_builtins(CommandRegistry& registry);

void print_command_help(const Command& command, std::ostream& out);

// Runs one command line (argv without the program name): dispatch, help, --version, and the
// translation of every exception into "error: ..." lines on `err`. Never throws.
// Exit codes: 0 ok, 2 bad input, 3 internal error.
int run(const CommandRegistry& registry, std::span<const std::string> args, std::ostream& out,
        std::ostream& err);

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;

std::string_view version();

}  // namespace stackscope::cli
