// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a long command (serve, moe) shares: Ctrl-C stops it cleanly and a progress line says how
// far it is.
//  - While a LongRun lives, SIGINT requests stop() on its token (a watcher thread turns the
//    signal's flag into the request: a signal handler may only set a flag). The command then
//    discards its partial results and returns kExitInterrupted (130 = 128 + SIGINT, the shell's
//    convention). A second Ctrl-C ends the process at once. A SIGINT ignored when the program
//    started (nohup, a background job) stays ignored.
//  - progress() draws "<command>: <text>" on stderr when stderr is a terminal (one line
//    rewritten in place, at most 10 times a second) or when --progress asked for it (a new line
//    at most once a second, for logs); otherwise it prints nothing.
#include <atomic>
#include <chrono>
#include <iosfwd>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

namespace stackscope::cli {

inline constexpr int kExitInterrupted = 130;

class LongRun {
 public:
  // `forced`: --progress was given (progress lines even when stderr is not a terminal).
  // `quiet`: no progress line unless forced (e.g. --json on a terminal keeps stderr clean).
  LongRun(std::string_view command, bool forced, bool quiet = false);
  ~LongRun();
  LongRun(const LongRun&) = delete;
  LongRun& operator=(const LongRun&) = delete;

  std::stop_token token() const { return source_.get_token(); }
  bool interrupted() const { return source_.stop_requested(); }
  // Drawn as above; call as often as convenient (throttled here). Thread-safe.
  void progress(const std::string& text);
  // Erases the line on a terminal (before the result is printed).
  void clear();
  // The message of an interrupted run, for a CliError-style line on stderr.
  std::string interrupted_text() const;

 private:
  std::string command_;
  bool enabled_ = false, tty_ = false;
  std::stop_source source_;
  std::jthread watcher_;
  std::atomic<bool> drawing_{false};
  std::atomic<std::int64_t> last_ns_{0};
  std::atomic<bool> drawn_{false};
  bool installed_ = false;
};

// For tests: whether a LongRun's SIGINT handler is installed now.
bool long_run_active();

}  // namespace stackscope::cli
