# The cuda target's suite (included from tests/accel/tests.cmake when nvcc was found). Plain C++
# against the public interface. Two ctest entries over one executable, so ctest itself reports
# what happened: without a device, test_accel_cuda is SKIPPED (its tests GTEST_SKIP with "no CUDA
# device visible") and test_accel_cuda_no_device checks the cuda target's error; with a device,
# the first runs and the second is SKIPPED.
add_executable(test_accel_cuda ${CMAKE_CURRENT_LIST_DIR}/test_cuda_local_solver.cpp)
target_link_libraries(test_accel_cuda PRIVATE quilt_accel GTest::gtest_main)
add_test(NAME test_accel_cuda COMMAND test_accel_cuda --gtest_filter=-*WithoutDevice*)
set_tests_properties(test_accel_cuda PROPERTIES LABELS "serial;accel;cuda" TIMEOUT 300
                     SKIP_REGULAR_EXPRESSION "no CUDA device visible")
add_test(NAME test_accel_cuda_no_device COMMAND test_accel_cuda --gtest_filter=*WithoutDevice*)
set_tests_properties(test_accel_cuda_no_device PROPERTIES LABELS "serial;accel;cuda" TIMEOUT 60
                     SKIP_REGULAR_EXPRESSION "a CUDA device is visible")

# The benchmark's quick mode: it must run and print its tables (or "no CUDA device", skipped).
add_test(NAME bench_cuda_quick COMMAND quilt-bench-cuda --quick)
set_tests_properties(bench_cuda_quick PROPERTIES LABELS "serial;accel;cuda" TIMEOUT 300
                     SKIP_REGULAR_EXPRESSION "no CUDA device")
