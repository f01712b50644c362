#pragma once
// Device kernels of the cuda target's smoothers beyond Jacobi (which is in band_kernels.cuh). Each
// is the data-parallel form of a cpu smoother with the same ordering. The point smoothers do, per
// unknown, the same operations in the same order as the cpu, so the two targets agree to rounding
// (bitwise on the emulation); the line smoothers solve each line by cyclic reduction instead of
// the cpu's Thomas algorithm, which agrees to round-off.

#include <cuda_runtime.h>

#include "accel/banded_matrix.hpp"
#include "accel/cuda/band_kernels.cuh"
#include "accel/cuda/cuda_check.cuh"
#include "accel/cuda/launch.cuh"
#include "accel/cuda/pcr.cuh"

namespace quilt::accel::cuda {

/// w x[v-1] + c x[v] + e x[v+1] over the three bands first..first+2 of row r, for the node above
/// or below it (v = r -+ n) in column i: the coupling of a row to a neighbouring grid line, summed
/// as accel/cpu/smoothers/line_kernels.hpp's coupling_at sums it (the line's end nodes have
/// two terms).
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

/// One colour (parity) of a zebra line Gauss-Seidel sweep along the x-lines of C over every
/// macro: lines of one parity are not coupled to each other, so all of them are solved at once,
/// each by parallel cyclic reduction (pcr.cuh) across the threads of its block. A line's system is
/// the cpu's relax_line's (accel/cpu/smoothers/line_smoother.cpp): its bands 3, 4, 5, and b minus
/// the coupling to the two neighbouring lines (whose values are final for this colour), summed in
/// the cpu's order; a line's missing neighbour (the macro's first or last line) contributes
/// nothing, as the cpu's zero ghost line. A Dirichlet (unit) row is the identity row of its
/// system. Then x += omega (z - x), or x = z for omega = 1. The solve rounds differently from
/// the cpu's Thomas algorithm, so the targets agree to round-off, not bitwise.
///
/// Lines, not the Thomas algorithm with one thread per line, because a thread per line walks
/// a chain of 2n dependent steps, reading its line with stride n between the threads, and has only
/// (n+1)/2 lines per macro to spread over the device; here a line's rows are read with unit
/// stride and each of the log2 n steps runs n-wide. This holds on the coarse levels too: their
/// short lines share a block (pcr_shape), so no threads idle and no second path is needed.
template <class T>
__global__ void __launch_bounds__(kPcrMaxThreads)
    zebra_line_kernel(DeviceBands<T> C, const T* __restrict__ b, T* __restrict__ x, T omega, int n,
                      unsigned nn, int parity, unsigned lines_per_macro, unsigned count,
                      int lines_per_block, unsigned groups) {
  QUILT_DYNAMIC_SHARED(unsigned char, zebra_smem);
  const auto load = [&](unsigned id, int e, T& lo, T& up, T& z) {
    const unsigned m = id / lines_per_macro;
    const int line = parity + 2 * static_cast<int>(id - m * lines_per_macro);
    const std::size_t r = static_cast<std::size_t>(m) * nn + static_cast<std::size_t>(line) * n + e;
    T t = __ldg(b + r);
    if (line > 0) t -= line_coupling(C, 0, x, r, r - n, e, n);
    if (line < n - 1) t -= line_coupling(C, 6, x, r, r + n, e, n);
    const T diag = __ldg(C.band[kCentre] + r);
    lo = e > 0 ? __ldg(C.band[kCentre - 1] + r) / diag : T(0);
    up = e < n - 1 ? __ldg(C.band[kCentre + 1] + r) / diag : T(0);
    z = t / diag;
    return r;
  };
  const auto store = [&](std::size_t r, T z) {
    if (omega == T(1))
      x[r] = z;
    else
      x[r] += mul_rn(omega, z - x[r]);
  };
  pcr_kernel_body<T>(zebra_smem, n, count, lines_per_block, groups, load, store);
}

/// A zebra sweep over the x-lines of C: even lines, then odd ones (reversed when backward).
template <class T>
void launch_zebra_sweep(const DeviceBands<T>& C, const T* b, T* x, T omega, const LevelShape& s,
                        bool backward, cudaStream_t stream) {
  for (int c = 0; c < 2; ++c) {
    const int parity = backward ? 1 - c : c;
    const unsigned lines = static_cast<unsigned>((s.n - parity + 1) / 2);
    const unsigned count = lines * static_cast<unsigned>(s.macros);
    const PcrShape p = pcr_shape<T>(s.n, count);
    launch(zebra_line_kernel<T>, p.grid, p.threads, p.shared_bytes, stream)(
        C, b, x, omega, s.n, s.nn, parity, lines, count, p.lines_per_block, p.groups);
    QUILT_CUDA_CHECK_LAUNCH("zebra_line_kernel");
  }
}

/// out(j, i) = in(i, j) on every macro (accel/cpu/smoothers/grid_transpose.hpp): the y-lines of
/// a grid become the x-lines of its transpose.
template <class T>
__global__ void __launch_bounds__(kBlock)
    transpose_grid_kernel(const T* __restrict__ in, T* __restrict__ out, int n, unsigned nn,
                          unsigned rows) {
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < rows; g += gridDim.x * blockDim.x) {
    const unsigned m = g / nn;
    const unsigned r = g - m * nn;
    const unsigned j = r / n, i = r % n;
    out[static_cast<std::size_t>(m) * nn + static_cast<std::size_t>(i) * n + j] = __ldg(in + g);
  }
}

template <class T>
void launch_transpose_grid(const T* in, T* out, const LevelShape& s, cudaStream_t stream) {
  launch(transpose_grid_kernel<T>, grid_for(s.rows), kBlock, 0, stream)(in, out, s.n, s.nn, s.rows);
  QUILT_CUDA_CHECK_LAUNCH("transpose_grid_kernel");
}

}  // namespace quilt::accel::cuda
