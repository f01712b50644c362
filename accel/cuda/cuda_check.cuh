#pragma once
// Every CUDA runtime call of the cuda target goes through QUILT_CUDA_CHECK, so a failure surfaces
// as an AccelError that names the call, where it was made and what the driver said, instead of a
// sticky error discovered kernels later.

#include <cuda_runtime.h>

#include <string>

#include "accel/local_solver.hpp"

namespace quilt::accel::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file,
                                          int line) {
  throw AccelError(std::string("CUDA call ") + call + " failed at " + file + ":" +
                   std::to_string(line) + ": " + cudaGetErrorName(err) + " (" +
                   cudaGetErrorString(err) + ")");
}

inline void check_cuda(cudaError_t err, const char* call, const char* file, int line) {
  if (err != cudaSuccess) throw_cuda_error(err, call, file, line);
}

}  // namespace quilt::accel::cuda

#define QUILT_CUDA_CHECK(call) ::quilt::accel::cuda::check_cuda((call), #call, __FILE__, __LINE__)

// A launch reports configuration errors (bad grid, too much shared memory) only through
// cudaGetLastError; execution errors show up at the next synchronising call, which is checked too.
#define QUILT_CUDA_CHECK_LAUNCH(kernel_name) \
  ::quilt::accel::cuda::check_cuda(cudaGetLastError(), "launch of " kernel_name, __FILE__, __LINE__)
