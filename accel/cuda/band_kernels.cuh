#pragma once
// Device kernels of the batched local multigrid (design.md §7). Every kernel runs over all macros
// of a level in one launch: vectors and bands are macro-major (element m*n*n + r), so one thread
// per row of the whole batch reads every band and every vector with unit stride (coalesced).
//
// The kernels evaluate every row with the same operations in the same order as the cpu target
// (accel/cpu/band_kernels.cpp, grid_transfer.cpp), and multiply with the _rn intrinsics, which
// nvcc never contracts into a fused multiply-add: the cpu build (x86-64, no -mfma) rounds every
// product, so without this the two targets would differ in the last bits of every row.
//
// Each kernel comes with a launcher that picks the grid, launches on the given stream and checks
// the launch. Grid-stride loops keep the kernels correct for any grid the launcher caps.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "accel/banded_matrix.hpp"
#include "accel/cuda/cuda_check.cuh"
#include "accel/cuda/launch.cuh"

namespace quilt::accel::cuda {

inline constexpr int kBlock = 256;

/// Device pointers to the 9 bands of one level, passed by value (kernel parameter space).
template <class T>
struct DeviceBands {
  const T* band[kBands];
};

/// One level's batch geometry. rows < 2^31 is checked at setup, so 32-bit row indices suffice and
/// the per-row index arithmetic stays cheap.
struct LevelShape {
  int n = 0;          ///< nodes per macro side
  unsigned nn = 0;    ///< nodes per macro
  unsigned rows = 0;  ///< macros * nn
  int macros = 0;
};

inline unsigned grid_for(std::size_t work) {
  const std::size_t blocks = (work + kBlock - 1) / kBlock;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(blocks, 1u << 20)));
}

__device__ __forceinline__ float mul_rn(float a, float b) {
  return __fmul_rn(a, b);
}
__device__ __forceinline__ double mul_rn(double a, double b) {
  return __dmul_rn(a, b);
}

/// (A x)(g) for row g = m*nn + r. Away from the first and last n+1 rows of a macro every column
/// r + off lies inside the macro (entries that would cross the macro's side are stored as 0), so
/// those rows need no per-band test; near the ends the column index is checked.
template <class T>
__device__ __forceinline__ T band_row(const DeviceBands<T>& A, const T* __restrict__ x, unsigned g,
                                      unsigned r, unsigned nn, int n) {
  const T* xr = x + g;
  const unsigned un = static_cast<unsigned>(n);
  if (r > un && r + un + 1 < nn) {
    T acc = mul_rn(__ldg(A.band[0] + g), __ldg(xr - n - 1));
#pragma unroll
    for (int k = 1; k < kBands; ++k) {
      const int off = (k / 3 - 1) * n + (k % 3 - 1);
      acc += mul_rn(__ldg(A.band[k] + g), __ldg(xr + off));
    }
    return acc;
  }
  T acc = T(0);
#pragma unroll
  for (int k = 0; k < kBands; ++k) {
    const int off = (k / 3 - 1) * n + (k % 3 - 1);
    const long long c = static_cast<long long>(r) + off;
    if (c >= 0 && c < static_cast<long long>(nn))
      acc += mul_rn(__ldg(A.band[k] + g), __ldg(xr + off));
  }
  return acc;
}

enum class BandOp {
  apply,   ///< y = A x
  defect,  ///< y = b - A x, and 0 at the rows marked in mask (when mask is not null)
  jacobi,  ///< y = x + omega invdiag (b - A x)   (y must not alias x)
};

template <class T, BandOp op>
__global__ void __launch_bounds__(kBlock)
    band_kernel(DeviceBands<T> A, const T* __restrict__ x, const T* __restrict__ b,
                const T* __restrict__ invdiag, const unsigned char* __restrict__ mask, T omega,
                T* __restrict__ y, unsigned nn, int n, unsigned rows) {
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < rows; g += gridDim.x * blockDim.x) {
    const unsigned r = g % nn;
    if constexpr (op == BandOp::apply) {
      y[g] = band_row(A, x, g, r, nn, n);
    } else if constexpr (op == BandOp::defect) {
      const T ax = band_row(A, x, g, r, nn, n);
      y[g] = (mask && mask[g]) ? T(0) : __ldg(b + g) - ax;
    } else {
      const T ax = band_row(A, x, g, r, nn, n);
      y[g] = __ldg(x + g) + mul_rn(mul_rn(omega, __ldg(invdiag + g)), __ldg(b + g) - ax);
    }
  }
}

