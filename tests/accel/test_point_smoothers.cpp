// The point smoothers (damped Jacobi, Gauss-Seidel, SOR, SSOR; accel/cpu/smoothers/
// jacobi_smoother.hpp, gauss_seidel_smoother.hpp): their sweeps against the dense reference of
// their formulas, lexicographic and by colour. What they share with the other families (unit
// rows, a symmetric V-cycle, rates, errors) is in test_smoothers.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "smoother_test_support.hpp"

namespace quilt::accel::smoother_tests {
namespace {

// Both SOR dampings on each side of 1.
INSTANTIATE_TEST_SUITE_P(
    PointSmoothers, SmootherSweep,
    ::testing::Values(SmootherParams{SmootherType::jacobi, SweepOrder::lexicographic, 0.7},
                      SmootherParams{SmootherType::gs, SweepOrder::lexicographic, 1.0},
                      SmootherParams{SmootherType::gs, SweepOrder::colour, 1.0},
                      SmootherParams{SmootherType::sor, SweepOrder::lexicographic, 0.8},
                      SmootherParams{SmootherType::sor, SweepOrder::lexicographic, 1.3},
                      SmootherParams{SmootherType::sor, SweepOrder::colour, 0.8},
                      SmootherParams{SmootherType::sor, SweepOrder::colour, 1.3},
                      SmootherParams{SmootherType::ssor, SweepOrder::lexicographic, 1.2},
                      SmootherParams{SmootherType::ssor, SweepOrder::colour, 0.9}),
    sweep_test_name);

template <class T>
void expect_lent_scratch_sweeps_as_own() {
  // Jacobi in the caller's scratch (the local multigrid lends its defect): bitwise as in its own,
  // for odd and even step counts from x = 0 and from a guess; the lent vector is used (every
  // count but one from zero writes it).
  const BandedMatrix<T> A = random_matrix<T>(2, 19, 31);
  const std::vector<T> b = random_vector<T>(A.rows(), 32);
  const std::vector<T> x0 = random_vector<T>(A.rows(), 33);
  const SmootherParams p{SmootherType::jacobi, SweepOrder::lexicographic, 0.7};
  const auto zones = detect_stencil_zones(A);
  std::vector<T> lent(A.rows(), T(-7));
  auto own = cpu::make_smoother(A, zones, p);
  auto borrowing = cpu::make_smoother(A, zones, p, lent.data());
  for (bool x_is_zero : {true, false})
    for (int steps : {1, 2, 3}) {
      std::vector<T> x = x0, y = x0;
      std::fill(lent.begin(), lent.end(), T(-7));
      own->smooth(A, b.data(), x.data(), steps, SweepDirection::forward, x_is_zero);
      borrowing->smooth(A, b.data(), y.data(), steps, SweepDirection::forward, x_is_zero);
      EXPECT_EQ(x, y) << steps << " steps, x_is_zero " << x_is_zero;
      const bool written = std::any_of(lent.begin(), lent.end(), [](T v) { return v != T(-7); });
      EXPECT_EQ(written, !(x_is_zero && steps == 1)) << steps << " steps";
    }
}

TEST(JacobiSmoother, SweepsInALentScratchAsInItsOwn) {
  expect_lent_scratch_sweeps_as_own<double>();
  expect_lent_scratch_sweeps_as_own<float>();
}

}  // namespace
}  // namespace quilt::accel::smoother_tests
