// The banded kernels against a dense reference on random nonsymmetric variable-coefficient bands.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/prefetch.hpp"
#include "q1_test_matrices.hpp"

namespace quilt::accel {
namespace {

using testing::random_vector;

/// y = A x, in long double, from a dense per-macro copy that has only the in-grid couplings.
template <class T>
std::vector<long double> dense_product(const BandedMatrix<T>& A, const std::vector<T>& x) {
  const int n = A.n;
  const std::size_t nn = A.rows_per_macro();
  std::vector<long double> y(A.rows(), 0.0L);
  for (int m = 0; m < A.macros; ++m) {
    std::vector<long double> dense(nn * nn, 0.0L);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (int dj = -1; dj <= 1; ++dj)
          for (int di = -1; di <= 1; ++di) {
            if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n) continue;
            const std::size_t r = i + static_cast<std::size_t>(j) * n;
            const std::size_t c = (i + di) + static_cast<std::size_t>(j + dj) * n;
            dense[r * nn + c] = A.at(band_index(di, dj), m, r);
          }
    for (std::size_t r = 0; r < nn; ++r)
      for (std::size_t c = 0; c < nn; ++c) y[m * nn + r] += dense[r * nn + c] * x[m * nn + c];
  }
  return y;
}

template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-6 : 1e-14;
}

template <class T>
class BandKernels : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BandKernels, Precisions);

TYPED_TEST(BandKernels, SpmvMatchesDenseReference) {
  using T = TypeParam;
  for (int n : {2, 3, 5, 17}) {
    const auto A = testing::random_bands<T>(3, n, 7 + n);
    const auto x = random_vector<T>(A.rows(), 11 + n);
    std::vector<T> y(A.rows(), T(-99));
    cpu::spmv(A, x.data(), y.data());
    const auto ref = dense_product(A, x);
    for (std::size_t r = 0; r < A.rows(); ++r)
      ASSERT_NEAR(y[r], static_cast<double>(ref[r]), 9 * tolerance<T>()) << "n=" << n << " r=" << r;
  }
}

TYPED_TEST(BandKernels, DefectMatchesDenseReference) {
  using T = TypeParam;
  for (int n : {5, 17}) {
    const auto A = testing::random_bands<T>(4, n, 3 * n);
    const auto x = random_vector<T>(A.rows(), 5 * n);
    const auto b = random_vector<T>(A.rows(), 7 * n);
    std::vector<T> d(A.rows(), T(-99));
    cpu::defect(A, b.data(), x.data(), d.data());
    const auto ax = dense_product(A, x);
    for (std::size_t r = 0; r < A.rows(); ++r)
      ASSERT_NEAR(d[r], static_cast<double>(b[r] - ax[r]), 10 * tolerance<T>())
          << "n=" << n << " r=" << r;
  }
}

TYPED_TEST(BandKernels, JacobiSweepIsOneDampedJacobiStep) {
  using T = TypeParam;
  const int n = 17;
  const auto A = testing::random_bands<T>(2, n, 1);
  const auto x = random_vector<T>(A.rows(), 2);
  const auto b = random_vector<T>(A.rows(), 3);
  const T omega = T(0.7);
  std::vector<T> x_new(A.rows());
  cpu::jacobi_sweep(A, omega, b.data(), x.data(), x_new.data());
  const auto ax = dense_product(A, x);
  for (std::size_t r = 0; r < A.rows(); ++r) {
    const long double expect =
        x[r] + omega / static_cast<long double>(A.band[kCentre][r]) * (b[r] - ax[r]);
    ASSERT_NEAR(x_new[r], static_cast<double>(expect), 10 * tolerance<T>()) << "r=" << r;
  }
}

// The sweep divides by the diagonal where a stored inverse would be 1.0 / a4 in double rounded
// to T: the same number (a float quotient rounded twice, through
// double, is rounded once), so the sweep is bitwise x + omega (1.0 / a4) (b - A x) with A x as
// spmv sums it, in the guarded rows and the vectorised interior alike.
TYPED_TEST(BandKernels, JacobiSweepIsBitwiseTheStoredInverseForm) {
  using T = TypeParam;
  for (int n : {3, 17}) {
    const auto A = testing::random_bands<T>(2, n, 40 + n);
    const auto x = random_vector<T>(A.rows(), 41);
    const auto b = random_vector<T>(A.rows(), 42);
    const T omega = T(0.7);
    std::vector<T> x_new(A.rows()), ax(A.rows());
    cpu::jacobi_sweep(A, omega, b.data(), x.data(), x_new.data());
    cpu::spmv(A, x.data(), ax.data());
    for (std::size_t r = 0; r < A.rows(); ++r) {
      const T inverse = static_cast<T>(1.0 / static_cast<double>(A.band[kCentre][r]));
      ASSERT_EQ(x_new[r], x[r] + omega * inverse * (b[r] - ax[r])) << "n " << n << ", r " << r;
    }
    // From x = 0 (the smoother's first sweep), reading b and the diagonal only.
    cpu::jacobi_from_zero(A, StencilZones<T>{}, omega, b.data(), x_new.data());
    for (std::size_t r = 0; r < A.rows(); ++r) {
      const T inverse = static_cast<T>(1.0 / static_cast<double>(A.band[kCentre][r]));
      ASSERT_EQ(x_new[r], omega * inverse * b[r]) << "from zero, n " << n << ", r " << r;
    }
  }
}

