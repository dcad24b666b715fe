#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Command 2: install what is missing, build everything (Release, into build/) and run the
# whole test suite. GUI tests use Qt's offscreen platform, so no display is needed.
# Then the same under the sanitizers (CMakePresets.json, tests/sanitizers/README.md): the core,
# io and CLI tests and a smoke run of every fuzz target under ASan+UBSan (build-asan/), the
# search engine's threaded tests and the GUI search panel under TSan (build-tsan/). Any
# sanitizer report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --parallel "$(nproc)"
ctest --test-dir build --output-on-failure --parallel "$(nproc)"

cmake --preset asan
cmake --build --preset asan --parallel "$(nproc)"
ctest --preset asan --parallel "$(nproc)"

cmake --preset tsan
cmake --build --preset tsan --parallel "$(nproc)"
ctest --preset tsan --parallel "$(nproc)"
