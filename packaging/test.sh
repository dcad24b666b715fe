#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Command 2: install what is missing, build everything (Release, into build/) and run the
# whole test suite. GUI tests use Qt's offscreen platform, so no display is needed.
set -euo pipefail
cd "$(dirname "$0")/.."

bash packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --parallel "$(nproc)"
ctest --test-dir build --output-on-failure --parallel "$(nproc)"