// y += A x is y + (A x) as spmv computes it, to the bit: a block operator's rows may be summed
// without a scratch vector. n = 2, 3: guarded rows only; 17: the vectorised interior too.
TYPED_TEST(BandKernels, SpmvAddIsTheSumWithSpmvBitwise) {
  using T = TypeParam;
  for (int n : {2, 3, 17}) {
    const auto A = testing::random_bands<T>(3, n, 13 + n);
    const auto x = random_vector<T>(A.rows(), 17 + n);
    const auto y0 = random_vector<T>(A.rows(), 19 + n);
    std::vector<T> t(A.rows()), y = y0;
    cpu::spmv(A, x.data(), t.data());
    cpu::spmv_add(A, x.data(), y.data());
    for (std::size_t r = 0; r < A.rows(); ++r) {
      const T expect = y0[r] + t[r];
      ASSERT_EQ(std::memcmp(&y[r], &expect, sizeof(T)), 0) << "n=" << n << " r=" << r;
    }
  }
}

// A batch that streams from memory runs its interior rows in prefetched blocks (prefetch.hpp):
// every block's rows, the last short one included, must be the same sums in the same order as
// one loop over the run, bitwise; the row expression below is that loop's.
TYPED_TEST(BandKernels, PrefetchedSweepsGiveTheRowSumsBitwise) {
  using T = TypeParam;
  int n = 3;  // the first 2^k + 1 at which one macro's 12 arrays reach the prefetch threshold
  while (std::size_t(n) * n * (kBands + 3) * sizeof(T) < cpu::kPrefetchFromBytes) n = 2 * n - 1;
  const auto A = testing::random_bands<T>(1, n, 23);
  const auto x = random_vector<T>(A.rows(), 29);
  const auto b = random_vector<T>(A.rows(), 31);
  const T omega = T(0.7);
  std::vector<T> y(A.rows()), d(A.rows()), x_new(A.rows());
  cpu::spmv(A, x.data(), y.data());
  cpu::defect(A, b.data(), x.data(), d.data());
  cpu::jacobi_sweep(A, omega, b.data(), x.data(), x_new.data());
  const std::ptrdiff_t nn = std::ptrdiff_t(n) * n;
  for (std::ptrdiff_t r = n + 1; r < nn - n - 1; ++r) {
    T s = T(0);
    for (int k = 0; k < kBands; ++k) {
      const T product = A.band[k][r] * x[r + band_offset(k, n)];
      s = k == 0 ? product : s + product;
    }
    ASSERT_EQ(std::memcmp(&y[r], &s, sizeof(T)), 0) << "spmv, n " << n << ", r " << r;
    const T defect = b[r] - s;
    ASSERT_EQ(std::memcmp(&d[r], &defect, sizeof(T)), 0) << "defect, n " << n << ", r " << r;
    const T jacobi = x[r] + omega * (T(1) / A.band[kCentre][r]) * (b[r] - s);
    ASSERT_EQ(std::memcmp(&x_new[r], &jacobi, sizeof(T)), 0) << "Jacobi, n " << n << ", r " << r;
  }
}

// Every macro is its own grid: nothing of one macro's x may reach another macro's y, even through
// the zero entries of the bands (0 * NaN would be NaN).
TYPED_TEST(BandKernels, MacrosDoNotSeeEachOther) {
  using T = TypeParam;
  for (int n : {3, 9}) {
    const auto A = testing::random_bands<T>(3, n, 5);
    auto x = random_vector<T>(A.rows(), 6);
    const std::size_t nn = A.rows_per_macro();
    for (std::size_t r = nn; r < 2 * nn; ++r) x[r] = std::numeric_limits<T>::quiet_NaN();
    std::vector<T> y(A.rows());
    cpu::spmv(A, x.data(), y.data());
    for (std::size_t r = 0; r < A.rows(); ++r) {
      if (r >= nn && r < 2 * nn) continue;
      ASSERT_TRUE(std::isfinite(y[r])) << "n=" << n << " r=" << r;
    }
    std::vector<T> d(A.rows());
    cpu::defect(A, x.data(), x.data(), d.data());
    for (std::size_t r = 0; r < nn; ++r) ASSERT_TRUE(std::isfinite(d[r]));
    for (std::size_t r = 2 * nn; r < 3 * nn; ++r) ASSERT_TRUE(std::isfinite(d[r]));
  }
}

TEST(BandKernels, DoubleKernelsAreExactOnIntegerData) {
  // Small integers keep every product and sum exact, so the interior (vectorised) and guarded
  // paths must agree with the reference bit for bit.
  const int n = 33;
  BandedMatrix<double> A(2, n);
  std::mt19937 gen(3);
  std::uniform_int_distribution<int> u(-4, 4);
  for (int m = 0; m < 2; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (int k = 0; k < kBands; ++k) {
          const int ii = i + k % 3 - 1;
          const int jj = j + k / 3 - 1;
          if (ii >= 0 && ii < n && jj >= 0 && jj < n)
            A.at(k, m, i + static_cast<std::size_t>(j) * n) = u(gen);
        }
  std::vector<double> x(A.rows());
  for (auto& v : x) v = u(gen);
  std::vector<double> y(A.rows());
  cpu::spmv(A, x.data(), y.data());
  const auto ref = dense_product(A, x);
  for (std::size_t r = 0; r < A.rows(); ++r) ASSERT_EQ(y[r], static_cast<double>(ref[r]));
}

}  // namespace
}  // namespace quilt::accel
