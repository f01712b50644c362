// Constant-stencil zones (accel/stencil_zones.hpp): what the detection accepts and refuses, and
// the zoned kernels against the band kernels (bitwise: same products, same order).

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/galerkin.hpp"
#include "accel/cpu/local_multigrid.hpp"
#include "accel/cpu/smoothers/diagonal_check.hpp"
#include "accel/cpu/smoothers/smoother.hpp"
#include "accel/stencil_zones.hpp"
#include "q1_test_matrices.hpp"

namespace quilt::accel {
namespace {

using testing::MacroSpec;

/// Macros with every combination the local matrices have: all sides Dirichlet, one side, none
/// (a macro inside the domain), a scaled coefficient.
std::vector<MacroSpec> mixed_macros() {
  return {{1.0, testing::kAllDirichlet},
          {1.0, testing::kSouthDirichlet},
          {1.0, {false, false, false, false}},
          {0.37, {false, true, true, false}}};
}

template <class T>
void expect_bitwise_equal(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(std::memcmp(&a[i], &b[i], sizeof(T)), 0)
        << what << ", row " << i << ": " << a[i] << " vs " << b[i];
}

TEST(StencilZones, AcceptsEveryLevelOfAnAffineConstantCoefficientMacro) {
  for (int level : {3, 4, 6}) {
    const auto A = testing::q1_laplacian(level, mixed_macros());
    EXPECT_TRUE(detect_stencil_zones(A).all()) << "level " << level;
  }
  // Galerkin coarse levels differ on the second grid lines (P^T A P reaches the boundary rows),
  // which the 5 zones per axis hold.
  auto A = testing::q1_laplacian(7, mixed_macros());
  for (int k = 0; k < 4; ++k) {
    A = cpu::galerkin_coarse(A);
    if (A.n < kMinZonedNodes) break;
    EXPECT_TRUE(detect_stencil_zones(A).all()) << "Galerkin level n = " << A.n;
  }
  // Constant convection with SUPG on a stretched grid: nonsymmetric, still one stencil.
  testing::OperatorSpec op;
  op.aspect = 4.0;
  op.nu = 1e-2;
  op.w = [](double, double) { return std::array<double, 2>{1.0, 0.5}; };
  EXPECT_TRUE(detect_stencil_zones(testing::q1_operator(5, mixed_macros(), op)).all());
}

TEST(StencilZones, RefusesVariableCoefficientsAndBandsThatDifferInOneUlp) {
  testing::OperatorSpec op;
  op.nu = 1e-2;
  op.w = [](double x, double y) { return std::array<double, 2>{y, -x}; };  // rotating
  const auto zones = detect_stencil_zones(testing::q1_operator(5, mixed_macros(), op));
  EXPECT_FALSE(zones.any());

  auto A = testing::q1_laplacian(5, mixed_macros());
  const std::size_t interior = 7 + 11 * static_cast<std::size_t>(A.n);
  A.at(kCentre, 2, interior) = std::nextafter(A.at(kCentre, 2, interior), 10.0);
  const auto one_off = detect_stencil_zones(A);
  EXPECT_TRUE(one_off.is_zoned(0));
  EXPECT_TRUE(one_off.is_zoned(1));
  EXPECT_FALSE(one_off.is_zoned(2));
  EXPECT_TRUE(one_off.is_zoned(3));
  // A -0 where the zone holds +0 is not the same row either (its products differ in sign).
  auto B = testing::q1_laplacian(5, mixed_macros());
  B.at(0, 1, 3) = -0.0;  // south-west of a first-line row: 0 by the storage convention
  EXPECT_FALSE(detect_stencil_zones(B).is_zoned(1));
  // Random bands and grids too small for a middle zone.
  EXPECT_FALSE(detect_stencil_zones(testing::random_bands<double>(2, 17, 3)).any());
  EXPECT_FALSE(detect_stencil_zones(testing::q1_laplacian(2, mixed_macros())).any());
}

template <class T>
class ZonedKernels : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ZonedKernels, Precisions);

TYPED_TEST(ZonedKernels, EqualTheBandKernelsBitwise) {
  using T = TypeParam;
  for (int level : {3, 4, 5}) {
    // One macro made variable, so the batch mixes both paths.
    auto Ad = testing::q1_laplacian(level, mixed_macros());
    const std::size_t some = 5 + 3 * static_cast<std::size_t>(Ad.n);
    Ad.at(kCentre, 1, some) *= 1.5;
    for (int coarse = 0; coarse < 2; ++coarse) {
      const BandedMatrix<T> A = Ad.template converted<T>();
      const StencilZones<T> zones = detect_stencil_zones(A);
      ASSERT_TRUE(zones.is_zoned(0) && !zones.is_zoned(1) && zones.is_zoned(2));
      // The zones of the double matrix, converted, are the zones of the float matrix.
      const auto via_double = detect_stencil_zones(Ad).template converted<T>();
      ASSERT_EQ(via_double.zoned, zones.zoned);
      const auto x = testing::random_vector<T>(A.rows(), 17 + level);
      const auto b = testing::random_vector<T>(A.rows(), 29 + level);
      std::vector<T> band_out(A.rows()), zoned_out(A.rows());
      cpu::spmv(A, x.data(), band_out.data());
      cpu::spmv(A, via_double, x.data(), zoned_out.data());
      expect_bitwise_equal(band_out, zoned_out, "spmv");
      cpu::defect(A, b.data(), x.data(), band_out.data());
      cpu::defect(A, zones, b.data(), x.data(), zoned_out.data());
      expect_bitwise_equal(band_out, zoned_out, "defect");
      cpu::jacobi_sweep(A, T(0.7), b.data(), x.data(), band_out.data());
      cpu::jacobi_sweep(A, zones, T(0.7), b.data(), x.data(), zoned_out.data());
      expect_bitwise_equal(band_out, zoned_out, "jacobi");
      cpu::jacobi_from_zero(A, StencilZones<T>{}, T(0.7), b.data(), band_out.data());
      cpu::jacobi_from_zero(A, zones, T(0.7), b.data(), zoned_out.data());
      expect_bitwise_equal(band_out, zoned_out, "jacobi from x = 0");
      // The same on the Galerkin coarse level (second-line zones differ).
      Ad = cpu::galerkin_coarse(Ad);
      if (Ad.n < kMinZonedNodes) break;
    }
  }
}

/// Two copies of one macro's matrix, the second kept out of the zoned path by a -0 where the
/// storage convention has +0 (the arithmetic is the same but the bits are not), so the smoothers
/// can be compared on the two paths in one batch.
template <class T>
BandedMatrix<T> zoned_and_banded_copy(const BandedMatrix<double>& one) {
  BandedMatrix<double> two(2, one.n);
  for (int k = 0; k < kBands; ++k)
    for (int m = 0; m < 2; ++m)
      std::copy(one.band[k].begin(), one.band[k].end(),
                two.band[k].begin() + m * one.rows_per_macro());
  two.at(0, 1, 3) = -0.0;  // south-west of a first-line row
  return two.template converted<T>();
}

TEST(StencilZones, GalerkinOfAZonedMacroEqualsTheRowByRowProductBitwise) {
  testing::OperatorSpec op;
  op.aspect = 2.0;
  op.nu = 1e-2;
  op.w = [](double, double) { return std::array<double, 2>{-0.5, 1.0}; };
  for (const auto& one : {testing::q1_laplacian(6, {{1.0, testing::kSouthDirichlet}}),
                          testing::q1_laplacian(5, {{1.0, {false, false, false, false}}}),
                          testing::q1_operator(5, {{1.0, {false, true, false, true}}}, op)}) {
    const auto A = zoned_and_banded_copy<double>(one);
    ASSERT_TRUE(is_zoned_macro(A, 0));
    ASSERT_FALSE(is_zoned_macro(A, 1));
    const auto Ac = cpu::galerkin_coarse(A);
    const std::size_t nn = Ac.rows_per_macro();
    for (int k = 0; k < kBands; ++k)
      for (std::size_t r = 0; r < nn; ++r)
        ASSERT_EQ(std::memcmp(&Ac.band[k][r], &Ac.band[k][nn + r], sizeof(double)), 0)
            << "band " << k << ", row " << r;
  }
}

TEST(StencilZones, GalerkinZonesFromZonesAloneAreThoseOfTheBandProduct) {
  testing::OperatorSpec op;
  op.aspect = 2.0;
  op.nu = 1e-2;
  op.w = [](double, double) { return std::array<double, 2>{-0.5, 1.0}; };
  for (int level : {4, 5, 7}) {
    for (const auto& A : {testing::q1_laplacian(level, mixed_macros()),
                          testing::q1_operator(level, mixed_macros(), op)}) {
      const auto zones = detect_stencil_zones(A);
      ASSERT_TRUE(zones.all()) << "level " << level;
      const auto expected = detect_stencil_zones(cpu::galerkin_coarse(A));
      const auto got = cpu::galerkin_coarse_zones(zones);
      ASSERT_EQ(got.n, expected.n);
      ASSERT_EQ(got.zoned, expected.zoned);
      for (int m = 0; m < A.macros; ++m)
        EXPECT_EQ(std::memcmp(&got.zones[m], &expected.zones[m], sizeof(got.zones[m])), 0)
            << "level " << level << ", macro " << m;
    }
  }
  // Too small a grid, or a macro off the zones, is refused.
  EXPECT_THROW(
      cpu::galerkin_coarse_zones(detect_stencil_zones(testing::q1_laplacian(3, mixed_macros()))),
      AccelError);
  auto B = testing::q1_laplacian(5, mixed_macros());
  B.at(0, 1, 3) = -0.0;
  EXPECT_THROW(cpu::galerkin_coarse_zones(detect_stencil_zones(B)), AccelError);
}

TYPED_TEST(ZonedKernels, SmoothersSweepTheSameOnBothPaths) {
  using T = TypeParam;
  testing::OperatorSpec op;
  op.aspect = 3.0;
  op.nu = 1e-2;
  op.w = [](double, double) { return std::array<double, 2>{1.0, -0.25}; };
  for (const auto& one : {testing::q1_laplacian(5, {{1.0, testing::kSouthDirichlet}}),
                          testing::q1_operator(4, {{1.0, {false, false, true, false}}}, op)}) {
    const auto A = zoned_and_banded_copy<T>(one);
    const auto zones = detect_stencil_zones(A);
    ASSERT_TRUE(zones.is_zoned(0));
    ASSERT_FALSE(zones.is_zoned(1));
    const std::size_t nn = A.rows_per_macro();
    auto b = testing::random_vector<T>(nn, 5);
    b.insert(b.end(), b.begin(), b.end());
    for (SmootherType type : {SmootherType::jacobi, SmootherType::ssor, SmootherType::trigs_x,
                              SmootherType::trigs_y, SmootherType::aditrigs, SmootherType::ilu})
      for (SweepOrder order : {SweepOrder::lexicographic, SweepOrder::colour}) {
        if (order == SweepOrder::colour && !has_colour_order(type)) continue;
        auto smoother = cpu::make_smoother(A, {type, order, default_damping(type)});
        for (auto direction : {cpu::SweepDirection::forward, cpu::SweepDirection::backward}) {
          auto x = testing::random_vector<T>(nn, 9);
          x.insert(x.end(), x.begin(), x.end());
          smoother->smooth(A, b.data(), x.data(), 2, direction, false);
          for (std::size_t r = 0; r < nn; ++r)
            ASSERT_EQ(x[r], x[nn + r])
                << to_string(type) << "/" << to_string(order) << ", row " << r;
        }
      }
  }
}

// ------------------------------------------------------------------------------------------------
// A batch whose every macro is zoned needs no bands for Jacobi (BandedMatrix::shape_only): the
// sweeps (the first from x = 0 too) and the local multigrid on such levels compute bitwise what
// they compute from the bands; the smoothers that read bands refuse such a batch.

TYPED_TEST(ZonedKernels, JacobiSweepsAShapeOnlyBatchBitwiseAsItsBands) {
  using T = TypeParam;
  const BandedMatrix<T> A = testing::q1_laplacian(5, mixed_macros()).template converted<T>();
  const auto zones = detect_stencil_zones(A);
  ASSERT_TRUE(zones.all());
  const auto shape = BandedMatrix<T>::shape_only(A.macros, A.n);
  ASSERT_FALSE(shape.has_bands());
  const SmootherType jacobi = SmootherType::jacobi;
  auto from_bands = cpu::make_smoother(A, {jacobi, SweepOrder::lexicographic, 0.7});
  auto from_zones = cpu::make_smoother(shape, zones, {jacobi, SweepOrder::lexicographic, 0.7});
  const auto b = testing::random_vector<T>(A.rows(), 21);
  for (bool x_is_zero : {true, false})
    for (int steps : {1, 2, 3}) {
      auto x_bands = testing::random_vector<T>(A.rows(), 22);
      auto x_zones = x_bands;
      from_bands->smooth(A, b.data(), x_bands.data(), steps, cpu::SweepDirection::forward,
                         x_is_zero);
      from_zones->smooth(shape, b.data(), x_zones.data(), steps, cpu::SweepDirection::forward,
                         x_is_zero);
      expect_bitwise_equal(x_bands, x_zones, "jacobi from the zones");
    }
}

TEST(StencilZones, OnlyJacobiSweepsAShapeOnlyBatchAndOnlyWhenEveryMacroIsZoned) {
  const BandedMatrix<double> A = testing::q1_laplacian(4, mixed_macros());
  const auto shape = BandedMatrix<double>::shape_only(A.macros, A.n);
  const auto zones = detect_stencil_zones(A);
  for (SmootherType type :
       {SmootherType::gs, SmootherType::trigs_x, SmootherType::aditrigs, SmootherType::ilu}) {
    EXPECT_THROW(cpu::make_smoother(shape, zones, {type, SweepOrder::lexicographic, 0.7}),
                 AccelError)
        << to_string(type);
    auto built = cpu::make_smoother(A, zones, {type, SweepOrder::lexicographic, 0.7});
    EXPECT_THROW(built->update(shape, zones), AccelError) << to_string(type);
  }
  StencilZones<double> one_banded = zones;
  one_banded.zoned[2] = 0;
  EXPECT_THROW(
      cpu::make_smoother(shape, one_banded, {SmootherType::jacobi, SweepOrder::lexicographic, 0.7}),
      AccelError);
  // A zero centre in a zone is named at the zone's first row.
  StencilZones<double> singular = zones;
  singular.zones[1][kMiddleZone * kZonesPerAxis + kMiddleZone][kCentre] = 0.0;
  try {
    cpu::check_diagonal(shape, singular);
    FAIL() << "a zero centre was accepted";
  } catch (const AccelError& e) {
    EXPECT_NE(std::string(e.what()).find("macro 1, node (2, 2)"), std::string::npos) << e.what();
  }
  // So does the Jacobi smoother, which divides as it sweeps and only checks the diagonal.
  try {
    cpu::make_smoother(shape, singular, {SmootherType::jacobi, SweepOrder::lexicographic, 0.7});
    FAIL() << "a zero centre was accepted by the Jacobi smoother";
  } catch (const AccelError& e) {
    EXPECT_NE(std::string(e.what()).find("macro 1, node (2, 2)"), std::string::npos) << e.what();
  }
}

template <class T>
void expect_zoned_jacobi_levels_solve_without_bands() {
  const testing::Hierarchy zoned = testing::galerkin_hierarchy(2, 6, mixed_macros());
  testing::Hierarchy banded = zoned;
  for (auto& A : banded.matrices) A.at(0, 0, 3) = -0.0;  // macro 0 takes the band path
  LocalSolverParams p;
  p.precision = std::is_same_v<T, float> ? Precision::float32 : Precision::float64;
  p.smoother = SmootherType::jacobi;
  CpuLocalMultigrid<T> from_zones(p), from_bands(p);
  from_zones.setup(zoned.levels());
  from_bands.setup(banded.levels());
  for (int k = 1; k < static_cast<int>(zoned.matrices.size()); ++k) {
    EXPECT_FALSE(from_zones.has_bands(k)) << "level " << k;
    EXPECT_TRUE(from_bands.has_bands(k)) << "level " << k;
  }
  const auto d = testing::random_defect(zoned.finest(), mixed_macros(), 31);
  std::vector<double> c_zones(d.size()), c_bands(d.size());
  from_zones.solve(d.data(), c_zones.data());
  from_bands.solve(d.data(), c_bands.data());
  expect_bitwise_equal(c_zones, c_bands, "local multigrid correction");
  // Given the zones, with the coarse levels above the coarsest as shape_only: the same.
  CpuLocalMultigrid<T> from_given(p);
  std::vector<BandedMatrix<double>> shapes;
  std::vector<StencilZones<double>> level_zones;
  for (const auto& A : zoned.matrices) {
    shapes.push_back(shapes.empty() ? A : BandedMatrix<double>::shape_only(A.macros, A.n));
    level_zones.push_back(detect_stencil_zones(A));
  }
  std::vector<const BandedMatrix<double>*> shape_levels;
  std::vector<const StencilZones<double>*> zone_levels;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    shape_levels.push_back(k + 1 < shapes.size() ? &shapes[k] : &zoned.finest());
    zone_levels.push_back(&level_zones[k]);
  }
  from_given.setup_zoned(shape_levels, zone_levels);
  std::vector<double> c_given(d.size());
  from_given.solve(d.data(), c_given.data());
  expect_bitwise_equal(c_given, c_bands, "local multigrid on shape_only levels with given zones");
  // Refused: a shape_only coarsest level, and shape_only levels for a smoother that reads bands.
  std::vector<const BandedMatrix<double>*> no_coarse_bands = shape_levels;
  const auto coarse_shape = BandedMatrix<double>::shape_only(shapes[0].macros, shapes[0].n);
  no_coarse_bands[0] = &coarse_shape;
  CpuLocalMultigrid<T> refused(p);
  EXPECT_THROW(refused.setup_zoned(no_coarse_bands, zone_levels), AccelError);
  LocalSolverParams line = p;
  line.smoother = SmootherType::aditrigs;
  CpuLocalMultigrid<T> line_solver(line);
  EXPECT_FALSE(line_solver.sweeps_from_zones_alone());
  EXPECT_THROW(line_solver.setup_zoned(shape_levels, zone_levels), AccelError);
  // An update to numbers some smoother must read from bands makes them.
  from_zones.update(banded.levels());
  EXPECT_TRUE(from_zones.has_bands(1));
  from_zones.solve(d.data(), c_zones.data());
  expect_bitwise_equal(c_zones, c_bands, "correction after an update to band levels");
}

TEST(StencilZones, LocalMultigridSolvesZonedJacobiLevelsWithoutBands) {
  expect_zoned_jacobi_levels_solve_without_bands<float>();
  expect_zoned_jacobi_levels_solve_without_bands<double>();
}

}  // namespace
}  // namespace quilt::accel
