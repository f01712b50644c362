# Benchmark of the local layer's cpu target: memory bandwidth (triad), banded SpMV bandwidth and
# the time of one local V-cycle. Built with the project's flags (no -march=native: the binary
# has to run on every CI machine).
add_executable(quilt-bench-local ${CMAKE_CURRENT_LIST_DIR}/bench_local.cpp)
target_link_libraries(quilt-bench-local PRIVATE quilt_accel)

if(QUILT_HAVE_CUDA AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/cuda.cmake)
  include(${CMAKE_CURRENT_LIST_DIR}/cuda.cmake)
endif()

# The performance model of the cuda target (bench/gpu_model.py, docs/performance_model.md), in
# its measurement-free mode: bytes and launches per V-cycle against independent counts, and,
# where the host emulation is built, its launch counts against what one solve really queues there
# (quilt-cuda-launch-count).
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  set(gpu_model_args --check)
  if(TARGET quilt_accel_emul)
    add_executable(quilt-cuda-launch-count ${CMAKE_CURRENT_LIST_DIR}/cuda_launch_count.cpp)
    target_link_libraries(quilt-cuda-launch-count PRIVATE quilt_accel_emul)
    # EmulatedDevice's header includes the emulated cuda_runtime.h.
    target_include_directories(quilt-cuda-launch-count BEFORE PRIVATE
                               ${CMAKE_CURRENT_LIST_DIR}/../accel/emulation)
    list(APPEND gpu_model_args --launch-counter $<TARGET_FILE:quilt-cuda-launch-count>)
  endif()
  add_test(NAME gpu_model_check
           COMMAND Python3::Interpreter ${CMAKE_CURRENT_LIST_DIR}/gpu_model.py ${gpu_model_args})
  set_tests_properties(gpu_model_check PROPERTIES LABELS "accel;bench" TIMEOUT 120)
endif()
