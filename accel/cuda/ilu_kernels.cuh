#pragma once
// The ILU(0) sweep of the cuda target (design.md §7), in the cpu target's remainder form
// (accel/cpu/smoothers/ilu_smoother.hpp): v = b + R x (R's 4 bands of the fill, kFill), the
// substitutions z = U^{-1} L^{-1} v with the cpu target's factors (L in bands 0..3, unit diagonal
// implied, 1 / U(r, r) in band 4, U in bands 5..8), then x <- x + omega (z - x).
//
// Wavefront order. The cpu substitutions recur along each x-line a block at a time (IluLineSplit:
// a head of 2 nodes, blocks of kRecurrenceBlock nodes composed by a prefix scan, a tail node by
// node), so the device works in the same segments: one thread computes one segment (k, j) with
// the cpu's operations in the cpu's order, the scan's steps lane by lane. Segment (k, j) of L
// reads segment k-1 of its own line (the carry) and the nodes begin(k)-1 .. begin(k+1) of the
// line below, which lie in segments k-1, k and k+1. With the front number t(k, j) = k + 2 j those
// lie on fronts t-1, t-3, t-2 and t-1, so the segments of one front depend only on earlier fronts
// and are computed at once; U's (the mirrored pattern) likewise on later fronts. A macro has
// S + 2 (n - 1) fronts (S segments per line), each of at most (S + 1) / 2 segments (level
// scheduling: Saad 2003, ch. 11). The result is the cpu sweep's: bitwise on the emulation, to
// rounding on a device. (t = k + j would put segment (k+1, j-1) on segment (k, j)'s own front: a
// race.)
//
// One block per macro runs both substitutions, fronts in turn with a barrier between them and
// the block's threads strided over the segments of a front: one launch per sweep, no grid-wide
// synchronisation.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "accel/banded_matrix.hpp"
#include "accel/cuda/band_kernels.cuh"
#include "accel/cuda/cuda_check.cuh"
#include "accel/cuda/launch.cuh"
#include "accel/cuda/smoother_kernels.cuh"
#include "accel/recurrence_blocks.hpp"

