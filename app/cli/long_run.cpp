// SPDX-License-Identifier: GPL-3.0-or-later
// Ctrl-C and progress for long commands (long_run.hpp).
#include "long_run.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdio>

namespace stackscope::cli {
namespace {

// Set by the handler, read by the watcher. Lock-free atomics are async-signal-safe.
std::atomic<int> g_interrupts{0};
std::atomic<bool> g_active{false};
struct sigaction g_previous {};  // the action a LongRun replaced, restored after it
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_sigint_long_run(int) {
  if (g_interrupts.fetch_add(1) >= 1) {
    // A second Ctrl-C: the user wants out now (the default action, re-raised).
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
  }
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

bool long_run_active() {
  return g_active.load();
}

LongRun::LongRun(std::string_view command, bool forced, bool quiet) : command_(command) {
  tty_ = ::isatty(STDERR_FILENO) == 1;
  enabled_ = forced || (tty_ && !quiet);
  struct sigaction old {};
  ::sigaction(SIGINT, nullptr, &old);
  if (old.sa_handler != SIG_IGN && !g_active.load()) {  // an ignored SIGINT stays ignored (nohup, background)
    g_interrupts = 0;
    struct sigaction sa {};
    sa.sa_handler = on_sigint_long_run;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &g_previous);
    installed_ = true;
    g_active = true;
  }
  watcher_ = std::jthread([this](std::stop_token done) {
    while (!done.stop_requested()) {
      if (g_interrupts.load() > 0) {
        source_.request_stop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
}

LongRun::~LongRun() {
  watcher_.request_stop();
  if (watcher_.joinable()) watcher_.join();
  if (installed_) {
    ::sigaction(SIGINT, &g_previous, nullptr);
    g_active = false;
  }
  clear();
}

void LongRun::progress(const std::string& text) {
  if (!enabled_) return;
  const std::int64_t now = now_ns(), last = last_ns_.load();
  const std::int64_t gap = tty_ ? 100'000'000 : 1'000'000'000;
  if (last != 0 && now - last < gap) return;
  if (drawing_.exchange(true)) return;  // another thread is drawing
  last_ns_ = now;
  if (tty_)
    std::fprintf(stderr, "\r%s: %s\x1b[K", command_.c_str(), text.c_str());
  else
    std::fprintf(stderr, "%s: %s\n", command_.c_str(), text.c_str());
  std::fflush(stderr);
  drawn_ = true;
  drawing_ = false;
}

void LongRun::clear() {
  if (drawn_ && tty_) {
    std::fprintf(stderr, "\r\x1b[K");
    std::fflush(stderr);
  }
  drawn_ = false;
}

std::string LongRun::interrupted_text() const {
  return command_ + ": interrupted (Ctrl-C); the partial results are discarded";
}

}  // namespace stackscope::cli
