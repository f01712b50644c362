# Benchmark of the local layer's cpu target: memory bandwidth (triad), banded SpMV bandwidth and
# the time of one local V-cycle. Built with the project's flags (no -march=native: the binary
# has to run on every CI machine).
add_executable(quilt-bench-local ${CMAKE_CURRENT_LIST_DIR}/bench_local.cpp)
target_link_libraries(quilt-bench-local PRIVATE quilt_accel)

if(QUILT_HAVE_CUDA AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/cuda.cmake)
  include(${CMAKE_CURRENT_LIST_DIR}/cuda.cmake)
endif()
