#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Repository check: fails, naming file and line, when a file of the repository cites something a
# reader of the repository cannot open:
#   - a tracker issue by number: the word issue followed by a number, with or without a space,
#     hyphen, underscore or #, in any case, also inside identifiers and test names;
#   - an issue's numbered deliverables;
#   - the planning notes kept outside the repository (DESIGN, MODEL and STYLE, each a .md file).
# Comments say what a thing is and cite docs/model.md and docs/architecture.md instead
# (docs/architecture.md §9). Public sources stay citable by address: a URL such as
# github.com/OWNER/REPO/issues/N does not match.
#
# Usage: bash packaging/check-no-issue-refs.sh [ROOT]
# ROOT defaults to the repository this script is in. In a git work tree the files checked are
# the tracked ones; in a tree without git metadata (e.g. from `git archive`) every file except
# .git, build trees (any directory holding a CMakeCache.txt, build*/) and out/, .cache/.
# Binary files are skipped.
# Exit 0: nothing found; 1: references found, each printed as FILE:LINE: RULE: TEXT;
# 2: usage or environment error (no verdict).
set -euo pipefail
export LC_ALL=C

if (($# > 1)); then
  echo "usage: $0 [ROOT]" >&2
  exit 2
fi
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
if [[ ! -d "$root" ]]; then
  echo "check-no-issue-refs: $root is not a directory" >&2
  exit 2
fi
root="$(cd "$root" && pwd)"

# The files to check, NUL-separated, relative to ROOT.
files=()
if command -v git >/dev/null 2>&1 &&
  [[ "$(git -C "$root" rev-parse --show-toplevel 2>/dev/null)" == "$root" ]]; then
  mode="tracked files"
  while IFS= read -r -d '' f; do
    [[ -f "$root/$f" ]] && files+=("$f")
  done < <(git -C "$root" ls-files -z --cached)
else
  mode="files (no git work tree)"
  prune=(-path "$root/.git" -o -path "$root/build*" -o -path "$root/out" -o -path "$root/.cache")
  while IFS= read -r -d '' d; do
    prune+=(-o -path "$d")
  done < <(find "$root" -name CMakeCache.txt -type f -printf '%h\0')
  while IFS= read -r -d '' f; do
    files+=("${f#"$root"/}")
  done < <(find "$root" \( "${prune[@]}" \) -prune -o -type f -print0)
fi
if ((${#files[@]} == 0)); then
  echo "check-no-issue-refs: no files to check under $root" >&2
  exit 2
fi

# name | grep case flag | extended regular expression
rules=(
  "issue number|-i|issues?[-_ ]?#?[0-9]"
  "issue deliverable|-i|deliverables? [0-9]"
  "planning note outside the repository||(DESIGN|MODEL|STYLE)[.]md"
)

found=0
for rule in "${rules[@]}"; do
  IFS='|' read -r name flag re <<<"$rule"
  # grep exits 1 when a chunk has no match; only its output matters here.
  out="$(cd "$root" && printf '%s\0' "${files[@]}" |
    xargs -0 grep -n -H -I -s ${flag:+"$flag"} -E -e "$re" -- || true)"
  [[ -z "$out" ]] && continue
  while IFS= read -r hit; do
    file="${hit%%:*}"
    rest="${hit#*:}"
    line="${rest%%:*}"
    text="${rest#*:}"
    text="${text#"${text%%[![:space:]]*}"}"
    ((${#text} > 160)) && text="${text:0:157}..."
    printf '%s:%s: %s: %s\n' "$file" "$line" "$name" "$text"
    found=$((found + 1))
  done <<<"$out"
done

if ((found > 0)); then
  echo "check-no-issue-refs: $found reference(s) a reader of the repository cannot follow" \
    "in ${#files[@]} $mode; say what the thing is, cite docs/model.md or" \
    "docs/architecture.md, and name tests for what they check" >&2
  exit 1
fi
echo "check-no-issue-refs: ok (${#files[@]} $mode)"
