# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DCLI=... -DSOURCE_DIR=... -DWORK=dir -P coexplore_resume_cli.cmake
# A co-exploration on a request trace is resumed by the trace's content, not its path: the same
# file named another way (--trace ./coexplore-trace.csv from the project's folder) resumes; the
# file edited in place is refused (before, the fingerprint held the path: the relative spelling
# was refused and the edited file resumed, mixing points of two streams).
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
foreach(f coexplore-trace.json coexplore-trace.csv)
  file(COPY "${SOURCE_DIR}/tests/data/search/${f}" DESTINATION "${WORK}")
endforeach()

function(run expect_rc expect_out)
  execute_process(COMMAND "${CLI}" ${ARGN} WORKING_DIRECTORY "${WORK}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE ";" " " shown "${ARGN}")
  if(NOT "${rc}" STREQUAL "${expect_rc}")
    message(FATAL_ERROR "stackscope-cli ${shown}: exit '${rc}', expected ${expect_rc}\n"
                        "stdout:\n${out}\nstderr:\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${expect_out}")
    message(FATAL_ERROR "stackscope-cli ${shown}: output does not match '${expect_out}':\n"
                        "${out}\n${err}")
  endif()
endfunction()

run(0 "stopped at --max-points: 1 of 2" search coexplore-trace.json --out out --max-points 1)
run(0 "complete: 2 of 2 points \\(1 resumed\\)"
    search coexplore-trace.json --out out --resume --trace ./coexplore-trace.csv)

file(REMOVE_RECURSE "${WORK}/out")
run(0 "stopped at --max-points: 1 of 2" search coexplore-trace.json --out out --max-points 1)
file(READ "${WORK}/coexplore-trace.csv" trace)
string(REPLACE ",400,40\n" ",400,41\n" edited "${trace}")
if(edited STREQUAL trace)
  message(FATAL_ERROR "coexplore_resume_cli.cmake: the first request of the trace changed")
endif()
file(WRITE "${WORK}/coexplore-trace.csv" "${edited}")
run(2 "error: out/coexplore.jsonl: was written by another co-exploration: the space"
    search coexplore-trace.json --out out --resume)
