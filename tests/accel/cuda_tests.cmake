# The cuda target's suite (included from tests/accel/tests.cmake): plain C++ against the public
# interface, built twice when nvcc is found -- on the device (quilt_accel) and on the host
# emulation of the CUDA runtime (quilt_accel_emul, design.md §7) -- and on the emulation alone
# otherwise, so CI runs it without a GPU.
#
# On the device: without one, test_accel_cuda is SKIPPED (its tests GTEST_SKIP with "no CUDA
# device visible") and test_accel_cuda_no_device checks the cuda target's error; with a device,
# the first runs and the second is SKIPPED. QUILT_REQUIRE_CUDA=1 in the environment turns the
# skips into failures (a GPU node whose driver does not work must not pass by skipping).
if(QUILT_HAVE_CUDA)
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
endif()

# On the emulation nothing may skip (QUILT_REQUIRE_CUDA=1): the emulated device is always there,
# and test_accel_cuda_emul_no_device hides it (QUILT_CUDA_EMULATION_DEVICES=0) to check the
# error. test_cuda_emulation.cpp, on the emulation only, checks pinned-range registrations and
# stream capture, and injects a driver mismatch and a missing kernel image.
if(TARGET quilt_accel_emul)
  add_executable(test_accel_cuda_emul ${CMAKE_CURRENT_LIST_DIR}/test_cuda_local_solver.cpp
                                      ${CMAKE_CURRENT_LIST_DIR}/test_cuda_emulation.cpp)
  target_link_libraries(test_accel_cuda_emul PRIVATE quilt_accel_emul GTest::gtest_main)
  target_compile_definitions(test_accel_cuda_emul PRIVATE QUILT_CUDA_EMULATION_TEST=1)
  target_include_directories(test_accel_cuda_emul BEFORE PRIVATE
                             ${CMAKE_CURRENT_LIST_DIR}/../../accel/emulation)
  add_test(NAME test_accel_cuda_emul COMMAND test_accel_cuda_emul --gtest_filter=-*WithoutDevice*)
  add_test(NAME test_accel_cuda_emul_no_device
           COMMAND test_accel_cuda_emul --gtest_filter=*WithoutDevice*)
  set_tests_properties(test_accel_cuda_emul PROPERTIES LABELS "serial;accel;cuda;emul" TIMEOUT 300
                       ENVIRONMENT "QUILT_REQUIRE_CUDA=1")
  set_tests_properties(test_accel_cuda_emul_no_device PROPERTIES
                       LABELS "serial;accel;cuda;emul" TIMEOUT 60
                       ENVIRONMENT "QUILT_REQUIRE_CUDA=1;QUILT_CUDA_EMULATION_DEVICES=0")

  # QUILT_REQUIRE_CUDA=1 turns a skip for a missing device into a failure: shown on the emulation
  # with its device hidden (this entry passes when the test fails with that message).
  add_test(NAME test_accel_cuda_emul_required_without_device
           COMMAND test_accel_cuda_emul --gtest_filter=CudaLocalSolver.SolveBeforeSetupThrows)
  set_tests_properties(test_accel_cuda_emul_required_without_device PROPERTIES
                       LABELS "serial;accel;cuda;emul" TIMEOUT 60
                       ENVIRONMENT "QUILT_REQUIRE_CUDA=1;QUILT_CUDA_EMULATION_DEVICES=0"
                       PASS_REGULAR_EXPRESSION
                       "QUILT_REQUIRE_CUDA=1, but no CUDA device is visible[^\n]*\n\\[  FAILED  \\]")
endif()
