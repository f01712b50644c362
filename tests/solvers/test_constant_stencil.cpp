// Constant-stencil macros in the solver (accel/stencil_zones.hpp): which macros the assembly
// makes zoned (affine macros with a constant coefficient) and which it refuses (a non-affine
// macro, a variable coefficient), and ScaRC on zoned operators against the same operator
// assembled element by element (the band path): same iterations, same solution to tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fem/macro_elements.hpp"
#include "fem/scalar_assembly.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"
#include "solvers/global_multigrid.hpp"
#include "solvers/krylov.hpp"

using namespace quilt;

namespace {

constexpr int kLevel = 5;

/// int c grad phi_j . grad phi_i, element by element at the Gauss points, with the coefficient
/// c(x, y): never the once-per-macro element matrix of add_laplacian.
MacroAssembler elementwise_laplacian(double (*c)(double, double)) {
  return [c](const MacroGeometry& g, accel::BandedMatrix<double>& A, int m) {
    for_each_quadrature_point(
        g, gauss2x2(), [&](const MacroElement& e, const Q1Point& q, double w) {
          for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b) {
              const int k = accel::band_index(kQ1DI[b] - kQ1DI[a], kQ1DJ[b] - kQ1DJ[a]);
              A.at(k, m, e.node[a]) +=
                  w * c(q.x, q.y) * (q.dphi_dx[a] * q.dphi_dx[b] + q.dphi_dy[a] * q.dphi_dy[b]);
            }
        });
  };
}

double one(double, double) {
  return 1.0;
}
double varying(double x, double y) {
  return 1.0 + x * y;
}

struct Fixture {
  Communicator comm;
  DistributedMesh dm;
  std::vector<bool> dirichlet;
  explicit Fixture(const char* mesh)
      : dm(distribute(read_msh(mesh_path(mesh)), {}, comm)),
        dirichlet(dm.mesh.part_names.size(), true) {}
  LevelHierarchy build(const MacroAssembler& assemble) const {
    return LevelHierarchy(dm, comm, kLevel, dirichlet, assemble);
  }
};

const MacroAssembler laplacian = [](const MacroGeometry& g, accel::BandedMatrix<double>& A, int m) {
  add_laplacian(g, A, m);
};

}  // namespace

TEST(ConstantStencil, AffineMacrosWithAConstantCoefficientAreZonedOnEveryLevel) {
  const Fixture f("unit_square_4x2.msh");
  const LevelHierarchy h = f.build(laplacian);
  for (int l = 3; l <= kLevel; ++l) {
    EXPECT_TRUE(h.level(l).zones.all()) << "level " << l;
    EXPECT_TRUE(accel::detect_stencil_zones(h.local_matrix(l)).all()) << "level " << l;
  }
}

TEST(ConstantStencil, NonAffineMacrosAndVariableCoefficientsAreRefused) {
  // The unstructured square's macros are general quadrilaterals.
  const Fixture unstructured("unit_square_unstructured.msh");
  const LevelHierarchy h = unstructured.build(laplacian);
  EXPECT_FALSE(h.level(kLevel).zones.any());
  // Affine macros, but the coefficient 1 + x y varies.
  const Fixture square("unit_square_4x2.msh");
  EXPECT_FALSE(square.build(elementwise_laplacian(varying)).level(kLevel).zones.any());
}

TEST(ConstantStencil, ScarcNeedsTheSameIterationsAsOnTheBandPath) {
  const Fixture f("unit_square_4x2.msh");
  const LevelHierarchy zoned = f.build(laplacian);
  // Element by element the element matrices differ in their last bits with the element's
  // position (the Jacobian from absolute coordinates): the rows are not bitwise equal.
  const LevelHierarchy banded = f.build(elementwise_laplacian(one));
  ASSERT_FALSE(banded.level(kLevel).zones.all());
  GlobalMultigridParams mg;
  mg.coarse_level = 2;
  mg.combination = SchwarzCombination::symmetric;
  KrylovParams kp;
  kp.rel_tol = 1e-8;
  kp.max_iter = 50;
  std::vector<LevelVector> solutions;
  std::vector<int> iterations;
  for (const LevelHierarchy* h : {&zoned, &banded}) {
    const GlobalLevel& finest = h->level(kLevel);
    LevelVector b(finest.matrix.rows(), 1.0), x(finest.matrix.rows(), 0.0);
    filter(finest.dirichlet, b);
    GlobalMultigrid multigrid(*h, mg);
    const KrylovResult r =
        solve_krylov(KrylovMethod::cg, multigrid.finest_operator(), multigrid, b, x, kp);
    ASSERT_TRUE(r.converged);
    iterations.push_back(r.iterations);
    solutions.push_back(x);
  }
  EXPECT_EQ(iterations[0], iterations[1]);
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < solutions[0].size(); ++i) {
    diff = std::max(diff, std::abs(solutions[0][i] - solutions[1][i]));
    scale = std::max(scale, std::abs(solutions[1][i]));
  }
  EXPECT_LE(diff, 1e-7 * scale);
}
