#pragma once
// Which CUDA device the cuda target runs on, and why none can be used: the checks make_local_solver
// makes before any work, so that a node without a device, with a driver that does not match the
// runtime, or with a device this build has no code for, fails at set-up with a message naming the
// cause -- not at the first launch, and never as a silent skip. Plain C++ declarations.

#include <string>

#include "accel/local_solver.hpp"

namespace quilt::accel::cuda {

/// Why no CUDA device can be used, "" when one can: no device, a driver/runtime mismatch
/// (cudaErrorInsufficientDriver and kin), or another failure of cudaGetDeviceCount.
std::string device_problem();

/// Resolves params.device (-1: the first), makes it current and checks that this build holds a
/// kernel image for it; returns the ordinal and fills name. Throws AccelError naming the cause.
int open_device(const LocalSolverParams& params, std::string& name);

}  // namespace quilt::accel::cuda
