// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer entry point of one target; STACKSCOPE_FUZZ_TARGET names it (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const stackscope::fuzz::Target* const target =
      stackscope::fuzz::find_target(STACKSCOPE_FUZZ_TARGET);
  (void)target->run(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
