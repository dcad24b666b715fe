// SPDX-License-Identifier: GPL-3.0-or-later
// A sink that fails (e.g. a full disk under the CLI's log) must stop the search and surface as
// an exception from run() on the caller's thread, never terminate the process.
#include <gtest/gtest.h>

#include <stdexcept>

#include "spaces.hpp"

namespace stackscope::search {
namespace {

class FailingSink : public ResultSink {
 public:
  void on_batch(std::span<const PointRecord>) override {
    if (++batches_ == 3) throw std::runtime_error("disk full");
  }
  int batches_ = 0;
};

TEST(SearchFailure, SinkExceptionOnAWorkerIsRethrownByRun) {
  const CompiledSpace space(testing::dense_space());
  for (int threads : {1, 2}) {
    RunOptions opt;
    opt.threads = threads;
    opt.sink_batch_points = 8;
    FailingSink sink;
    try {
      run(space, opt, sink);
      ADD_FAILURE() << "run() must rethrow the sink's exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "disk full");
    }
  }
}

}  // namespace
}  // namespace stackscope::search