template <class T, BandOp op>
void launch_band(const DeviceBands<T>& A, const T* x, const T* b, const T* invdiag,
                 const unsigned char* mask, T omega, T* y, const LevelShape& s,
                 cudaStream_t stream) {
  launch(band_kernel<T, op>, grid_for(s.rows), kBlock, 0, stream)(A, x, b, invdiag, mask, omega, y,
                                                                  s.nn, s.n, s.rows);
  QUILT_CUDA_CHECK_LAUNCH("band_kernel");
}

/// First Jacobi step from x = 0: b - A 0 = b, so y = omega invdiag b, without reading A or x.
template <class T>
__global__ void __launch_bounds__(kBlock)
    jacobi_from_zero_kernel(const T* __restrict__ b, const T* __restrict__ invdiag, T omega,
                            T* __restrict__ y, unsigned rows) {
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < rows; g += gridDim.x * blockDim.x)
    y[g] = mul_rn(mul_rn(omega, __ldg(invdiag + g)), __ldg(b + g));
}

template <class T>
void launch_jacobi_from_zero(const T* b, const T* invdiag, T omega, T* y, const LevelShape& s,
                             cudaStream_t stream) {
  launch(jacobi_from_zero_kernel<T>, grid_for(s.rows), kBlock, 0, stream)(b, invdiag, omega, y,
                                                                          s.rows);
  QUILT_CUDA_CHECK_LAUNCH("jacobi_from_zero_kernel");
}

/// Weights 1 at 2i and 1/2 at 2i +- 1 along one fine grid line (line points at fine node 2i).
template <class T>
__device__ __forceinline__ T gather_line(const T* __restrict__ line, bool west, bool east) {
  T v = __ldg(line);
  if (west) v += mul_rn(T(0.5), __ldg(line - 1));
  if (east) v += mul_rn(T(0.5), __ldg(line + 1));
  return v;
}

/// b_c = P^T d_f on every macro, as a gather per coarse node (deterministic, no atomics): coarse
/// node (I, J) collects fine node (2I, 2J) with weight 1, its edge neighbours with 1/2 and its
/// diagonal neighbours with 1/4 (those inside the macro). Rows marked in dirichlet_c get 0: the
/// coarse-grid correction must not move Dirichlet values.
template <class T>
__global__ void __launch_bounds__(kBlock)
    restrict_kernel(const T* __restrict__ d_f, const unsigned char* __restrict__ dirichlet_c,
                    T* __restrict__ b_c, int nc, unsigned nnc, int nf, unsigned nnf,
                    unsigned rows_c) {
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < rows_c;
       g += gridDim.x * blockDim.x) {
    if (dirichlet_c[g]) {
      b_c[g] = T(0);
      continue;
    }
    const unsigned m = g / nnc;
    const unsigned rc = g - m * nnc;
    const int J = static_cast<int>(rc / nc);
    const int I = static_cast<int>(rc) - J * nc;
    const T* mid = d_f + static_cast<std::size_t>(m) * nnf + (2 * J) * nf + 2 * I;
    const bool west = I > 0, east = I + 1 < nc;
    const T v = gather_line(mid, west, east);
    T side = T(0);
    if (J > 0) side += gather_line(mid - nf, west, east);
    if (J + 1 < nc) side += gather_line(mid + nf, west, east);
    b_c[g] = v + mul_rn(T(0.5), side);
  }
}

template <class T>
void launch_restrict(const T* d_f, const unsigned char* dirichlet_c, T* b_c, const LevelShape& c,
                     const LevelShape& f, cudaStream_t stream) {
  launch(restrict_kernel<T>, grid_for(c.rows), kBlock, 0, stream)(d_f, dirichlet_c, b_c, c.n, c.nn,
                                                                  f.n, f.nn, c.rows);
  QUILT_CUDA_CHECK_LAUNCH("restrict_kernel");
}

