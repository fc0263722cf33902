# `cmake --install` into a scratch prefix gives a working tool: the installed ecobake
# validates an installed config (inputs found beside it) and reports its version.
#   cmake -DBUILD_DIR=<build> -DPREFIX=<scratch> -P tests/check_install.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX} RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
foreach(f bin/ecobake share/ecobake/schemas/tile.fbs share/ecobake/schemas/biome.schema.json
          share/ecobake/configs/temperate_mountain.json share/ecobake/samples/world/heightmap.png)
  if(NOT EXISTS ${PREFIX}/${f})
    message(SEND_ERROR "not installed: ${f}")
  endif()
endforeach()
execute_process(COMMAND ${PREFIX}/bin/ecobake validate ${PREFIX}/share/ecobake/configs/temperate_mountain.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(SEND_ERROR "installed ecobake cannot validate the installed config (${rc}): ${out}${err}")
endif()
file(REMOVE_RECURSE ${PREFIX})
