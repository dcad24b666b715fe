#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs every command block of README.md (```bash and ```sh fences) exactly as printed, as a user
# would paste it at the top of a clone whose build is in build/: each command must exit 0 and,
# where the README puts a comment `# prints: REGEX` right after it, print a line matching REGEX
# (grep -E, on stdout and stderr together). A block that cannot run on a headless build machine
# (the two README commands themselves, Slurm, MPI launchers, a full rebuild) has the line
# `<!-- examples: skip: REASON -->` right before its fence; every other block runs.
#
# The commands run in a scratch folder, BUILD_DIR/readme-examples, that mirrors the repository
# root: the tree's top-level entries are links into the source tree, build/ a link to BUILD_DIR,
# and docs/, out/ and whatever else a command writes are real folders there, so an example that
# writes (--out out/ds, reproduce --out docs/reproduction) never touches the source tree.
# Commands of one block share one shell (a variable set by one is seen by the next).
#
# Usage: packaging/readme-examples.sh [--list] BUILD_DIR [README]
#   --list  print the commands (block, line, expected output) without running them
# Environment: README_EXAMPLE_TIMEOUT (seconds per command, default 900).
# Run by the `readme.examples_run_as_printed` test (labels readme, slow) and by
# packaging/readme-test.sh --test on a fresh Debian root.
set -uo pipefail

list_only=0
if [[ ${1:-} == --list ]]; then
  list_only=1
  shift
