#include "accel/cpu/band_kernels.hpp"

#include <algorithm>
#include <cstddef>

namespace quilt::accel::cpu {
namespace {

enum class Sweep { spmv, defect, jacobi };

/// The result of a guarded row i, given s = (A x)_i; the same formulas as interior_rows. Only the
/// arrays the sweep needs are read.
template <Sweep S, class T>
inline T finish(T s, std::ptrdiff_t i, const T* b, const T* x, const T* inv_diag, T omega) {
  if constexpr (S == Sweep::spmv) {
    return s;
  } else if constexpr (S == Sweep::defect) {
    return b[i] - s;
  } else {
    return x[i] + omega * inv_diag[i] * (b[i] - s);
  }
}

/// Rows whose 9 columns all lie inside the macro: one loop with no guard. Every array is offset to
/// the first row of the range; xc points at x of that row, so x[r + offset] is xc[i + offset].
/// The restrict-qualified parameters tell the compiler that out aliases nothing it reads, which is
/// what lets it vectorise without runtime overlap checks.
template <Sweep S, class T>
void interior_rows(std::ptrdiff_t count, std::ptrdiff_t n, const T* __restrict a0,
                   const T* __restrict a1, const T* __restrict a2, const T* __restrict a3,
                   const T* __restrict a4, const T* __restrict a5, const T* __restrict a6,
                   const T* __restrict a7, const T* __restrict a8, const T* __restrict xc,
                   const T* __restrict b, const T* __restrict inv_diag, T omega,
                   T* __restrict out) {
  const T* __restrict xs = xc - n - 1;  // x of the south-west neighbour of row i
  const T* __restrict xm = xc - 1;      // west neighbour
  const T* __restrict xn = xc + n - 1;  // north-west neighbour
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    const T s = a0[i] * xs[i] + a1[i] * xs[i + 1] + a2[i] * xs[i + 2] + a3[i] * xm[i] +
                a4[i] * xm[i + 1] + a5[i] * xm[i + 2] + a6[i] * xn[i] + a7[i] * xn[i + 1] +
                a8[i] * xn[i + 2];
    // Spelled out rather than through finish(): passing the restrict pointers on loses their
    // no-alias guarantee and the loop gets runtime overlap checks.
    if constexpr (S == Sweep::spmv) {
      out[i] = s;
    } else if constexpr (S == Sweep::defect) {
      out[i] = b[i] - s;
    } else {
      out[i] = xc[i] + omega * inv_diag[i] * (b[i] - s);
    }
  }
}

/// Rows near the first or last grid line of a macro: columns outside [0, n*n) are skipped.
template <Sweep S, class T>
void guarded_rows(const BandedMatrix<T>& A, std::size_t base, std::ptrdiff_t first,
                  std::ptrdiff_t last, const T* x, const T* b, const T* inv_diag, T omega, T* out) {
  const std::ptrdiff_t n = A.n;
  const std::ptrdiff_t nn = n * n;
  const T* xm = x + base;
  for (std::ptrdiff_t r = first; r < last; ++r) {
    T s = T(0);
    for (int k = 0; k < kBands; ++k) {
      const std::ptrdiff_t c = r + band_offset(k, A.n);
      if (c >= 0 && c < nn) s += A.band[k][base + r] * xm[c];
    }
    out[base + r] = finish<S>(s, static_cast<std::ptrdiff_t>(base) + r, b, x, inv_diag, omega);
  }
}

template <Sweep S, class T>
void sweep(const BandedMatrix<T>& A, const T* x, const T* b, const T* inv_diag, T omega, T* out) {
  const std::ptrdiff_t n = A.n;
  const std::ptrdiff_t nn = n * n;
  // Rows [head, tail) have every column r + dj*n + di inside [0, n*n).
  const std::ptrdiff_t head = std::min(n + 1, nn);
  const std::ptrdiff_t tail = std::max(head, nn - n - 1);
  for (int m = 0; m < A.macros; ++m) {
    const std::size_t base = static_cast<std::size_t>(m) * nn;
    guarded_rows<S>(A, base, 0, head, x, b, inv_diag, omega, out);
    const std::size_t g = base + head;
    const auto band = [&](int k) { return A.band[k].data() + g; };
    interior_rows<S, T>(tail - head, n, band(0), band(1), band(2), band(3), band(4), band(5),
                        band(6), band(7), band(8), x + g, b ? b + g : nullptr,
                        inv_diag ? inv_diag + g : nullptr, omega, out + g);
    guarded_rows<S>(A, base, tail, nn, x, b, inv_diag, omega, out);
  }
}

}  // namespace

template <class T>
void spmv(const BandedMatrix<T>& A, const T* x, T* y) {
  sweep<Sweep::spmv>(A, x, static_cast<const T*>(nullptr), static_cast<const T*>(nullptr), T(0), y);
}

template <class T>
void defect(const BandedMatrix<T>& A, const T* b, const T* x, T* d) {
  sweep<Sweep::defect>(A, x, b, static_cast<const T*>(nullptr), T(0), d);
}

template <class T>
void jacobi_sweep(const BandedMatrix<T>& A, const T* inv_diag, T omega, const T* b, const T* x,
                  T* x_new) {
  sweep<Sweep::jacobi>(A, x, b, inv_diag, omega, x_new);
}

template void spmv(const BandedMatrix<float>&, const float*, float*);
template void spmv(const BandedMatrix<double>&, const double*, double*);
template void defect(const BandedMatrix<float>&, const float*, const float*, float*);
template void defect(const BandedMatrix<double>&, const double*, const double*, double*);
template void jacobi_sweep(const BandedMatrix<float>&, const float*, float, const float*,
                           const float*, float*);
template void jacobi_sweep(const BandedMatrix<double>&, const double*, double, const double*,
                           const double*, double*);

}  // namespace quilt::accel::cpu
