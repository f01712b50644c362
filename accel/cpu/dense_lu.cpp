#include "accel/cpu/dense_lu.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "accel/local_solver.hpp"

namespace quilt::accel::cpu {
void factorise_dense(int size, double* a, int* pivot, int macro) {
  for (int k = 0; k < size; ++k) {
    int p = k;
    double best = std::abs(a[static_cast<std::size_t>(k) * size + k]);
    for (int r = k + 1; r < size; ++r) {
      const double v = std::abs(a[static_cast<std::size_t>(r) * size + k]);
      if (v > best) best = v, p = r;
    }
    if (!(best > 0.0) || !std::isfinite(best))
      throw AccelError("local coarse-level matrix of macro " + std::to_string(macro) +
                       " is singular or not finite (column " + std::to_string(k) + ")");
    pivot[k] = p;
    double* rk = a + static_cast<std::size_t>(k) * size;
    if (p != k) std::swap_ranges(rk, rk + size, a + static_cast<std::size_t>(p) * size);
    const double inv = 1.0 / rk[k];
    for (int r = k + 1; r < size; ++r) {
      double* rr = a + static_cast<std::size_t>(r) * size;
      if (rr[k] == 0.0) continue;
      const double l = rr[k] * inv;
      rr[k] = l;
      for (int c = k + 1; c < size; ++c) rr[c] -= l * rk[c];
    }
  }
}

void dense_macro(const BandedMatrix<double>& A, int macro, double* dense) {
  const int n = A.n;
  const int size = n * n;
  std::fill(dense, dense + static_cast<std::size_t>(size) * size, 0.0);
  for (int r = 0; r < size; ++r) {
    const int i = r % n;
    const int j = r / n;
    for (int k = 0; k < kBands; ++k) {
      const int ii = i + k % 3 - 1;
      const int jj = j + k / 3 - 1;
      // Neighbours across the macro boundary hold 0 by the storage convention; skip them.
      if (ii >= 0 && ii < n && jj >= 0 && jj < n)
        dense[static_cast<std::size_t>(r) * size + ii + jj * n] = A.at(k, macro, r);
    }
  }
}

template <class T>
void BatchedDenseLU<T>::factorise(const BandedMatrix<double>& A) {
  reshape(A.macros, A.n * A.n);
  for (int m = 0; m < A.macros; ++m) {
    dense_macro(A, m, work_.data());
    store(m);
  }
}

template <class T>
void BatchedDenseLU<T>::factorise(int macros, int size, const double* dense) {
  reshape(macros, size);
  const std::size_t block = work_.size();
  for (int m = 0; m < macros; ++m) {
    std::copy(dense + m * block, dense + (m + 1) * block, work_.begin());
    store(m);
  }
}

template <class T>
void BatchedDenseLU<T>::reshape(int macros, int size) {
  const std::size_t block = static_cast<std::size_t>(size) * size;
  macros_ = macros;
  size_ = size;
  lu_.resize(block * macros);
  pivot_.resize(static_cast<std::size_t>(size) * macros);
  work_.resize(block);
}

template <class T>
void BatchedDenseLU<T>::store(int macro) {
  factorise_dense(size_, work_.data(), pivot_.data() + static_cast<std::size_t>(macro) * size_,
                  macro);
  std::transform(work_.begin(), work_.end(), lu_.begin() + macro * work_.size(),
                 [](double v) { return static_cast<T>(v); });
}

template <class T>
template <int Lanes>
void BatchedDenseLU<T>::solve_lanes(const std::array<const T*, Lanes>& b,
                                    const std::array<T*, Lanes>& x) const {
  const std::size_t block = static_cast<std::size_t>(size_) * size_;
  for (int m = 0; m < macros_; ++m) {
    const T* lu = lu_.data() + m * block;
    const int* piv = pivot_.data() + static_cast<std::size_t>(m) * size_;
    const std::size_t first = static_cast<std::size_t>(m) * size_;
    std::array<T*, Lanes> xm;
    for (int q = 0; q < Lanes; ++q) {
      xm[q] = x[q] + first;
      if (xm[q] != b[q] + first) std::copy(b[q] + first, b[q] + first + size_, xm[q]);
      for (int k = 0; k < size_; ++k)
        if (piv[k] != k) std::swap(xm[q][k], xm[q][piv[k]]);
    }
    // L y = P b (unit lower), then U x = y.
    std::array<T, Lanes> s;
    for (int r = 1; r < size_; ++r) {
      const T* row = lu + static_cast<std::size_t>(r) * size_;
      for (int q = 0; q < Lanes; ++q) s[q] = xm[q][r];
      for (int c = 0; c < r; ++c)
        for (int q = 0; q < Lanes; ++q) s[q] -= row[c] * xm[q][c];
      for (int q = 0; q < Lanes; ++q) xm[q][r] = s[q];
    }
    // Each x[r] subtracts its terms from the last column back to column r + 1: the order of the
    // cuda target's column-oriented back substitution (one column per step, all rows above it at
    // once), so the two targets round alike.
    for (int r = size_ - 1; r >= 0; --r) {
      const T* row = lu + static_cast<std::size_t>(r) * size_;
      for (int q = 0; q < Lanes; ++q) s[q] = xm[q][r];
      for (int c = size_ - 1; c > r; --c)
        for (int q = 0; q < Lanes; ++q) s[q] -= row[c] * xm[q][c];
      for (int q = 0; q < Lanes; ++q) xm[q][r] = s[q] / row[r];
    }
  }
}

template <class T>
void BatchedDenseLU<T>::solve(const T* b, T* x) const {
  solve_lanes<1>({b}, {x});
}

template <class T>
void BatchedDenseLU<T>::solve_pair(const T* b0, T* x0, const T* b1, T* x1) const {
  solve_lanes<2>({b0, b1}, {x0, x1});
}

template class BatchedDenseLU<float>;
template class BatchedDenseLU<double>;

}  // namespace quilt::accel::cpu
