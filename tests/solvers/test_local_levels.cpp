// The local multigrid's coarse levels (solvers/local_levels.hpp): Galerkin products of the local
// matrix, or, with a rediscretised part R, the hybrid A_k = Galerkin(A_l - R_l) + R_k.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "accel/cpu/galerkin.hpp"
#include "fem/scalar_assembly.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"
#include "same_zones.hpp"
#include "solvers/local_levels.hpp"
#include "solvers/solver_error.hpp"

using namespace quilt;

namespace {

constexpr int kLevel = 4;

/// Max |a - b| over every entry, relative to max |b|.
double relative_difference(const accel::BandedMatrix<double>& a,
                           const accel::BandedMatrix<double>& b) {
  double diff = 0, scale = 0;
  for (int k = 0; k < accel::kBands; ++k)
    for (std::size_t r = 0; r < b.rows(); ++r) {
      diff = std::max(diff, std::abs(a.band[k][r] - b.band[k][r]));
      scale = std::max(scale, std::abs(b.band[k][r]));
    }
  return diff / scale;
}

bool same_bits(const accel::BandedMatrix<double>& a, const accel::BandedMatrix<double>& b) {
  for (int k = 0; k < accel::kBands; ++k)
    if (a.band[k].size() != b.band[k].size() ||
        std::memcmp(a.band[k].data(), b.band[k].data(), a.band[k].size() * sizeof(double)) != 0)
      return false;
  return true;
}

struct Fixture {
  Communicator comm;
  // Dirichlet on the part listed first only, so that local matrices have free macro sides.
  DistributedMesh dm = distribute(read_msh(mesh_path("unit_square_4x2.msh")), {}, comm);
  std::vector<bool> dirichlet = [this] {
    std::vector<bool> d(dm.mesh.part_names.size(), false);
    d[0] = true;
    return d;
  }();

  LevelHierarchy build(bool laplacian, bool mass, bool mass_rediscretised,
                       int finest = kLevel) const {
    const MacroAssembler assemble = [=](const MacroGeometry& g, accel::BandedMatrix<double>& A,
                                        int m) {
      if (laplacian) add_laplacian(g, A, m);
      if (mass) add_mass(g, A, m, 50.0);
    };
    const MacroAssembler mass_part = [](const MacroGeometry& g, accel::BandedMatrix<double>& A,
                                        int m) { add_mass(g, A, m, 50.0); };
    return LevelHierarchy(dm, comm, finest, dirichlet, assemble,
                          mass_rediscretised ? mass_part : MacroAssembler());
  }
};

}  // namespace

TEST(LocalLevels, WithoutARediscretisedPartTheyAreGalerkinProducts) {
  const Fixture f;
  const LevelHierarchy h = f.build(true, true, false);
  const auto levels = local_coarse_levels(h, kLevel, 1);
  ASSERT_EQ(levels.size(), 3u);
  accel::BandedMatrix<double> expected = h.local_matrix(kLevel);
  for (int k = 2; k >= 0; --k) {
    expected = accel::cpu::galerkin_coarse(expected);
    EXPECT_EQ(relative_difference(levels[k], expected), 0.0) << "local level " << k + 1;
  }
}

TEST(LocalLevels, HybridLevelsAreGalerkinOfTheRestPlusTheRediscretisedPart) {
  const Fixture f;
  const LevelHierarchy hybrid = f.build(true, true, true);
  const LevelHierarchy laplacian = f.build(true, false, false);
  const LevelHierarchy mass = f.build(false, true, false);
  const auto levels = local_coarse_levels(hybrid, kLevel, 1);
  const auto galerkin_laplacian = local_coarse_levels(laplacian, kLevel, 1);
  const auto galerkin_all = local_coarse_levels(f.build(true, true, false), kLevel, 1);
  ASSERT_EQ(levels.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    // Expected: Galerkin products of L, plus the mass matrix assembled on level k + 1, with the
    // unit rows of the Dirichlet nodes (where the local mass matrix has unit rows too).
    accel::BandedMatrix<double> expected = galerkin_laplacian[k];
    const accel::BandedMatrix<double> m = mass.local_matrix(k + 1);
    const auto& dirichlet = mass.level(k + 1).dirichlet;
    for (int b = 0; b < accel::kBands; ++b)
      for (std::size_t r = 0; r < expected.rows(); ++r)
        if (!dirichlet[r]) expected.band[b][r] += m.band[b][r];
    EXPECT_LE(relative_difference(levels[k], expected), 1e-13) << "local level " << k + 1;
    // The rediscretised mass differs from its Galerkin product (4x weight at the centre per
    // level), so the hybrid levels really are different operators.
    EXPECT_GT(relative_difference(levels[k], galerkin_all[k]), 1e-3) << "local level " << k + 1;
  }
}

