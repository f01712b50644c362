#include "accel/cpu/smoothers/gauss_seidel_smoother.hpp"

#include <algorithm>

#include "accel/cpu/prefetch.hpp"
#include "accel/cpu/smoothers/diagonal_check.hpp"
#include "accel/cpu/smoothers/line_blocks.hpp"
#include "accel/cpu/smoothers/line_kernels.hpp"

namespace quilt::accel::cpu {

template <class T>
GaussSeidelSmoother<T>::GaussSeidelSmoother(const BandedMatrix<T>& A, double damping,
                                            SweepOrder order, bool symmetric)
    : Smoother<T>(A),
      omega_(static_cast<T>(damping)),
      order_(order),
      symmetric_(symmetric),
      line_(A.n),
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
template <bool Forward, bool Prefetch>
void GaussSeidelSmoother<T>::relax_line(const BandedMatrix<T>& A, std::size_t row0, int j,
                                        const T* b, T* x) const {
  // Node by node, x_i <- x_i + s_i (t_i - w_i x_{i-1} - e_i x_{i+1}) with s_i = omega / c_i and
  // t = b minus the neighbouring lines and the diagonal term. Forward, x_{i+1} is still the old
  // value and only the west term waits for the recurrence: x_i <- u_i - v_i x_{i-1} with
  // u_i = x_i + s_i (t_i - e_i x_{i+1}), v_i = s_i w_i (backward mirrored). The terms come from
  // one vectorised pass over the line's streams, the recurrence is solved in the same pass a
  // block at a time (linear_recurrence.hpp), and the 11 streams that come from memory (the
  // bands, b and the old neighbour line) are prefetched kPrefetchAheadBytes ahead.
  using Simd = SimdBlock<T>;
  using V = typename Simd::V;
  constexpr int W = Simd::kWidth;
  constexpr int ahead =
      (Forward ? 1 : -1) * (kPrefetchAheadBytes / int(sizeof(T))) - (Forward ? 0 : W);
  const int n = A.n, l = n - 1;
  const auto band = [&](int k) { return A.band[k].data() + row0; };
  const std::array<const T*, 6> lines{band(0), band(1), band(2), band(6), band(7), band(8)};
  const T* __restrict wb = band(kCentre - 1);
  const T* __restrict cb = band(kCentre);
  const T* __restrict eb = band(kCentre + 1);
  const T* __restrict bl = b + row0;
  const T* __restrict ys = j > 0 ? x - n : ghost_.data();
  const T* __restrict yn = j < l ? x + n : ghost_.data();
  T* __restrict xl = x;
  const T omega = omega_;
  // Node i with its neighbour on the line already relaxed (0 where there is none: its band is 0).
  const auto relax_node = [&](int i, T relaxed) {
    const T s = omega * (T(1) / cb[i]);
    T t = neighbour_lines_at(i, n, lines, bl, ys, yn) - cb[i] * xl[i];
    if (Forward && i < l) t = t - eb[i] * xl[i + 1];
    if (!Forward && i > 0) t = t - wb[i] * xl[i - 1];
    const T u = xl[i] + s * t, v = s * (Forward ? wb[i] : eb[i]);
    return xl[i] = u - v * relaxed;
  };
  // The W inner nodes i .. i + W - 1, as relax_node does them: x = a + m x_relaxed.
  const auto relax_block = [&](int i, const V& relaxed) {
    const auto at = [i](const T* p, int offset) { return Simd::load(p + i + offset); };
    const V c = at(cb, 0), xi = at(xl, 0);
    const V s = omega * (T(1) / c);
    V t = neighbour_lines_block(i, lines, bl, ys, yn) - c * xi;
    t = Forward ? t - at(eb, 0) * at(xl, 1) : t - at(wb, 0) * at(xl, -1);
    V a = xi + s * t, m = -(s * (Forward ? at(wb, 0) : at(eb, 0)));
    Simd::template compose<Forward>(a, m);
    const V xn = a + m * relaxed;
    Simd::store(xl + i, xn);
    return Simd::template carry_out<Forward>(xn);
  };
  // The streams from memory: the bands, b and the neighbour line not yet relaxed.
  const std::array<const T*, 11> streams{lines[0], lines[1], lines[2],         wb,
                                         cb,       eb,       lines[3],         lines[4],
                                         lines[5], bl,       Forward ? yn : ys};
  if constexpr (Forward) {
    V relaxed = Simd::splat(relax_node(0, T(0)));
    int i = 1;
    for (; i + W <= l; i += W) {
      if constexpr (Prefetch) prefetch_each(i + ahead, streams);
      relaxed = relax_block(i, relaxed);
    }
    for (T last = relaxed[0]; i < n; ++i) last = relax_node(i, last);
  } else {
    V relaxed = Simd::splat(relax_node(l, T(0)));
    int i = l;  // nodes i .. l are relaxed
    for (; i - W >= 1; i -= W) {
      if constexpr (Prefetch) prefetch_each(i + ahead, streams);
      relaxed = relax_block(i - W, relaxed);
    }
    for (T last = relaxed[0]; --i >= 0;) last = relax_node(i, last);
  }
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
    const bool prefetch = streams_from_memory(A);
    const auto relax = [&]<bool Forward, bool Prefetch>() {
      for (int m = 0; m < A.macros; ++m)
        for (int k = 0; k < n; ++k) {
          const int j = Forward ? k : n - 1 - k;
          const std::size_t row0 =
              static_cast<std::size_t>(m) * A.rows_per_macro() + static_cast<std::size_t>(j) * n;
          relax_line<Forward, Prefetch>(A, row0, j, b, x + row0);
        }
    };
    if (reverse)
      prefetch ? relax.template operator()<false, true>()
               : relax.template operator()<false, false>();
    else
      prefetch ? relax.template operator()<true, true>() : relax.template operator()<true, false>();
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
