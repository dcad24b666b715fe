// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Ctrl-C for the long runs of `search` and co-exploration. While an Interrupt lives, SIGINT
// asks the run to stop through its std::stop_token instead of killing the process, so the run
// ends at a consistent point (finished work units logged, the log flushed, partial results
// written) and the command can say how to resume. The first SIGINT also restores the default
// action (SA_RESETHAND): a second Ctrl-C ends the process at once, as the user then insists.
// The exit status of an interrupted run is 130 = 128 + SIGINT, what a shell reports for a
// process that SIGINT ended.
#include <signal.h>

#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

#include "long_run.hpp"  // kExitInterrupted

namespace stackscope::cli {


class Interrupt {
 public:
  // Installs the SIGINT handler (one Interrupt at a time in a process).
  Interrupt();
  // Restores the handler that was there before.
  ~Interrupt();
  Interrupt(const Interrupt&) = delete;
  Interrupt& operator=(const Interrupt&) = delete;

  std::stop_token token() const { return source_.get_token(); }
  // Whether SIGINT arrived while this Interrupt lived.
  bool interrupted() const;

 private:
  std::stop_source source_;
  struct sigaction previous_ {};
  // Turns the handler's flag into source_.request_stop(): request_stop runs stop callbacks,
  // which a signal handler must not (only async-signal-safe work there).
  std::jthread watcher_;
};

// "stackscope-cli search ARGS... --resume": the command line that continues an interrupted run,
// each argument quoted for a POSIX shell where it needs it.
std::string resume_command(std::string_view command, std::span<const std::string> args);

}  // namespace stackscope::cli
