#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Command 1: install what is missing, build (Release, into build/), then open the GUI on the
# default project when a display is available, or else evaluate the default project headless
# and print the metrics table.   Usage: bash packaging/run.sh [PROJECT.json]
set -euo pipefail
cd "$(dirname "$0")/.."
project="${1:-presets/projects/default.json}"

bash packaging/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build --parallel "$(nproc)" --target stackscope stackscope-cli

if [[ -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ]]; then
  echo "run: opening the StackScope workbench on $project"
  if build/app/stackscope "$project"; then
    exit 0
  fi
  echo "run: the GUI could not start on this display; evaluating headless instead" >&2
else
  echo "run: no display (DISPLAY/WAYLAND_DISPLAY unset): evaluating $project headless"
fi
echo
exec build/app/stackscope-cli evaluate "$project"
