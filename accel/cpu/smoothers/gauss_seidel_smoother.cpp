#include "accel/cpu/smoothers/gauss_seidel_smoother.hpp"

#include <algorithm>

#include "accel/cpu/smoothers/inverse_diagonal.hpp"
#include "accel/cpu/smoothers/line_kernels.hpp"

namespace quilt::accel::cpu {

template <class T>
GaussSeidelSmoother<T>::GaussSeidelSmoother(const BandedMatrix<T>& A, double damping,
                                            SweepOrder order, bool symmetric)
    : Smoother<T>(A),
      omega_(static_cast<T>(damping)),
      order_(order),
      symmetric_(symmetric),
      inv_diag_(A.rows()),
      line_(A.n) {
  refresh(A, {});
}

template <class T>
void GaussSeidelSmoother<T>::refresh(const BandedMatrix<T>& A, const StencilZones<T>&) {
  inverse_diagonal(A, inv_diag_);
}

template <class T>
void GaussSeidelSmoother<T>::update_line(const BandedMatrix<T>& A, std::size_t base, int j,
                                         int first, int step, bool reverse, const T* b, T* x) {
  const int n = A.n;
  const std::size_t row0 = base + static_cast<std::size_t>(j) * n;
  // The neighbouring lines (the newest values of both) go to the right-hand side at once; within
  // the line the recurrence runs over the bands -1, 0, +1.
  line_rhs(A, base, x_lines(n), j, b, x, line_.data());
  const T* west = A.band[3].data() + row0;
  const T* centre = A.band[4].data() + row0;
  const T* east = A.band[5].data() + row0;
  const T* inv = inv_diag_.data() + row0;
  T* xl = x + row0;
  const T* t = line_.data();
  const auto update = [&](int i) {
    T s = t[i] - centre[i] * xl[i];
    if (i > 0) s -= west[i] * xl[i - 1];
    if (i < n - 1) s -= east[i] * xl[i + 1];
    xl[i] += omega_ * inv[i] * s;
  };
  if (!reverse)
    for (int i = first; i < n; i += step) update(i);
  else
    for (int i = first + (n - 1 - first) / step * step; i >= 0; i -= step) update(i);
}

template <class T>
void GaussSeidelSmoother<T>::sweep(const BandedMatrix<T>& A, const T* b, T* x,
                                   SweepDirection direction) {
  const int n = A.n;
  const bool reverse = direction == SweepDirection::backward;
  for (int m = 0; m < A.macros; ++m) {
    const std::size_t base = static_cast<std::size_t>(m) * A.rows_per_macro();
    if (order_ == SweepOrder::lexicographic) {
      for (int l = 0; l < n; ++l)
        update_line(A, base, reverse ? n - 1 - l : l, 0, 1, reverse, b, x);
      continue;
    }
    // Colours (ci, cj) in the order (0,0), (1,0), (0,1), (1,1); reversed backward.
    for (int c = 0; c < 4; ++c) {
      const int colour = reverse ? 3 - c : c;
      const int ci = colour % 2, cj = colour / 2;
      for (int j = cj; j < n; j += 2) update_line(A, base, j, ci, 2, false, b, x);
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