TEST(LocalLevels, DirichletRowsStayUnitRowsOnEveryLevel) {
  const Fixture f;
  const LevelHierarchy h = f.build(true, true, true);
  const auto levels = local_coarse_levels(h, kLevel, 1);
  for (int k = 0; k < 3; ++k) {
    const auto& dirichlet = h.level(k + 1).dirichlet;
    int unit_rows = 0;
    for (std::size_t r = 0; r < levels[k].rows(); ++r) {
      if (!dirichlet[r]) continue;
      ++unit_rows;
      for (int b = 0; b < accel::kBands; ++b)
        ASSERT_EQ(levels[k].band[b][r], b == accel::kCentre ? 1.0 : 0.0)
            << "level " << k + 1 << " row " << r;
    }
    EXPECT_GT(unit_rows, 0);
  }
}

// The local matrix made in the hierarchy's own storage (LevelHierarchy::with_local_matrix, the
// set-up of every local solver) is bitwise local_matrix(l), and the type-0 matrix is bitwise
// itself again afterwards, also when the callback throws; on the unstructured square too, whose
// macros share edges in every orientation.
TEST(LocalLevels, LocalMatrixInPlaceIsTheCopyAndTheTypeZeroMatrixComesBack) {
  const Fixture f;
  const Communicator comm;
  const DistributedMesh unstructured =
      distribute(read_msh(mesh_path("unit_square_unstructured.msh")), {}, comm);
  const LevelHierarchy hierarchies[] = {
      f.build(true, true, false),
      LevelHierarchy(unstructured, comm, kLevel,
                     std::vector<bool>(unstructured.mesh.part_names.size(), true),
                     [](const MacroGeometry& g, accel::BandedMatrix<double>& A, int m) {
                       add_laplacian(g, A, m);
                     })};
  for (const LevelHierarchy& h : hierarchies)
    for (int l : {1, 3, kLevel}) {
      const accel::BandedMatrix<double> type0 = h.level(l).matrix;
      const accel::BandedMatrix<double> local = h.local_matrix(l);
      ASSERT_FALSE(same_bits(type0, local)) << "level " << l;
      bool called = false;
      h.with_local_matrix(l, [&](const accel::BandedMatrix<double>& A) {
        called = true;
        EXPECT_TRUE(same_bits(A, local)) << "level " << l;
      });
      EXPECT_TRUE(called);
      EXPECT_TRUE(same_bits(h.level(l).matrix, type0)) << "level " << l;
      EXPECT_THROW(
          h.with_local_matrix(
              l, [](const accel::BandedMatrix<double>&) { throw std::runtime_error("x"); }),
          std::runtime_error);
      EXPECT_TRUE(same_bits(h.level(l).matrix, type0)) << "level " << l << " after a throw";
    }
}

// Levels made in zone form for a local solver that sweeps from zones alone: every level has the
// zones, and the small ones the bands, of the band products, bitwise; the large ones no bands.
TEST(LocalLevels, ZoneFormHasTheZonesAndBandsOfTheBandProducts) {
  const Fixture f;
  const int level = 6;
  const LevelHierarchy h = f.build(true, true, false, level);
  const accel::BandedMatrix<double> fine = h.local_matrix(level);
  const accel::StencilZones<double> fine_zones = accel::detect_stencil_zones(fine);
  ASSERT_TRUE(fine_zones.all());
  const LocalCoarseLevels bands(h, level, 1, fine);
  LocalCoarseLevels zones(h, level, 1, fine, &fine_zones);
  ASSERT_TRUE(bands.zones().empty());
  const auto expect_band_products = [&](const char* when) {
    ASSERT_EQ(zones.zones().size(), bands.matrices().size()) << when;
    for (std::size_t k = 0; k < bands.matrices().size(); ++k) {
      const accel::BandedMatrix<double>& A = zones.matrices()[k];
      EXPECT_EQ(A.has_bands(), A.n <= accel::cpu::kZonedGalerkinMinNodes) << when << ", " << k;
      if (A.has_bands()) {
        EXPECT_TRUE(same_bits(A, bands.matrices()[k])) << when << ", " << k;
      }
      EXPECT_TRUE(same_zones(zones.zones()[k], accel::detect_stencil_zones(bands.matrices()[k])))
          << when << ", local level " << k;
    }
  };
  expect_band_products("set-up");
  zones.update(fine);
  expect_band_products("update");
  // A fine matrix with a macro off the zones cannot update levels in zone form.
  accel::BandedMatrix<double> unzoned = fine;
  unzoned.at(0, 1, 3) = -0.0;
  EXPECT_THROW(zones.update(unzoned), SolverError);
}
