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
    : Smoother<T>(A),
      omega_(static_cast<T>(damping)),
      order_(order),
      directions_(directions),
      line_(A.n),
      ghost_(A.n + 2, T(0)) {
  if (directions != LineDirections::y) {
    x_inv_pivot_.resize(A.rows());
    x_upper_.resize(A.rows());
  }
  if (directions != LineDirections::x) {
    yt_ = BandedMatrix<T>(A.macros, A.n);
    y_ = {&yt_, yt_.band[kCentre].data(), yt_.band[kCentre + 1].data()};
    bt_.resize(A.rows());
    xt_.resize(A.rows());
  }
  refresh(A);
}

template <class T>
void LineSmoother<T>::refresh(const BandedMatrix<T>& A) {
  detect_stencil_zones(A, zones_);
  // The factors are rounded to T once, from double.
  if (directions_ != LineDirections::y)
    factorise(A, zones_, x_inv_pivot_.data(), x_upper_.data(), false);
  if (directions_ != LineDirections::x) {
    // Every band of A' is rewritten, the factor slots (bands 4 and 5) included.
    grid_transpose_into(A, yt_);
    factorise(yt_, zones_, yt_.band[kCentre].data(), yt_.band[kCentre + 1].data(), true);
  }
}

template <class T>
void LineSmoother<T>::factorise(const BandedMatrix<T>& C, const StencilZones<T>& zones,
                                T* inv_pivot, T* upper, bool transposed) {
  const auto& lower_band = C.band[kCentre - 1];
  const auto& diag_band = C.band[kCentre];
  const auto& upper_band = C.band[kCentre + 1];
  for (int m = 0; m < C.macros; ++m)
    for (int line = 0; line < C.n; ++line) {
      // A zoned macro's sweeps read the factors of its middle zone's first line only.
      if (zones.is_zoned(m) && line > kMiddleZone && zone_of(line, C.n) == kMiddleZone) continue;
      double previous_upper = 0.0;  // in double: the factors are rounded to T once, at the end
      for (int e = 0; e < C.n; ++e) {
        const std::size_t p = m * C.rows_per_macro() + static_cast<std::size_t>(line) * C.n + e;
        const double l = e > 0 ? static_cast<double>(lower_band[p]) : 0.0;
        const double c = upper_band[p];  // read before upper[p] may overwrite it
        const double pivot = diag_band[p] - l * previous_upper;
        // Without pivoting the Thomas algorithm is stable for diagonally dominant lines; a pivot
        // that cancels to round-off means the line's matrix is (nearly) singular.
        const double scale =
            std::abs(static_cast<double>(diag_band[p])) + std::abs(l) + std::abs(c);
        if (!std::isfinite(pivot) || std::abs(pivot) <= 1e-12 * scale) {
          // Node (e, line) of the transposed grid is node (line, e) of the operator's.
          const std::size_t node =
              transposed ? m * C.rows_per_macro() + line + static_cast<std::size_t>(e) * C.n : p;
          throw AccelError(describe_row(C.n, node) +
                           ": the tridiagonal line solve has a zero pivot (" +
                           std::to_string(pivot) + "); the line's matrix is singular");
        }
        previous_upper = e < C.n - 1 ? c / pivot : 0.0;
        inv_pivot[p] = static_cast<T>(1.0 / pivot);
        upper[p] = static_cast<T>(previous_upper);
      }
    }
}

