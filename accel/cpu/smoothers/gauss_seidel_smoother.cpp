#include "accel/cpu/smoothers/gauss_seidel_smoother.hpp"

#include <algorithm>

#include "accel/cpu/smoothers/diagonal_check.hpp"
#include "accel/cpu/smoothers/line_kernels.hpp"

namespace quilt::accel::cpu {

template <class T>
GaussSeidelSmoother<T>::GaussSeidelSmoother(const BandedMatrix<T>& A, double damping,
                                            SweepOrder order, bool symmetric)
    : Smoother<T>(A),
      omega_(static_cast<T>(damping)),
      order_(order),
      symmetric_(symmetric),
      line_(2 * static_cast<std::size_t>(kLanes) * A.n),
      ghost_(A.n, T(0)) {
  refresh(A, {});
}

template <class T>
void GaussSeidelSmoother<T>::refresh(const BandedMatrix<T>& A, const StencilZones<T>&) {
  // The sweeps divide by the diagonal as they go rather than read a stored inverse (one stream
  // fewer); the quotient is the same number (band_kernels.cpp, interior_rows).
  check_diagonal(A, StencilZones<T>{});
}

template <class T>
void GaussSeidelSmoother<T>::right_hand_side(const BandedMatrix<T>& A, std::size_t row0, int j,
                                             bool reverse, const T* b, const T* x, T* __restrict t,
                                             T* __restrict scale) const {
  // One pass (neighbour_lines_rhs with the diagonal term): a pass per term ran 1.07-1.1 times
  // slower at n = 1025.
  const int n = A.n;
  const auto band = [&](int k) { return A.band[k].data() + row0; };
  const T* __restrict w = band(3);
  const T* __restrict c = band(4);
  const T* __restrict xl = x;
  // The terms in the order of the node-by-node form: the line below, the line above, the
  // diagonal, then (backward) the west neighbour.
  neighbour_lines_rhs(n, {band(0), band(1), band(2), band(6), band(7), band(8)}, b + row0,
                      j > 0 ? x - n : ghost_.data(), j < n - 1 ? x + n : ghost_.data(), t,
                      [&](int e) { return c[e] * xl[e]; });
  for (int e = 0; e < n; ++e) scale[e] = omega_ * (T(1) / c[e]);
  if (reverse)
    for (int e = 1; e < n; ++e) t[e] = t[e] - w[e] * xl[e - 1];
}

template <class T>
template <int K>
void GaussSeidelSmoother<T>::relax_lines(const BandedMatrix<T>& A, int m0, int j, bool reverse,
                                         const T* b, T* x) {
  // Per node x_i += omega / a_ii (t_i - a_ii x_i - w_i x_{i-1} - e_i x_{i+1}), t = b minus the
  // neighbouring lines (their newest values). Everything but the term of the node just updated
  // goes into t in a vectorised pass; what is left is one recurrence along the line, its last
  // value in a register, and the K lines (of K macros, so independent) side by side: read back
  // from x, the chain held the sweep at a third of the triad bandwidth in float (n = 1025).
  // Same operations in the same order as node by node.
  const int n = A.n, l = n - 1;
  const T* west[K];
  const T* east[K];
  T* t[K];
  T* scale[K];
  T* xl[K];
  for (int q = 0; q < K; ++q) {
    const std::size_t base = static_cast<std::size_t>(m0 + q) * A.rows_per_macro();
    const std::size_t row0 = base + static_cast<std::size_t>(j) * n;
    t[q] = line_.data() + static_cast<std::size_t>(2 * q) * n;
    scale[q] = t[q] + n;
    xl[q] = x + row0;
    west[q] = A.band[kCentre - 1].data() + row0;
    east[q] = A.band[kCentre + 1].data() + row0;
    right_hand_side(A, row0, j, reverse, b, xl[q], t[q], scale[q]);
  }
  T last[K];
  if (!reverse) {
    for (int q = 0; q < K; ++q) {
      const T s = t[q][0] - east[q][0] * xl[q][1];
      xl[q][0] = last[q] = xl[q][0] + scale[q][0] * s;
    }
    for (int i = 1; i < l; ++i)
      for (int q = 0; q < K; ++q) {
        const T s = t[q][i] - west[q][i] * last[q] - east[q][i] * xl[q][i + 1];
        xl[q][i] = last[q] = xl[q][i] + scale[q][i] * s;
      }
    for (int q = 0; q < K; ++q)
      xl[q][l] = xl[q][l] + scale[q][l] * (t[q][l] - west[q][l] * last[q]);
    return;
  }
  for (int q = 0; q < K; ++q) xl[q][l] = last[q] = xl[q][l] + scale[q][l] * t[q][l];
  for (int i = l - 1; i >= 0; --i)
    for (int q = 0; q < K; ++q)
      xl[q][i] = last[q] = xl[q][i] + scale[q][i] * (t[q][i] - east[q][i] * last[q]);
}

template <class T>
void GaussSeidelSmoother<T>::relax_group(const BandedMatrix<T>& A, int m0, int count, int j,
                                         bool reverse, const T* b, T* x) {
  with_lane_count(count, [&](auto k) { relax_lines<decltype(k)::value>(A, m0, j, reverse, b, x); });
}

template <class T>
void GaussSeidelSmoother<T>::update_colour(const BandedMatrix<T>& A, std::size_t base, int j,
                                           int first, const T* b, T* x) {
  const int n = A.n;
  const std::size_t row0 = base + static_cast<std::size_t>(j) * n;
  T* t = line_.data();
  const auto band = [&](int k) { return A.band[k].data() + row0; };
  neighbour_lines_rhs(n, {band(0), band(1), band(2), band(6), band(7), band(8)}, b + row0,
                      j > 0 ? x + row0 - n : ghost_.data(),
                      j < n - 1 ? x + row0 + n : ghost_.data(), t);
  const T* west = A.band[kCentre - 1].data() + row0;
  const T* centre = A.band[kCentre].data() + row0;
  const T* east = A.band[kCentre + 1].data() + row0;
  T* xl = x + row0;
  for (int i = first; i < n; i += 2) {
    T s = t[i] - centre[i] * xl[i];
    if (i > 0) s -= west[i] * xl[i - 1];
    if (i < n - 1) s -= east[i] * xl[i + 1];
    xl[i] += omega_ * (T(1) / centre[i]) * s;
  }
}

template <class T>
void GaussSeidelSmoother<T>::sweep(const BandedMatrix<T>& A, const T* b, T* x,
                                   SweepDirection direction) {
  const int n = A.n;
  const bool reverse = direction == SweepDirection::backward;
  if (order_ == SweepOrder::lexicographic) {
    for (int m0 = 0; m0 < A.macros; m0 += kLanes) {
      const int count = std::min(kLanes, A.macros - m0);
      for (int l = 0; l < n; ++l) relax_group(A, m0, count, reverse ? n - 1 - l : l, reverse, b, x);
    }
    return;
  }
  for (int m = 0; m < A.macros; ++m) {
    const std::size_t base = static_cast<std::size_t>(m) * A.rows_per_macro();
    // Colours (ci, cj) in the order (0,0), (1,0), (0,1), (1,1); reversed backward.
    for (int c = 0; c < 4; ++c) {
      const int colour = reverse ? 3 - c : c;
      const int ci = colour % 2, cj = colour / 2;
      for (int j = cj; j < n; j += 2) update_colour(A, base, j, ci, b, x);
    }
  }
}

template <class T>
void GaussSeidelSmoother<T>::smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps,
                                    SweepDirection direction, bool x_is_zero) {
  if (x_is_zero) std::fill(x, x + A.rows(), T(0));
  for (int s = 0; s < steps; ++s) {
    if (symmetric_) {
      sweep(A, b, x, SweepDirection::forward);
      sweep(A, b, x, SweepDirection::backward);
    } else {
      sweep(A, b, x, direction);
    }
  }
}

template class GaussSeidelSmoother<float>;
template class GaussSeidelSmoother<double>;

}  // namespace quilt::accel::cpu
