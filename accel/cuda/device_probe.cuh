#pragma once
// Measurements of the cuda target's building blocks for bench/quilt-bench-cuda. Plain C++ (no
// CUDA types), so the benchmark is an ordinary C++ program; defined in device_probe.cu and
// cuda_local_multigrid.cu. Every function throws AccelError on a failed CUDA call.

#include <cstddef>
#include <string>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/local_solver.hpp"

namespace quilt::accel::cuda {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  double memory_gib = 0.0;
  int multiprocessors = 0;
  int compute_major = 0, compute_minor = 0;
};

/// Properties of device ordinal (selects it as the current device).
DeviceInfo device_info(int ordinal);

/// Device-to-device cudaMemcpy of `bytes`, best of reps: bandwidth in bytes/s with the read and
/// the write both counted (2 * bytes per copy).
double copy_bandwidth(std::size_t bytes, int reps);

struct BandApplyTiming {
  int level = 0;
  int macros = 0;
  std::size_t rows = 0;
  double seconds = 0.0;    ///< best of reps, one y = A x over all macros
  double bandwidth = 0.0;  ///< (9 bands + x + y) * sizeof(T) * rows / seconds, bytes/s
};

/// Time of the batched banded y = A x kernel of the local solver on `macros` macros at `level`,
/// with a Q1 Laplacian stencil generated on the device, in float or double.
BandApplyTiming time_band_apply(Precision precision, int level, int macros, int reps);

/// Best-of-reps device time (cudaEvent) of one V(pre, post) cycle of the cuda local multigrid set
/// up on `levels`, on the finest level's iterate after one solve of `defect`; no host transfers.
double time_vcycle(const LocalSolverParams& params,
                   const std::vector<const BandedMatrix<double>*>& levels, const double* defect,
                   int reps);

}  // namespace quilt::accel::cuda
