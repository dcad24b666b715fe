# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DCLI=stackscope-cli -DMPIEXEC=mpirun -DPROJECT=space.json -DWORK=dir
#       -P mpi_search_check.cmake
# A 2-rank `search --mpi` gathers the exact single-process frontier. Runs
#   stackscope-cli search PROJECT --json --threads 1                     (reference)
#   mpirun -np 2 stackscope-cli search PROJECT --mpi --json --threads 1 --out WORK/mpi
#   mpirun -np 2 stackscope-cli search PROJECT --mpi --json --threads 1 --out WORK/mpi --resume
# and requires the "frontier" arrays (hw, inner, objectives of every point), and the points of
# WORK/mpi/frontier.json, to equal the reference exactly; fails with a diff otherwise.
foreach(var CLI MPIEXEC PROJECT WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "mpi_search_check.cmake: -D${var}=... is required")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
# OpenMPI refuses to run as root (CI containers) unless told; harmless for other users.
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
set(mpi "${MPIEXEC}" -np 2 --oversubscribe --allow-run-as-root)
# Under ASan (the asan preset) OpenMPI's MCA components, dlopen'ed and unloaded again at
# MPI_Finalize, leave allocations whose stacks end in "<unknown module>" frames that no LSan
# suppression can name; leak checking is off for these runs only (third-party leaks), every
# other ASan/UBSan check stays on.
if(DEFINED ENV{ASAN_OPTIONS})
  set(ENV{ASAN_OPTIONS} "$ENV{ASAN_OPTIONS}:detect_leaks=0")
endif()

function(run_cli out_var label)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  TIMEOUT 60)
  string(REPLACE ";" " " shown "${ARGN}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${label}: exit '${rc}'\n${shown}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# One line per point: "hw/inner [objectives]" (the numbers as printed: both sides come from the
# same writer, so equal text means equal doubles).
function(frontier_lines out_var label json member)
  string(JSON n ERROR_VARIABLE e LENGTH "${json}" ${member})
  if(e)
    message(FATAL_ERROR "${label}: no \"${member}\" array in the output (${e}):\n${json}")
  endif()
  set(lines "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON hw GET "${json}" ${member} ${i} hw)
      string(JSON inner GET "${json}" ${member} ${i} inner)
      string(JSON objectives GET "${json}" ${member} ${i} objectives)
      string(REGEX REPLACE "[ \n]" "" objectives "${objectives}")
      string(REPLACE ";" "," objectives "${objectives}")
      string(APPEND lines "${hw}/${inner} ${objectives}\n")
    endforeach()
  endif()
  set(${out_var} "${lines}" PARENT_SCOPE)
endfunction()

function(expect_same label reference actual)
  if(reference STREQUAL actual)
    return()
  endif()
  file(WRITE "${WORK}/reference.txt" "${reference}")
  file(WRITE "${WORK}/${label}.txt" "${actual}")
  find_program(DIFF diff)
  set(shown "reference:\n${reference}\n${label}:\n${actual}")
  if(DIFF)
    execute_process(COMMAND "${DIFF}" -u reference.txt ${label}.txt WORKING_DIRECTORY "${WORK}"
                    OUTPUT_VARIABLE shown)
  endif()
  message(FATAL_ERROR "${label}: the frontier differs from the single-process frontier:\n"
                      "${shown}")
endfunction()

run_cli(single "single process" "${CLI}" search "${PROJECT}" --json --threads 1)
frontier_lines(reference "single process" "${single}" frontier)
if(reference STREQUAL "")
  message(FATAL_ERROR "the single-process frontier is empty; the check would prove nothing")
endif()

run_cli(gathered "mpirun -np 2" ${mpi} "${CLI}" search "${PROJECT}" --mpi --json --threads 1
        --out "${WORK}/mpi")
frontier_lines(lines "mpirun -np 2 (stdout)" "${gathered}" frontier)
expect_same(mpi-stdout "${reference}" "${lines}")

file(READ "${WORK}/mpi/frontier.json" written)
frontier_lines(lines "mpirun -np 2 (frontier.json)" "${written}" points)
expect_same(mpi-frontier-json "${reference}" "${lines}")

# Every point of the space is evaluated or pruned once over the two ranks.
string(JSON size GET "${single}" space_size)
string(JSON evaluated GET "${gathered}" evaluated)
string(JSON pruned GET "${gathered}" pruned)
string(JSON complete GET "${gathered}" complete)
math(EXPR visited "${evaluated} + ${pruned}")
if(NOT visited EQUAL size OR NOT complete STREQUAL "ON")
  message(FATAL_ERROR "mpirun -np 2: evaluated ${evaluated} + pruned ${pruned} != ${size} "
                      "points, or not complete (${complete})")
endif()
foreach(rank 0 1)
  if(NOT EXISTS "${WORK}/mpi/rank-${rank}/points.jsonl")
    message(FATAL_ERROR "mpirun -np 2 --out: no per-rank log ${WORK}/mpi/rank-${rank}/points.jsonl")
  endif()
endforeach()

# Each rank resumes its own log (all units finished: nothing is re-evaluated).
run_cli(resumed "mpirun -np 2 --resume" ${mpi} "${CLI}" search "${PROJECT}" --mpi --json
        --threads 1 --out "${WORK}/mpi" --resume)
frontier_lines(lines "mpirun -np 2 --resume" "${resumed}" frontier)
expect_same(mpi-resume "${reference}" "${lines}")

file(REMOVE_RECURSE "${WORK}")
message(STATUS "2-rank MPI frontier == single-process frontier")
