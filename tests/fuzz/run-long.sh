#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The long fuzz run (>= 10^6 executions per target), one target at a time, one
# process each, at low priority. Needs the asan preset's build (cmake --preset asan &&
# cmake --build --preset asan). Usage: tests/fuzz/run-long.sh [RUNS] [TARGET...]
# MAX_TIME=S also stops each target after S seconds (-max_total_time), for runs in slices.
# TIMEOUT=S sets the per-input timeout (default 10 s; raise it on a machine busy with builds).
# Each target keeps its corpus in build-asan/tests/fuzz/long/<target>/corpus (later runs start
# from it) and its executions over all runs in .../history.txt; findings are left there as
# crash-*, timeout-*, oom-*, leak-* (README.md says what to do with them). Prints one line per
# target: executions of this run, of all runs, exec/s, cov, ft, corpus, result.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build-asan}
runs=${1:-1000000}
shift || true
list="$build/tests/fuzz/fuzz-targets.txt"
# Stack traces for UBSan reports; a report stops the run (the build has no recovery anyway).
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
[[ -f $list ]] || { echo "error: $list missing: configure and build the asan preset first" >&2; exit 2; }

printf '%-16s %10s %10s %8s %6s %7s %6s %s\n' target execs total exec/s cov ft corpus result
while read -r name max_len exe; do
  if (($# > 0)) && [[ " $* " != *" $name "* ]]; then continue; fi
  work="$build/tests/fuzz/long/$name"
  mkdir -p "$work"
  log="$work/run.log"
  nice -n 10 cmake "-DFUZZER=$exe" "-DTARGET=$name" "-DSOURCE_DIR=$PWD" "-DWORK=$work" \
    "-DMAX_LEN=$max_len" "-DRUNS=$runs" "-DSEED=${SEED:-0}" "-DTIMEOUT=${TIMEOUT:-10}" \
    ${MAX_TIME:+"-DEXTRA=-max_total_time=$MAX_TIME"} -P tests/fuzz/run_fuzzer.cmake \
    >"$log" 2>&1
  rc=$?
  execs=$(grep -oP 'stat::number_of_executed_units: \K[0-9]+' "$log" | tail -1)
  rate=$(grep -oP 'stat::average_exec_per_sec: +\K[0-9]+' "$log" | tail -1)
  stats=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(grep -oP 'cov: \K[0-9]+' <<<"$stats")
  ft=$(grep -oP 'ft: \K[0-9]+' <<<"$stats")
  corp=$(grep -oP 'corp: \K[0-9]+' <<<"$stats")
  if ((rc == 0)); then result=clean; else result="FINDING: $(ls "$work" | grep -E '^(crash|timeout|oom|leak|slow-unit)-' | tr '\n' ' ')"; fi
  echo "$(date -u +%FT%TZ) ${execs:-0} ${rate:-?} ${cov:-?} ${ft:-?} $result" >>"$work/history.txt"
  total=$(awk '{s += $2} END {print s}' "$work/history.txt")
  printf '%-16s %10s %10s %8s %6s %7s %6s %s\n' "$name" "${execs:-?}" "$total" "${rate:-?}" \
    "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result"
done <"$list"
