// Galerkin coarse operators P^T A P of the local multigrid.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "accel/cpu/galerkin.hpp"
#include "accel/cpu/grid_transfer.hpp"
#include "accel/local_solver.hpp"
#include "q1_test_matrices.hpp"

namespace quilt::accel {
namespace {

/// The dense per-macro matrix of a band batch (only the in-grid couplings).
std::vector<double> dense(const BandedMatrix<double>& A, int m) {
  const int n = A.n;
  const std::size_t nn = A.rows_per_macro();
  std::vector<double> D(nn * nn, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < kBands; ++k) {
        const int ii = i + k % 3 - 1;
        const int jj = j + k / 3 - 1;
        if (ii < 0 || ii >= n || jj < 0 || jj >= n) continue;
        D[(i + std::size_t(j) * n) * nn + ii + std::size_t(jj) * n] =
            A.at(k, m, i + std::size_t(j) * n);
      }
  return D;
}

TEST(Galerkin, MatchesTheDenseTripleProduct) {
  const int macros = 2;
  const int nc = 7;  // 3 x 3 interior columns (galerkin.cpp) inside a ring of 2
  const int nf = 2 * nc - 1;
  const auto A = testing::random_bands<double>(macros, nf, 21);
  const BandedMatrix<double> Ac = cpu::galerkin_coarse(A);
  ASSERT_EQ(Ac.n, nc);
  ASSERT_EQ(Ac.macros, macros);
  const std::size_t ncc = std::size_t(nc) * nc;
  const std::size_t nff = std::size_t(nf) * nf;
  // Columns of P from prolongated unit vectors.
  std::vector<double> P(nff * ncc);
  for (std::size_t c = 0; c < ncc; ++c) {
    std::vector<double> e(ncc, 0.0), col(nff);
    e[c] = 1.0;
    cpu::prolongate(1, nc, e.data(), col.data());
    for (std::size_t r = 0; r < nff; ++r) P[r * ncc + c] = col[r];
  }
  for (int m = 0; m < macros; ++m) {
    const auto Df = dense(A, m);
    const auto Dc = dense(Ac, m);
    for (std::size_t I = 0; I < ncc; ++I)
      for (std::size_t J = 0; J < ncc; ++J) {
        double s = 0.0;
        for (std::size_t p = 0; p < nff; ++p) {
          if (P[p * ncc + I] == 0.0) continue;
          for (std::size_t q = 0; q < nff; ++q)
            s += P[p * ncc + I] * Df[p * nff + q] * P[q * ncc + J];
        }
        ASSERT_NEAR(Dc[I * ncc + J], s, 1e-13) << "macro " << m << " (" << I << ", " << J << ")";
      }
  }
}

TEST(Galerkin, EqualsTheRediscretisedLaplacianWhereTheSpacesAreNested) {
  // All sides Dirichlet: the fine and coarse spaces are nested, so P^T A P is the coarse local
  // matrix itself, unit rows included.
  const std::vector<testing::MacroSpec> specs = {{1.0, testing::kAllDirichlet},
                                                 {7.0, testing::kAllDirichlet}};
  const auto fine = testing::q1_laplacian(5, specs);
  const auto coarse = testing::q1_laplacian(4, specs);
  const auto galerkin = cpu::galerkin_coarse(fine);
  for (int k = 0; k < kBands; ++k)
    for (std::size_t r = 0; r < coarse.rows(); ++r)
      ASSERT_NEAR(galerkin.band[k][r], coarse.band[k][r], 1e-14 * 7.0)
          << "band " << k << " row " << r;
}

TEST(Galerkin, TruncatedLocalMatricesAreNotNested) {
  // A free (truncated) side: the interior of the product is the rediscretised stencil, but the
  // rows on the free boundary are stiffer than the coarse local matrix's (see galerkin.hpp).
  const std::vector<testing::MacroSpec> specs = {{1.0, testing::kSouthDirichlet}};
  const auto fine = testing::q1_laplacian(4, specs);
  const auto coarse = testing::q1_laplacian(3, specs);
  const auto galerkin = cpu::galerkin_coarse(fine);
  const int n = coarse.n;
  const std::size_t middle = n / 2 + std::size_t(n / 2) * n;
  const std::size_t east = (n - 1) + std::size_t(n / 2) * n;
  EXPECT_NEAR(galerkin.at(kCentre, 0, middle), coarse.at(kCentre, 0, middle), 1e-14);
  EXPECT_GT(galerkin.at(kCentre, 0, east), coarse.at(kCentre, 0, east) + 0.1);
}

TEST(Galerkin, RejectsAnEvenGrid) {
  EXPECT_THROW(cpu::galerkin_coarse(BandedMatrix<double>(1, 4)), AccelError);
}

}  // namespace
}  // namespace quilt::accel
