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
void GaussSeidelSmoother<T>::line_terms(const BandedMatrix<T>& A, std::size_t row0, int j,
                                        bool reverse, const T* b, const T* x, T* __restrict u,
                                        T* __restrict v) const {
  // Node by node, x_i <- x_i + s_i (t_i - a_i x_{i-1} - e_i x_{i+1}) with s_i = omega / c_i and
  // t = b minus the neighbouring lines and the diagonal term. Forward, x_{i+1} is still the old
  // value and only the west term waits for the recurrence: x_i <- u_i - v_i x_{i-1} with
  // u_i = x_i + s_i (t_i - e_i x_{i+1}), v_i = s_i a_i (backward mirrored). Everything but one
  // multiply and one subtraction per node is then vectorised here, off the recurrence's chain
  // (float in cache: the chain's six loads and five operations per node held the sweep at a
  // quarter of what the memory streams allow).
  const int n = A.n;
  const auto band = [&](int k) { return A.band[k].data() + row0; };
  const T* __restrict w = band(kCentre - 1);
  const T* __restrict c = band(kCentre);
  const T* __restrict e = band(kCentre + 1);
  const T* __restrict xl = x;
  // One pass over the line, the terms of the recurrence computed as its right-hand side comes:
  // a pass per term ran 1.07-1.1 times slower at n = 1025.
  const T omega = omega_;
  const T* south = j > 0 ? x - n : ghost_.data();
  const T* north = j < n - 1 ? x + n : ghost_.data();
  const std::array<const T*, 6> lines{band(0), band(1), band(2), band(6), band(7), band(8)};
  if (!reverse) {
    neighbour_lines_rhs(n, lines, b + row0, south, north, [&](int i, T sum, auto at) {
      const T s = omega * (T(1) / c[i]);
      T t = sum - c[i] * xl[i];
      if constexpr (decltype(at)::value != LinePosition::last) t = t - e[i] * xl[i + 1];
      u[i] = xl[i] + s * t;
      v[i] = s * w[i];
    });
    return;
  }
  neighbour_lines_rhs(n, lines, b + row0, south, north, [&](int i, T sum, auto at) {
    const T s = omega * (T(1) / c[i]);
    T t = sum - c[i] * xl[i];
    if constexpr (decltype(at)::value != LinePosition::first) t = t - w[i] * xl[i - 1];
    u[i] = xl[i] + s * t;
    v[i] = s * e[i];
  });
}

template <class T>
template <int K>
void GaussSeidelSmoother<T>::relax_lines(const BandedMatrix<T>& A, int m0, int j, bool reverse,
                                         const T* b, T* x) {
  // The recurrence x_i <- u_i - v_i x_{i-1} (line_terms) of the K lines (of K macros, so
  // independent) side by side, the last value in a register: read back from x, the chain held
  // the sweep at a third of the triad bandwidth in float (n = 1025).
  const int n = A.n, l = n - 1;
  T* u[K];
  T* v[K];
  T* xl[K];
  for (int q = 0; q < K; ++q) {
    const std::size_t base = static_cast<std::size_t>(m0 + q) * A.rows_per_macro();
    const std::size_t row0 = base + static_cast<std::size_t>(j) * n;
    u[q] = line_.data() + static_cast<std::size_t>(2 * q) * n;
    v[q] = u[q] + n;
    xl[q] = x + row0;
    line_terms(A, row0, j, reverse, b, xl[q], u[q], v[q]);
  }
  T last[K];
  if (!reverse) {
    for (int q = 0; q < K; ++q) xl[q][0] = last[q] = u[q][0];
    for (int i = 1; i < n; ++i)
      for (int q = 0; q < K; ++q) xl[q][i] = last[q] = u[q][i] - v[q][i] * last[q];
    return;
  }
  for (int q = 0; q < K; ++q) xl[q][l] = last[q] = u[q][l];
  for (int i = l - 1; i >= 0; --i)
    for (int q = 0; q < K; ++q) xl[q][i] = last[q] = u[q][i] - v[q][i] * last[q];
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
