// SPDX-License-Identifier: GPL-3.0-or-later
// app/cli/long_run.hpp: SIGINT while a long run lives requests stop on its token instead of
// killing the process, and the previous handler comes back afterwards.
#include "long_run.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace stackscope::cli {
namespace {

TEST(LongRun, CtrlCRequestsStopAndTheHandlerIsRestored) {
  struct sigaction before {};
  ::sigaction(SIGINT, nullptr, &before);
  if (before.sa_handler == SIG_IGN) GTEST_SKIP() << "SIGINT is ignored in this process";
  {
    LongRun run("test", /*forced=*/false, /*quiet=*/true);
    ASSERT_TRUE(long_run_active());
    EXPECT_FALSE(run.interrupted());
    std::raise(SIGINT);  // the process survives: the handler only sets a flag
    for (int i = 0; i < 500 && !run.token().stop_requested(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_TRUE(run.interrupted());
    EXPECT_EQ(run.interrupted_text(), "test: interrupted (Ctrl-C); the partial results are discarded");
  }
  EXPECT_FALSE(long_run_active());
  struct sigaction after {};
  ::sigaction(SIGINT, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  // A new run starts uninterrupted.
  LongRun again("test", false, true);
  EXPECT_FALSE(again.interrupted());
}

}  // namespace
}  // namespace stackscope::cli
