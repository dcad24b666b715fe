// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The fuzz targets' entry functions (tests/fuzz/README.md). One function per input format; the
// libFuzzer executables (fuzz_main.cpp, clang only) and the GoogleTest replay of the seeds and
// of tests/data/fuzz/<target>/ (replay_test.cpp, every compiler) call the same code, so a crash
// found once stays checked without clang.
//
// Contract: for any bytes, a target returns normally. Bad input is refused with ConfigError (the
// clear error every reader promises); any other exception, a sanitizer report, an abort or a
// hang is a finding.
#include <span>
#include <string_view>

namespace stackscope::fuzz {

enum class Outcome { accepted, refused };

struct Target {
  std::string_view name;  // also the folder of its regression files: tests/data/fuzz/<name>/
  Outcome (*run)(std::string_view input);
};

std::span<const Target> targets();
const Target* find_target(std::string_view name);  // nullptr if unknown

}  // namespace stackscope::fuzz
