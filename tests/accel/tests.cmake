# The accel suites. Included from tests/CMakeLists.txt (full project) and from
# accel/CMakeLists.txt (standalone accel build: no MPI, no toolkit), so targets are defined
# directly and link quilt_accel alone.
add_executable(test_accel_cpu
  ${CMAKE_CURRENT_LIST_DIR}/test_band_kernels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_stencil_zones.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_grid_transfer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_dense_lu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_galerkin.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_local_multigrid.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_smoothers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_point_smoothers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_line_smoothers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_ilu_smoother.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_linear_recurrence.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_two_right_hand_sides.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_staggered_allocator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_huge_page_pool.cpp)
target_link_libraries(test_accel_cpu PRIVATE quilt_accel GTest::gtest_main)
add_test(NAME test_accel_cpu COMMAND test_accel_cpu)
set_tests_properties(test_accel_cpu PROPERTIES LABELS "serial;accel" TIMEOUT 120)

# LocalSolver::update and the in-place refreshes under it. An executable of its own: it links the
# allocation counter, which replaces the global operator new for the whole executable.
add_executable(test_accel_update ${CMAKE_CURRENT_LIST_DIR}/test_local_solver_update.cpp
                                 ${CMAKE_CURRENT_LIST_DIR}/allocation_counter.cpp)
target_link_libraries(test_accel_update PRIVATE quilt_accel GTest::gtest_main)
add_test(NAME test_accel_update COMMAND test_accel_update)
set_tests_properties(test_accel_update PROPERTIES LABELS "serial;accel" TIMEOUT 120)

# The benchmark's quick mode: it must run and print its table.
add_test(NAME bench_local_quick COMMAND quilt-bench-local --quick)
set_tests_properties(bench_local_quick PROPERTIES LABELS "serial;accel" TIMEOUT 120)

if((QUILT_HAVE_CUDA OR TARGET quilt_accel_emul) AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/cuda_tests.cmake)
  include(${CMAKE_CURRENT_LIST_DIR}/cuda_tests.cmake)
endif()
