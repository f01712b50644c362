// The point smoothers (damped Jacobi, Gauss-Seidel, SOR, SSOR; accel/cpu/smoothers/
// jacobi_smoother.hpp, gauss_seidel_smoother.hpp): their sweeps against the dense reference of
// their formulas, lexicographic and by colour. What they share with the other families (unit
// rows, a symmetric V-cycle, rates, errors) is in test_smoothers.cpp.

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace quilt::accel::smoother_tests
