// The global layer's fused sweeps (solvers/level_hierarchy.hpp, global_multigrid.hpp): CG's
// three fused operations on a level operator are bitwise the unfused sequence they replace
// (LinearOperator's defaults), and a multigrid cycle from x = 0 writes its iterate before it reads
// it, so apply() gives the same bits whatever its output vector held.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "fem/scalar_assembly.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"
#include "solvers/global_multigrid.hpp"
#include "solvers/solver_error.hpp"

using namespace quilt;

namespace {

constexpr int kLevel = 4;

struct Fixture {
  Communicator comm;
  DistributedMesh dm;
  LevelHierarchy h;
  explicit Fixture(const char* mesh)
      : dm(distribute(read_msh(mesh_path(mesh)), {}, comm)),
        h(dm, comm, kLevel, std::vector<bool>(dm.mesh.part_names.size(), true),
          [](const MacroGeometry& g, accel::BandedMatrix<double>& A, int m) {
            add_laplacian(g, A, m);
          }) {}
  /// A smooth type-1 vector (the same value at every copy of a node) with nonzero Dirichlet
  /// entries, so that the filters have something to remove.
  LevelVector field(double a, double b) const {
    LevelVector v;
    for (int m = 0; m < dm.num_local(); ++m) {
      const MacroGeometry& g = h.geometry(kLevel, m);
      for (std::size_t r = 0; r < g.x.size(); ++r)
        v.push_back(std::sin(a * g.x[r] + 0.3) * std::cos(b * g.y[r] - 0.2));
    }
    return v;
  }
};

bool same_bits(const LevelVector& a, const LevelVector& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

/// Whether a and b give bitwise the same cycle for a smooth filtered defect.
bool same_cycle(GlobalMultigrid& a, GlobalMultigrid& b, const Fixture& f) {
  LevelVector d = f.field(2.5, 1.5);
  a.finest_operator().filter(d);
  LevelVector c1, c2;
  a.apply(d, c1);
  b.apply(d, c2);
  return same_bits(c1, c2);
}

class LevelOperatorTest : public ::testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(LevelOperatorTest, FusedCgSweepsAreBitwiseTheUnfusedSequence) {
  const Fixture f(GetParam());
  const LevelOperator A(f.h.level(kLevel));
  const LinearOperator& unfused = A;  // the defaults, called by qualified name below

  const LevelVector p = f.field(3.1, 2.3);
  LevelVector q1(p.size()), q2(p.size());
  const double pq1 = A.apply_dot(p, q1);
  const double pq2 = unfused.LinearOperator::apply_dot(p, q2);
  EXPECT_EQ(pq1, pq2);
  EXPECT_TRUE(same_bits(q1, q2));

  LevelVector x1 = f.field(1.7, 0.9), r1 = f.field(0.4, 5.2);
  LevelVector x2 = x1, r2 = r1;
  const double rr1 = A.update_dot(0.37, p, q1, x1, r1);
  const double rr2 = unfused.LinearOperator::update_dot(0.37, p, q2, x2, r2);
  EXPECT_EQ(rr1, rr2);
  EXPECT_TRUE(same_bits(x1, x2));
  EXPECT_TRUE(same_bits(r1, r2));

  LevelVector z1 = f.field(2.2, 2.9), z2 = z1;
  const double rz1 = A.filter_dot(z1, r1);
  const double rz2 = unfused.LinearOperator::filter_dot(z2, r2);
  EXPECT_EQ(rz1, rz2);
  EXPECT_TRUE(same_bits(z1, z2));
  // The product is symmetric positive definite on the filtered space.
  EXPECT_GT(pq1, 0.0);
}

TEST_P(LevelOperatorTest, CycleFromZeroDoesNotReadItsOutputVector) {
  const Fixture f(GetParam());
  for (int pre_smooth : {0, 1}) {
    GlobalMultigridParams params;
    params.coarse_level = 2;
    params.pre_smooth = pre_smooth;
    params.combination = SchwarzCombination::symmetric;
    GlobalMultigrid mg(f.h, params);
    LevelVector d = f.field(2.5, 1.5);
    mg.finest_operator().filter(d);
    LevelVector from_zeros(d.size(), 0.0);
    LevelVector from_nans(d.size(), std::numeric_limits<double>::quiet_NaN());
    mg.apply(d, from_zeros);
    mg.apply(d, from_nans);
    EXPECT_TRUE(same_bits(from_zeros, from_nans)) << "pre_smooth " << pre_smooth;
    for (double v : from_nans) ASSERT_TRUE(std::isfinite(v)) << "pre_smooth " << pre_smooth;
  }
}

TEST_P(LevelOperatorTest, AMultigridForOneOperatorSolvesTheSameAndRefusesUpdates) {
  const Fixture f(GetParam());
  GlobalMultigridParams params;
  params.coarse_level = 2;
  GlobalMultigrid updatable(f.h, params);
  params.updatable = false;
  GlobalMultigrid once(f.h, params);
  EXPECT_TRUE(same_cycle(updatable, once, f));
  EXPECT_NO_THROW(updatable.update());
  EXPECT_THROW(once.update(), SolverError);
}

TEST_P(LevelOperatorTest, AMultigridForOneOperatorReleasesTheBandsOfItsZonedLevels) {
  const Fixture f(GetParam());
  Fixture g(GetParam());
  GlobalMultigridParams params;
  params.coarse_level = 2;
  GlobalMultigrid updatable(f.h, params);
  GlobalMultigrid once = GlobalMultigrid::for_one_operator(g.h, params);
  // Released exactly where every macro is zoned, above the coarse grid (whose solver keeps
  // reading its bands); the affine 4x2 square is zoned on its levels 3 and 4 (n = 9, 17).
  int released = 0;
  for (int l = 0; l <= kLevel; ++l) {
    const bool release = l > params.coarse_level && g.h.level(l).zones.all();
    EXPECT_EQ(g.h.level(l).matrix.has_bands(), !release) << "level " << l;
    released += release;
  }
  EXPECT_EQ(released, std::string(GetParam()) == "unit_square_4x2.msh" ? 2 : 0);
  // The products read the zones: the same cycle, bitwise.
  EXPECT_TRUE(same_cycle(updatable, once, f));
  if (released == 0) return;
  EXPECT_THROW(g.h.local_matrix(kLevel), std::logic_error);
  // Assembled again, the level has its bands back, bitwise.
  g.h.assemble([](const MacroGeometry& geo, accel::BandedMatrix<double>& A, int m) {
    add_laplacian(geo, A, m);
  });
  for (int k = 0; k < accel::kBands; ++k)
    EXPECT_EQ(g.h.level(kLevel).matrix.band[k], f.h.level(kLevel).matrix.band[k]) << "band " << k;
}

INSTANTIATE_TEST_SUITE_P(Meshes, LevelOperatorTest,
                         ::testing::Values("unit_square_4x2.msh", "unit_square_unstructured.msh"));
