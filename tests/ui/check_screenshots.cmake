# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DGUI=<stackscope> -DOUT=<dir> -P check_screenshots.cmake
# Runs `stackscope --screenshots OUT` and checks each view's PNG exists and is not trivially
# small (an empty or unpainted widget compresses to a few hundred bytes).
file(REMOVE_RECURSE "${OUT}")
execute_process(COMMAND "${GUI}" --screenshots "${OUT}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "stackscope --screenshots exited '${rc}'\n${out}\n${err}")
endif()
foreach(view main-window main-window-dark summary editor breakdown breakdown-ms breakdown-power
             breakdown-area breakdown-ops throughput thermal links links-moe compare search serving experts search-form editor-model editor-parallel
             editor-stack editor-compute editor-mesh editor-system editor-power editor-stack-3d
             editor-power-3d editor-runtime editor-runtime-3d editor-model-moe thermal-dark links-dark compare-dark search-dark
             serving-dark maximised detached compare-empty search-empty throughput-empty)
  set(png "${OUT}/${view}.png")
  if(NOT EXISTS "${png}")
    message(FATAL_ERROR "missing screenshot ${png}")
  endif()
  file(SIZE "${png}" size)
  if(size LESS 5000)
    message(FATAL_ERROR "screenshot ${png} is only ${size} bytes: the view looks empty")
  endif()
  file(READ "${png}" magic LIMIT 8 HEX)
  if(NOT magic STREQUAL "89504e470d0a1a0a")
    message(FATAL_ERROR "${png} is not a PNG file")
  endif()
  message(STATUS "${view}.png: ${size} bytes")
endforeach()
