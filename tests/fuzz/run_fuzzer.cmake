# SPDX-License-Identifier: GPL-3.0-or-later
# One libFuzzer run of a target: seeds (seeds/<TARGET>.seeds; "replay" lines are for the
# GoogleTest only) and the regression inputs of tests/data/fuzz/<TARGET>/ are copied into
# WORK/seeds; new inputs go to WORK/corpus (kept between runs). -seed=1 makes the smoke run the
# same every time. A crash, sanitizer report, leak, timeout (-timeout s per input) or an input
# over -rss_limit_mb fails the run and leaves the input as WORK/crash-*, timeout-*, oom-*.
# -DRUNS=N (executions); -DEXTRA="-flag;..." adds libFuzzer flags (run-long.sh).
foreach(v FUZZER TARGET SOURCE_DIR WORK MAX_LEN RUNS)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_fuzzer.cmake: -D${v}= missing")
  endif()
endforeach()
if(NOT DEFINED SEED)
  set(SEED 1)
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
  COMMAND "${FUZZER}" -runs=${RUNS} -seed=${SEED} -max_len=${MAX_LEN} -timeout=10
          -rss_limit_mb=2048 -dict=${fuzz_dir}/dict/${TARGET}.dict -print_final_stats=1
          -artifact_prefix=${WORK}/ ${EXTRA} "${WORK}/corpus" "${WORK}/seeds"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz target ${TARGET} failed (exit ${rc}); the input is in ${WORK}/")
endif()
