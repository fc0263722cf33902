# samples/world is what `ecosample --size 1025 --seed 7` writes, byte for byte (its README says
# so): the generator and the noise it shares with the masks (core/noise.h) must not drift.
#   cmake -DECOSAMPLE=<exe> -DSOURCE_DIR=<source> -DOUT=<scratch folder> -P tests/check_sample_world.cmake
file(REMOVE_RECURSE ${OUT})
execute_process(COMMAND ${ECOSAMPLE} -o ${OUT} --size 1025 --seed 7 RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ecosample failed (${rc})")
endif()
foreach(f heightmap.png river_distance.png ecosample.json README.md)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${f} ${SOURCE_DIR}/samples/world/${f} RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(SEND_ERROR "${f} differs from samples/world/${f}")
  endif()
endforeach()
file(REMOVE_RECURSE ${OUT})
