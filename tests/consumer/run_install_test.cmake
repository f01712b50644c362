# Driver of the install_consumer test (cmake -P; variables from tests/consumer/tests.cmake):
# installs the Quilt build into a fresh prefix, configures and builds this folder's consumer
# project against it, and runs the consumer on a mesh. Everything is written under WORK_DIR in
# the build tree; the source tree is only read.
#
#   QUILT_BUILD_DIR   the Quilt build to install       WORK_DIR        scratch folder (wiped)
#   CONSUMER_SOURCE   tests/consumer                   MESH            the .msh the consumer reads
#   GENERATOR, MAKE_PROGRAM, CXX_COMPILER, BUILD_TYPE, WERROR   the Quilt build's, for the consumer
#   MPIEXEC, MPIEXEC_NUMPROC_FLAG                      to run the consumer on 1 rank
foreach(var QUILT_BUILD_DIR WORK_DIR CONSUMER_SOURCE MESH GENERATOR MAKE_PROGRAM CXX_COMPILER
            BUILD_TYPE MPIEXEC)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_install_test.cmake: ${var} not set")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer)

# run(step COMMAND...): one step; stops the test with its output when it fails.
function(run step)
  message(STATUS "install_consumer: ${step}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${step} failed (${rc}):\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

# A fresh prefix: a header left over from an earlier run must not hide one that is no longer
# installed.
file(REMOVE_RECURSE ${WORK_DIR})
run("install" ${CMAKE_COMMAND} --install ${QUILT_BUILD_DIR} --prefix ${prefix}
    --config ${BUILD_TYPE})

# The consumer finds Quilt through CMAKE_PREFIX_PATH, as a user would; the compiler and build
# type are the Quilt build's (one C++ ABI).
run("configure consumer" ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE} -B ${consumer_build}
    -G ${GENERATOR} -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_PREFIX_PATH=${prefix} -DCONSUMER_WERROR=${WERROR})
# It must have used that installation, not one elsewhere on the machine.
file(STRINGS ${consumer_build}/CMakeCache.txt quilt_dir REGEX "^Quilt_DIR:")
string(REGEX REPLACE "^[^=]*=" "" quilt_dir "${quilt_dir}")
file(REAL_PATH ${prefix} real_prefix)
file(REAL_PATH "${quilt_dir}" real_quilt_dir)
string(FIND "${real_quilt_dir}" "${real_prefix}/" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "install_consumer: found Quilt in '${quilt_dir}', not under ${prefix}")
endif()

run("build consumer" ${CMAKE_COMMAND} --build ${consumer_build} --config ${BUILD_TYPE})

find_program(consumer quilt_consumer PATHS ${consumer_build} PATH_SUFFIXES ${BUILD_TYPE}
             NO_DEFAULT_PATH REQUIRED)
run("run consumer" ${MPIEXEC} ${MPIEXEC_NUMPROC_FLAG} 1 ${consumer} ${MESH})
message(STATUS "install_consumer: consumer output:\n${step_output}")
