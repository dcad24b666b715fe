# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DCLI=... -DSOURCE_DIR=... -DWORK=dir -DCASE=name -P bad_section_cli.cmake
# One validation path: a shipped project or search space with one field of a section set out of
# range (written to WORK at run time), given to the command CASE names. validate-project and the
# command that runs the section (search for "search" and "coexplore" sections, serve for
# "serving") must both refuse it with exit 2 and an "error:" line naming the field and its
# allowed range, before any point runs; a crash, "error: internal", an exit 0 or a hang fails.
file(MAKE_DIRECTORY "${WORK}")
set(EXPECT_EXIT 2)
set(EXPECT_STDOUT "")
set(coexplore "${SOURCE_DIR}/presets/projects/llama-3-70b-wafer-coexplore.json")
set(serving "${SOURCE_DIR}/presets/projects/llama-3-70b-h100-serving.json")
set(space "${SOURCE_DIR}/tests/data/search/small-space.json")

if(NOT CASE MATCHES "^(.*)-(search|serve|validate-project)$")
  message(FATAL_ERROR "bad_section_cli.cmake: CASE '${CASE}' does not end in a command")
endif()
set(what "${CMAKE_MATCH_1}")
set(command "${CMAKE_MATCH_2}")
if(what STREQUAL "coexplore-ttft-slo")
  # Every point was "infeasible" and the run exited 0.
  set(from "${coexplore}")
  set(old "\"ttft_s\": 2")
  set(new "\"ttft_s\": -1e308")
  set(EXPECT_STDERR "^error: /serving/slo/ttft_s: TTFT SLO out of range \\(got -1e\\+308. allowed: number in \\[0, 1000000000\\]")
elseif(what STREQUAL "coexplore-negative-rate")
  # It ended as "error: internal".
  set(from "${coexplore}")
  set(old "\"rate_per_s\": 5.53")
  set(new "\"rate_per_s\": -5")
  set(EXPECT_STDERR "^error: /serving/rate_per_s: request rate out of range \\(got -5. allowed: number in \\[1e-09, 1000000000\\]")
elseif(what STREQUAL "coexplore-1e12-requests")
  # It ended as "out of memory".
  set(from "${coexplore}")
  set(old "\"requests\": 2000")
  set(new "\"requests\": 1.1e12")
  set(EXPECT_STDERR "^error: /serving/requests: requests out of range \\(got 1100000000000. allowed: integer in \\[1, 100000000\\]")
elseif(what STREQUAL "coexplore-output-len-0")
  set(from "${coexplore}")
  set(old "\"output_len\": 129,")
  set(new "\"output_len\": 0,")
  set(EXPECT_STDERR "^error: /workload/output_len: must be at least 1 \\(got 0. allowed: integer >= 1\\)")
elseif(what STREQUAL "search-output-len-0")
  # search never validated the base workload: > 120 s on a larger space, "no point feasible"
  # blaming memory, area or power on this one.
  set(from "${space}")
  set(old "\"output_len\": 256")
  set(new "\"output_len\": 0")
  set(EXPECT_STDERR "^error: /workload/output_len: must be at least 1 \\(got 0. allowed: integer >= 1\\)")
elseif(what STREQUAL "search-axis-factor")
  # 1.4 x 10^10 values: "out of memory" after seconds, naming nothing; counted before expanding.
  set(from "${space}")
  set(old "\"max\": 400, \"factor\": 2")
  set(new "\"max\": 400, \"factor\": 1.0000000001")
  set(EXPECT_STDERR "^error: /search/hardware/3: the noc.link_GBps axis' range has 1386294[0-9][0-9][0-9][0-9] values .*allowed: at most 1048576 values per axis \\(a larger factor\\)")
elseif(what STREQUAL "serving-negative-rate")
  # validate-project said "ok" for a serving section serve refuses.
  set(from "${serving}")
  set(old "\"rate_per_s\": 5.53")
  set(new "\"rate_per_s\": -5")
  set(EXPECT_STDERR "^error: /serving/rate_per_s: request rate out of range \\(got -5. allowed: number in \\[1e-09, 1000000000\\]")
elseif(what STREQUAL "coexplore-unknown-knob")
  # validate-project said "ok" for a coexplore section search refuses.
  set(from "${coexplore}")
  set(old "\"knob\": \"dram_GB\"")
  set(new "\"knob\": \"dram_gb\"")
  set(EXPECT_STDERR "^error: /coexplore/axes/2/knob: unknown knob \\(got dram_gb. allowed: one of dram_GB")
else()
  message(FATAL_ERROR "bad_section_cli.cmake: unknown CASE '${CASE}'")
endif()

file(READ "${from}" text)
string(FIND "${text}" "${old}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "bad_section_cli.cmake: '${old}' is not in ${from} any more")
endif()
string(REPLACE "${old}" "${new}" text "${text}")
set(in "${WORK}/${CASE}.json")
file(WRITE "${in}" "${text}")
set(ARGS "${command}|${in}")
include("${CMAKE_CURRENT_LIST_DIR}/run_cli.cmake")
