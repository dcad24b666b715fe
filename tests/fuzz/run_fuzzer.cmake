# SPDX-License-Identifier: GPL-3.0-or-later
# One libFuzzer run of a target: seeds (seeds/<TARGET>.seeds; "replay" lines are for the
# GoogleTest only) and the regression inputs of tests/data/fuzz/<TARGET>/ are copied into
# WORK/seeds; new inputs go to WORK/corpus (kept between runs). -seed=1 makes the smoke run the
# same every time. A crash, sanitizer report, leak, timeout (-timeout s per input) or an input
# over -rss_limit_mb fails the run and leaves the input as WORK/crash-*, timeout-*, oom-*.
# -DRUNS=N (executions); -DTIMEOUT=S (default 10); -DEXTRA="-flag;..." adds libFuzzer flags
# (run-long.sh).
foreach(v FUZZER TARGET SOURCE_DIR WORK MAX_LEN RUNS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_fuzzer.cmake: -D${v}= missing")
  endif()
endforeach()
if(NOT DEFINED SEED)
  set(SEED 1)
endif()
# Seconds of wall clock per input before a timeout finding. 10 s is ~10^4 times the slowest
# input's run time on a free core; a machine loaded by parallel builds can starve a nice'd
# fuzzer past it (both timeouts of the first long run took 76 ms and 658 ms when replayed), so
# run-long.sh lets TIMEOUT=S raise it.
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 10)
endif()
set(fuzz_dir "${SOURCE_DIR}/tests/fuzz")
file(REMOVE_RECURSE "${WORK}/seeds")
file(MAKE_DIRECTORY "${WORK}/seeds" "${WORK}/corpus")
file(STRINGS "${fuzz_dir}/seeds/${TARGET}.seeds" lines)
foreach(line IN LISTS lines)
  if(line MATCHES "^(accepted|any) +(.+)$")
    file(GLOB files "${SOURCE_DIR}/${CMAKE_MATCH_2}")
    if(NOT files)
      message(FATAL_ERROR "${TARGET}.seeds: '${CMAKE_MATCH_2}' names no file")
    endif()
    file(COPY ${files} DESTINATION "${WORK}/seeds")
  endif()
endforeach()
file(GLOB regressions "${SOURCE_DIR}/tests/data/fuzz/${TARGET}/*")
if(regressions)
  file(COPY ${regressions} DESTINATION "${WORK}/seeds")
endif()
execute_process(
  COMMAND "${FUZZER}" -runs=${RUNS} -seed=${SEED} -max_len=${MAX_LEN} -timeout=${TIMEOUT}
          -rss_limit_mb=2048 -dict=${fuzz_dir}/dict/${TARGET}.dict -print_final_stats=1
          -artifact_prefix=${WORK}/ ${EXTRA} "${WORK}/corpus" "${WORK}/seeds"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz target ${TARGET} failed (exit ${rc}); the input is in ${WORK}/")
endif()
