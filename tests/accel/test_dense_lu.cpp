// The batched dense LU of the coarsest local level.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/dense_lu.hpp"
#include "accel/local_solver.hpp"
#include "q1_test_matrices.hpp"

namespace quilt::accel {
namespace {

/// Random dense matrices with a small diagonal, so that partial pivoting has to swap rows.
std::vector<double> random_dense(int macros, int size, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(static_cast<std::size_t>(macros) * size * size);
  for (int m = 0; m < macros; ++m)
    for (int r = 0; r < size; ++r)
      for (int c = 0; c < size; ++c)
        a[(static_cast<std::size_t>(m) * size + r) * size + c] = (r == c ? 1e-3 : 1.0) * u(gen);
  return a;
}

template <class T>
class DenseLU : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DenseLU, Precisions);

TYPED_TEST(DenseLU, SolutionMultipliesBackToTheRightHandSide) {
  using T = TypeParam;
  const int macros = 3;
  const int size = 25;
  const auto a = random_dense(macros, size, 42);
  cpu::BatchedDenseLU<T> lu;
  lu.factorise(macros, size, a.data());
  ASSERT_EQ(lu.macros(), macros);
  ASSERT_EQ(lu.size(), size);
  std::mt19937 gen(1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> b(macros * size), x(macros * size);
  for (auto& v : b) v = static_cast<T>(u(gen));
  lu.solve(b.data(), x.data());
  for (int m = 0; m < macros; ++m) {
    double res = 0, bnorm = 0, xnorm = 0;
    for (int r = 0; r < size; ++r) {
      long double s = 0;
      for (int c = 0; c < size; ++c)
        s += a[(static_cast<std::size_t>(m) * size + r) * size + c] * x[m * size + c];
      res = std::max(res, std::abs(static_cast<double>(s - b[m * size + r])));
      bnorm = std::max(bnorm, std::abs(static_cast<double>(b[m * size + r])));
      xnorm = std::max(xnorm, std::abs(static_cast<double>(x[m * size + r])));
    }
    // Backward-stable: the residual is a modest multiple of eps |A| |x|.
    const double eps = std::is_same_v<T, float> ? 6e-8 : 1.2e-16;
    EXPECT_LE(res, 200 * size * eps * xnorm) << "macro " << m;
  }
}

TYPED_TEST(DenseLU, SolveInPlace) {
  using T = TypeParam;
  const auto a = random_dense(2, 9, 5);
  cpu::BatchedDenseLU<T> lu;
  lu.factorise(2, 9, a.data());
  std::vector<T> b(18);
  for (int r = 0; r < 18; ++r) b[r] = static_cast<T>(r % 5 - 2);
  std::vector<T> x(18), inplace = b;
  lu.solve(b.data(), x.data());
  lu.solve(inplace.data(), inplace.data());
  for (int r = 0; r < 18; ++r) EXPECT_EQ(x[r], inplace[r]);
}

TEST(DenseLU, BandedBatchSolvesEveryMacro) {
  using testing::MacroSpec;
  // Scalings far apart, and a scaled stencil (|-s/3| > 1) so pivoting picks rows across the unit
  // Dirichlet rows.
  const std::vector<MacroSpec> specs = {{1.0, testing::kAllDirichlet},
                                        {1e4, testing::kSouthDirichlet},
                                        {1e-3, testing::kSouthDirichlet}};
  const auto A = testing::q1_laplacian(2, specs);
  cpu::BatchedDenseLU<double> lu;
  lu.factorise(A);
  ASSERT_EQ(lu.size(), 25);
  const auto b = testing::random_defect(A, specs, 3);
  std::vector<double> x(A.rows()), d(A.rows());
  lu.solve(b.data(), x.data());
  cpu::defect(A, b.data(), x.data(), d.data());
  for (int m = 0; m < A.macros; ++m)
    for (int r = 0; r < 25; ++r)
      EXPECT_NEAR(d[m * 25 + r], 0.0, 1e-13 * std::max(1.0, specs[m].scale)) << m << " " << r;
}

TEST(DenseLU, SingularMatrixIsAnError) {
  std::vector<double> a(4 * 4, 0.0);
  for (int r = 0; r < 3; ++r) a[r * 4 + r] = 1.0;  // last row and column zero
  cpu::BatchedDenseLU<double> lu;
  EXPECT_THROW(lu.factorise(1, 4, a.data()), AccelError);
}

}  // namespace
}  // namespace quilt::accel
