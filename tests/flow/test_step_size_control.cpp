// The local error estimate of adaptive time steps (flow/step_size_control.hpp) on a scalar ODE
// with a known solution, u' = lambda (u - phi) + phi', u = phi: one step from exact data, for
// every scheme that has an estimate, for step ratios w = k / k_1 of 1/4, 1 and 4 and k_2 = k_1 or
// 3 k_1 (Crank-Nicolson's prediction reads u^{n-2}). The estimate f |u^{n+1} - u^P| must match
// the step's true error to 1 %; BDF2 with its constant-step error constant (-2/9) gives 0.43 of
// the error at w = 1/4, the constant-step AB2 constant (5/12) 1.67, and Crank-Nicolson with the
// quadratic's constant-step constant (1) 0.37-13 times it.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "flow/step_size_control.hpp"
#include "solvers/solver_error.hpp"

using namespace quilt;

namespace {

constexpr double kLambda = -2.0;
double phi(double t) {
  return std::sin(3.0 * t) + std::exp(-t);
}
double dphi(double t) {
  return 3.0 * std::cos(3.0 * t) - std::exp(-t);
}

/// u^{n+1} of one step of length k from the exact u at t and t - k / w: the schemes of
/// flow/time_stepping.hpp on u' = lambda (u - phi(t)) + phi'(t), solved for u^{n+1} exactly.
double one_step(TimeScheme scheme, double t, double k, double w) {
  const double t1 = t + k, u0 = phi(t);
  const double g1 = -kLambda * phi(t1) + dphi(t1);  // u' = lambda u + g(t)
  switch (scheme) {
    case TimeScheme::euler:
      return (u0 + k * g1) / (1.0 - k * kLambda);
    case TimeScheme::crank_nicolson: {
      const double f0 = kLambda * u0 - kLambda * phi(t) + dphi(t);
      return (u0 + 0.5 * k * (f0 + g1)) / (1.0 - 0.5 * k * kLambda);
    }
    case TimeScheme::bdf2: {
      const double um = phi(t - k / w);
      const double a0 = (1.0 + 2.0 * w) / (1.0 + w), a1 = -(1.0 + w), a2 = w * w / (1.0 + w);
      return (k * g1 - a1 * u0 - a2 * um) / (a0 - k * kLambda);
    }
    case TimeScheme::fractional_step_theta:
      break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

class LocalErrorEstimate : public ::testing::TestWithParam<TimeScheme> {};

TEST_P(LocalErrorEstimate, MatchesTheTrueErrorOfOneStep) {
  const TimeScheme scheme = GetParam();
  const double t = 0.7, k = 1e-4;
  for (double w : {0.25, 1.0, 4.0})
    for (double ratio : {1.0, 3.0}) {
      const double k1 = k / w, k2 = ratio * k1;
      const double u1 = one_step(scheme, t, k, w);
      double predicted = phi(t) + 0.5 * k * ((2.0 + w) * dphi(t) - w * dphi(t - k1));
      if (scheme == TimeScheme::crank_nicolson) {
        const VelocityPrediction p = velocity_prediction(k, k1, k2);
        predicted = p.now * phi(t) + p.previous * phi(t - k1) + p.older * phi(t - k1 - k2);
      }
      const double estimate = local_error_factor(scheme, k, k1, k2) * std::abs(u1 - predicted);
      const double error = std::abs(phi(t + k) - u1);
      EXPECT_NEAR(estimate / error, 1.0, 0.01)
          << "w = " << w << ", k_2 / k_1 = " << ratio << ": estimate " << estimate
          << ", true error " << error;
    }
}

INSTANTIATE_TEST_SUITE_P(Schemes, LocalErrorEstimate,
                         ::testing::Values(TimeScheme::euler, TimeScheme::bdf2,
                                           TimeScheme::crank_nicolson));

TEST(LocalErrorEstimate, RefusesTheFractionalStepThetaScheme) {
  EXPECT_THROW(local_error_factor(TimeScheme::fractional_step_theta, 1.0, 1.0, 1.0), SolverError);
}

TEST(StepSizeController, FollowsTheErrorWithinItsLimits) {
  const StepSizeController c{.tolerance = 1e-4, .exponent = 3};
  EXPECT_TRUE(c.accepts(1e-4));
  EXPECT_FALSE(c.accepts(1.0001e-4));
  EXPECT_FALSE(c.accepts(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_DOUBLE_EQ(c.next_step(1.0, 8e-4), 0.45);  // 0.9 (1/8)^(1/3)
  EXPECT_DOUBLE_EQ(c.next_step(1.0, 1e-9), 2.0);   // growth capped
  EXPECT_DOUBLE_EQ(c.next_step(1.0, 0.0), 2.0);
  EXPECT_DOUBLE_EQ(c.next_step(1.0, 1.0), 0.2);  // shrinking capped
  EXPECT_DOUBLE_EQ(c.next_step(1.0, std::numeric_limits<double>::infinity()), 0.2);
  EXPECT_DOUBLE_EQ(c.next_step(1.0, std::numeric_limits<double>::quiet_NaN()), 0.2);
  const StepSizeController euler{.tolerance = 1e-4, .exponent = 2};
  EXPECT_DOUBLE_EQ(euler.next_step(1.0, 4e-4), 0.45);  // 0.9 (1/4)^(1/2)
}

// After an accepted step, a proposal of up to 1.2 times the step keeps the step bitwise (and with
// it the time coefficient of the next solve, for which the preconditioner is kept), however
// close the estimate came to the tolerance; a larger growth is taken. A rejected step shrinks.
TEST(StepSizeController, KeepsTheStepAfterAnAcceptedOneUnlessItMayGrowMoreThan20Percent) {
  for (int q : {2, 3}) {
    const StepSizeController c{.tolerance = 1e-4, .exponent = q};
    // The error whose proposal is `growth` times the step.
    const auto error_for = [&](double growth) { return 1e-4 * std::pow(0.9 / growth, q); };
    const double k = 0.0123;
    for (double growth : {0.9, 0.95, 1.0, 1.1, 1.199})
      EXPECT_EQ(c.next_step(k, error_for(growth)), k);
    EXPECT_EQ(c.next_step(k, 1e-4), k);  // at the tolerance: accepted
    EXPECT_NEAR(c.next_step(k, error_for(1.201)), 1.201 * k, 1e-12 * k);
    EXPECT_NEAR(c.next_step(k, error_for(1.5)), 1.5 * k, 1e-12 * k);
    EXPECT_NEAR(c.next_step(k, error_for(0.899)), 0.899 * k, 1e-12 * k);  // rejected
  }
}

}  // namespace
