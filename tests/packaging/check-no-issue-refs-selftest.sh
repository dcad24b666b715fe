#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Self-test of packaging/check-no-issue-refs.sh: a scratch repository with one file per rule (and
# per spelling the rule must catch) and one file of near misses that must pass. The check must
# exit 1 and name every offending file and line, and nothing else; a tree of near misses alone
# must pass (exit 0), both as a git work tree and as a plain directory.
# The fixture text is assembled at run time, so this file itself names no issue or note.
# Usage: check-no-issue-refs-selftest.sh CHECK_SCRIPT
set -euo pipefail
(($# == 1)) || { echo "usage: $0 CHECK_SCRIPT" >&2; exit 2; }
check="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

word="iss""ue"          # the tracker's word, never written whole here
Word="Iss""ue"
deliv="deliver""able"
note() { printf '%s.md' "$1"; }  # a planning note's file name

# file | line number | content: each must be reported at that line.
cases=(
  "spaced.cpp|2|// a ${word} 12 fix"
  "capital.cmake|1|# ${Word} 5: search engine"
  "hyphen.md|3|the ${word}-2 acceptance line"
  "hash.txt|1|see ${word} #7"
  "plural.hpp|1|// ${word}s 12 and 13"
  "identifier.cpp|2|const auto k${Word}3 = 1;"
  "test-name.txt|1|stackscope_cli_check(${word}3-command EXIT 0"
  "upper.txt|1|${word^^} 4 DONE"
  "deliverable.cpp|1|// ${deliv} 6 of the plan"
  "design-note.hpp|1|// see $(note DESIGN) for the layout"
  "model-note.json|1|{\"notes\": \"$(note MODEL) section 2\"}"
  "style-note.cmake|2|# forbidden by $(note STYLE)"
)
near_misses=(
  "github.com/NVIDIA/nccl-tests/${word}s/212 is a public source"
  "docs/model.md §4.2 and docs/architecture.md §3"
  "every ${Word} carries its JSON path; ${word}s are listed, ${word}_at(path)"
  "a t${word} sample; the ${deliv} is clear"
  "model.md, design.md and style.md in lower case are this repository's own names"
)

make_tree() {  # DIR WITH_CASES
  local dir="$1" with_cases="$2" entry file line text i
  mkdir -p "$dir"
  printf '%s\n' "${near_misses[@]}" >"$dir/near-misses.txt"
  if [[ "$with_cases" == 1 ]]; then
    for entry in "${cases[@]}"; do
      IFS='|' read -r file line text <<<"$entry"
      : >"$dir/$file"
      for ((i = 1; i < line; i++)); do echo "// clean line $i" >>"$dir/$file"; done
      printf '%s\n' "$text" >>"$dir/$file"
    done
  fi
}

fail() {
  echo "selftest: $*" >&2
  echo "--- check output:" >&2
  cat "$tmp/out" >&2
  exit 1
}

run_check() {  # DIR EXPECTED_EXIT
  local rc=0
  bash "$check" "$1" >"$tmp/out" 2>&1 || rc=$?
  ((rc == $2)) || fail "$1: exit $rc, expected $2"
}

expect_cases_reported() {  # DIR
  local entry file line text
  for entry in "${cases[@]}"; do
    IFS='|' read -r file line text <<<"$entry"
    grep -q -F -- "$file:$line: " "$tmp/out" || fail "$1: $file:$line ($text) not reported"
  done
  if grep -q '^near-misses\.txt:' "$tmp/out"; then fail "$1: a near miss was reported"; fi
  local reported
  reported="$(grep -c -E '^[^ ]+:[0-9]+: ' "$tmp/out" || true)"
  ((reported == ${#cases[@]})) || fail "$1: $reported lines reported, expected ${#cases[@]}"
}

# Plain directories (no git metadata): every file is checked.
make_tree "$tmp/plain-bad" 1
run_check "$tmp/plain-bad" 1
expect_cases_reported "$tmp/plain-bad"
make_tree "$tmp/plain-ok" 0
run_check "$tmp/plain-ok" 0
# A build tree inside the source tree (CTest logs hold test output) is not part of the sources.
mkdir -p "$tmp/plain-ok/mybuild"
: >"$tmp/plain-ok/mybuild/CMakeCache.txt"
echo "${word} 1 in a log" >"$tmp/plain-ok/mybuild/LastTest.log"
run_check "$tmp/plain-ok" 0

# Git work trees: the tracked files are checked, untracked ones are not.
if command -v git >/dev/null 2>&1; then
  make_tree "$tmp/git-bad" 1
  git -C "$tmp/git-bad" init -q
  git -C "$tmp/git-bad" add -A
  run_check "$tmp/git-bad" 1
  expect_cases_reported "$tmp/git-bad"
  make_tree "$tmp/git-ok" 0
  git -C "$tmp/git-ok" init -q
  git -C "$tmp/git-ok" add -A
  echo "${word} 9 in a scratch file" >"$tmp/git-ok/untracked.txt"
  run_check "$tmp/git-ok" 0
else
  echo "selftest: git not installed; the git work-tree mode was not exercised"
fi

# No verdict without a tree.
run_check "$tmp/does-not-exist" 2
echo "selftest: ok (${#cases[@]} offending lines caught, ${#near_misses[@]} near misses passed)"
