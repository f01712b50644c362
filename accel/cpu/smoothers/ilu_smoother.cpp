#include "accel/cpu/smoothers/ilu_smoother.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "accel/cpu/prefetch.hpp"
#include "accel/cpu/smoothers/diagonal_check.hpp"
#include "accel/cpu/smoothers/line_kernels.hpp"
#include "accel/cpu/smoothers/linear_recurrence.hpp"
#include "accel/local_solver.hpp"
#include "accel/recurrence_blocks.hpp"

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
template <bool kRemainder, bool kPrefetch>
void IluSmoother<T>::lower_line(std::size_t row0, int j, const Operand& o) const {
  // Node by node y_e = s_e - l_e y_{e-1}, s = b + R x minus L's coupling to the line below: the
  // recurrence y_e = a_e + m_e y_{e-1} with a = s, m = -l (linear_recurrence.hpp), its terms
  // formed in the same pass. R x's terms in the order of kFill, x taken as 0 where the offset
  // leaves the macro (R is 0 there); the cuda target's ilu_remainder_kernel and
  // ilu_forward_segment sum the same terms in the same order and compose the same blocks.
  using Simd = SimdBlock<T>;
  using V = typename Simd::V;
  constexpr int W = Simd::kWidth;
  constexpr int ahead = kPrefetchAheadBytes / int(sizeof(T));
  const int n = factors_.n;
  const auto band = [&](int k) { return factors_.band[k].data() + row0; };
  const auto fill = [&](int k) { return remainder_[k].data() + row0; };
  const T* __restrict l0 = band(0);
  const T* __restrict l1 = band(1);
  const T* __restrict l2 = band(2);
  const T* __restrict west = band(3);
  const T* __restrict r0 = fill(0);
  const T* __restrict r1 = fill(1);
  const T* __restrict r2 = fill(2);
  const T* __restrict r3 = fill(3);
  const T* __restrict b = o.b + row0;
  const T* __restrict x = o.x + row0;
  const T* __restrict xs = j > 0 ? x - n : ghost_.data();
  const T* __restrict xn = j < n - 1 ? x + n : ghost_.data();
  T* __restrict y = o.work + row0;
  // The line below, or zeros: L's bands 0..2 are 0 on the first line, and s - 0 is s.
  const T* __restrict below = j > 0 ? y - n : ghost_.data();
  const auto relax_node = [&](int e, T last) {
    T s = b[e];
    if constexpr (kRemainder) {
      const bool west_in = e >= 2, east_in = e + 2 < n;
      const T w = west_in ? x[e - 2] : T(0), nw = west_in ? xn[e - 2] : T(0);
      const T se = east_in ? xs[e + 2] : T(0), ea = east_in ? x[e + 2] : T(0);
      s = b[e] + ((r0[e] * w + r1[e] * nw) + (r2[e] * se + r3[e] * ea));
    }
    s = s - coupling_at(e, n, l0, l1, l2, below);
    return y[e] = e == 0 ? s : s + (-west[e]) * last;
  };
  const auto relax_block = [&](int i, const V& carry) {
    const auto at = [i](const T* p, int offset) { return Simd::load(p + i + offset); };
    V a = at(b, 0);
    if constexpr (kRemainder)
      a = a + ((at(r0, 0) * at(x, -2) + at(r1, 0) * at(xn, -2)) +
               (at(r2, 0) * at(xs, 2) + at(r3, 0) * at(x, 2)));
    a = a - (at(l0, 0) * at(below, -1) + at(l1, 0) * at(below, 0) + at(l2, 0) * at(below, 1));
    V m = -at(west, 0);
    Simd::template compose<true>(a, m);
    const V yv = a + m * carry;
    Simd::store(y + i, yv);
    return Simd::template carry_out<true>(yv);
  };
  // The streams from memory: the factors' lower bands, b, and with x: R and x's line above.
  const std::array<const T*, 10> streams{l0, l1, l2, west, b, r0, r1, r2, r3, xn};
  const std::array<const T*, 5> lower{l0, l1, l2, west, b};
  const IluLineSplit split{n};
  int e = 0;
  T last = T(0);
  for (; e < split.head(); ++e) last = relax_node(e, last);
  V carry = Simd::splat(last);
  for (int k = 0; k < split.blocks(); ++k, e += W) {
    if constexpr (kPrefetch && kRemainder) prefetch_each(e + ahead, streams);
    if constexpr (kPrefetch && !kRemainder) prefetch_each(e + ahead, lower);
    carry = relax_block(e, carry);
  }
  for (last = carry[0]; e < n; ++e) last = relax_node(e, last);
}

