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

/// One colour (parity) of a zebra line Gauss-Seidel sweep along the x-lines of C over every
/// macro: lines of one parity are not coupled to each other, so one thread per line solves its
/// tridiagonal system with the factors the cpu target computes (inv_pivot, upper: accel/cpu/
/// smoothers/line_smoother.hpp) and the operations of its relax_line, in its order. y is scratch
/// of C's size (the forward-eliminated right-hand side, at the line's own rows). A line's
/// missing neighbour (the macro's first or last line) reads zeros, as the cpu's ghost line.
template <class T>
__global__ void __launch_bounds__(kBlock)
    zebra_line_kernel(DeviceBands<T> C, const T* __restrict__ inv_pivot,
                      const T* __restrict__ upper, const T* __restrict__ b, T* __restrict__ x,
                      T* __restrict__ y, T omega, int n, unsigned nn, int parity,
                      unsigned lines_per_macro, unsigned count) {
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < count; g += gridDim.x * blockDim.x) {
    const unsigned m = g / lines_per_macro;
    const int line = parity + 2 * static_cast<int>(g - m * lines_per_macro);
    const std::size_t first = static_cast<std::size_t>(m) * nn + static_cast<std::size_t>(line) * n;
    const auto xs = [&](int e) { return line > 0 ? x[first - n + e] : T(0); };
    const auto xn = [&](int e) { return line < n - 1 ? x[first + n + e] : T(0); };
    const auto a = [&](int k, int e) { return __ldg(C.band[k] + first + e); };
    const T* bl = b + first;
    const T* inv = inv_pivot + first;
    const T* up = upper + first;
    T* yl = y + first;
    yl[0] = mul_rn(__ldg(bl) - (mul_rn(a(1, 0), xs(0)) + mul_rn(a(2, 0), xs(1))) -
                       (mul_rn(a(7, 0), xn(0)) + mul_rn(a(8, 0), xn(1))),
                   __ldg(inv));
    for (int e = 1; e < n - 1; ++e) {
      const T r =
          __ldg(bl + e) -
          (mul_rn(a(0, e), xs(e - 1)) + mul_rn(a(1, e), xs(e)) + mul_rn(a(2, e), xs(e + 1))) -
          (mul_rn(a(6, e), xn(e - 1)) + mul_rn(a(7, e), xn(e)) + mul_rn(a(8, e), xn(e + 1)));
      yl[e] = mul_rn(r, __ldg(inv + e)) - mul_rn(mul_rn(a(3, e), __ldg(inv + e)), yl[e - 1]);
    }
    const int l = n - 1;
    yl[l] = mul_rn(__ldg(bl + l) - (mul_rn(a(0, l), xs(l - 1)) + mul_rn(a(1, l), xs(l))) -
                       (mul_rn(a(6, l), xn(l - 1)) + mul_rn(a(7, l), xn(l))) -
                       mul_rn(a(3, l), yl[l - 1]),
                   __ldg(inv + l));
    T* xl = x + first;
    if (omega == T(1)) {
      xl[l] = yl[l];
      for (int e = l - 1; e >= 0; --e) xl[e] = yl[e] - mul_rn(__ldg(up + e), xl[e + 1]);
    } else {
      T z = yl[l];
      xl[l] += mul_rn(omega, z - xl[l]);
      for (int e = l - 1; e >= 0; --e) {
        z = yl[e] - mul_rn(__ldg(up + e), z);
        xl[e] += mul_rn(omega, z - xl[e]);
      }
    }
  }
}

/// A zebra sweep over the x-lines of C: even lines, then odd ones (reversed when backward).
template <class T>
void launch_zebra_sweep(const DeviceBands<T>& C, const T* inv_pivot, const T* upper, const T* b,
                        T* x, T* y, T omega, const LevelShape& s, bool backward,
                        cudaStream_t stream) {
  for (int c = 0; c < 2; ++c) {
    const int parity = backward ? 1 - c : c;
    const unsigned lines = static_cast<unsigned>((s.n - parity + 1) / 2);
    const unsigned count = lines * static_cast<unsigned>(s.macros);
    launch(zebra_line_kernel<T>, grid_for(count), kBlock, 0, stream)(
        C, inv_pivot, upper, b, x, y, omega, s.n, s.nn, parity, lines, count);
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
