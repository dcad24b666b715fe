#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs the packaging check with PACKAGE dropped from the list and passes only if the check fails
# (exit 1, not 2 = no verdict) and names PACKAGE as the owner of an uncovered file and among the
# packages a fresh machine would lack.
# Usage: expect-uncovered.sh CHECK_SCRIPT BUILD_DIR PACKAGE_LIST PACKAGE
set -euo pipefail
(($# == 4)) || { echo "usage: $0 CHECK_SCRIPT BUILD_DIR PACKAGE_LIST PACKAGE" >&2; exit 2; }
check="$1" build="$2" list="$3" drop="$4"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Keep the comments and every other line; the check reads one package per line.
awk -v drop="$drop" '{ line = $0; sub(/#.*/, "", line); gsub(/[ \t]/, "", line) }
  line != drop' "$list" >"$tmp/debian-packages.txt"
if cmp -s "$list" "$tmp/debian-packages.txt"; then
  echo "expect-uncovered: $drop is not in $list: nothing to test" >&2
  exit 1
fi

rc=0
bash "$check" "$build" "$tmp/debian-packages.txt" >"$tmp/out" 2>&1 || rc=$?
cat "$tmp/out"
if ((rc != 1)); then
  echo "expect-uncovered: FAIL: the check exited $rc without $drop (want 1: files not covered)"
  exit 1
fi
grep -q "^check-packages: not covered: .* (package \([^)]* \)\?$drop\( [^)]*\)\?)$" "$tmp/out" ||
  { echo "expect-uncovered: FAIL: no uncovered file is attributed to $drop"; exit 1; }
lack="^check-packages: FAIL: a fresh machine would lack these packages: "
grep -q "$lack\(.* \)\?$drop\( .*\)\?$" "$tmp/out" ||
  { echo "expect-uncovered: FAIL: $drop not named among the missing packages"; exit 1; }
echo "expect-uncovered: OK: without $drop the check fails and names it"