/// x_f += P x_c, bilinear interpolation on the index grid: even/even fine nodes take their coarse
/// node, the others the mean of their 2 or 4 coarse neighbours. One thread per fine node.
template <class T>
__global__ void __launch_bounds__(kBlock)
    prolongate_add_kernel(const T* __restrict__ x_c, T* __restrict__ x_f, int nc, unsigned nnc,
                          int nf, unsigned nnf, unsigned rows_f) {
  for (unsigned g = blockIdx.x * blockDim.x + threadIdx.x; g < rows_f;
       g += gridDim.x * blockDim.x) {
    const unsigned m = g / nnf;
    const unsigned rf = g - m * nnf;
    const int j = static_cast<int>(rf / nf);
    const int i = static_cast<int>(rf) - j * nf;
    const T* c = x_c + static_cast<std::size_t>(m) * nnc + (j >> 1) * nc + (i >> 1);
    const bool odd_i = i & 1, odd_j = j & 1;
    T v;
    if (odd_i && odd_j)
      v = mul_rn(T(0.25), (__ldg(c) + __ldg(c + 1)) + (__ldg(c + nc) + __ldg(c + nc + 1)));
    else if (odd_i)
      v = mul_rn(T(0.5), __ldg(c) + __ldg(c + 1));
    else if (odd_j)
      v = mul_rn(T(0.5), __ldg(c) + __ldg(c + nc));
    else
      v = __ldg(c);
    x_f[g] += v;
  }
}

template <class T>
void launch_prolongate_add(const T* x_c, T* x_f, const LevelShape& c, const LevelShape& f,
                           cudaStream_t stream) {
  launch(prolongate_add_kernel<T>, grid_for(f.rows), kBlock, 0, stream)(x_c, x_f, c.n, c.nn, f.n,
                                                                        f.nn, f.rows);
  QUILT_CUDA_CHECK_LAUNCH("prolongate_add_kernel");
}

