# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DCLI=... -DWORK=dir -DCASE=serve|moe -P interrupt_cli.cmake
# Ctrl-C on a long run (app/cli/long_run.hpp): SIGINT two seconds in must end the command with
# exit 130, one "error: ... interrupted (Ctrl-C)" line and nothing on stdout (the partial result
# is discarded). The run is started as a job of its own (bash -m) so that SIGINT is not ignored
# as it is for background commands of a script.
find_program(BASH bash)
if(NOT BASH)
  message("skipped: no bash to send SIGINT with")
  return()
endif()
file(MAKE_DIRECTORY "${WORK}")
if(CASE STREQUAL "serve")
  # 200,000 requests of 8000 output tokens (within the model's 8192-token context): minutes of
  # simulation.
  set(args "serve --rate 1000 --requests 200000 --input-len 128 --output-len 8000")
elseif(CASE STREQUAL "moe")
  # HD-MoE's link balance at its limit on every fourth layer: minutes.
  set(args "moe --skew zipf:1.2 --compare --link-iterations 100000")
else()
  message(FATAL_ERROR "interrupt_cli.cmake: unknown CASE '${CASE}'")
endif()
set(out "${WORK}/${CASE}.out")
set(err "${WORK}/${CASE}.err")
execute_process(
  COMMAND "${BASH}" -c
          "set -m; \"$0\" ${args} > \"$1\" 2> \"$2\" & pid=$!; sleep 2; kill -INT $pid; wait $pid; echo $?"
          "${CLI}" "${out}" "${err}"
  OUTPUT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
file(READ "${out}" stdout)
file(READ "${err}" stderr)
if(NOT rc STREQUAL "130")
  message(FATAL_ERROR "${args}: exit '${rc}' after SIGINT, expected 130\nstderr:\n${stderr}")
endif()
if(NOT stderr MATCHES "^error: ${CASE}: interrupted \\(Ctrl-C\\); the partial results are discarded\n$")
  message(FATAL_ERROR "${args}: stderr after SIGINT:\n${stderr}")
endif()
if(NOT stdout STREQUAL "")
  message(FATAL_ERROR "${args}: a partial result was printed:\n${stdout}")
endif()