template <class T>
template <bool kInPlace, bool kPrefetch>
void IluSmoother<T>::upper_line(std::size_t row0, int j, const Operand& o) const {
  // Node by node z_e = (y_e - U's coupling to the line above - u_e z_{e+1}) / U(e, e): the
  // recurrence z_e = a_e + m_e z_{e+1} with a = (y - coupling) p, m = -u p (p = 1 / U(e, e), band
  // 4), backwards; as the cuda target's ilu_backward_segment.
  using Simd = SimdBlock<T>;
  using V = typename Simd::V;
  constexpr int ahead = -(kPrefetchAheadBytes / int(sizeof(T)));
  const int n = factors_.n;
  const auto band = [&](int k) { return factors_.band[k].data() + row0; };
  const T* __restrict pivot = band(kCentre);
  const T* __restrict east = band(5);
  const T* __restrict u0 = band(6);
  const T* __restrict u1 = band(7);
  const T* __restrict u2 = band(8);
  T* __restrict y = o.work + row0;
  T* __restrict x = o.x + row0;
  // The line above, z: in x with omega = 1, else in work; zeros above the last line.
  const T* __restrict above = j == n - 1 ? ghost_.data() : (kInPlace ? x : y) + n;
  const T omega = omega_;
  const auto store = [&](int e, T z) {
    if constexpr (kInPlace) {
      x[e] = z;
    } else {
      y[e] = z;
      x[e] = x[e] + omega * (z - x[e]);
    }
  };
  const auto relax_node = [&](int e, T last) {
    const T a = (y[e] - coupling_at(e, n, u0, u1, u2, above)) * pivot[e];
    const T z = e == n - 1 ? a : a + (-(east[e] * pivot[e])) * last;
    store(e, z);
    return z;
  };
  const auto relax_block = [&](int i, const V& carry) {
    const auto at = [i](const T* p, int offset) { return Simd::load(p + i + offset); };
    const V p = at(pivot, 0);
    const V coupling =
        at(u0, 0) * at(above, -1) + at(u1, 0) * at(above, 0) + at(u2, 0) * at(above, 1);
    V a = (at(y, 0) - coupling) * p;
    V m = -(at(east, 0) * p);
    Simd::template compose<false>(a, m);
    const V z = a + m * carry;
    if constexpr (kInPlace) {
      Simd::store(x + i, z);
    } else {
      const V xv = at(x, 0);
      Simd::store(y + i, z);
      Simd::store(x + i, xv + omega * (z - xv));
    }
    return Simd::template carry_out<false>(z);
  };
  const std::array<const T*, 7> streams{y, pivot, east, u0, u1, u2, x};
  const IluLineSplit split{n};
  const int tail = split.begin(split.blocks() + 1);
  T last = T(0);
  int e = n - 1;
  for (; e >= tail; --e) last = relax_node(e, last);
  V carry = Simd::splat(last);
  for (int k = split.blocks(); k >= 1; --k) {
    const int i = split.begin(k);
    if constexpr (kPrefetch) prefetch_each(i + ahead, streams);
    carry = relax_block(i, carry);
  }
  for (last = carry[0], e = split.head() - 1; e >= 0; --e) last = relax_node(e, last);
}

template <class T>
void IluSmoother<T>::sweep_macro(int m, const Operand* operands, int count, bool from_zero) {
  const int n = factors_.n;
  const std::size_t base = static_cast<std::size_t>(m) * factors_.rows_per_macro();
  const auto line = [&](int j) { return base + static_cast<std::size_t>(j) * n; };
  const auto sweep = [&]<bool kRemainder, bool kInPlace, bool kPrefetch>() {
    for (int j = 0; j < n; ++j)
      for (int q = 0; q < count; ++q) lower_line<kRemainder, kPrefetch>(line(j), j, operands[q]);
    for (int j = n - 1; j >= 0; --j)
      for (int q = 0; q < count; ++q) upper_line<kInPlace, kPrefetch>(line(j), j, operands[q]);
  };
  const bool in_place = omega_ == T(1);
  const auto with_prefetch = [&]<bool kRemainder, bool kInPlace>() {
    if (streams_from_memory(factors_))
      sweep.template operator()<kRemainder, kInPlace, true>();
    else
      sweep.template operator()<kRemainder, kInPlace, false>();
  };
  const auto with_update = [&]<bool kRemainder>() {
    if (in_place)
      with_prefetch.template operator()<kRemainder, true>();
    else
      with_prefetch.template operator()<kRemainder, false>();
  };
  if (from_zero)
    with_update.template operator()<false>();
  else
    with_update.template operator()<true>();
}

template <class T>
void IluSmoother<T>::smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps, SweepDirection,
                            bool x_is_zero) {
  if (x_is_zero) std::fill(x, x + A.rows(), T(0));
  const Operand operand{b, x, work_.data()};
  for (int s = 0; s < steps; ++s)
    for (int m = 0; m < A.macros; ++m) sweep_macro(m, &operand, 1, s == 0 && x_is_zero);
}

template <class T>
void IluSmoother<T>::smooth_pair(const BandedMatrix<T>& A, const T* b0, T* x0, const T* b1, T* x1,
                                 int steps, SweepDirection, bool x_is_zero) {
  if (x_is_zero) {
    std::fill(x0, x0 + A.rows(), T(0));
    std::fill(x1, x1 + A.rows(), T(0));
  }
  const Operand operands[2] = {{b0, x0, work_.data()}, {b1, x1, work1_.data()}};
  for (int s = 0; s < steps; ++s)
    for (int m = 0; m < A.macros; ++m) sweep_macro(m, operands, 2, s == 0 && x_is_zero);
}

template class IluSmoother<float>;
template class IluSmoother<double>;

}  // namespace quilt::accel::cpu
