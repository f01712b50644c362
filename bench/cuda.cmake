# Benchmark of the local layer's cuda target (included from bench/accel.cmake when nvcc was
# found): copy and banded-SpMV bandwidth, V-cycle time, and T_loc cpu vs cuda. A plain C++
# program: the device-side measurements live in quilt_accel (accel/cuda/device_probe.cuh), so
# this directory needs no CUDA language of its own.
add_executable(quilt-bench-cuda ${CMAKE_CURRENT_LIST_DIR}/bench_cuda_local.cpp)
target_link_libraries(quilt-bench-cuda PRIVATE quilt_accel)
