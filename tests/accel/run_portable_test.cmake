# Driver of the accel_portable test (cmake -P; variables from tests/accel/portable_tests.cmake):
# configures the standalone accel build with QUILT_NATIVE=OFF (no CUDA), builds its cpu suite
# and runs it. Incremental: WORK_DIR is kept between runs.
#
#   ACCEL_SOURCE  accel/          WORK_DIR  its build folder
#   GENERATOR, MAKE_PROGRAM, CXX_COMPILER, WERROR   the Quilt build's
foreach(var ACCEL_SOURCE WORK_DIR GENERATOR MAKE_PROGRAM CXX_COMPILER)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_portable_test.cmake: ${var} not set")
  endif()
endforeach()

# run(step COMMAND...): one step; stops the test with its output when it fails.
function(run step)
  message(STATUS "accel_portable: ${step}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "accel_portable: ${step} failed (${rc}):\n${out}")
  endif()
endfunction()

set(flags "")
if(WERROR)
  set(flags "-Werror")
endif()
run("configure" ${CMAKE_COMMAND} -S ${ACCEL_SOURCE} -B ${WORK_DIR} -G ${GENERATOR}
    -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_BUILD_TYPE=Release -DQUILT_NATIVE=OFF -DQUILT_CUDA=OFF "-DCMAKE_CXX_FLAGS=${flags}")
run("build" ${CMAKE_COMMAND} --build ${WORK_DIR} --target test_accel_cpu --parallel 2)
run("test_accel_cpu" ${WORK_DIR}/bin/test_accel_cpu)
