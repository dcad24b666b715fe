#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The self-containment check must catch every rule it has, so that it cannot pass by matching
# nothing: a scratch repository gets one file per rule with a path outside the repository on a
# known line, plus a file of look-alikes that are fine (data/ paths, a repository's own
# search_reference/ folder, the planning notes' names as words, /tmp, ~/.config). The check must name every
# bad file:line with its rule, none of the look-alikes, and pass once the bad files are gone.
# Runs twice: as a git work tree (tracked files) and as a plain folder (the fallback without git).
# The forbidden strings are assembled from pieces so this file does not contain them.
# Usage: expect-self-contained-findings.sh CHECK_SCRIPT
set -euo pipefail

check=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dot2='..'
sh='sha''red'
wk='wo''rk'
hm='ho''me'
us='Us''ers'
ref='refe''rence'
md='MOD''EL.md'
dd='DES''IGN.md'

write_case() {
  local dir=$1
  mkdir -p "$dir/docs" "$dir/presets" "$dir/core"
  # name, line number, rule (prefix of the check's rule name)
  printf 'first line\nsee %s/%s/%s for the model\n' "$dot2" "$sh" "$md" > "$dir/docs/sibling.md"
  printf '{\n  "x": 1,\n  "source": "paper (%s/seeds/004_ee60.txt)"\n}\n' "$sh" > "$dir/presets/seed.json"
  printf '// a\n// b\n// c\n// timings from %s/dram-timings.md\n' "$ref" > "$dir/core/old_tree.hpp"
  printf 'cd /%s/main/build\n' "$wk" > "$dir/work.sh"
  printf 'ok\nT=/%s/alice/traces/conv.csv\n' "$hm" > "$dir/home.txt"
  printf 'ok\nok\nopen /%s/bob/Downloads/x.json\n' "$us" > "$dir/macos.txt"
  printf 'C:\\%s\\carol\\trace.csv\n' "$us" > "$dir/windows.txt"
  # Look-alikes that must not be flagged.
  cat > "$dir/fine.md" << EOF
data/azure-llm-2023/conv.csv.gz and data/mixtral-routing/math.json.gz
tile-ai/DeepStack data/table4/search_${ref}/ablation_summary.csv
the model is described in ${md} and the design in ${dd}
scratch files go to /tmp/stackscope-x and settings to ~/.config/StackScope
packaging/readme-test.sh copies the clone to /root/stackscope in the fresh root
a ${sh} library, the ${wk}/ folder of a project, ${ref}_sim
EOF
}

expect=(
  "docs/sibling.md:2: a sibling folder"
  "presets/seed.json:3: reference data beside the repository"
  "core/old_tree.hpp:4: the old reference data tree"
  "work.sh:1: a build machine work directory"
  "home.txt:2: a home directory"
  "macos.txt:3: a home directory"
  "windows.txt:1: a Windows user directory"
)

run_case() {
  local dir=$1 label=$2
  local out rc=0
  out=$(bash "$check" "$dir" 2>&1) || rc=$?
  if ((rc != 1)); then
    echo "FAIL ($label): the check exited $rc on files with paths outside the repository:"
    echo "$out"
    exit 1
  fi
  for e in "${expect[@]}"; do
    if ! grep -qF -- "$e" <<< "$out"; then
      echo "FAIL ($label): no finding '$e'. The check printed:"
      echo "$out"
      exit 1
    fi
  done
  if grep -q '^fine\.md:' <<< "$out"; then
    echo "FAIL ($label): a look-alike was flagged:"
    grep '^fine\.md:' <<< "$out"
    exit 1
  fi
  local n
  n=$(grep -c '^[^ ]*:[0-9]*: ' <<< "$out" || true)
  if ((n != ${#expect[@]})); then
    echo "FAIL ($label): expected ${#expect[@]} findings, got $n:"
    echo "$out"
    exit 1
  fi
  # Without the bad files the same tree passes.
  rm -f "$dir/docs/sibling.md" "$dir/presets/seed.json" "$dir/core/old_tree.hpp" "$dir/work.sh" \
        "$dir/home.txt" "$dir/macos.txt" "$dir/windows.txt"
  if [[ -d $dir/.git ]]; then git -C "$dir" add -u > /dev/null; fi
  if ! out=$(bash "$check" "$dir" 2>&1); then
    echo "FAIL ($label): the check fails on a clean tree:"
    echo "$out"
    exit 1
  fi
  echo "ok ($label): ${#expect[@]} findings, one per rule and file:line; clean tree passes"
}

write_case "$work/plain"
run_case "$work/plain" "plain folder"

if command -v git > /dev/null; then
  write_case "$work/repo"
  git -C "$work/repo" init -q
  git -C "$work/repo" add -A
  # An untracked file is not part of the product: a git work tree checks tracked files only.
  printf '/%s/untracked\n' "$wk" > "$work/repo/untracked.txt"
  run_case "$work/repo" "git work tree"
fi
