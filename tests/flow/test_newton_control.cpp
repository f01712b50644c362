// The forcing term of the inexact Newton iteration (flow/newton_control.hpp): Eisenstat &
// Walker's choice 2 away from the target, and near it the reduction that ends the iteration in
// this step (at most the Picard tolerance eta_max).
#include <gtest/gtest.h>

#include "flow/newton_control.hpp"

using namespace quilt;

TEST(ForcingTerm, FollowsEisenstatWalkerAwayFromTheTarget) {
  // 0.9 (1e-3 / 1e-2)^2; the safeguard 0.9 eta_prev^2 = 0.009 < 0.1 is not used.
  EXPECT_DOUBLE_EQ(forcing_term(0.1, 1e-3, 1e-2, 0.1, 1e-12), 9e-3);
  // A slow contraction: 0.9 (0.5)^2 = 0.225, capped by eta_max.
  EXPECT_DOUBLE_EQ(forcing_term(0.1, 5e-4, 1e-3, 0.1, 1e-12), 0.1);
  // The safeguard: eta_prev = 0.5 gives 0.225 > 0.1, which lifts the quadratic 9e-7.
  EXPECT_DOUBLE_EQ(forcing_term(0.5, 1e-6, 1e-3, 0.3, 1e-14), 0.225);
}

TEST(ForcingTerm, EndsTheIterationWhenTheTargetIsWithinReach) {
  // |r| = 1e-8, target 1e-12: ending takes 5e-5. Choice 2 asks 0.9 (1e-8 / 5e-7)^2 = 3.6e-4,
  // which would leave 3.6e-12, short of the target by a factor 3.6: one more solve for half a
  // digit.
  EXPECT_DOUBLE_EQ(forcing_term(0.01, 1e-8, 5e-7, 0.1, 1e-12), 5e-5);
  // Choice 2 far below that: solving more exactly only over-solves (Kelley's safeguard).
  EXPECT_DOUBLE_EQ(forcing_term(0.01, 1e-11, 1e-6, 0.1, 1e-12), 0.05);
  // The last step asks no more than the target needs, within the Picard tolerance eta_max.
  EXPECT_DOUBLE_EQ(forcing_term(1e-4, 2e-11, 3e-8, 0.1, 1e-12), 0.025);
  EXPECT_DOUBLE_EQ(forcing_term(1e-4, 2e-12, 3e-8, 0.1, 1e-12), 0.1);
  // A factor 10 away and more: choice 2 stands.
  EXPECT_DOUBLE_EQ(forcing_term(0.01, 1e-7, 1e-5, 0.1, 1e-12), 9e-5);
}
