#include "accel/cpu/smoothers/line_smoother.hpp"

#include <algorithm>
#include <cmath>

#include "accel/cpu/smoothers/grid_transpose.hpp"
#include "accel/cpu/smoothers/inverse_diagonal.hpp"
#include "accel/local_solver.hpp"

namespace quilt::accel::cpu {

template <class T>
LineSmoother<T>::LineSmoother(const BandedMatrix<T>& A, double damping, SweepOrder order,
                              LineDirections directions)
    : omega_(static_cast<T>(damping)), order_(order), directions_(directions), line_(A.n) {
  if (directions != LineDirections::y) x_ = factorise(A, false);
  if (directions != LineDirections::x) {
    at_ = grid_transposed(A);
    y_ = factorise(at_, true);
    bt_.resize(A.rows());
    xt_.resize(A.rows());
  }
}

template <class T>
typename LineSmoother<T>::LineFactors LineSmoother<T>::factorise(const BandedMatrix<T>& A,
                                                                 bool transposed) {
  const LineLayout layout = x_lines(A.n);
  LineFactors f{std::vector<T>(A.rows()), std::vector<T>(A.rows()), std::vector<T>(A.rows())};
  const auto& lower = A.band[layout.own[0]];
  const auto& diag = A.band[layout.own[1]];
  const auto& upper = A.band[layout.own[2]];
  for (int m = 0; m < A.macros; ++m)
    for (int line = 0; line < A.n; ++line) {
      double previous_upper = 0.0;  // in double: the factors are rounded to T once, at the end
      for (int e = 0; e < A.n; ++e) {
        const std::size_t p = m * A.rows_per_macro() + layout.row(line, e);
        const double l = e > 0 ? static_cast<double>(lower[p]) : 0.0;
        const double pivot = diag[p] - l * previous_upper;
        // Without pivoting the Thomas algorithm is stable for diagonally dominant lines; a pivot
        // that cancels to round-off means the line's matrix is (nearly) singular.
        const double scale = std::abs(static_cast<double>(diag[p])) + std::abs(l) +
                             std::abs(static_cast<double>(upper[p]));
        if (!std::isfinite(pivot) || std::abs(pivot) <= 1e-12 * scale) {
          // Node (e, line) of the transposed grid is node (line, e) of the operator's.
          const std::size_t node =
              transposed ? m * A.rows_per_macro() + line + static_cast<std::size_t>(e) * A.n : p;
          throw AccelError(describe_row(A.n, node) +
                           ": the tridiagonal line solve has a zero pivot (" +
                           std::to_string(pivot) + "); the line's matrix is singular");
        }
        previous_upper = e < A.n - 1 ? upper[p] / pivot : 0.0;
        f.inv_pivot[p] = static_cast<T>(1.0 / pivot);
        f.lower[p] = static_cast<T>(l / pivot);
        f.upper[p] = static_cast<T>(previous_upper);
      }
    }
  return f;
}

template <class T>
void LineSmoother<T>::relax_line(const BandedMatrix<T>& A, const LineFactors& f, std::size_t base,
                                 int line, const T* b, T* x) {
  const int n = A.n;
  T* t = line_.data();
  line_rhs(A, base, x_lines(n), line, b, x, t);
  const std::size_t first = base + static_cast<std::size_t>(line) * n;
  const T* inv_pivot = f.inv_pivot.data() + first;
  const T* lower = f.lower.data() + first;
  const T* upper = f.upper.data() + first;
  t[0] *= inv_pivot[0];
  for (int e = 1; e < n; ++e) t[e] = t[e] * inv_pivot[e] - lower[e] * t[e - 1];
  for (int e = n - 2; e >= 0; --e) t[e] -= upper[e] * t[e + 1];
  T* xl = x + first;
  if (omega_ == T(1)) {
    std::copy(t, t + n, xl);
  } else {
    for (int e = 0; e < n; ++e) xl[e] += omega_ * (t[e] - xl[e]);
  }
}

template <class T>
void LineSmoother<T>::sweep(const BandedMatrix<T>& A, const LineFactors& f, const T* b, T* x,
                            bool reverse) {
  const int n = A.n;
  for (int m = 0; m < A.macros; ++m) {
    const std::size_t base = static_cast<std::size_t>(m) * A.rows_per_macro();
    if (order_ == SweepOrder::lexicographic) {
      for (int l = 0; l < n; ++l) relax_line(A, f, base, reverse ? n - 1 - l : l, b, x);
      continue;
    }
    // Zebra: even lines, then odd lines; reversed backward.
    for (int c = 0; c < 2; ++c) {
      const int parity = reverse ? 1 - c : c;
      for (int l = parity; l < n; l += 2) relax_line(A, f, base, l, b, x);
    }
  }
}

template <class T>
void LineSmoother<T>::sweep_y(const T* b, T* x, bool reverse, bool b_transposed) {
  if (!b_transposed) transpose_grid(at_.macros, at_.n, b, bt_.data());
  transpose_grid(at_.macros, at_.n, x, xt_.data());
  sweep(at_, y_, bt_.data(), xt_.data(), reverse);
  transpose_grid(at_.macros, at_.n, xt_.data(), x);
}

template <class T>
void LineSmoother<T>::smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps,
                             SweepDirection direction, bool x_is_zero) {
  if (x_is_zero) std::fill(x, x + A.rows(), T(0));
  const bool reverse = direction == SweepDirection::backward;
  for (int s = 0; s < steps; ++s) {
    const bool b_transposed = s > 0;  // b is fixed during the call: transposed once
    switch (directions_) {
      case LineDirections::x:
        sweep(A, x_, b, x, reverse);
        break;
      case LineDirections::y:
        sweep_y(b, x, reverse, b_transposed);
        break;
      case LineDirections::alternating:
        // Forward: x-lines, then y-lines; backward is its adjoint: y-lines, then x-lines, each
        // reversed.
        if (!reverse) {
          sweep(A, x_, b, x, false);
          sweep_y(b, x, false, b_transposed);
        } else {
          sweep_y(b, x, true, b_transposed);
          sweep(A, x_, b, x, true);
        }
        break;
    }
  }
}

template class LineSmoother<float>;
template class LineSmoother<double>;

}  // namespace quilt::accel::cpu
