#include "accel/cpu/smoothers/ilu_smoother.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "accel/cpu/smoothers/diagonal_check.hpp"
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

/// x <- x + omega (z - x) over n values (omega != 1: the sweep substitutes into x otherwise).
template <class T>
void update(int n, T omega, const T* __restrict z, T* __restrict x) {
  for (int e = 0; e < n; ++e) x[e] += omega * (z[e] - x[e]);
}

/// L's right-hand side of one x-line, v = (b + R x) - (L's coupling to the line below, `below`
/// through bands 0, 1, 2), in one pass (b, x, v and the bands at the line's first node; xs and xn
/// the lines below and above, the zero ghost line where there is none). kRemainder false: b
/// alone (x = 0); kBelow false: the first line. R x's terms in the order of kFill, x taken as 0
/// where the offset leaves the macro (R is 0 there): the cuda target's ilu_remainder_kernel sums
/// the same way, and its forward row subtracts the same coupling. One pass instead of one for
/// b + R x and one for the coupling: the streams of R, b, x and L advance together.
template <bool kRemainder, bool kBelow, class T>
void lower_line(int n, const std::array<const T*, 4>& R, const std::array<const T*, 3>& L,
                const T* __restrict b, const T* __restrict xs, const T* __restrict x,
                const T* __restrict xn, const T* __restrict below, T* __restrict v) {
  const T* __restrict r0 = R[0];
  const T* __restrict r1 = R[1];
  const T* __restrict r2 = R[2];
  const T* __restrict r3 = R[3];
  const T* __restrict l0 = L[0];
  const T* __restrict l1 = L[1];
  const T* __restrict l2 = L[2];
  const auto guarded = [&](int e) {
    T s = b[e];
    if constexpr (kRemainder) {
      const bool west = e >= 2, east = e + 2 < n;
      const T w = west ? x[e - 2] : T(0), nw = west ? xn[e - 2] : T(0);
      const T se = east ? xs[e + 2] : T(0), ea = east ? x[e + 2] : T(0);
      s = b[e] + ((r0[e] * w + r1[e] * nw) + (r2[e] * se + r3[e] * ea));
    }
    if constexpr (kBelow) s -= coupling_at(e, n, l0, l1, l2, below);
    v[e] = s;
  };
  const int head = std::min(2, n), tail = std::max(head, n - 2);
  for (int e = 0; e < head; ++e) guarded(e);
  for (int e = 2; e < tail; ++e) {
    T s = b[e];
    if constexpr (kRemainder)
      s = b[e] + ((r0[e] * x[e - 2] + r1[e] * xn[e - 2]) + (r2[e] * xs[e + 2] + r3[e] * x[e + 2]));
    if constexpr (kBelow) s -= l0[e] * below[e - 1] + l1[e] * below[e] + l2[e] * below[e + 1];
    v[e] = s;
  }
  for (int e = tail; e < n; ++e) guarded(e);
}

