#pragma once
// Entry points of the cuda target. A plain C++ header (no CUDA types), so the factory in
// local_solver.cpp can include it; defined in the .cu files of this folder, which are compiled
// only when nvcc is found (QUILT_HAVE_CUDA).

#include <memory>
#include <string>

#include "accel/local_solver.hpp"

namespace quilt::accel {

/// The batched mixed-precision local multigrid on the GPU. Throws AccelError (before any work)
/// if no device is visible or params.device is out of range.
std::unique_ptr<LocalSolver> make_cuda_local_solver(const LocalSolverParams& params);

/// cudaGetDeviceCount, 0 when the driver reports no device or no driver at all.
int cuda_visible_devices();

/// Why no CUDA device can be used ("" when one can): no device, or a driver that does not match
/// the runtime (named as such, not as a missing device).
std::string cuda_device_problem();

}  // namespace quilt::accel
