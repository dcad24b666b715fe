// SPDX-License-Identifier: GPL-3.0-or-later
#include "interrupt.hpp"

#include <atomic>
#include <chrono>
#include <csignal>

namespace stackscope::cli {
namespace {

// Set by the handler, read by the watcher thread (lock-free, so async-signal-safe).
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_sigint_search(int) {
  g_interrupted.store(true, std::memory_order_relaxed);
}

}  // namespace

Interrupt::Interrupt() {
  g_interrupted = false;
  struct sigaction sa {};
  sa.sa_handler = on_sigint_search;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  ::sigaction(SIGINT, &sa, &previous_);
  watcher_ = std::jthread([this](std::stop_token own) {
    // 20 ms: far below a person's notice, and nothing to a run that lasts seconds.
    while (!own.stop_requested()) {
      if (g_interrupted.load(std::memory_order_relaxed)) {
        source_.request_stop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
}

Interrupt::~Interrupt() {
  watcher_.request_stop();
  watcher_.join();
  ::sigaction(SIGINT, &previous_, nullptr);
  g_interrupted = false;
}

bool Interrupt::interrupted() const {
  return g_interrupted.load(std::memory_order_relaxed) || source_.stop_requested();
}

std::string resume_command(std::string_view command, std::span<const std::string> args) {
  const auto quoted = [](const std::string& a) {
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyz"
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_-+=.,/:@%") == std::string::npos;
    if (plain) return a;
    std::string q = "'";
    for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  // Appended, not "a" + b: GCC 12's bogus -Wrestrict (GCC bug 105329).
  std::string line = "stackscope-cli ";
  line += command;
  bool resume = false;
  for (const auto& a : args) {
    line += ' ';
    line += quoted(a);
    resume = resume || a == "--resume";
  }
  return resume ? line : line + " --resume";
}

}  // namespace stackscope::cli
