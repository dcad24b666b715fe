# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DCLI=... -DSOURCE_DIR=... -DWORK=dir -DCASE=name -P hostile_cli.cmake
# Hostile inputs, generated here at run time rather than committed (some are
# megabytes): writes the input of CASE into WORK, runs the CLI on it through run_cli.cmake and
# expects exit 2 with the limit in the message. A crash, an abort or a hang (the test timeout)
# fails the check.
file(MAKE_DIRECTORY "${WORK}")
set(in "${WORK}/${CASE}")
set(EXPECT_EXIT 2)
set(EXPECT_STDOUT "")
set(hotspot "${SOURCE_DIR}/tests/data/hotspot")

# A valid project (the shipped default) with `extra` spliced in as further top-level members.
function(project_with file extra)
  file(WRITE "${file}" "{\"schema_version\": 1, \"hardware\": \"h100-sxm\", "
                       "\"system\": {\"base\": \"h100-sxm-x8\", \"devices\": 4}, "
                       "\"model\": \"llama-3-70b\", \"parallel\": {\"tp\": 4}, "
                       "\"workload\": {\"batch\": 8, \"input_len\": 128, \"output_len\": 16}"
                       "${extra}}")
endfunction()

if(CASE STREQUAL "deep-nesting")
  string(REPEAT "[" 100000 open)
  string(REPEAT "]" 100000 close)
  project_with("${in}.json" ", \"notes\": ${open}${close}")
  set(ARGS "evaluate|${in}.json")
  set(EXPECT_STDERR "^error: /notes(/0)+: JSON nested deeper than 64 levels.*allowed: at most 64")
elseif(CASE STREQUAL "deep-nesting-validate")
  string(REPEAT "{\"a\": " 100000 open)
  string(REPEAT "}" 100000 close)
  project_with("${in}.json" ", \"notes\": ${open}1${close}")
  set(ARGS "validate-project|${in}.json")
  set(EXPECT_STDERR "^error: /notes(/a)+: JSON nested deeper than 64 levels")
elseif(CASE MATCHES "^deep-axis-(search|evaluate|serve|validate-project)$")
  # 10^5 levels inside a search axis' values: `search` crashed in its co-exploration check,
  # which parsed the whole file before the depth limit applied; every command refuses it now.
  string(REPEAT "[" 100000 open)
  string(REPEAT "]" 100000 close)
  project_with("${in}.json" ", \"search\": {\"hardware\": [{\"knob\": \"devices\", \"values\": ${open}${close}}], \"objectives\": [\"utps\"]}")
  set(ARGS "${CMAKE_MATCH_1}|${in}.json")
  set(EXPECT_STDERR "^error: /search/hardware/0/values(/0)+: JSON nested deeper than 64 levels.*allowed: at most 64")
elseif(CASE STREQUAL "array-of-1e6-objects")
  string(REPEAT "{}," 999999 items)
  project_with("${in}.json" ", \"notes\": [${items}{}]")
  set(ARGS "evaluate|${in}.json")
  set(EXPECT_STDERR "^error: /notes/100000: array has more than 100000 elements.*at most 100000")
elseif(CASE STREQUAL "million-bad-values")
  # 60,000 levels with an unknown key each: every problem is found, 50 are printed.
  string(REPEAT "{\"sise\": 1}," 59999 levels)
  file(WRITE "${in}.json" "{\"schema_version\": 1, \"hardware\": \"h100-sxm\", "
                          "\"system\": {\"devices\": 4, \"levels\": [${levels}{}]}, "
                          "\"model\": \"llama-3-70b\", \"parallel\": {\"tp\": 4}, "
                          "\"workload\": {\"batch\": 8}}")
  set(ARGS "validate-project|${in}.json")
  set(EXPECT_STDERR "unknown key .sise.*error: \\.\\.\\. and [0-9]+ more problems \\(the first 50")
elseif(CASE STREQUAL "dev-zero-project")
  set(ARGS "evaluate|/dev/zero")
  set(EXPECT_STDERR "^error: [^\n]*cannot read '/dev/zero': it is a device")
elseif(CASE STREQUAL "fifo-project")
  file(REMOVE "${in}.json")
  execute_process(COMMAND mkfifo "${in}.json")
  set(ARGS "validate-project|${in}.json")
  set(EXPECT_STDERR "^error: [^\n]*it is a FIFO")
elseif(CASE STREQUAL "dev-zero-trace")
  file(WRITE "${in}.json" "{\"schema_version\": 1, \"hardware\": \"h100-sxm\", "
                          "\"model\": \"mixtral-8x7b\", \"parallel\": {\"tp\": 1}, "
                          "\"workload\": {\"routing\": {\"kind\": \"trace\", "
                          "\"trace\": \"/dev/zero\"}}}")
  set(ARGS "evaluate|${in}.json")
  set(EXPECT_STDERR "^error: /workload/routing/trace: cannot read '/dev/zero': it is a device")
elseif(CASE STREQUAL "devices-2e30")
  project_with("${in}.json" "")
  file(READ "${in}.json" text)
  string(REPLACE "\"devices\": 4" "\"devices\": 1073741824" text "${text}")
  string(REPLACE "\"tp\": 4" "\"tp\": 4, \"dp\": 268435456" text "${text}")
  file(WRITE "${in}.json" "${text}")
  set(ARGS "evaluate|${in}.json")
  set(EXPECT_STDERR
      "^error: /system/devices: must be at most 1048576.*allowed: integer in \\[1, 1048576\\]")
