// Bilinear prolongation and its transpose.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "accel/cpu/grid_transfer.hpp"
#include "q1_test_matrices.hpp"

namespace quilt::accel {
namespace {

using testing::random_vector;

template <class T>
class GridTransfer : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GridTransfer, Precisions);

TYPED_TEST(GridTransfer, RestrictionIsTheTransposeOfProlongation) {
  using T = TypeParam;
  const int macros = 3;
  for (int nc : {2, 3, 5, 9, 17}) {
    const int nf = 2 * nc - 1;
    const auto xc = random_vector<T>(macros * nc * nc, nc);
    const auto yf = random_vector<T>(macros * nf * nf, 100 + nc);
    std::vector<T> pxc(yf.size()), ptyf(xc.size());
    cpu::prolongate(macros, nc, xc.data(), pxc.data());
    cpu::restrict_transpose(macros, nc, yf.data(), ptyf.data());
    // Compare per macro, so a transfer that mixes macros fails too.
    for (int m = 0; m < macros; ++m) {
      long double lhs = 0, rhs = 0, scale = 0;
      for (int r = 0; r < nf * nf; ++r) {
        lhs += static_cast<long double>(pxc[m * nf * nf + r]) * yf[m * nf * nf + r];
        scale += std::abs(static_cast<long double>(pxc[m * nf * nf + r]) * yf[m * nf * nf + r]);
      }
      for (int r = 0; r < nc * nc; ++r)
        rhs += static_cast<long double>(xc[m * nc * nc + r]) * ptyf[m * nc * nc + r];
      const double eps = std::is_same_v<T, float> ? 1e-6 : 1e-15;
      EXPECT_NEAR(static_cast<double>(lhs), static_cast<double>(rhs),
                  8 * eps * static_cast<double>(scale))
          << "nc=" << nc << " macro " << m;
    }
  }
}

TYPED_TEST(GridTransfer, ProlongationReproducesBilinearFunctions) {
  using T = TypeParam;
  const int macros = 2;
  const int nc = 9;
  const int nf = 2 * nc - 1;
  // f(x, y) = a + b x + c y + d x y on the coarse index grid; dyadic coefficients keep every
  // value exact, so the fine values must be f(i/2, j/2) exactly.
  const double coef[macros][4] = {{1.0, 0.5, -2.0, 0.25}, {-3.0, 1.25, 0.75, -0.5}};
  const auto f = [&](int m, double x, double y) {
    return coef[m][0] + coef[m][1] * x + coef[m][2] * y + coef[m][3] * x * y;
  };
  std::vector<T> coarse(macros * nc * nc);
  for (int m = 0; m < macros; ++m)
    for (int j = 0; j < nc; ++j)
      for (int i = 0; i < nc; ++i) coarse[m * nc * nc + i + j * nc] = static_cast<T>(f(m, i, j));
  std::vector<T> fine(macros * nf * nf, T(123));
  cpu::prolongate(macros, nc, coarse.data(), fine.data());
  for (int m = 0; m < macros; ++m)
    for (int j = 0; j < nf; ++j)
      for (int i = 0; i < nf; ++i)
        ASSERT_EQ(fine[m * nf * nf + i + j * nf], static_cast<T>(f(m, 0.5 * i, 0.5 * j)))
            << "m=" << m << " i=" << i << " j=" << j;
}

TYPED_TEST(GridTransfer, ProlongateAddAddsTheProlongationWhereNotFixed) {
  // Without a mask: fine += P coarse. With one (the global layer's Dirichlet rows): bitwise the
  // product into a vector of its own added where the mask is 0, the fixed rows left alone.
  using T = TypeParam;
  const int macros = 3;
  const int nc = 6;
  const int nf = 2 * nc - 1;
  const auto coarse = random_vector<T>(macros * nc * nc, 1);
  const auto base = random_vector<T>(macros * nf * nf, 2);
  std::vector<char> fixed(base.size());
  for (std::size_t r = 0; r < fixed.size(); ++r) fixed[r] = (r * 7919) % 5 == 0;
  std::vector<T> p(base.size());
  cpu::prolongate(macros, nc, coarse.data(), p.data());
  const char* const masks[] = {nullptr, fixed.data()};
  for (const char* mask : masks) {
    std::vector<T> sum = base;
    cpu::prolongate_add(macros, nc, coarse.data(), sum.data(), mask);
    for (std::size_t r = 0; r < base.size(); ++r)
      ASSERT_EQ(sum[r], mask && mask[r] ? base[r] : base[r] + p[r]) << "r=" << r;
  }
}

TEST(GridTransfer, RestrictionWeightsOfOneFineNode) {
  // P^T of a fine unit vector: the weights of the coarse nodes that fine node interpolates from.
  const int nc = 3;
  const int nf = 5;
  const auto restrict_unit = [&](int i, int j) {
    std::vector<double> fine(nf * nf, 0.0), coarse(nc * nc);
    fine[i + j * nf] = 1.0;
    cpu::restrict_transpose(1, nc, fine.data(), coarse.data());
    return coarse;
  };
  auto c = restrict_unit(2, 2);  // coincides with coarse (1, 1)
  for (int r = 0; r < nc * nc; ++r) EXPECT_EQ(c[r], r == 4 ? 1.0 : 0.0);
  c = restrict_unit(1, 2);  // midpoint of coarse (0, 1) - (1, 1)
  for (int r = 0; r < nc * nc; ++r) EXPECT_EQ(c[r], r == 3 || r == 4 ? 0.5 : 0.0);
  c = restrict_unit(3, 3);  // centre of the coarse cell (1..2, 1..2)
  for (int r = 0; r < nc * nc; ++r)
    EXPECT_EQ(c[r], r == 4 || r == 5 || r == 7 || r == 8 ? 0.25 : 0.0);
}

}  // namespace
}  // namespace quilt::accel
