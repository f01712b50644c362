#include "accel/cpu/smoothers/ilu_smoother.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/smoothers/inverse_diagonal.hpp"
#include "accel/cpu/smoothers/line_kernels.hpp"
#include "accel/local_solver.hpp"

namespace quilt::accel::cpu {
namespace {

using Row = std::array<double, kBands>;

bool inside(int n, int i, int j) {
  return i >= 0 && i < n && j >= 0 && j < n;
}

/// The rows of x-lines j and j-1 in the elimination window: a row's elimination reads no other.
Row& window_row(std::vector<Row>& window, int n, int i, int j) {
  return window[static_cast<std::size_t>(j % 2) * n + i];
}

/// Eliminates the lower entries of row (i, j), held in w, in increasing column order; an update
/// may change a later lower entry of the same row, never an earlier one.
void eliminate_row(std::vector<Row>& window, int n, int i, int j, Row& w) {
  for (int k = 0; k < kCentre; ++k) {
    const int di = k % 3 - 1, dj = k / 3 - 1;
    if (!inside(n, i + di, j + dj) || w[k] == 0.0) continue;
    const Row& u = window_row(window, n, i + di, j + dj);
    w[k] *= u[kCentre];  // u[kCentre] holds 1 / U(c, c)
    for (int e = kCentre + 1; e < kBands; ++e) {
      const int ti = di + e % 3 - 1, tj = dj + e / 3 - 1;
      // Fill outside the 9-point pattern is dropped: that is ILU(0).
      if (ti < -1 || ti > 1 || tj < -1 || tj > 1 || !inside(n, i + ti, j + tj)) continue;
      w[band_index(ti, tj)] -= w[k] * u[e];
    }
  }
}

/// ILU(0) of macro m of A into slot m of `factors`, in double (IKJ elimination, row by row).
template <class T>
void factorise_macro(const BandedMatrix<T>& A, int m, std::vector<Row>& window,
                     BandedMatrix<T>& factors) {
  const int n = A.n;
  const std::size_t base = m * A.rows_per_macro();
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const std::size_t r = base + i + static_cast<std::size_t>(j) * n;
      Row& w = window_row(window, n, i, j);
      for (int k = 0; k < kBands; ++k)
        w[k] = inside(n, i + k % 3 - 1, j + k / 3 - 1) ? static_cast<double>(A.band[k][r]) : 0;
      eliminate_row(window, n, i, j, w);
      const double pivot = w[kCentre];
      const double scale = std::abs(static_cast<double>(A.band[kCentre][r]));
      if (!std::isfinite(pivot) || std::abs(pivot) <= 1e-12 * scale)
        throw AccelError(describe_row(n, r) + ": ILU(0) has a zero pivot (" +
                         std::to_string(pivot) + ")");
      w[kCentre] = 1.0 / pivot;
      for (int k = 0; k < kBands; ++k) factors.band[k][r] = static_cast<T>(w[k]);
    }
}

}  // namespace

template <class T>
IluSmoother<T>::IluSmoother(const BandedMatrix<T>& A, double damping)
    : Smoother<T>(A),
      omega_(static_cast<T>(damping)),
      factors_(A.macros, A.n),
      work_(A.rows()),
      work1_(A.rows()),
      window_(2 * static_cast<std::size_t>(A.n)) {
  refresh(A, {});
}

template <class T>
void IluSmoother<T>::factorise(const BandedMatrix<T>& A, BandedMatrix<T>& factors, Window& window) {
  for (int m = 0; m < A.macros; ++m) factorise_macro(A, m, window, factors);
}

template <class T>
void IluSmoother<T>::refresh(const BandedMatrix<T>& A, const StencilZones<T>&) {
  factorise(A, factors_, window_);
}