namespace quilt::accel::cuda {

/// The segments (k, j) = (t - 2 j, j) of front t, for j in [first, last]: those with
/// 0 <= k < segments.
struct Front {
  int first, last;
};

__device__ __forceinline__ Front front_segments(int t, int segments, int n) {
  // k = t - 2 j <= segments - 1 gives j >= (t - segments + 1) / 2, rounded up.
  const int first = t >= segments ? (t - segments + 2) / 2 : 0;
  return Front{first, t / 2 < n ? t / 2 : n - 1};
}

/// The prefix scan of SimdBlock::compose (accel/cpu/smoothers/linear_recurrence.hpp) lane by
/// lane, with its operations in its order: in step D every lane l becomes the composition of its
/// map after the map of lane l - D (Forward; l + D backward), the identity (0, 1) beyond the
/// block. The lanes are visited so that each step reads its neighbours' values from before it.
template <bool Forward, class T>
__device__ __forceinline__ void compose_block(T (&a)[kRecurrenceBlock], T (&m)[kRecurrenceBlock]) {
  constexpr int W = kRecurrenceBlock;
#pragma unroll
  for (int d = 1; d < W; d *= 2)
#pragma unroll
    for (int q = 0; q < W; ++q) {
      const int l = Forward ? W - 1 - q : q;
      const int from = Forward ? l - d : l + d;
      const bool inside = from >= 0 && from < W;
      const T a_before = inside ? a[inside ? from : 0] : T(0);
      const T m_before = inside ? m[inside ? from : 0] : T(1);
      a[l] = a[l] + mul_rn(m[l], a_before);
      m[l] = mul_rn(m[l], m_before);
    }
}

/// a of L's recurrence at row r = (i, j): v minus the coupling to the line below (line_coupling
/// sums it as the cpu's coupling_at does).
template <class T>
__device__ __forceinline__ T ilu_lower_term(const DeviceBands<T>& F, const T* v, const T* y,
                                            std::size_t r, int i, int j, int n) {
  T s = v[r];
  if (j > 0) s -= line_coupling(F, 0, y, r, r - n, i, n);
  return s;
}

/// Segment k of line j (first row row0) of L y = v, as the cpu's lower_line: y_i = a_i + m_i
/// y_{i-1} with m = -(band 3), by the scan in a block, node by node in the head and the tail.
/// v and y may be the same array: the segment reads its v before it writes y, and no other
/// segment reads them.
template <class T>
__device__ __forceinline__ void ilu_forward_segment(const DeviceBands<T>& F, const T* v, T* y,
                                                    std::size_t row0, int k, int j, int n) {
  const IluLineSplit split{n};
  const int first = split.begin(k), end = split.begin(k + 1);
  if (split.is_block(k)) {
    T a[kRecurrenceBlock], m[kRecurrenceBlock];
#pragma unroll
    for (int l = 0; l < kRecurrenceBlock; ++l) {
      const std::size_t r = row0 + first + l;
      a[l] = ilu_lower_term(F, v, y, r, first + l, j, n);
      m[l] = -__ldg(F.band[3] + r);
    }
    compose_block<true>(a, m);
    const T carry = y[row0 + first - 1];
#pragma unroll
    for (int l = 0; l < kRecurrenceBlock; ++l) y[row0 + first + l] = a[l] + mul_rn(m[l], carry);
    return;
  }
  for (int i = first; i < end; ++i) {
    const std::size_t r = row0 + i;
    const T a = ilu_lower_term(F, v, y, r, i, j, n);
    y[r] = i == 0 ? a : a + mul_rn(-__ldg(F.band[3] + r), y[r - 1]);
  }
}

/// z = y of U z = y at row r = (i, j), in place in c, and x <- x + omega (z - x) (omega = 1: z).
template <class T>
__device__ __forceinline__ void ilu_store(T* c, T omega, T* __restrict__ x, std::size_t r, T z) {
  c[r] = z;
  x[r] = omega == T(1) ? z : x[r] + mul_rn(omega, z - x[r]);
}

/// Segment k of line j of U z = y (y in c, z in its place) and the update of x, as the cpu's
/// upper_line: z_i = a_i + m_i z_{i+1} with a = (y - coupling above) p, m = -(u p), p = 1 / U(i,
/// i) in band 4, u band 5; backwards.
template <class T>
__device__ __forceinline__ void ilu_backward_segment(const DeviceBands<T>& F, T* c, T omega,
                                                     T* __restrict__ x, std::size_t row0, int k,
                                                     int j, int n) {
  const IluLineSplit split{n};
  const int first = split.begin(k), end = split.begin(k + 1);
  const auto a_at = [&](std::size_t r, int i) {
    T s = c[r];
    if (j < n - 1) s -= line_coupling(F, 6, c, r, r + n, i, n);
    return mul_rn(s, __ldg(F.band[kCentre] + r));
  };
  const auto m_at = [&](std::size_t r) {
    return -mul_rn(__ldg(F.band[5] + r), __ldg(F.band[kCentre] + r));
  };
  if (split.is_block(k)) {
    T a[kRecurrenceBlock], m[kRecurrenceBlock];
#pragma unroll
    for (int l = 0; l < kRecurrenceBlock; ++l) {
      const std::size_t r = row0 + first + l;
      a[l] = a_at(r, first + l);
      m[l] = m_at(r);
    }
    compose_block<false>(a, m);
    const T carry = c[row0 + end];
#pragma unroll
    for (int l = 0; l < kRecurrenceBlock; ++l)
      ilu_store(c, omega, x, row0 + first + l, a[l] + mul_rn(m[l], carry));
    return;
  }
  for (int i = end - 1; i >= first; --i) {
    const std::size_t r = row0 + i;
    const T a = a_at(r, i);
    ilu_store(c, omega, x, r, i == n - 1 ? a : a + mul_rn(m_at(r), c[r + 1]));
  }
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

/// Threads of an ILU block at most. Each front costs a barrier and a memory round trip, so a
/// block of a thread per segment of the longest front is the wavefront's shortest critical path
/// (S + 2 (n - 1) steps per substitution); n = 1025 has 65 segments on its longest front.
inline constexpr int kIluMaxThreads = 1024;

/// One ILU(0) sweep on macro blockIdx.x: c = U^{-1} L^{-1} v (c may be v), x <- x + omega (c - x).
template <class T>
__global__ void __launch_bounds__(kIluMaxThreads)
    ilu_sweep_kernel(DeviceBands<T> F, const T* v, T* c, T omega, T* __restrict__ x, int n,
                     unsigned nn) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * nn;
  const int segments = IluLineSplit{n}.segments();
  const int fronts = segments + 2 * (n - 1);
  for (int t = 0; t < fronts; ++t) {
    const Front f = front_segments(t, segments, n);
    for (int j = f.first + static_cast<int>(threadIdx.x); j <= f.last;
         j += static_cast<int>(blockDim.x))
      ilu_forward_segment(F, v, c, base + static_cast<std::size_t>(j) * n, t - 2 * j, j, n);
    __syncthreads();
  }
  for (int t = fronts - 1; t >= 0; --t) {
    const Front f = front_segments(t, segments, n);
    for (int j = f.first + static_cast<int>(threadIdx.x); j <= f.last;
         j += static_cast<int>(blockDim.x))
      ilu_backward_segment(F, c, omega, x, base + static_cast<std::size_t>(j) * n, t - 2 * j, j, n);
    if (t > 0) __syncthreads();
  }
}

/// One sweep over every macro: a block each, a thread per segment of the longest front, in
/// whole warps.
template <class T>
void launch_ilu_sweep(const DeviceBands<T>& F, const T* v, T* c, T omega, T* x, const LevelShape& s,
                      cudaStream_t stream) {
  const int longest = (IluLineSplit{s.n}.segments() + 1) / 2;
  const int threads = std::min(kIluMaxThreads, (longest + 31) / 32 * 32);
  launch(ilu_sweep_kernel<T>, s.macros, threads, 0, stream)(F, v, c, omega, x, s.n, s.nn);
  QUILT_CUDA_CHECK_LAUNCH("ilu_sweep_kernel");
}

}  // namespace quilt::accel::cuda
