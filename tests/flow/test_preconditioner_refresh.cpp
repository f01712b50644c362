// When a time step's solve sets its preconditioner up again (flow/preconditioner_refresh.hpp):
// at the first solve, at a new time coefficient, on request, and once a solve needs (1 + growth)
// times the fewest linear iterations per correction since the set-up; never otherwise. A rule
// that compared with the first solve instead of the fewest, took > for >=, or kept a request
// past the set-up fails here.
#include <gtest/gtest.h>

#include "flow/preconditioner_refresh.hpp"

using namespace quilt;

namespace {

constexpr double kC = 583.0;  // c = 1 / (alpha theta dt) of the fractional-step theta scheme

TEST(PreconditionerRefresh, SetsUpFirstAndKeepsWhileTheIterationsStayLevel) {
  PreconditionerRefresh refresh(0.25);
  EXPECT_TRUE(refresh.due(kC));
  refresh.set_up(kC);
  EXPECT_FALSE(refresh.due(kC));  // nothing measured yet
  refresh.solved(3, 12);          // 4 per correction
  EXPECT_FALSE(refresh.due(kC));
  refresh.solved(3, 14);  // 4.67 < 1.25 x 4
  EXPECT_FALSE(refresh.due(kC));
  refresh.solved(0, 0);  // converged at its first residual: measures nothing
  EXPECT_FALSE(refresh.due(kC));
  refresh.solved(3, 15);  // 5 = 1.25 x 4
  EXPECT_TRUE(refresh.due(kC));
  refresh.set_up(kC);
  EXPECT_FALSE(refresh.due(kC));
}

TEST(PreconditionerRefresh, ComparesWithTheFewestIterationsSinceTheSetUp) {
  PreconditionerRefresh refresh(0.25);
  refresh.set_up(kC);
  refresh.solved(2, 10);  // 5
  refresh.solved(2, 8);   // 4: the fewest
  refresh.solved(2, 9);   // 4.5
  EXPECT_FALSE(refresh.due(kC));
  refresh.solved(2, 10);  // 5 = 1.25 x 4, though no more than the first solve's
  EXPECT_TRUE(refresh.due(kC));
  refresh.set_up(kC);  // forgets the counts of the old set-up
  refresh.solved(2, 12);
  EXPECT_FALSE(refresh.due(kC));
}

TEST(PreconditionerRefresh, SetsUpAtANewTimeCoefficientOnRequestAndAfterAStationarySolve) {
  PreconditionerRefresh refresh(0.25);
  refresh.set_up(kC);
  refresh.solved(3, 12);
  EXPECT_FALSE(refresh.due(kC * (1 + 1e-15)));  // the same c, rounded otherwise
  EXPECT_TRUE(refresh.due(kC * 1.01));
  EXPECT_TRUE(refresh.due(kC / 2));
  refresh.request();
  EXPECT_TRUE(refresh.due(kC));
  refresh.set_up(kC);
  EXPECT_FALSE(refresh.due(kC));
  refresh.forget();
  EXPECT_TRUE(refresh.due(kC));
}

TEST(PreconditionerRefresh, GrowthZeroSetsUpAtEverySolve) {
  PreconditionerRefresh refresh(0.0);
  refresh.set_up(kC);
  EXPECT_TRUE(refresh.due(kC));
  refresh.set_up(kC);
  refresh.solved(3, 12);
  EXPECT_TRUE(refresh.due(kC));
}

}  // namespace