elseif(CASE STREQUAL "links-of-2e20-devices")
  # Valid, but the per-link replay of --links grows with devices^2 (~1 h here before).
  file(WRITE "${in}.json" "{\"schema_version\": 1, \"hardware\": \"h100-sxm\", "
                          "\"system\": {\"base\": \"h100-sxm-x8\", \"devices\": 1048576, "
                          "\"levels\": [{\"topology\": \"switch\", \"size\": 0}]}, "
                          "\"model\": \"llama-3-70b\", \"parallel\": {\"tp\": 4, \"dp\": 262144}, "
                          "\"workload\": {\"batch\": 8, \"input_len\": 128, \"output_len\": 16}}")
  set(ARGS "evaluate|${in}.json|--links")
  set(EXPECT_STDERR "^error: --links: 1048576 devices.*allowed: systems of at most 16384 devices")
elseif(CASE STREQUAL "mesh-1e5")
  project_with("${in}.json" "")
  file(READ "${in}.json" text)
  string(REPLACE "\"hardware\": \"h100-sxm\""
                 "\"hardware\": {\"base\": \"h100-sxm\", \"noc\": {\"mesh_x\": 100000, \"mesh_y\": 100000}}"
                 text "${text}")
  file(WRITE "${in}.json" "${text}")
  set(ARGS "evaluate|${in}.json")
  set(EXPECT_STDERR "^error: /hardware/noc/mesh_x: must be at most 4096.*\\[1, 4096\\]")
elseif(CASE STREQUAL "denormal-clock")
  project_with("${in}.json" "")
  file(READ "${in}.json" text)
  string(REPLACE "\"hardware\": \"h100-sxm\""
                 "\"hardware\": {\"base\": \"h100-sxm\", \"compute\": {\"clock_GHz\": 1e-310}}"
                 text "${text}")
  file(WRITE "${in}.json" "${text}")
  set(ARGS "evaluate|${in}.json")
  set(EXPECT_STDERR "^error: /hardware/compute/clock_GHz: must be at least 0.001.*\\[0.001, 100\\]")
elseif(CASE STREQUAL "dram-zero-clock")
  file(WRITE "${in}.json" "{\"kind\": \"hardware\", \"base\": \"h100-sxm\", "
                          "\"memory\": {\"clock_MHz\": 0, \"banks_per_channel\": 0}}")
  set(ARGS "dram|--memory|${in}.json")
  set(EXPECT_STDERR "^error: --memory '[^']*': /memory/banks_per_channel: must be at least 1.*error: --memory '[^']*': /memory/clock_MHz: must be positive")
elseif(CASE STREQUAL "dram-refresh")
  file(WRITE "${in}.json" "{\"kind\": \"hardware\", \"base\": \"h100-sxm\", \"memory\": "
                          "{\"timing\": {\"tRCD_ns\": -14, \"tREFI_ns\": 3900, \"tRFC_ns\": 3900}}}")
  set(ARGS "dram|--memory|${in}.json")
  set(EXPECT_STDERR "/memory/timing/tRCD_ns: must be positive.*/memory/timing/tRFC_ns: refresh")
elseif(CASE STREQUAL "dram-1e6-banks-reference")
  # Valid, at the limits: 1024 layers behind one link x 1024 banks = 2^20 banks per simulated
  # channel; the bank-level reference must still answer (it once took 42 s).
  file(WRITE "${in}.json" "{\"kind\": \"hardware\", \"base\": \"deepstack-3d\", \"memory\": "
                          "{\"layers_total\": 1024, \"layers_connected\": 1, "
                          "\"banks_per_channel\": 1024}}")
  set(ARGS "dram|--memory|${in}.json|--pattern|random|--reference")
  set(EXPECT_EXIT 0)
  set(EXPECT_STDOUT "1048576 banks per channel.*reference bandwidth")
elseif(CASE STREQUAL "ptrace-1e5-columns")
  string(REPEAT "b " 100000 header)
  file(WRITE "${in}.ptrace" "${header}\n")
  set(ARGS "thermal|--hotspot|${hotspot}/stack.config|${hotspot}/core.flp|${in}.ptrace")
  set(EXPECT_STDERR "^error: [^\n]*ptrace:1: more than 65536 power trace columns")
elseif(CASE STREQUAL "overlapping-blocks")
  file(WRITE "${in}.flp" "a 0.002 0.002 0 0\nb 0.002 0.002 0.001 0.001\n")
  file(WRITE "${in}.ptrace" "a b\n1 1\n")
  set(ARGS "thermal|--hotspot|${hotspot}/stack.config|${in}.flp|${in}.ptrace")
  set(EXPECT_STDERR "^error: [^\n]*flp:2: blocks 'a' \\(line 1\\) and 'b' overlap by 0.001 x 0.001 m")
elseif(CASE STREQUAL "collective-devices-2e30")
  file(WRITE "${in}.json" "{\"kind\": \"system\", \"base\": \"h100-sxm-x8\", "
                          "\"devices\": 1073741824}")
  set(ARGS "collective|--system|${in}.json|--op|all_reduce|--bytes|1M|--group|8")
  set(EXPECT_STDERR "^error: --system '[^']*': /system/devices: must be at most 1048576")
else()
  message(FATAL_ERROR "hostile_cli.cmake: unknown CASE '${CASE}'")
endif()

include("${CMAKE_CURRENT_LIST_DIR}/run_cli.cmake")
