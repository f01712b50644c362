// The ILU(0) smoother (accel/cpu/smoothers/ilu_smoother.hpp): its sweeps against the dense
// reference of its formula, its factors against the matrix on the 9-point pattern, its remainder
// against the dropped fill, exact solves where the exact LU has no fill, and a zero pivot named
// in errors.

#include <gtest/gtest.h>

#include "smoother_test_support.hpp"

namespace quilt::accel::smoother_tests {
namespace {

INSTANTIATE_TEST_SUITE_P(
    IluSmoother, SmootherSweep,
    ::testing::Values(SmootherParams{SmootherType::ilu, SweepOrder::lexicographic, 1.0},
                      SmootherParams{SmootherType::ilu, SweepOrder::lexicographic, 0.7}),
    sweep_test_name);

// ------------------------------------------------------------------------------------------------
// ILU(0): L U reproduces A on the pattern; it is exact where the exact LU has no fill.

template <class T>
void expect_ilu_reproduces_pattern(int n) {
  const BandedMatrix<T> A = random_matrix<T>(2, n, 200 + n);
  const cpu::IluSmoother<T> ilu(A, 1.0);
  for (int m = 0; m < A.macros; ++m) {
    Dense L, U;
    dense_ilu_factors(ilu.factors(), m, L, U);
    const Dense D = dense_macro(A, m);
    double worst = 0, fill = 0;
    Vec in_pattern(std::size_t(D.size) * D.size, 0.0);
    for_each_pattern_entry(n,
                           [&](int r, int, int c) { in_pattern[std::size_t(r) * D.size + c] = 1; });
    for (int r = 0; r < D.size; ++r)
      for (int c = 0; c < D.size; ++c) {
        double lu = 0;
        for (int q = 0; q < D.size; ++q) lu += L(r, q) * U(q, c);
        const double error = std::abs(lu - D(r, c));
        if (in_pattern[std::size_t(r) * D.size + c] != 0)
          worst = std::max(worst, error);
        else
          fill = std::max(fill, error);
      }
    // Entries of A are O(1): an absolute bound is a relative one.
    EXPECT_LE(worst, (std::is_same_v<T, float> ? 1e-5 : 1e-13)) << "n=" << n << " macro " << m;
    // Outside the pattern L U has the dropped fill: the factors are incomplete, not exact.
    EXPECT_GT(fill, 1e-3) << "n=" << n << " macro " << m;
  }
}

TEST(SmootherIlu, FactorsReproduceTheMatrixOnTheNinePointPattern) {
  for (int n : {5, 6}) {
    expect_ilu_reproduces_pattern<double>(n);
    expect_ilu_reproduces_pattern<float>(n);
  }
}

/// R, which the sweep reads in place of A, is L U - A: L U - R reproduces A on every entry, the
/// fill included, and R is 0 where its offset leaves the macro (the storage convention the sweep
/// relies on). Fails with one fill offset or one guard of R wrong.
template <class T>
void expect_remainder_is_the_fill(int n) {
  const BandedMatrix<T> A = random_matrix<T>(2, n, 400 + n);
  const cpu::IluSmoother<T> ilu(A, 1.0);
  const auto& R = ilu.remainder();
  const auto& fill = cpu::IluSmoother<T>::kFill;
  for (int m = 0; m < A.macros; ++m) {
    Dense L, U;
    dense_ilu_factors(ilu.factors(), m, L, U);
    const Dense D = dense_macro(A, m);
    Dense Rd = zero_dense(n);
    for (int r = 0; r < D.size; ++r)
      for (std::size_t k = 0; k < fill.size(); ++k) {
        const int i = r % n + fill[k][0], j = r / n + fill[k][1];
        const T value = R[k][m * A.rows_per_macro() + r];
        if (i >= 0 && i < n && j >= 0 && j < n)
          Rd(r, i + j * n) = value;
        else
          EXPECT_EQ(value, T(0)) << "n=" << n << " row " << r << " offset " << k;
      }
    double worst = 0, largest_fill = 0;
    for (int r = 0; r < D.size; ++r)
      for (int c = 0; c < D.size; ++c) {
        double lu = 0;
        for (int q = 0; q < D.size; ++q) lu += L(r, q) * U(q, c);
        worst = std::max(worst, std::abs(lu - Rd(r, c) - D(r, c)));
        largest_fill = std::max(largest_fill, std::abs(Rd(r, c)));
      }
    EXPECT_LE(worst, (std::is_same_v<T, float> ? 1e-5 : 1e-13)) << "n=" << n << " macro " << m;
    EXPECT_GT(largest_fill, 1e-3) << "n=" << n << " macro " << m;
  }
}

TEST(SmootherIlu, RemainderIsTheDroppedFill) {
  for (int n : {3, 4, 5, 6}) {
    expect_remainder_is_the_fill<double>(n);
    expect_remainder_is_the_fill<float>(n);
  }
}

/// One ILU sweep with omega = 1 from x = 0 on a matrix whose exact LU has no fill outside the
/// 9-point pattern must solve A x = b.
template <class T>
void expect_ilu_exact(std::initializer_list<int> bands, const char* what) {
  for (int n : {5, 6}) {
    const BandedMatrix<T> A = only_bands(random_matrix<T>(2, n, 300 + n), bands);
    auto ilu = cpu::make_smoother(A, {SmootherType::ilu, SweepOrder::lexicographic, 1.0});
    const std::vector<T> b = random_vector<T>(A.rows(), 3);
    std::vector<T> x(A.rows(), std::numeric_limits<T>::quiet_NaN());  // ignored: x_is_zero
    ilu->smooth(A, b.data(), x.data(), 1, SweepDirection::forward, true);
    EXPECT_LE(relative_residual(A, b, x), (std::is_same_v<T, float> ? 1e-6 : 1e-14))
        << what << " n=" << n;
  }
}

TEST(SmootherIlu, SolvesExactlyWhenTheLuHasNoFill) {
  for (auto check : {expect_ilu_exact<double>, expect_ilu_exact<float>}) {
    check({3, 4, 5}, "tridiagonal along x");
    check({1, 4, 7}, "tridiagonal along y");
    check({0, 1, 2, 3, 4}, "lower triangular");
    check({4, 5, 6, 7, 8}, "upper triangular");
  }
}

// ------------------------------------------------------------------------------------------------
// Errors.

template <class T>
void expect_zero_ilu_pivot_rejected() {
  // Rows (2, 1) and (3, 1) of macro 0: (2, 1) has no lower entries, so its U row is its A row,
  // and eliminating the west entry of (3, 1) cancels its diagonal: pivot 1 - 1 * 1 = 0, although
  // no diagonal entry is 0.
  BandedMatrix<T> A = testing::random_bands<T>(2, 5, 703);
  set_row<T>(A, 0, 2, 1, 0, 1, 1, 0, 0);
  set_row<T>(A, 0, 3, 1, 1, 1, 0, 0, 0.5);
  EXPECT_CONTAINS(smoother_rejection(A, lex(SmootherType::ilu)), "macro 0, node (3, 1)");
  EXPECT_EQ(smoother_rejection(A, lex(SmootherType::gs)), "") << "no diagonal entry is 0";
}

TEST(SmootherErrors, ZeroIluPivotIsRejectedNamingMacroAndNode) {
  expect_zero_ilu_pivot_rejected<double>();
  expect_zero_ilu_pivot_rejected<float>();
}

}  // namespace
}  // namespace quilt::accel::smoother_tests