fi
if [[ $# -lt 1 ]]; then
  echo "usage: $0 [--list] BUILD_DIR [README]" >&2
  exit 2
fi
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "$1" && pwd)" || { echo "readme-examples: no build folder '$1'" >&2; exit 2; }
readme="${2:-$src/README.md}"
[[ -f $readme ]] || { echo "readme-examples: no README '$readme'" >&2; exit 2; }
per_command_timeout=${README_EXAMPLE_TIMEOUT:-900}

# The commands in README order, one record per line: CMD<TAB>BLOCK<TAB>LINE<TAB>=REGEX<TAB>COMMAND
# (a tab written as byte 036 and a newline as 037, so a record is one line), SKIP<TAB>BLOCK<TAB>LINE<TAB>REASON for a
# block marked to skip, ERROR<TAB>BLOCK<TAB>LINE<TAB>WHAT for a malformed one.
parse() {
  awk '
    function flush() {
      if (cmd != "") { n++; cmds[n] = cmd; lines[n] = cmdline; regex[n] = ""; block_of[n] = block }
      cmd = ""
    }
    function esc(s) { gsub(/\t/, "\036", s); gsub(/\n/, "\037", s); return s }
    BEGIN { in_block = 0; block = 0; skip = ""; n = 0 }
    !in_block && /^```(bash|sh)[ \t]*$/ {
      in_block = 1; block++; cmd = ""; cont = 0
      if (skip != "") { printf "SKIP\t%d\t%d\t%s\n", block, NR, skip; in_block = 2 }
      skip = ""; next
    }
    !in_block {
      if ($0 ~ /^<!-- examples: skip: .* -->[ \t]*$/) {
        skip = $0; sub(/^<!-- examples: skip: /, "", skip); sub(/ -->[ \t]*$/, "", skip)
      } else if ($0 !~ /^[ \t]*$/) skip = ""
      next
    }
    /^```[ \t]*$/ { if (in_block == 1) flush(); in_block = 0; next }
    in_block == 2 { next }
    {
      line = $0
      if (cont) {
        cmd = cmd "\n" line
      } else if (line ~ /^[ \t]*#[ \t]*prints:/) {
        flush()
        r = line; sub(/^[ \t]*#[ \t]*prints:[ \t]*/, "", r)
        if (n > 0 && block_of[n] == block) regex[n] = r
        else { printf "ERROR\t%d\t%d\t# prints: without a command before it\n", block, NR }
        next
      } else if (line ~ /^[ \t]*#/ || line ~ /^[ \t]*$/) {
        flush(); next
      } else {
        flush(); cmd = line; cmdline = NR
      }
      cont = (line ~ /\\$/)
      if (!cont) flush()
    }
    END {
      if (in_block) printf "ERROR\t%d\t%d\tunterminated code block\n", block, NR
      # The regex field starts with "=" so that it is never empty (read collapses empty fields).
      for (i = 1; i <= n; i++) printf "CMD\t%d\t%d\t=%s\t%s\n", block_of[i], lines[i], esc(regex[i]), esc(cmds[i])
    }
  ' "$readme" | sort -t$'\t' -k3,3n
}

records="$(parse)"
if [[ -z $records ]]; then
  echo "readme-examples: no command blocks in $readme" >&2
  exit 1
fi

# A field written by esc(): bytes 036 and 037 back to tab and newline.
unescape() {
  local s=${1//$'\037'/$'\n'}
  printf '%s' "${s//$'\036'/$'\t'}"
}

if ((list_only)); then
  while IFS=$'\t' read -r kind block line f1 f2; do
    case $kind in
      SKIP) echo "block $block (README line $line): skipped: $f1" ;;
      ERROR) echo "block $block (README line $line): error: $f1" ;;
      CMD)
        echo "block $block, README line $line:"
        unescape "$f2" | sed 's/^/    /'
        echo
        [[ -n ${f1#=} ]] && echo "    # prints: $(unescape "${f1#=}")" ;;
    esac
  done <<< "$records"
  exit 0
fi

# The scratch root: links to the tree's top-level entries, real folders for what is written.
work="$build/readme-examples"
rm -rf "$work"
mkdir -p "$work/docs"
for entry in "$src"/* "$src"/.[!.]*; do
  [[ -e $entry ]] || continue
  name=${entry##*/}
  case $name in
    .git | build | build-* | docs | out | sweep | readme-examples) continue ;;
  esac
  ln -s "$entry" "$work/$name"
done
ln -s "$build" "$work/build"

failed=0
ran=0
skipped=0
current_block=0
t_all=$SECONDS
log="$work/example.log"

# Each block runs in a shell of its own (a subshell of this script): variables set by one
# command of a block are seen by the next (set -a exports them to the commands' processes).
run_block() {
  local block=$1
  shift
  (
    cd "$work" || exit 1
    set -a
    local bad=0 rec kind line re cmd t0 rc
    for rec in "$@"; do
      IFS=$'\t' read -r kind _ line re cmd <<< "$rec"
      re="$(unescape "${re#=}")"
      cmd="$(unescape "$cmd")"
      t0=$SECONDS
      if [[ $cmd =~ ^[A-Za-z_][A-Za-z0-9_]*=[^[:space:]\;\&\|]*$ ]]; then
        eval "$cmd" > "$log" 2>&1
        rc=$?
      else
        timeout --kill-after=10 "$per_command_timeout" bash -c "$cmd" > "$log" 2>&1 < /dev/null
        rc=$?
      fi
      local took=$((SECONDS - t0)) first=${cmd%%$'\n'*}
      if ((rc != 0)); then
        if ((rc == 124)); then
          echo "FAIL  README line $line (${took} s): timed out after ${per_command_timeout} s: $first"
        else
          echo "FAIL  README line $line (${took} s): exit $rc: $first"
        fi
        tail -n 15 "$log" | sed 's/^/      | /'
        bad=$((bad + 1))
      elif [[ -n $re ]] && ! grep -Eq -- "$re" "$log"; then
        echo "FAIL  README line $line (${took} s): no line matches '# prints: $re': $first"
        tail -n 15 "$log" | sed 's/^/      | /'
        bad=$((bad + 1))
      else
        echo "ok    README line $line (${took} s)${re:+ [prints: $re]}: $first"
      fi
    done
    exit "$bad"
  )
}

declare -a pending=()
flush_block() {
  if ((${#pending[@]} > 0)); then
    run_block "$current_block" "${pending[@]}"
    local bad=$?
    failed=$((failed + bad))
    pending=()
  fi
}

while IFS=$'\t' read -r kind block line rest; do
  if [[ $block != "$current_block" ]]; then
    flush_block
    current_block=$block
  fi
  case $kind in
    SKIP)
      echo "skip  README line $line: ${rest%%$'\t'*}"
      skipped=$((skipped + 1)) ;;
    ERROR)
      echo "FAIL  README line $line: ${rest%%$'\t'*}"
      failed=$((failed + 1)) ;;
    CMD)
      pending+=("$kind"$'\t'"$block"$'\t'"$line"$'\t'"$rest")
      ran=$((ran + 1)) ;;
  esac
done <<< "$records"
flush_block

echo "readme-examples: $ran commands in $((SECONDS - t_all)) s, $failed failed;" \
     "$skipped blocks skipped (marked in README.md)"
((failed == 0))