template <class T>
template <int Lanes>
void IluSmoother<T>::substitute(const std::array<T*, Lanes>& v) const {
  const int n = factors_.n;
  const auto& f = factors_.band;
  // The recurrences carry their last value in a register: one dependency chain per vector, so
  // the chains of a pair overlap.
  std::array<T, Lanes> last;
  for (int m = 0; m < factors_.macros; ++m) {
    const std::size_t base = static_cast<std::size_t>(m) * factors_.rows_per_macro();
    // L y = v, line by line upwards: the line below goes to the right-hand side at once, then the
    // recurrence over band -1.
    for (int j = 0; j < n; ++j) {
      const std::size_t row0 = base + static_cast<std::size_t>(j) * n;
      const T* west = f[3].data() + row0;
      for (int q = 0; q < Lanes; ++q) {
        T* y = v[q] + row0;
        if (j > 0)
          subtract_coupling(n, 1, f[0].data() + row0, f[1].data() + row0, f[2].data() + row0, y - n,
                            y);
        last[q] = y[0];
      }
      for (int i = 1; i < n; ++i)
        for (int q = 0; q < Lanes; ++q)
          v[q][row0 + i] = last[q] = v[q][row0 + i] - west[i] * last[q];
    }
    // U z = y, line by line downwards, with the line above and the recurrence over band +1.
    for (int j = n - 1; j >= 0; --j) {
      const std::size_t row0 = base + static_cast<std::size_t>(j) * n;
      const T* east = f[5].data() + row0;
      const T* inv_pivot = f[4].data() + row0;
      for (int q = 0; q < Lanes; ++q) {
        T* z = v[q] + row0;
        if (j < n - 1)
          subtract_coupling(n, 1, f[6].data() + row0, f[7].data() + row0, f[8].data() + row0, z + n,
                            z);
        z[n - 1] = last[q] = z[n - 1] * inv_pivot[n - 1];
      }
      for (int i = n - 2; i >= 0; --i)
        for (int q = 0; q < Lanes; ++q) {
          T* z = v[q] + row0;
          z[i] = last[q] = (z[i] - east[i] * last[q]) * inv_pivot[i];
        }
    }
  }
}

namespace {

/// x += omega c over `rows` values.
template <class T>
void add_scaled(std::size_t rows, T omega, const T* __restrict c, T* __restrict x) {
  for (std::size_t r = 0; r < rows; ++r) x[r] += omega * c[r];
}

}  // namespace

template <class T>
void IluSmoother<T>::smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps, SweepDirection,
                            bool x_is_zero) {
  if (x_is_zero) std::fill(x, x + A.rows(), T(0));
  for (int s = 0; s < steps; ++s) {
    if (s == 0 && x_is_zero)
      std::copy(b, b + A.rows(), work_.begin());
    else
      defect(A, b, x, work_.data());
    substitute<1>({work_.data()});
    add_scaled(A.rows(), omega_, work_.data(), x);
  }
}

template <class T>
void IluSmoother<T>::smooth_pair(const BandedMatrix<T>& A, const T* b0, T* x0, const T* b1, T* x1,
                                 int steps, SweepDirection, bool x_is_zero) {
  if (x_is_zero) {
    std::fill(x0, x0 + A.rows(), T(0));
    std::fill(x1, x1 + A.rows(), T(0));
  }
  for (int s = 0; s < steps; ++s) {
    if (s == 0 && x_is_zero) {
      std::copy(b0, b0 + A.rows(), work_.begin());
      std::copy(b1, b1 + A.rows(), work1_.begin());
    } else {
      defect_pair(A, static_cast<const StencilZones<T>*>(nullptr), b0, x0, work_.data(), b1, x1,
                  work1_.data());
    }
    substitute<2>({work_.data(), work1_.data()});
    add_scaled(A.rows(), omega_, work_.data(), x0);
    add_scaled(A.rows(), omega_, work1_.data(), x1);
  }
}

template class IluSmoother<float>;
template class IluSmoother<double>;

}  // namespace quilt::accel::cpu
