#pragma once
// The ILU(0) sweep of the cuda target (design.md §7), in the cpu target's remainder form
// (accel/cpu/smoothers/ilu_smoother.hpp): v = b + R x (R's 4 bands of the fill, kFill), the
// substitutions z = U^{-1} L^{-1} v with the cpu target's factors (L in bands 0..3, unit diagonal
// implied, 1 / U(r, r) in band 4, U in bands 5..8), then x <- x + omega (z - x).
//
// Wavefront order. Row (i, j) of L reads the rows (i-1, j-1), (i, j-1), (i+1, j-1) and (i-1, j)
// of the 9-point pattern. With the front number t(i, j) = i + 2 j those lie on fronts t-3, t-2,
// t-1 and t-1, so the rows of one front depend only on earlier fronts and are computed at once;
// U's rows (the mirrored pattern) likewise on later fronts. A macro has 3n - 2 fronts, each of at
// most (n + 1) / 2 rows (level scheduling: Saad 2003, ch. 11). Every row sums its terms with
// the operations of the cpu substitution, in its order, so the result is the lexicographic
// substitution's: bitwise on the emulation, to rounding on a device. (t = i + j would put
// (i+1, j-1) on row (i, j)'s own front: a race.)
//
// One block per macro runs both substitutions, fronts in turn with a barrier between them and
// the block's threads strided over the rows of a front: one launch per sweep, no grid-wide
// synchronisation.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "accel/banded_matrix.hpp"
#include "accel/cuda/band_kernels.cuh"
#include "accel/cuda/cuda_check.cuh"
#include "accel/cuda/launch.cuh"
#include "accel/cuda/smoother_kernels.cuh"

namespace quilt::accel::cuda {

/// The rows (i, j) = (t - 2 j, j) of front t, for j in [first, last]: those with 0 <= i < n.
struct Front {
  int first, last;
};

__device__ __forceinline__ Front front_rows(int t, int n) {
  // i = t - 2 j <= n - 1 gives j >= (t - n + 1) / 2, rounded up.
  return Front{t >= n ? (t - n + 2) / 2 : 0, t / 2 < n ? t / 2 : n - 1};
}

/// y(i, j) of L y = v, row r of the batch: as the cpu substitution, v minus the coupling to the
/// line below (line_coupling sums it as coupling_at does), then minus the west term.
/// v and y may be the same array: row r's v is read before y(r) is written, and no other row
/// reads it.
template <class T>
__device__ __forceinline__ void ilu_forward_row(const DeviceBands<T>& F, const T* v, T* y,
                                                std::size_t r, int i, int j, int n) {
  T s = v[r];
  if (j > 0) s -= line_coupling(F, 0, y, r, r - n, i, n);
  if (i > 0) s -= mul_rn(__ldg(F.band[3] + r), y[r - 1]);
  y[r] = s;
}

/// z(i, j) of U z = y in place, then x(i, j) <- x + omega (z - x) (omega = 1: z), as the cpu.
template <class T>
__device__ __forceinline__ void ilu_backward_row(const DeviceBands<T>& F, T* z, T omega,
                                                 T* __restrict__ x, std::size_t r, int i, int j,
                                                 int n) {
  T s = z[r];
  if (j < n - 1) s -= line_coupling(F, 6, z, r, r + n, i, n);
  if (i < n - 1) s -= mul_rn(__ldg(F.band[5] + r), z[r + 1]);
  s = mul_rn(s, __ldg(F.band[kCentre] + r));
  z[r] = s;
  x[r] = omega == T(1) ? s : x[r] + mul_rn(omega, s - x[r]);
}

/// Device pointers to R's 4 bands (IluSmoother::kFill's order), passed by value.
template <class T>
struct DeviceRemainder {
  const T* band[4];
};

/// v = b + R x at row g = (i, j) of a macro: the terms and their order of the cpu target's
/// lower_line (ilu_smoother.cpp), x taken as 0 where the offset leaves the macro.
template <class T>
__global__ void __launch_bounds__(kBlock)
    ilu_remainder_kernel(DeviceRemainder<T> R, const T* __restrict__ b, const T* __restrict__ x,
                         T* __restrict__ v, unsigned nn, int n, unsigned rows) {
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < rows; g += gridDim.x * blockDim.x) {
    const unsigned r = g % nn;
    const int i = static_cast<int>(r % static_cast<unsigned>(n));
    const int j = static_cast<int>(r / static_cast<unsigned>(n));
    const bool west = i >= 2, east = i + 2 < n;
    const T w = west ? __ldg(x + g - 2) : T(0);
    const T nw = west && j + 1 < n ? __ldg(x + g + n - 2) : T(0);
    const T se = east && j > 0 ? __ldg(x + g - n + 2) : T(0);
    const T ea = east ? __ldg(x + g + 2) : T(0);
    v[g] = __ldg(b + g) + ((mul_rn(__ldg(R.band[0] + g), w) + mul_rn(__ldg(R.band[1] + g), nw)) +
                           (mul_rn(__ldg(R.band[2] + g), se) + mul_rn(__ldg(R.band[3] + g), ea)));
  }
}

