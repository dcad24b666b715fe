#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# packaging/readme-examples.sh must fail for each way an example can be wrong, so that the README
# test cannot pass by running nothing: a scratch README holds a command that exits non-zero, one
# whose output does not match its `# prints:` line, a `# prints:` with no command before it, a
# command that runs past the per-command time limit, and good commands (a variable set in one
# command and used by the next, a continued line, a matching `# prints:`), plus a block marked to
# skip whose command would fail. The script must name each bad README line, pass the good ones,
# skip the marked block, and pass a README of good commands only.
# Usage: expect-readme-example-failures.sh EXAMPLES_SCRIPT
set -euo pipefail

examples=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/build"

fence='```'
cat > "$work/README.md" << EOF
# Scratch

${fence}bash
V=hello
echo "\$V" \\
    world
# prints: ^hello world\$
false
echo something else
# prints: ^never printed\$
${fence}

<!-- examples: skip: would fail if it ran -->
${fence}sh
exit 3
${fence}

${fence}sh
# prints: orphan
sleep 30
${fence}
EOF

out=$(README_EXAMPLE_TIMEOUT=2 bash "$examples" "$work/build" "$work/README.md" 2>&1) && rc=0 || rc=$?
fail() {
  echo "FAIL: $1. The script printed:"
  echo "$out"
  exit 1
}
((rc == 1)) || fail "exit status $rc, expected 1"
grep -q '^ok    README line 4 .*: V=hello' <<< "$out" || fail "the assignment did not pass"
grep -q '^ok    README line 5 .*\[prints: \^hello world\$\]' <<< "$out" ||
  fail "the continued echo of the variable did not pass with its # prints:"
grep -q '^FAIL  README line 8 .*exit 1: false' <<< "$out" || fail "the failing command was not named"
grep -q "^FAIL  README line 9 .*no line matches '# prints: ^never printed\\$'" <<< "$out" ||
  fail "the output mismatch was not named"
grep -q '^skip  README line 14: would fail if it ran' <<< "$out" || fail "the marked block was not skipped"
grep -q '^FAIL  README line 19: # prints: without a command before it' <<< "$out" ||
  fail "the orphan # prints: was not named"
grep -q '^FAIL  README line 20 .*timed out after 2 s: sleep 30' <<< "$out" ||
  fail "the command past the time limit was not named"
grep -q 'readme-examples: 5 commands in .*, 4 failed; 1 blocks skipped' <<< "$out" ||
  fail "the summary line is wrong"

# The good commands alone pass.
cat > "$work/README.md" << EOF
${fence}bash
V=hello
echo "\$V" \\
    world
# prints: ^hello world\$
${fence}
EOF
out=$(bash "$examples" "$work/build" "$work/README.md" 2>&1) || fail "a README of good commands failed"
echo "ok: every bad example named by its README line; good ones and skipped blocks pass"
