#include "accel/cuda/device_selection.cuh"

#include <cuda_runtime.h>

#include "accel/cuda/band_kernels.cuh"
#include "accel/cuda/cuda_check.cuh"
#include "accel/cuda/cuda_local_solver.hpp"

#ifndef QUILT_CUDA_ARCHITECTURES
#define QUILT_CUDA_ARCHITECTURES "unknown"
#endif

namespace quilt::accel {
namespace cuda {
namespace {

std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string error_text(const char* call, cudaError_t err) {
  return std::string(call) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
}

}  // namespace

std::string device_problem() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  // cudaGetDeviceCount leaves no sticky error; the last-error slot is cleared all the same, so a
  // caller that falls back to the cpu target starts from a clean runtime state.
  cudaGetLastError();
  if (err == cudaSuccess) return count > 0 ? "" : "no CUDA device is visible (0 devices)";
  switch (err) {
    case cudaErrorNoDevice:
      return "no CUDA device is visible (" + error_text("cudaGetDeviceCount", err) + ")";
    case cudaErrorInsufficientDriver:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice: {
      int driver = 0, runtime = 0;
      cudaDriverGetVersion(&driver);
      cudaRuntimeGetVersion(&runtime);
      // The runtime reports a missing driver (no libcuda) as an insufficient one; driver version
      // 0 tells the two apart.
      if (driver == 0)
        return "no CUDA device is visible (no CUDA driver is installed; " +
               error_text("cudaGetDeviceCount", err) + ")";
      return "the CUDA driver does not match the CUDA runtime of this build (driver supports "
             "CUDA " +
             version_text(driver) + ", runtime is CUDA " + version_text(runtime) + "; " +
             error_text("cudaGetDeviceCount", err) +
             "): install a newer driver or build with the toolkit the driver supports";
    }
    default:
      return "the CUDA runtime could not be initialised (" + error_text("cudaGetDeviceCount", err) +
             ")";
  }
}

int open_device(const LocalSolverParams& params, std::string& name) {
  const std::string problem = device_problem();
  if (!problem.empty()) throw AccelError("solver.local.target=cuda: " + problem);
  int count = 0;
  QUILT_CUDA_CHECK(cudaGetDeviceCount(&count));
  const int device = params.device < 0 ? 0 : params.device;
  if (device >= count)
    throw AccelError("solver.local.device = " + std::to_string(params.device) +
                     " is out of range: " + std::to_string(count) + " CUDA device" +
                     (count == 1 ? " is" : "s are") + " visible (ordinals 0.." +
                     std::to_string(count - 1) + ")");
  QUILT_CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp prop{};
  QUILT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  name = prop.name;
  // Without code for the device's architecture (SASS, or PTX the driver can compile) every launch
  // fails; asking for one kernel's attributes finds that out here, before any set-up work.
  cudaFuncAttributes attr{};
  const cudaError_t image = cudaFuncGetAttributes(&attr, band_kernel<float, BandOp::jacobi>);
  if (image != cudaSuccess) {
    cudaGetLastError();
    const std::string cc = std::to_string(prop.major) + std::to_string(prop.minor);
    throw AccelError("solver.local.target=cuda: this build has no kernel image for device " +
                     std::to_string(device) + " (" + name + ", compute capability " +
                     std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                     "; built for CUDA architectures " + QUILT_CUDA_ARCHITECTURES + "; " +
                     error_text("cudaFuncGetAttributes", image) +
                     "): rebuild with -DCMAKE_CUDA_ARCHITECTURES=" + cc);
  }
  return device;
}

}  // namespace cuda

int cuda_visible_devices() {
  if (!cuda::device_problem().empty()) return 0;
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

std::string cuda_device_problem() {
  return cuda::device_problem();
}

}  // namespace quilt::accel