template <class T>
void launch_ilu_remainder(const DeviceRemainder<T>& R, const T* b, const T* x, T* v,
                          const LevelShape& s, cudaStream_t stream) {
  launch(ilu_remainder_kernel<T>, grid_for(s.rows), kBlock, 0, stream)(R, b, x, v, s.nn, s.n,
                                                                       s.rows);
  QUILT_CUDA_CHECK_LAUNCH("ilu_remainder_kernel");
}

/// Threads of an ILU block at most: the longest front of n = 1025 (513 rows) in one pass. Each
/// front costs a barrier and a memory round trip per pass, so a block of a thread per row of the
/// longest front is the wavefront's shortest critical path (3n - 2 steps per substitution).
inline constexpr int kIluMaxThreads = 1024;

/// One ILU(0) sweep on macro blockIdx.x: c = U^{-1} L^{-1} v (c may be v), x <- x + omega (c - x).
template <class T>
__global__ void __launch_bounds__(kIluMaxThreads)
    ilu_sweep_kernel(DeviceBands<T> F, const T* v, T* c, T omega, T* __restrict__ x, int n,
                     unsigned nn) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * nn;
  const int fronts = 3 * n - 2;
  for (int t = 0; t < fronts; ++t) {
    const Front f = front_rows(t, n);
    for (int j = f.first + static_cast<int>(threadIdx.x); j <= f.last;
         j += static_cast<int>(blockDim.x)) {
      const int i = t - 2 * j;
      ilu_forward_row(F, v, c, base + static_cast<std::size_t>(j) * n + i, i, j, n);
    }
    __syncthreads();
  }
  for (int t = fronts - 1; t >= 0; --t) {
    const Front f = front_rows(t, n);
    for (int j = f.first + static_cast<int>(threadIdx.x); j <= f.last;
         j += static_cast<int>(blockDim.x)) {
      const int i = t - 2 * j;
      ilu_backward_row(F, c, omega, x, base + static_cast<std::size_t>(j) * n + i, i, j, n);
    }
    if (t > 0) __syncthreads();
  }
}

/// One sweep over every macro: a block each, a thread per row of the longest front (j = 0 ..
/// (n-1)/2), in whole warps.
template <class T>
void launch_ilu_sweep(const DeviceBands<T>& F, const T* v, T* c, T omega, T* x, const LevelShape& s,
                      cudaStream_t stream) {
  const int longest = (s.n + 1) / 2;
  const int threads = std::min(kIluMaxThreads, (longest + 31) / 32 * 32);
  launch(ilu_sweep_kernel<T>, s.macros, threads, 0, stream)(F, v, c, omega, x, s.n, s.nn);
  QUILT_CUDA_CHECK_LAUNCH("ilu_sweep_kernel");
}

}  // namespace quilt::accel::cuda