template <class From, class To>
__global__ void __launch_bounds__(kBlock)
    convert_kernel(const From* __restrict__ in, To* __restrict__ out, std::size_t count) {
  for (std::size_t g = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; g < count;
       g += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[g] = static_cast<To>(in[g]);
}

template <class From, class To>
void launch_convert(const From* in, To* out, std::size_t count, cudaStream_t stream) {
  launch(convert_kernel<From, To>, grid_for(count), kBlock, 0, stream)(in, out, count);
  QUILT_CUDA_CHECK_LAUNCH("convert_kernel");
}

/// Per-macro sums of squares of d = b - A x (d = b when x is null), first stage: block
/// (chunk, macro) writes the sum over its strided share of the macro's rows to
/// partial[macro*chunks + chunk]. d is formed in T like the cpu target's defect, the squares are
/// summed in double.
template <class T>
__global__ void __launch_bounds__(kBlock)
    defect_sq_partial_kernel(DeviceBands<T> A, const T* __restrict__ x, const T* __restrict__ b,
                             unsigned nn, int n, double* __restrict__ partial) {
  QUILT_SHARED(double, sh, kBlock);
  const unsigned m = blockIdx.y;
  const unsigned chunks = gridDim.x;
  const unsigned base = m * nn;
  double s = 0.0;
  for (unsigned r = blockIdx.x * kBlock + threadIdx.x; r < nn; r += chunks * kBlock) {
    const unsigned g = base + r;
    const T d = x ? __ldg(b + g) - band_row(A, x, g, r, nn, n) : __ldg(b + g);
    s += static_cast<double>(d) * static_cast<double>(d);
  }
  sh[threadIdx.x] = s;
  __syncthreads();
  for (int w = kBlock / 2; w > 0; w /= 2) {
    if (static_cast<int>(threadIdx.x) < w) sh[threadIdx.x] += sh[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[static_cast<std::size_t>(m) * chunks + blockIdx.x] = sh[0];
}

/// Second stage: norms[m] = sqrt(sum of the macro's partials in chunk order) -- a fixed order, so
/// the norms, and with them the number of cycles, are reproducible run to run.
static __global__ void norm_finish_kernel(const double* __restrict__ partial, unsigned chunks,
                                          int macros, double* __restrict__ norms) {
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= macros) return;
  double s = 0.0;
  for (unsigned c = 0; c < chunks; ++c) s += partial[static_cast<std::size_t>(m) * chunks + c];
  norms[m] = sqrt(s);
}

/// Chunks per macro for the norm reduction: enough blocks to fill the device when there are few
/// macros, never more than one block per kBlock rows.
inline unsigned norm_chunks(unsigned nn, int macros) {
  const unsigned by_rows = std::max(1u, (nn + kBlock - 1) / kBlock);
  const unsigned want = std::max(1u, 1024u / static_cast<unsigned>(std::max(1, macros)));
  return std::min({by_rows, want, 256u});
}

template <class T>
void launch_defect_norms(const DeviceBands<T>& A, const T* x, const T* b, const LevelShape& s,
                         unsigned chunks, double* partial, double* norms, cudaStream_t stream) {
  launch(defect_sq_partial_kernel<T>, dim3(chunks, s.macros), kBlock, 0, stream)(A, x, b, s.nn, s.n,
                                                                                 partial);
  QUILT_CUDA_CHECK_LAUNCH("defect_sq_partial_kernel");
  launch(norm_finish_kernel, (s.macros + kBlock - 1) / kBlock, kBlock, 0, stream)(partial, chunks,
                                                                                  s.macros, norms);
  QUILT_CUDA_CHECK_LAUNCH("norm_finish_kernel");
}

/// Batched dense solve with the LU factors of the coarsest level, one block per macro: PA = LU,
/// factors column-major per macro (lu[m*N*N + col*N + row], unit lower L below the diagonal, U on
/// and above), (Pb)_i = b[perm[m*N + i]]. The right-hand side lives in shared memory
/// (N * sizeof(T) bytes).
///
/// Both substitutions are column-oriented, one barrier per column, and each row subtracts its
/// terms in the order the cpu target's BatchedDenseLU does (forward: ascending column; backward:
/// descending), because in float a dense solve of a few hundred unknowns amplifies a different
/// rounding order to ~1e-5 relative. Once y_c (x_c) is final, the block updates all later
/// (earlier) rows at once, reading column c of the factor with unit stride: N steps of N/threads
/// products, where a row-oriented back substitution is a chain of N^2/2 dependent steps on one
/// thread (review finding F2; 600k for the 1089 unknowns of an n0 = 33 coarse level).
/// Rows marked in dirichlet (when not null) get x = 0: below the finest level b is 0 there, so
/// the exact solution is too, but pivoting leaves round-off that P would carry into the finer
/// levels' Dirichlet nodes.
template <class T>
__global__ void lu_solve_kernel(const T* __restrict__ lu, const int* __restrict__ perm,
                                const unsigned char* __restrict__ dirichlet,
                                const T* __restrict__ b, T* __restrict__ x, int N) {
  QUILT_DYNAMIC_SHARED(unsigned char, lu_smem);
  T* y = reinterpret_cast<T*>(lu_smem);
  const std::size_t m = blockIdx.x;
  const T* f = lu + m * N * N;
  const int* p = perm + m * N;
  const T* bm = b + m * N;
  const unsigned char* dm = dirichlet ? dirichlet + m * N : nullptr;
  T* xm = x + m * N;
  for (int i = threadIdx.x; i < N; i += blockDim.x) y[i] = bm[p[i]];
  __syncthreads();
  for (int c = 0; c + 1 < N; ++c) {
    const T yc = y[c];
    const T* col = f + static_cast<std::size_t>(c) * N;
    for (int r = c + 1 + threadIdx.x; r < N; r += blockDim.x) y[r] -= mul_rn(col[r], yc);
    __syncthreads();
  }
  // Back substitution by columns, last first: x_c = y_c / U_cc, then every row above takes its
  // U_rc x_c at once, reading column c with unit stride (the factor is column-major). One barrier
  // per column instead of one thread walking the rows of U with stride N.
  for (int c = N - 1; c >= 0; --c) {
    const T* col = f + static_cast<std::size_t>(c) * N;
    const T xc = y[c] / col[c];
    for (int r = threadIdx.x; r < c; r += blockDim.x) y[r] -= mul_rn(col[r], xc);
    __syncthreads();
    if (threadIdx.x == 0) y[c] = xc;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < N; i += blockDim.x) xm[i] = (dm && dm[i]) ? T(0) : y[i];
}

template <class T>
void launch_lu_solve(const T* lu, const int* perm, const unsigned char* dirichlet, const T* b, T* x,
                     int N, int macros, cudaStream_t stream) {
  const int threads = std::min(kBlock, ((N + 31) / 32) * 32);
  launch(lu_solve_kernel<T>, macros, threads, N * sizeof(T), stream)(lu, perm, dirichlet, b, x, N);
  QUILT_CUDA_CHECK_LAUNCH("lu_solve_kernel");
}

}  // namespace quilt::accel::cuda
