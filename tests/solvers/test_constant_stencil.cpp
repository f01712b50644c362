// Constant-stencil macros in the solver (accel/stencil_zones.hpp): which macros the assembly
// makes zoned (affine macros with a constant coefficient) and which it refuses (a non-affine
// macro, a variable coefficient), and ScaRC on zoned operators against the same operator
// assembled element by element (the band path): same iterations, same solution to tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fem/macro_elements.hpp"
#include "fem/scalar_assembly.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"
#include "same_zones.hpp"
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

// Zone form (ZoneFormLevels): levels assembled macro by macro into their zones, without bands.
namespace {

/// `name` with the vertex list of cell c turned by c places (still counterclockwise): neighbours
/// then run along their shared edges in different local directions, and one macro's x-lines
/// meet the other's y-lines.
CoarseMesh turned_cells(const char* name) {
  CoarseMesh mesh = read_msh(mesh_path(name));
  std::vector<std::array<int, 3>> boundary;
  for (int e = 0; e < mesh.num_edges(); ++e)
    if (mesh.edge_part[e] >= 0)
      boundary.push_back({mesh.edges[e][0], mesh.edges[e][1], mesh.edge_part[e]});
  for (int c = 0; c < mesh.num_cells(); ++c)
    std::rotate(mesh.cells[c].begin(), mesh.cells[c].begin() + c % 4, mesh.cells[c].end());
  CoarseMesh turned;
  turned.source = mesh.source;
  turned.vertices = mesh.vertices;
  turned.cells = mesh.cells;
  turned.part_names = mesh.part_names;
  turned.build_topology(boundary);
  return turned;
}

struct ZoneFormCase {
  const char* mesh;
  bool turned;
  bool every_part_dirichlet;  ///< else the even parts only
};

std::string describe(const ZoneFormCase& c) {
  return std::string(c.mesh) + (c.turned ? " turned" : "") +
         (c.every_part_dirichlet ? "" : ", Dirichlet on the even parts");
}

struct ZoneFormFixture {
  Communicator comm;
  DistributedMesh dm;
  std::vector<bool> dirichlet;
  explicit ZoneFormFixture(const ZoneFormCase& c)
      : dm(distribute(c.turned ? turned_cells(c.mesh) : read_msh(mesh_path(c.mesh)), {}, comm)) {
    for (std::size_t p = 0; p < dm.mesh.part_names.size(); ++p)
      dirichlet.push_back(c.every_part_dirichlet || p % 2 == 0);
  }
  LevelHierarchy banded(const MacroAssembler& assemble = laplacian) const {
    return LevelHierarchy(dm, comm, kLevel, dirichlet, assemble);
  }
  LevelHierarchy zone_form(const MacroAssembler& assemble = laplacian) const {
    return LevelHierarchy(dm, comm, kLevel, dirichlet, assemble, ZoneFormLevels{0});
  }
};

const ZoneFormCase kZoneFormCases[] = {
    {"unit_square_2x2.msh", false, true}, {"unit_square_2x2.msh", true, true},
    {"unit_square_2x2.msh", true, false}, {"unit_square_4x2.msh", false, false},
    {"unit_square_4x2.msh", true, true},  {"l_shape.msh", false, true}};

}  // namespace

TEST(ZoneForm, ZonedLevelsHaveNoBandsAndTheTypeZeroZonesOfTheBandedAssembly) {
  for (const ZoneFormCase& c : kZoneFormCases) {
    const ZoneFormFixture f(c);
    const LevelHierarchy banded = f.banded(), zoned = f.zone_form();
    for (int l = 0; l <= kLevel; ++l) {
      const bool all = f.comm.max(banded.level(l).zones.all() ? 0.0 : 1.0) == 0.0;
      EXPECT_EQ(zoned.in_zone_form(l), l > 0 && all) << describe(c) << ", level " << l;
      EXPECT_EQ(zoned.level(l).matrix.has_bands(), !zoned.in_zone_form(l));
      EXPECT_TRUE(same_zones(zoned.level(l).zones, banded.level(l).zones))
          << describe(c) << ", level " << l;
    }
  }
}

