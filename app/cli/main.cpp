// SPDX-License-Identifier: GPL-3.0-or-later
// stackscope-cli: the headless front end. All behaviour lives in stackscope::cli.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "stackscope/cli/command.hpp"
#ifdef STACKSCOPE_CLI_REPORT
#include "stackscope/cli/report.hpp"
#endif

int main(int argc, char** argv) {
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    stackscope::cli::CommandRegistry commands;
    stackscope::cli::register_builtins(commands);
#ifdef STACKSCOPE_CLI_REPORT
    commands.add(stackscope::cli::make_report_command());  // replaces the headless stand-in
#endif
    return stackscope::cli::run(commands, args, std::cout, std::cerr);
  } catch (const std::exception& e) {  // run() catches everything; this guards its set-up
    std::cerr << "error: internal: " << e.what() << "\n";
    return stackscope::cli::kExitInternal;
  }
}