/// U's right-hand side of one x-line, z = v - (U's coupling to the line above, `above` through
/// bands 6, 7, 8), in one pass; kAbove false (the top line): z = v.
template <bool kAbove, class T>
void upper_line(int n, const std::array<const T*, 3>& U, const T* __restrict v,
                const T* __restrict above, T* __restrict z) {
  if constexpr (!kAbove) {
    std::copy_n(v, n, z);
  } else {
    const T* __restrict u0 = U[0];
    const T* __restrict u1 = U[1];
    const T* __restrict u2 = U[2];
    z[0] = v[0] - coupling_at(0, n, u0, u1, u2, above);
    for (int e = 1; e < n - 1; ++e)
      z[e] = v[e] - (u0[e] * above[e - 1] + u1[e] * above[e] + u2[e] * above[e + 1]);
    z[n - 1] = v[n - 1] - coupling_at(n - 1, n, u0, u1, u2, above);
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
      line_(2 * static_cast<std::size_t>(kLanes) * A.n),
      ghost_(A.n, T(0)),
      window_(2 * static_cast<std::size_t>(A.n)) {
  refresh(A, {});
}

template <class T>
void IluSmoother<T>::factorise(const BandedMatrix<T>& A, BandedMatrix<T>& factors, Window& window) {
  for (int m = 0; m < A.macros; ++m) factorise_macro(A, m, window, factors);
}

template <class T>
void IluSmoother<T>::remainder(const BandedMatrix<T>& factors, Remainder& R) {
  const int n = factors.n;
  const auto& f = factors.band;
  for (auto& band : R) band.assign(factors.rows(), T(0));
  // The fill offset (di, dj) = a + b of L's entry at a and U's at b, read in row r + a.
  const auto product = [&](std::size_t r, int l_band, int u_band) {
    const std::size_t q = r + band_offset(l_band, n);
    return static_cast<T>(static_cast<double>(f[l_band][r]) * static_cast<double>(f[u_band][q]));
  };
  for (int m = 0; m < factors.macros; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::size_t r = m * factors.rows_per_macro() + i + static_cast<std::size_t>(j) * n;
        if (i >= 2 && j >= 1) R[0][r] = product(r, band_index(-1, -1), band_index(-1, 1));
        if (i >= 2 && j + 1 < n) R[1][r] = product(r, band_index(-1, 0), band_index(-1, 1));
        if (i + 2 < n && j >= 1) {
          R[2][r] = product(r, band_index(1, -1), band_index(1, 0));
          R[3][r] = product(r, band_index(1, -1), band_index(1, 1));
        }
      }
}

template <class T>
void IluSmoother<T>::refresh(const BandedMatrix<T>& A, const StencilZones<T>&) {
  factorise(A, factors_, window_);
  remainder(factors_, remainder_);
}

template <class T>
template <int K>
void IluSmoother<T>::sweep_lanes(const Lane* lanes, bool from_zero) {
  const int n = factors_.n;
  const auto& f = factors_.band;
  std::size_t base[K];  // the lanes' first rows
  for (int q = 0; q < K; ++q) base[q] = lanes[q].macro * factors_.rows_per_macro();
  // The recurrences carry their last value in a register, and the K lanes' chains (of different
  // macros or vectors, so independent) overlap: one lane alone held float sweeps at half the
  // triad bandwidth (a multiply and a subtraction per node on the chain, and in U another
  // multiply).
  T last[K];
  // L v = b + R x, line by line upwards. Each line's b + R x is formed just before its
  // elimination (the line below goes to the right-hand side at once, then the recurrence over
  // band -1): written to work once and read back from cache.
  for (int j = 0; j < n; ++j) {
    const std::size_t line = static_cast<std::size_t>(j) * n;
    const T* west[K];
    T* v[K];
    for (int q = 0; q < K; ++q) {
      const std::size_t row0 = base[q] + line;
      v[q] = lanes[q].work + row0;
      west[q] = f[3].data() + row0;
      const T* x = lanes[q].x + row0;
      const std::array<const T*, 4> R{remainder_[0].data() + row0, remainder_[1].data() + row0,
                                      remainder_[2].data() + row0, remainder_[3].data() + row0};
      const std::array<const T*, 3> L{f[0].data() + row0, f[1].data() + row0, f[2].data() + row0};
      const T* xs = j > 0 ? x - n : ghost_.data();
      const T* xn = j < n - 1 ? x + n : ghost_.data();
      const T* b = lanes[q].b + row0;
      const T* none = nullptr;
      if (from_zero) {
        if (j > 0)
          lower_line<false, true>(n, R, L, b, xs, x, xn, v[q] - n, v[q]);
        else
          lower_line<false, false>(n, R, L, b, xs, x, xn, none, v[q]);
      } else if (j > 0) {
        lower_line<true, true>(n, R, L, b, xs, x, xn, v[q] - n, v[q]);
      } else {
        lower_line<true, false>(n, R, L, b, xs, x, xn, none, v[q]);
      }
      last[q] = v[q][0];
    }
    for (int i = 1; i < n; ++i)
      for (int q = 0; q < K; ++q) v[q][i] = last[q] = v[q][i] - west[q][i] * last[q];
  }
  // U z = v, line by line downwards (the line above, then the recurrence over band +1), into a
  // pair of line buffers per lane, and x <- x + omega (z - x) as each line is done; with
  // omega = 1 into x itself (1.03-1.05x: no copy). work is only read, and x may be overwritten
  // line by line (the upward pass has read all of it for R x).
  const bool in_place = omega_ == T(1);
  for (int j = n - 1; j >= 0; --j) {
    const std::size_t line = static_cast<std::size_t>(j) * n;
    const T* east[K];
    const T* inv_pivot[K];
    T* z[K];
    T* x[K];
    for (int q = 0; q < K; ++q) {
      const std::size_t row0 = base[q] + line;
      x[q] = lanes[q].x + row0;
      T* above =
          in_place ? x[q] + n : line_.data() + static_cast<std::size_t>(2 * q + (j + 1) % 2) * n;
      z[q] = in_place ? x[q] : line_.data() + static_cast<std::size_t>(2 * q + j % 2) * n;
      east[q] = f[5].data() + row0;
      inv_pivot[q] = f[4].data() + row0;
      const std::array<const T*, 3> U{f[6].data() + row0, f[7].data() + row0, f[8].data() + row0};
      if (j < n - 1)
        upper_line<true>(n, U, lanes[q].work + row0, above, z[q]);
      else
        upper_line<false>(n, U, lanes[q].work + row0, above, z[q]);
      z[q][n - 1] = last[q] = z[q][n - 1] * inv_pivot[q][n - 1];
    }
    for (int i = n - 2; i >= 0; --i)
      for (int q = 0; q < K; ++q)
        z[q][i] = last[q] = (z[q][i] - east[q][i] * last[q]) * inv_pivot[q][i];
    if (!in_place)
      for (int q = 0; q < K; ++q) update(n, omega_, z[q], x[q]);
  }
}

template <class T>
void IluSmoother<T>::sweep_group(const Lane* lanes, int count, bool from_zero) {
  with_lane_count(count, [&](auto k) { sweep_lanes<decltype(k)::value>(lanes, from_zero); });
}

template <class T>
void IluSmoother<T>::smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps, SweepDirection,
                            bool x_is_zero) {
  if (x_is_zero) std::fill(x, x + A.rows(), T(0));
  for (int s = 0; s < steps; ++s)
    for (int m0 = 0; m0 < A.macros; m0 += kLanes) {
      Lane lanes[kLanes];
      const int count = std::min(kLanes, A.macros - m0);
      for (int q = 0; q < count; ++q) lanes[q] = {m0 + q, b, x, work_.data()};
      sweep_group(lanes, count, s == 0 && x_is_zero);
    }
}

template <class T>
void IluSmoother<T>::smooth_pair(const BandedMatrix<T>& A, const T* b0, T* x0, const T* b1, T* x1,
                                 int steps, SweepDirection, bool x_is_zero) {
  if (x_is_zero) {
    std::fill(x0, x0 + A.rows(), T(0));
    std::fill(x1, x1 + A.rows(), T(0));
  }
  // Lanes of kLanes / 2 macros, both vectors of each: the second vector finds the bands and
  // factors of a line in cache.
  constexpr int kMacros = kLanes / 2;
  for (int s = 0; s < steps; ++s)
    for (int m0 = 0; m0 < A.macros; m0 += kMacros) {
      Lane lanes[kLanes];
      const int count = std::min(kMacros, A.macros - m0);
      for (int q = 0; q < count; ++q) {
        lanes[2 * q] = {m0 + q, b0, x0, work_.data()};
        lanes[2 * q + 1] = {m0 + q, b1, x1, work1_.data()};
      }
      sweep_group(lanes, 2 * count, s == 0 && x_is_zero);
    }
}

template class IluSmoother<float>;
template class IluSmoother<double>;

}  // namespace quilt::accel::cpu