template <class T>
void LineSmoother<T>::relax_line(const LineSystem& sys, std::size_t base, int line, int source,
                                 const T* b, T* x) {
  // One pass forward: the right-hand side (b minus the coupling to the two neighbouring lines,
  // whose values are final for this line) and the forward elimination, fused; one pass back:
  // the back substitution straight into x. A missing neighbour line (the macro's first or last)
  // reads the zero ghost line; its bands are 0 there by the storage convention.
  const BandedMatrix<T>& C = *sys.coupling;
  const int n = C.n;
  const std::size_t first = base + static_cast<std::size_t>(line) * n;
  const std::size_t from = base + static_cast<std::size_t>(source) * n;
  const auto band = [&](int k) { return C.band[k].data() + from; };
  const T *s0 = band(0), *s1 = band(1), *s2 = band(2), *n0 = band(6), *n1 = band(7), *n2 = band(8);
  const T* lower = band(3);
  const T* xs = line > 0 ? x + first - n : ghost_.data() + 1;
  const T* xn = line < n - 1 ? x + first + n : ghost_.data() + 1;
  const T* bl = b + first;
  const T* inv_pivot = sys.inv_pivot + from;
  const T* upper = sys.upper + from;
  T* y = line_.data();
  // Node 0 and node n-1 have no neighbour at e-1 / e+1 in the other lines (and read no x there).
  y[0] = (bl[0] - (s1[0] * xs[0] + s2[0] * xs[1]) - (n1[0] * xn[0] + n2[0] * xn[1])) * inv_pivot[0];
  for (int e = 1; e < n - 1; ++e) {
    const T r = bl[e] - (s0[e] * xs[e - 1] + s1[e] * xs[e] + s2[e] * xs[e + 1]) -
                (n0[e] * xn[e - 1] + n1[e] * xn[e] + n2[e] * xn[e + 1]);
    y[e] = r * inv_pivot[e] - (lower[e] * inv_pivot[e]) * y[e - 1];
  }
  const int l = n - 1;
  y[l] = (bl[l] - (s0[l] * xs[l - 1] + s1[l] * xs[l]) - (n0[l] * xn[l - 1] + n1[l] * xn[l]) -
          lower[l] * y[l - 1]) *
         inv_pivot[l];
  T* xl = x + first;
  if (omega_ == T(1)) {
    xl[l] = y[l];
    for (int e = l - 1; e >= 0; --e) xl[e] = y[e] - upper[e] * xl[e + 1];
  } else {
    T z = y[l];
    xl[l] += omega_ * (z - xl[l]);
    for (int e = l - 1; e >= 0; --e) {
      z = y[e] - upper[e] * z;
      xl[e] += omega_ * (z - xl[e]);
    }
  }
}

template <class T>
void LineSmoother<T>::sweep(const LineSystem& sys, const T* b, T* x, bool reverse) {
  const BandedMatrix<T>& C = *sys.coupling;
  const int n = C.n;
  for (int m = 0; m < C.macros; ++m) {
    const std::size_t base = static_cast<std::size_t>(m) * C.rows_per_macro();
    const bool zoned = zones_.is_zoned(m);
    // The first line of a line's zone: 0, 1, 2, n-2, n-1.
    const auto source = [&](int l) {
      return zoned && zone_of(l, n) == kMiddleZone ? kMiddleZone : l;
    };
    if (order_ == SweepOrder::lexicographic) {
      for (int l = 0; l < n; ++l) {
        const int line = reverse ? n - 1 - l : l;
        relax_line(sys, base, line, source(line), b, x);
      }
      continue;
    }
    // Zebra: even lines, then odd lines; reversed backward.
    for (int c = 0; c < 2; ++c) {
      const int parity = reverse ? 1 - c : c;
      for (int l = parity; l < n; l += 2) relax_line(sys, base, l, source(l), b, x);
    }
  }
}

template <class T>
void LineSmoother<T>::sweep_y(const T* b, T* x, bool reverse, bool b_transposed) {
  if (!b_transposed) transpose_grid(yt_.macros, yt_.n, b, bt_.data());
  transpose_grid(yt_.macros, yt_.n, x, xt_.data());
  sweep(y_, bt_.data(), xt_.data(), reverse);
  transpose_grid(yt_.macros, yt_.n, xt_.data(), x);
}

template <class T>
void LineSmoother<T>::smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps,
                             SweepDirection direction, bool x_is_zero) {
  if (x_is_zero) std::fill(x, x + A.rows(), T(0));
  const bool reverse = direction == SweepDirection::backward;
  const LineSystem x_lines{&A, x_inv_pivot_.data(), x_upper_.data()};
  for (int s = 0; s < steps; ++s) {
    const bool b_transposed = s > 0;  // b is fixed during the call: transposed once
    switch (directions_) {
      case LineDirections::x:
        sweep(x_lines, b, x, reverse);
        break;
      case LineDirections::y:
        sweep_y(b, x, reverse, b_transposed);
        break;
      case LineDirections::alternating:
        // Forward: x-lines, then y-lines; backward is its adjoint: y-lines, then x-lines, each
        // reversed.
        if (!reverse) {
          sweep(x_lines, b, x, false);
          sweep_y(b, x, false, b_transposed);
        } else {
          sweep_y(b, x, true, b_transposed);
          sweep(x_lines, b, x, true);
        }
        break;
    }
  }
}

template class LineSmoother<float>;
template class LineSmoother<double>;

}  // namespace quilt::accel::cpu
