# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DCLI=... -DARGS=a|b -DEXPECT_EXIT=N [-DEXPECT_STDOUT=regex] [-DEXPECT_STDERR=regex]
#       -P run_cli.cmake
# Fails unless the exit code matches and the output matches. For a non-zero EXPECT_EXIT the
# first stderr line must start with "error: " and every other with "error: " or "note: " (one-line
# reasons and the hints that follow them; no stack traces or Qt noise).
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND "${CLI}" ${ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REPLACE ";" " " shown "${ARGS}")
if(NOT "${rc}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "stackscope-cli ${shown}: exit '${rc}', expected ${EXPECT_EXIT}\n"
                      "stdout:\n${out}\nstderr:\n${err}")
endif()
string(REPLACE "\n" " " out_flat "${out}")
if(EXPECT_STDOUT AND NOT out_flat MATCHES "${EXPECT_STDOUT}")
  message(FATAL_ERROR "stackscope-cli ${shown}: stdout does not match '${EXPECT_STDOUT}':\n${out}")
endif()
if(EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
  message(FATAL_ERROR "stackscope-cli ${shown}: stderr does not match '${EXPECT_STDERR}':\n${err}")
endif()
if(NOT EXPECT_EXIT EQUAL 0)
  if(err STREQUAL "")
    message(FATAL_ERROR "stackscope-cli ${shown}: failed without a reason on stderr")
  endif()
  string(REGEX REPLACE "\n$" "" trimmed "${err}")
  string(REPLACE ";" "," trimmed "${trimmed}")  # a ";" would split a line into list items
  string(REPLACE "\n" ";" lines "${trimmed}")
  if(NOT trimmed MATCHES "^error: ")
    message(FATAL_ERROR "stackscope-cli ${shown}: stderr does not start with 'error: ': ${err}")
  endif()
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^(error|note): ")
      message(FATAL_ERROR "stackscope-cli ${shown}: stderr line without 'error: ': ${line}")
    endif()
  endforeach()
endif()
