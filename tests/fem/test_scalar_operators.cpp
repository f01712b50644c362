// Properties of the Q1 banded operators on every macro of the shipped meshes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "fem/scalar_assembly.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"

using namespace quilt;
using accel::BandedMatrix;

namespace {

struct MeshCase {
  const char* file;
  double area;
};

class ScalarOperators : public ::testing::TestWithParam<MeshCase> {};

double row_sum(const BandedMatrix<double>& A, int m, std::size_t r) {
  double s = 0;
  for (int k = 0; k < accel::kBands; ++k) s += A.at(k, m, r);
  return s;
}

}  // namespace

TEST_P(ScalarOperators, LaplacianAnnihilatesConstantsAndIsSymmetric) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  const int level = 3;
  const int n = accel::nodes_per_side(level);
  BandedMatrix<double> A(mesh.num_cells(), n);
  for (int c = 0; c < mesh.num_cells(); ++c) add_laplacian(refine_macro(mesh, {}, c, level), A, c);
  double max_diag = 0;
  for (std::size_t r = 0; r < A.rows(); ++r) max_diag = std::max(max_diag, A.band[4][r]);
  for (int c = 0; c < mesh.num_cells(); ++c)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::size_t r = i + static_cast<std::size_t>(j) * n;
        EXPECT_NEAR(row_sum(A, c, r), 0.0, 1e-13 * max_diag) << "macro " << c << " node " << r;
        EXPECT_GT(A.at(4, c, r), 0.0);
        for (int k = 0; k < accel::kBands; ++k) {
          const int di = k % 3 - 1, dj = k / 3 - 1;
          if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n) {
            EXPECT_EQ(A.at(k, c, r), 0.0) << "entry outside the grid";
            continue;
          }
          const std::size_t col = r + static_cast<std::size_t>(dj * n + di);
          const int transpose = accel::band_index(-di, -dj);
          EXPECT_NEAR(A.at(k, c, r), A.at(transpose, c, col), 1e-14 * max_diag);
        }
      }
}

TEST_P(ScalarOperators, MassSumsToAreaAndLumpedMassMatches) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  for (int level : {0, 2, 4}) {
    const int n = accel::nodes_per_side(level);
    BandedMatrix<double> M(mesh.num_cells(), n);
    double consistent = 0, lumped = 0, area = 0, load = 0;
    std::vector<double> diag(static_cast<std::size_t>(n) * n), b(diag.size());
    for (int c = 0; c < mesh.num_cells(); ++c) {
      const MacroGeometry g = refine_macro(mesh, {}, c, level);
      add_mass(g, M, c);
      assemble_lumped_mass(g, diag.data());
      assemble_load(
          g, [](auto, auto, std::span<double> f) { std::ranges::fill(f, 1.0); }, b.data());
      for (std::size_t r = 0; r < diag.size(); ++r) {
        lumped += diag[r];
        load += b[r];
        EXPECT_NEAR(diag[r], row_sum(M, c, r), 1e-15);
      }
      area += macro_area(g);
    }
    for (const auto& band : M.band)
      for (double v : band) consistent += v;
    EXPECT_NEAR(consistent, GetParam().area, 1e-13) << "level " << level;
    EXPECT_NEAR(lumped, GetParam().area, 1e-13);
    EXPECT_NEAR(load, GetParam().area, 1e-13);
    EXPECT_NEAR(area, GetParam().area, 1e-13);
  }
}

// The energy of a linear function u = a x + b y + c is a^2 + b^2 times the area: the 2x2 rule
// integrates grad u . grad u exactly whatever the quadrilateral's shape, so u^T A u must match.
TEST_P(ScalarOperators, LaplacianEnergyOfLinearFunctionIsExact) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  const int level = 3;
  const int n = accel::nodes_per_side(level);
  double energy = 0;
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, level);
    BandedMatrix<double> A(1, n);
    add_laplacian(g, A, 0);
    std::vector<double> u(A.rows());
    for (std::size_t r = 0; r < u.size(); ++r) u[r] = 0.3 * g.x[r] - 1.7 * g.y[r] + 2.0;
    for (std::size_t r = 0; r < u.size(); ++r)
      for (int k = 0; k < accel::kBands; ++k) {
        const auto col = static_cast<std::ptrdiff_t>(r) + accel::band_offset(k, n);
        if (A.at(k, 0, r) != 0.0) energy += u[r] * A.at(k, 0, r) * u[col];
      }
  }
  EXPECT_NEAR(energy, (0.3 * 0.3 + 1.7 * 1.7) * GetParam().area, 1e-12);
}

// The weak derivatives int (d_k u_h) phi_i of a linear u = a x + b y + c are a int phi_i and
// b int phi_i at every node: Q1 reproduces linear functions on any quadrilateral and 2x2 Gauss
// integrates the products exactly. A swapped direction, a sign or a transposed element matrix
// (int u_h d_k phi_i, whose rows do not give this) fails.
TEST_P(ScalarOperators, WeakDerivativeOfLinearFunctionIsItsSlopeTimesTheLumpedMass) {
  const CoarseMesh mesh = read_msh(mesh_path(GetParam().file));
  const int level = 3;
  const int n = accel::nodes_per_side(level);
  const double slope[2] = {0.3, -1.7};
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, level);
    std::vector<double> u(static_cast<std::size_t>(n) * n), lumped(u.size());
    for (std::size_t r = 0; r < u.size(); ++r) u[r] = slope[0] * g.x[r] + slope[1] * g.y[r] + 2.0;
    assemble_lumped_mass(g, lumped.data());
    for (int k = 0; k < 2; ++k) {
      BandedMatrix<double> D(1, n);
      add_derivative(g, k, D, 0);
      for (std::size_t r = 0; r < u.size(); ++r) {
        double du = 0;
        for (int b = 0; b < accel::kBands; ++b)
          if (D.at(b, 0, r) != 0.0)
            du += D.at(b, 0, r) * u[static_cast<std::ptrdiff_t>(r) + accel::band_offset(b, n)];
        EXPECT_NEAR(du, slope[k] * lumped[r], 1e-13)
            << "macro " << c << " node " << r << " d_" << k;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, ScalarOperators,
                         ::testing::Values(MeshCase{"unit_square_4x2.msh", 1.0},
                                           MeshCase{"unit_square_unstructured.msh", 1.0},
                                           MeshCase{"l_shape.msh", 0.75}));
