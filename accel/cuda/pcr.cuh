#pragma once
// Batched tridiagonal solves by parallel cyclic reduction (PCR) in shared memory, the line solver
// of the cuda target's zebra line smoothers (smoother_kernels.cuh) and of the test hook
// solve_tridiagonal_batch (pcr_batch.hpp).
//
// PCR (Hockney & Jesshope; on GPUs Zhang, Cohen & Owens 2010, and the shared-memory solvers of
// Goeddeke & Strzodka, IEEE TPDS 2011): equation i, lo_i x_{i-d} + x_i + up_i x_{i+d} = rhs_i
// (rows scaled to a unit diagonal), takes lo_i times equation i-d and up_i times equation i+d
// off itself. That eliminates x_{i-d} and x_{i+d} and leaves, rescaled, an equation of the same
// form in x_{i-2d}, x_i, x_{i+2d}. Every equation does this at once, with d = 1, 2, 4, ...; once
// 2d >= n nothing is left to couple to, and x_i = rhs_i. A system of n equations takes
// ceil(log2 n) steps, each over all n equations: n log2 n work against the Thomas algorithm's
// 2n, for n-way parallelism instead of a chain of 2n dependent steps, and each step reads the
// neighbours' rows from shared memory with unit stride across the threads. Like the Thomas
// algorithm without pivoting, PCR is stable for diagonally dominant systems (the line matrices
// of the local operators).
//
// Layout: a block solves `lines_per_block` systems of n equations, equation q of the block being
// equation q % n of system q / n; thread t owns the equations t, t + blockDim.x, ... (at most
// kPcrPerThread) and keeps them in registers, while shared memory holds every equation's row for
// the others to read. A step is in place: all threads read their neighbours, a barrier, all
// write, a barrier. (Double-buffered rows would save the second barrier but need twice the
// shared memory: 49200 bytes for n = 1025 in double, over the 48 KiB per block.)

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "accel/cuda/band_kernels.cuh"
#include "accel/cuda/launch.cuh"