TEST(ZoneForm, TheLocalMatrixZonesFromTheTypeZeroZonesAreTheDetectedOnes) {
  int compared = 0;
  for (const ZoneFormCase& c : kZoneFormCases) {
    const ZoneFormFixture f(c);
    const LevelHierarchy banded = f.banded(), zoned = f.zone_form();
    for (int l = 3; l <= kLevel; ++l) {
      accel::StencilZones<double> made;
      zoned.local_matrix_zones(l, made);
      if (!zoned.in_zone_form(l)) {
        EXPECT_EQ(made.macros, 0) << describe(c) << ", level " << l;
        continue;
      }
      const accel::StencilZones<double> detected =
          accel::detect_stencil_zones(banded.local_matrix(l));
      EXPECT_TRUE(detected.any()) << describe(c) << ", level " << l;
      EXPECT_TRUE(same_zones(made, detected)) << describe(c) << ", level " << l;
      ++compared;
    }
  }
  EXPECT_GE(compared, 15);
}

TEST(ZoneForm, MacrosThatAreNotZonedKeepTheirBands) {
  const ZoneFormFixture unstructured({"unit_square_unstructured.msh", false, true});
  const ZoneFormFixture square({"unit_square_4x2.msh", false, true});
  const MacroAssembler variable = elementwise_laplacian(varying);
  const std::pair<const LevelHierarchy, const LevelHierarchy> pairs[] = {
      {unstructured.banded(), unstructured.zone_form()},
      {square.banded(variable), square.zone_form(variable)}};
  for (const auto& [banded, zoned] : pairs)
    for (int l = 1; l <= kLevel; ++l) {
      ASSERT_TRUE(zoned.level(l).matrix.has_bands()) << "level " << l;
      for (int k = 0; k < accel::kBands; ++k)
        EXPECT_EQ(zoned.level(l).matrix.band[k], banded.level(l).matrix.band[k]) << "band " << k;
    }
}

TEST(ZoneForm, ScarcSetUpOnceSolvesBitwiseAsOnTheBands) {
  for (const ZoneFormCase& c : {kZoneFormCases[1], kZoneFormCases[3]})
    for (accel::SmootherType smoother : {accel::SmootherType::jacobi, accel::SmootherType::gs}) {
      const ZoneFormFixture f(c);
      LevelHierarchy banded = f.banded(), zoned = f.zone_form();
      GlobalMultigridParams mg;
      mg.coarse_level = 2;
      mg.combination = SchwarzCombination::symmetric;
      mg.local.smoother = smoother;
      mg.local.ordering = accel::natural_order(smoother, mg.local.target);
      KrylovParams kp;
      kp.rel_tol = 1e-8;
      kp.max_iter = 50;
      std::vector<LevelVector> solutions;
      for (LevelHierarchy* h : {&banded, &zoned}) {
        const GlobalLevel& finest = h->level(kLevel);
        LevelVector b(finest.matrix.rows(), 1.0), x(finest.matrix.rows(), 0.0);
        filter(finest.dirichlet, b);
        GlobalMultigrid multigrid = GlobalMultigrid::for_one_operator(*h, mg);
        // The solver set up, the coordinates are not needed again (quilt-poisson drops them).
        if (h == &zoned) zoned.release_geometry();
        ASSERT_TRUE(solve_krylov(KrylovMethod::cg, multigrid.finest_operator(), multigrid, b, x, kp)
                        .converged);
        solutions.push_back(x);
      }
      ASSERT_TRUE(zoned.in_zone_form(kLevel));
      EXPECT_THROW(zoned.geometry(kLevel, 0), std::logic_error);
      EXPECT_THROW(zoned.assemble(laplacian), std::logic_error);
      EXPECT_EQ(std::memcmp(solutions[0].data(), solutions[1].data(),
                            solutions[0].size() * sizeof(double)),
                0)
          << describe(c) << ", " << accel::to_string(smoother);
    }
}
