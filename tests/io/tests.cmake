# Configuration parsing (toolkit/io/config) and the applications' keys read as the apps read them
# (apps/common). One rank: no key needs communication, but reading them takes a Communicator.
add_executable(test_config io/test_config.cpp ${CMAKE_CURRENT_SOURCE_DIR}/mpi_main.cpp)
target_link_libraries(test_config PRIVATE quilt_app_common GTest::gtest)
target_compile_definitions(test_config PRIVATE QUILT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# Run in the source tree: the keys' defaults name the mesh relative to it (the shipped
# configurations name theirs relative to themselves).
add_test(NAME test_config
         COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 ${QUILT_MPIEXEC_FLAGS}
                 $<TARGET_FILE:test_config>
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
# A parse that hangs ends the binary itself after 30 s (test_config.cpp); this is the backstop.
set_tests_properties(test_config PROPERTIES ENVIRONMENT "${QUILT_MPI_ENV}" LABELS serial
                     TIMEOUT 120)
# Fail-safe output: atomic file writes and the --results / --vtu checks (serial), and the
# collective VTU/PVTU and results writing at 1, 2 and 4 ranks.
quilt_serial_test(test_atomic_file io/test_atomic_file.cpp)
quilt_mpi_test(test_output io/test_output.cpp)
# An interrupted quilt-flow (SIGTERM, SIGINT; alone and under mpirun at 2 ranks): its exit
# status, its one line, and an existing --results file left as it was.
add_test(NAME test_output_interrupted
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/io/test_interrupted_run.sh $<TARGET_FILE:quilt-flow>
                 ${MPIEXEC_EXECUTABLE}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(test_output_interrupted PROPERTIES ENVIRONMENT "${QUILT_MPI_ENV}" LABELS mpi
                     PROCESSORS 2 TIMEOUT 600)
# The results JSON read back against the structs it came from, the "config" section and the
# documents of a successful and a failed run (one rank: rank 0 writes them alone).
add_executable(test_results_json io/test_results_json.cpp ${CMAKE_CURRENT_SOURCE_DIR}/mpi_main.cpp)
target_link_libraries(test_results_json PRIVATE quilt_app_common GTest::gtest)
target_compile_definitions(test_results_json PRIVATE QUILT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
target_include_directories(test_results_json PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME test_results_json
         COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 ${QUILT_MPIEXEC_FLAGS}
                 $<TARGET_FILE:test_results_json>)
set_tests_properties(test_results_json PROPERTIES ENVIRONMENT "${QUILT_MPI_ENV}" LABELS serial)
# quilt-flow and quilt-poisson as a user runs them (alone and under mpirun at 2 ranks): the
# results file of a failed run holds the error, that of a successful one the configuration.
add_executable(test_results_file io/test_results_file.cpp)
target_link_libraries(test_results_file PRIVATE quilt_toolkit GTest::gtest_main)
target_include_directories(test_results_file PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(test_results_file PRIVATE QUILT_FLOW="$<TARGET_FILE:quilt-flow>"
                           QUILT_POISSON="$<TARGET_FILE:quilt-poisson>"
                           QUILT_MPIEXEC="${MPIEXEC_EXECUTABLE}")
add_dependencies(test_results_file quilt-flow quilt-poisson)
add_test(NAME test_results_file COMMAND test_results_file WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(test_results_file PROPERTIES ENVIRONMENT "${QUILT_MPI_ENV}" LABELS mpi
                     PROCESSORS 2 TIMEOUT 600)
# The VTU format read back value by value at 1, 2 and 4 ranks (tests/io/vtu_reader.hpp), and the
# files quilt-flow and quilt-poisson write, read back by vtu_check.
quilt_mpi_test(test_vtu io/test_vtu.cpp)
add_executable(vtu_check io/vtu_check.cpp)
target_link_libraries(vtu_check PRIVATE quilt_toolkit)  # for the helpers the reader uses
target_include_directories(vtu_check PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
add_test(NAME test_vtu_apps
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/io/test_vtu_apps.sh $<TARGET_FILE:quilt-flow>
                 $<TARGET_FILE:quilt-poisson> $<TARGET_FILE:vtu_check> ${MPIEXEC_EXECUTABLE}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
set_tests_properties(test_vtu_apps PROPERTIES ENVIRONMENT "${QUILT_MPI_ENV}" LABELS mpi
                     PROCESSORS 2 TIMEOUT 300)