namespace quilt::accel::cuda {

/// Equations per thread at most. Up to 4: a step then costs one barrier per 4 equations of a
/// thread, which are independent of each other (instruction-level parallelism), and a line of
/// n = 1025 fits a block of 288 threads.
inline constexpr int kPcrPerThread = 4;
/// Threads per block at most (the kernels' launch bound): lines up to n = 2048.
inline constexpr int kPcrMaxThreads = 512;
/// Equations per block for the short lines of the coarse levels: several lines share a block.
inline constexpr int kPcrLineSlots = 256;

/// The equations a thread owns: rows scaled to a unit diagonal (lo, up, rhs) and the position of
/// each in its system (-1: none).
template <class T>
struct PcrRows {
  T lo[kPcrPerThread], up[kPcrPerThread], rhs[kPcrPerThread];
  int pos[kPcrPerThread];
};

/// Where the shared memory of a block holds the rows of its systems (3 * equations values).
template <class T>
struct PcrShared {
  T* lo;
  T* up;
  T* rhs;
  __device__ PcrShared(void* smem, int equations)
      : lo(static_cast<T*>(smem)), up(lo + equations), rhs(up + equations) {}
};

/// Solves the block's systems of n equations in place: on entry r holds the thread's rows (lo of
/// position 0 and up of position n-1 must be 0), on return r.rhs[k] is the solution at the k-th
/// equation the thread owns. Every thread of the block must call it (it synchronises the block).
/// The shared memory is free again when it returns.
template <class T>
__device__ __forceinline__ void pcr_solve(const PcrShared<T>& s, int n, PcrRows<T>& r) {
  const int stride = static_cast<int>(blockDim.x);
  const int t = static_cast<int>(threadIdx.x);
  const auto publish = [&] {
#pragma unroll
    for (int k = 0; k < kPcrPerThread; ++k)
      if (r.pos[k] >= 0) {
        const int q = t + k * stride;
        s.lo[q] = r.lo[k];
        s.up[q] = r.up[k];
        s.rhs[q] = r.rhs[k];
      }
  };
  publish();
  __syncthreads();
  for (int d = 1;; d *= 2) {
    // Invariant: a row at position i < d has lo = 0 and one at i >= n - d has up = 0, so the
    // neighbours outside the system may read as 0.
#pragma unroll
    for (int k = 0; k < kPcrPerThread; ++k) {
      if (r.pos[k] < 0) continue;
      const int q = t + k * stride;
      const bool below = r.pos[k] >= d, above = r.pos[k] + d < n;
      const T lo_m = below ? s.lo[q - d] : T(0), up_m = below ? s.up[q - d] : T(0);
      const T rhs_m = below ? s.rhs[q - d] : T(0);
      const T lo_p = above ? s.lo[q + d] : T(0), up_p = above ? s.up[q + d] : T(0);
      const T rhs_p = above ? s.rhs[q + d] : T(0);
      const T inv = T(1) / (T(1) - r.lo[k] * up_m - r.up[k] * lo_p);
      r.rhs[k] = (r.rhs[k] - r.lo[k] * rhs_m - r.up[k] * rhs_p) * inv;
      r.lo[k] = -(r.lo[k] * lo_m) * inv;
      r.up[k] = -(r.up[k] * up_p) * inv;
    }
    __syncthreads();  // every neighbour read before any row is overwritten (or the memory reused)
    if (2 * d >= n) return;
    publish();
    __syncthreads();  // every row written before the next step reads it
  }
}

/// A PCR kernel's body: the block solves systems g * lines_per_block + 0, 1, ... for g =
/// blockIdx.x, blockIdx.x + gridDim.x, ... < groups (of `systems` in all) in the dynamic shared
/// memory smem. load(system, i, lo, up, rhs) forms equation i of a system, scaled to a unit
/// diagonal, and returns where its solution goes, which store(where, z) receives.
template <class T, class Load, class Store>
__device__ __forceinline__ void pcr_kernel_body(void* smem, int n, unsigned systems,
                                                int lines_per_block, unsigned groups,
                                                const Load& load, const Store& store) {
  const int equations = lines_per_block * n;
  const PcrShared<T> s(smem, equations);
  for (unsigned g = blockIdx.x; g < groups; g += gridDim.x) {
    PcrRows<T> r{};
    std::size_t where[kPcrPerThread] = {};
#pragma unroll
    for (int k = 0; k < kPcrPerThread; ++k) {
      r.pos[k] = -1;
      const int q = static_cast<int>(threadIdx.x) + k * static_cast<int>(blockDim.x);
      const unsigned system = g * lines_per_block + static_cast<unsigned>(q / n);
      if (q >= equations || system >= systems) continue;
      r.pos[k] = q % n;
      where[k] = load(system, r.pos[k], r.lo[k], r.up[k], r.rhs[k]);
    }
    pcr_solve(s, n, r);
#pragma unroll
    for (int k = 0; k < kPcrPerThread; ++k)
      if (r.pos[k] >= 0) store(where[k], r.rhs[k]);
  }
}

/// Launch shape of a PCR kernel over `systems` systems of n equations.
struct PcrShape {
  int lines_per_block = 1;
  int threads = 32;
  unsigned groups = 0;  ///< blocks' worth of systems; the kernels loop over them
  unsigned grid = 1;
  std::size_t shared_bytes = 0;
};

/// Lines of n <= 257 share a block, ~kPcrLineSlots equations in all; longer ones get a block
/// each. Threads: a whole number of warps, kPcrPerThread equations each (rounded up).
template <class T>
PcrShape pcr_shape(int n, unsigned systems) {
  PcrShape p;
  p.lines_per_block = std::max(1, kPcrLineSlots / std::max(1, n - 1));
  const int equations = p.lines_per_block * n;
  const int per_thread = (equations + kPcrPerThread - 1) / kPcrPerThread;
  p.threads = (per_thread + 31) / 32 * 32;
  p.groups = (systems + p.lines_per_block - 1) / p.lines_per_block;
  p.grid = std::max(1u, std::min(p.groups, 1u << 20));
  p.shared_bytes = 3 * static_cast<std::size_t>(equations) * sizeof(T);
  return p;
}

/// Whether a line of n equations fits one block: threads and shared memory (48 KiB without
/// opting in to more).
template <class T>
bool pcr_fits(int n) {
  const PcrShape p = pcr_shape<T>(n, 1);
  return p.threads <= kPcrMaxThreads && p.shared_bytes <= 48 * 1024;
}

/// Test hook kernel: systems stored one after another, x = T^{-1} rhs (sub of position 0 and
/// super of position n-1 are ignored).
template <class T>
__global__ void __launch_bounds__(kPcrMaxThreads)
    tridiagonal_batch_kernel(const T* __restrict__ sub, const T* __restrict__ diag,
                             const T* __restrict__ super, const T* __restrict__ rhs,
                             T* __restrict__ x, int n, unsigned systems, int lines_per_block,
                             unsigned groups) {
  QUILT_DYNAMIC_SHARED(unsigned char, pcr_batch_smem);
  const auto load = [&](unsigned system, int i, T& lo, T& up, T& z) {
    const std::size_t r = static_cast<std::size_t>(system) * n + i;
    const T dg = diag[r];
    lo = i > 0 ? sub[r] / dg : T(0);
    up = i < n - 1 ? super[r] / dg : T(0);
    z = rhs[r] / dg;
    return r;
  };
  const auto store = [&](std::size_t r, T z) { x[r] = z; };
  pcr_kernel_body<T>(pcr_batch_smem, n, systems, lines_per_block, groups, load, store);
}

}  // namespace quilt::accel::cuda
