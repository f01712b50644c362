// The two-right-hand-side forms of the local layer (the two velocity components share one
// operator): spmv_pair / defect_pair, Smoother::smooth_pair, BatchedDenseLU::solve_pair and
// LocalSolver::solve_pair must give each vector bitwise what the one-vector form gives it, for
// every smoother (ILU(0) fuses its sweeps, the others fall back), float and double, on macros
// with bands and on constant-stencil (zoned) macros.

#include <gtest/gtest.h>

#include <vector>

#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/dense_lu.hpp"
#include "accel/cpu/galerkin.hpp"
#include "accel/local_solver.hpp"
#include "bitwise_equal.hpp"
#include "smoother_test_support.hpp"

namespace quilt::accel {
namespace {

using quilt::testing::bitwise_equal;
using smoother_tests::all_variants;
using smoother_tests::describe;
using testing::Hierarchy;
using testing::MacroSpec;
using testing::OperatorSpec;
using testing::random_vector;

/// Two macros: a constant-stencil Laplacian (zoned) and a random nonsymmetric one (bands).
template <class T>
BandedMatrix<T> zoned_and_banded(int level) {
  const std::vector<MacroSpec> specs(2);
  BandedMatrix<double> A = testing::q1_laplacian(level, specs);
  const BandedMatrix<double> R = testing::random_bands<double>(2, A.n, 5);
  for (int k = 0; k < kBands; ++k)
    for (std::size_t r = 0; r < A.rows_per_macro(); ++r) A.at(k, 1, r) = R.at(k, 1, r);
  return A.template converted<T>();
}

/// The swirl the convection tests of the local layer use.
OperatorSpec convection(double nu) {
  OperatorSpec op;
  op.nu = nu;
  op.w = [](double x, double y) { return std::array<double, 2>{0.5 - y, x - 0.25}; };
  return op;
}

/// Levels 1..fine: macro 0 a Laplacian (zoned on the fine level), macro 1 a convection-diffusion
/// operator with SUPG (bands), one side Dirichlet; Galerkin coarse levels.
Hierarchy mixed_hierarchy(int fine) {
  const std::vector<MacroSpec> specs(2, MacroSpec{1.0, testing::kSouthDirichlet});
  BandedMatrix<double> A = testing::q1_laplacian(fine, specs);
  const BandedMatrix<double> C = testing::q1_operator(fine, specs, convection(1e-2));
  for (int k = 0; k < kBands; ++k)
    for (std::size_t r = 0; r < A.rows_per_macro(); ++r) A.at(k, 1, r) = C.at(k, 1, r);
  std::vector<BandedMatrix<double>> down{A};
  for (int L = fine; L > 1; --L) down.push_back(cpu::galerkin_coarse(down.back()));
  Hierarchy h;
  h.matrices.assign(down.rbegin(), down.rend());
  return h;
}

template <class T>
class TwoRightHandSides : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TwoRightHandSides, Precisions);

TYPED_TEST(TwoRightHandSides, BandKernelsMatchOneVectorForms) {
  using T = TypeParam;
  for (int level : {1, 2, 5}) {
    const BandedMatrix<T> A = zoned_and_banded<T>(level);
    StencilZones<T> zones;
    detect_stencil_zones(A, zones);
    if (level == 5) {
      ASSERT_TRUE(zones.is_zoned(0)) << "the Laplacian macro is zoned";
    }
    ASSERT_FALSE(zones.is_zoned(1));
    const std::size_t rows = A.rows();
    const auto x0 = random_vector<T>(rows, 1), x1 = random_vector<T>(rows, 2);
    const auto b0 = random_vector<T>(rows, 3), b1 = random_vector<T>(rows, 4);
    const StencilZones<T>* none = nullptr;
    for (const StencilZones<T>* z : {none, static_cast<const StencilZones<T>*>(&zones)}) {
      std::vector<T> y0(rows), y1(rows), p0(rows), p1(rows);
      if (z) {
        cpu::spmv(A, *z, x0.data(), y0.data());
        cpu::spmv(A, *z, x1.data(), y1.data());
      } else {
        cpu::spmv(A, x0.data(), y0.data());
        cpu::spmv(A, x1.data(), y1.data());
      }
      cpu::spmv_pair(A, z, x0.data(), x1.data(), p0.data(), p1.data());
      EXPECT_TRUE(bitwise_equal(p0, y0)) << "spmv, level " << level << ", zones " << !!z;
      EXPECT_TRUE(bitwise_equal(p1, y1)) << "spmv, level " << level << ", zones " << !!z;
      if (z) {
        cpu::defect(A, *z, b0.data(), x0.data(), y0.data());
        cpu::defect(A, *z, b1.data(), x1.data(), y1.data());
      } else {
        cpu::defect(A, b0.data(), x0.data(), y0.data());
        cpu::defect(A, b1.data(), x1.data(), y1.data());
      }
      cpu::defect_pair(A, z, b0.data(), x0.data(), p0.data(), b1.data(), x1.data(), p1.data());
      EXPECT_TRUE(bitwise_equal(p0, y0)) << "defect, level " << level << ", zones " << !!z;
      EXPECT_TRUE(bitwise_equal(p1, y1)) << "defect, level " << level << ", zones " << !!z;
    }
  }
}

TYPED_TEST(TwoRightHandSides, EverySmootherMatchesTwoSweeps) {
  using T = TypeParam;
  // n = 35: lines of several blocks of the recurrences (linear_recurrence.hpp), which the ILU pair
  // sweep runs for both vectors line by line.
  const BandedMatrix<T> A = smoother_tests::random_matrix<T>(3, 35, 11);
  const std::size_t rows = A.rows();
  const auto b0 = random_vector<T>(rows, 21), b1 = random_vector<T>(rows, 22);
  const auto start0 = random_vector<T>(rows, 23), start1 = random_vector<T>(rows, 24);
  for (const cpu::SmootherParams& p : all_variants())
    for (cpu::SweepDirection direction : smoother_tests::kDirections)
      for (bool x_is_zero : {true, false}) {
        auto one = cpu::make_smoother(A, p);
        auto two = cpu::make_smoother(A, p);
        std::vector<T> x0 = start0, x1 = start1, y0 = start0, y1 = start1;
        one->smooth(A, b0.data(), x0.data(), 2, direction, x_is_zero);
        one->smooth(A, b1.data(), x1.data(), 2, direction, x_is_zero);
        two->smooth_pair(A, b0.data(), y0.data(), b1.data(), y1.data(), 2, direction, x_is_zero);
        const bool forward = direction == cpu::SweepDirection::forward;
        EXPECT_TRUE(bitwise_equal(y0, x0))
            << describe(p) << (forward ? " forward" : " backward") << " x_is_zero " << x_is_zero;
        EXPECT_TRUE(bitwise_equal(y1, x1))
            << describe(p) << (forward ? " forward" : " backward") << " x_is_zero " << x_is_zero;
      }
}

TYPED_TEST(TwoRightHandSides, DenseLuSolvesBothAsOne) {
  using T = TypeParam;
  const BandedMatrix<double> A = testing::random_bands<double>(3, 5, 31);
  cpu::BatchedDenseLU<T> lu;
  lu.factorise(A);
  const auto b0 = random_vector<T>(A.rows(), 32), b1 = random_vector<T>(A.rows(), 33);
  std::vector<T> x0(A.rows()), x1(A.rows()), y0(A.rows()), y1(A.rows());
  lu.solve(b0.data(), x0.data());
  lu.solve(b1.data(), x1.data());
  lu.solve_pair(b0.data(), y0.data(), b1.data(), y1.data());
  EXPECT_TRUE(bitwise_equal(y0, x0));
  EXPECT_TRUE(bitwise_equal(y1, x1));
}

/// solve() twice against solve_pair() on fresh solvers of the same parameters.
void expect_pair_matches(const Hierarchy& h, const LocalSolverParams& p, const std::string& what) {
  const std::size_t rows = h.finest().rows();
  std::vector<double> d0 = random_vector<double>(rows, 41), d1 = random_vector<double>(rows, 42);
  for (std::size_t r : unit_rows(h.finest())) d0[r] = d1[r] = 0.0;
  auto one = make_local_solver(p);
  auto two = make_local_solver(p);
  one->setup(h.levels());
  two->setup(h.levels());
  std::vector<double> c0(rows), c1(rows), e0(rows), e1(rows);
  one->solve(d0.data(), c0.data());
  one->solve(d1.data(), c1.data());
  two->solve_pair(d0.data(), d1.data(), e0.data(), e1.data());
  EXPECT_TRUE(bitwise_equal(e0, c0)) << what << ": first vector";
  EXPECT_TRUE(bitwise_equal(e1, c1)) << what << ": second vector";
  EXPECT_EQ(two->last_stats().cycles, one->last_stats().cycles) << what;
  // A second pair on the same solver: nothing of the first may leak into it.
  two->solve_pair(d1.data(), d0.data(), e1.data(), e0.data());
  EXPECT_TRUE(bitwise_equal(e0, c0)) << what << ": first vector, swapped, again";
  EXPECT_TRUE(bitwise_equal(e1, c1)) << what << ": second vector, swapped, again";
}

TYPED_TEST(TwoRightHandSides, LocalMultigridMatchesTwoSolvesForEverySmoother) {
  const Precision precision =
      std::is_same_v<TypeParam, float> ? Precision::float32 : Precision::float64;
  const Hierarchy h = mixed_hierarchy(5);
  for (const cpu::SmootherParams& s : all_variants())
    for (int cycles : {1, 2}) {
      LocalSolverParams p;
      p.precision = precision;
      p.smoother = s.type;
      p.ordering = s.order;
      p.damping = s.damping;
      p.max_cycles = cycles;
      p.pre_smooth = 2;
      expect_pair_matches(h, p, describe(s) + ", " + std::to_string(cycles) + " cycles");
    }
}

TYPED_TEST(TwoRightHandSides, LocalMultigridWithDigitsSolvesEachOnItsOwn) {
  LocalSolverParams p;
  p.precision = std::is_same_v<TypeParam, float> ? Precision::float32 : Precision::float64;
  p.smoother = SmootherType::ilu;
  p.max_cycles = 6;
  p.digits = 3;
  expect_pair_matches(mixed_hierarchy(4), p, "ilu, 3 digits");
}

TEST(TwoRightHandSides, OneLevelIsADirectSolveOfBoth) {
  Hierarchy h;
  h.matrices.push_back(testing::random_bands<double>(2, 5, 51));
  expect_pair_matches(h, LocalSolverParams{}, "one level");
}

}  // namespace
}  // namespace quilt::accel
