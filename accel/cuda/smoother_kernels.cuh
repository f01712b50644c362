#pragma once
// Device kernels of the cuda target's smoothers beyond Jacobi (which is in band_kernels.cuh). Each
// is the data-parallel form of a cpu smoother with the same ordering and, per unknown, the same
// operations in the same order, so the two targets agree to rounding (bitwise on the emulation).

#include <cuda_runtime.h>

#include "accel/banded_matrix.hpp"
#include "accel/cuda/band_kernels.cuh"
#include "accel/cuda/cuda_check.cuh"
#include "accel/cuda/launch.cuh"

namespace quilt::accel::cuda {

/// w x[v-1] + c x[v] + e x[v+1] over the three bands first..first+2 of row r, for the node above
/// or below it (v = r -+ n) in column i: the coupling of a row to a neighbouring grid line, summed
/// as accel/cpu/smoothers/line_kernels.hpp's subtract_coupling sums it (the line's end nodes
/// have two terms).
template <class T>
__device__ __forceinline__ T line_coupling(const DeviceBands<T>& A, int first, const T* x,
                                           std::size_t r, std::size_t v, int i, int n) {
  const T centre = mul_rn(__ldg(A.band[first + 1] + r), x[v]);
  if (i == 0) return centre + mul_rn(__ldg(A.band[first + 2] + r), x[v + 1]);
  const T west = mul_rn(__ldg(A.band[first] + r), x[v - 1]);
  if (i == n - 1) return west + centre;
  return west + centre + mul_rn(__ldg(A.band[first + 2] + r), x[v + 1]);
}

/// One colour (ci, cj) of a 4-colour Gauss-Seidel / SOR sweep over every macro, in place: the
/// nodes (i, j) with i = ci, j = cj (mod 2) are not coupled to each other by the 9-point stencil,
/// so one thread per node updates it from the other colours' values, as the cpu colour sweep
/// (accel/cpu/smoothers/gauss_seidel_smoother.cpp) does: t = b minus the neighbouring lines'
/// coupling, then the line's own bands, x += omega D^{-1} (t - ...). x is written, so it is not
/// read through the read-only cache.
template <class T>
__global__ void __launch_bounds__(kBlock)
    colour_gs_kernel(DeviceBands<T> A, const T* __restrict__ b, const T* __restrict__ invdiag,
                     T omega, T* __restrict__ x, int n, unsigned nn, int ci, int cj,
                     unsigned per_line, unsigned per_macro, unsigned count) {
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < count; g += gridDim.x * blockDim.x) {
    const unsigned m = g / per_macro;
    const unsigned k = g - m * per_macro;
    const int j = cj + 2 * static_cast<int>(k / per_line);
    const int i = ci + 2 * static_cast<int>(k % per_line);
    const std::size_t r = static_cast<std::size_t>(m) * nn + static_cast<std::size_t>(j) * n + i;
    T t = __ldg(b + r);
    if (j > 0) t -= line_coupling(A, 0, x, r, r - n, i, n);
    if (j < n - 1) t -= line_coupling(A, 6, x, r, r + n, i, n);
    T s = t - mul_rn(__ldg(A.band[kCentre] + r), x[r]);
    if (i > 0) s -= mul_rn(__ldg(A.band[3] + r), x[r - 1]);
    if (i < n - 1) s -= mul_rn(__ldg(A.band[5] + r), x[r + 1]);
    x[r] += mul_rn(mul_rn(omega, __ldg(invdiag + r)), s);
  }
}

/// A 4-colour sweep: colours (0,0), (1,0), (0,1), (1,1), reversed when backward -- one launch
/// each, ordered by the stream.
template <class T>
void launch_colour_gs_sweep(const DeviceBands<T>& A, const T* b, const T* invdiag, T omega, T* x,
                            const LevelShape& s, bool backward, cudaStream_t stream) {
  for (int c = 0; c < 4; ++c) {
    const int colour = backward ? 3 - c : c;
    const int ci = colour % 2, cj = colour / 2;
    const unsigned per_line = static_cast<unsigned>((s.n - ci + 1) / 2);
    const unsigned per_macro = per_line * static_cast<unsigned>((s.n - cj + 1) / 2);
    const unsigned count = per_macro * static_cast<unsigned>(s.macros);
    launch(colour_gs_kernel<T>, grid_for(count), kBlock, 0, stream)(
        A, b, invdiag, omega, x, s.n, s.nn, ci, cj, per_line, per_macro, count);
    QUILT_CUDA_CHECK_LAUNCH("colour_gs_kernel");
  }
}

}  // namespace quilt::accel::cuda
