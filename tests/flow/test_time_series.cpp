// The evaluation of a periodic time series (flow/time_series.hpp): a lift sin(2 pi t / T) + a
// with drag and start-up transients must give back T, St = L / (U T) and the extremes over the
// full periods, to the accuracy of the linear interpolation between steps.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "flow/time_series.hpp"

using namespace quilt;

namespace {

/// Lift 0.5 sin(2 pi t / T) + 0.01 and drag 3.2 + 0.02 cos(4 pi t / T), preceded by a
/// start-up in which the lift is zero and the drag larger.
TimeSeries periodic_series(double period, double dt, double end) {
  TimeSeries s;
  for (int k = 1; k * dt <= end + 1e-12; ++k) {
    const double t = k * dt, w = 2 * std::numbers::pi / period;
    const bool started = t > 0.3 * end;
    s.t.push_back(t);
    s.lift.push_back(started ? 0.5 * std::sin(w * t) + 0.01 : 0.0);
    s.drag.push_back(started ? 3.2 + 0.02 * std::cos(2 * w * t) : 5.0);
    s.nonlinear_steps.push_back(1);
    s.linear_iterations.push_back(1);
    s.seconds.push_back(0);
    s.rejected.push_back(0);
  }
  return s;
}

TEST(PeriodicStatistics, RecoverThePeriodAndTheExtremes) {
  const double period = 0.331, dt = 0.001;
  const auto p = periodic_statistics(periodic_series(period, dt, 6.0), 0.1, 1.0);
  ASSERT_TRUE(p.has_value());
  EXPECT_GE(p->periods, 8);
  EXPECT_NEAR(p->period, period, 1e-6);
  EXPECT_NEAR(p->strouhal, 0.1 / period, 1e-5);
  EXPECT_NEAR(p->lift_max, 0.51, 1e-5);  // dt^2 (2 pi / T)^2 / 8 below the peak at most
  EXPECT_NEAR(p->lift_min, -0.49, 1e-5);
  EXPECT_NEAR(p->drag_max, 3.22, 1e-4);  // the start-up drag 5.0 lies before the periods
  EXPECT_NEAR(p->drag_min, 3.18, 1e-4);
}

// Adaptive steps crowd where the flow starts: the second half is that of the time span, not of
// the steps. Steps of 1e-4 up to t = 2.5 and of 0.01 after it, T = 0.331, t <= 6: 8 periods in
// t >= 3; the second half of the steps (from t = 1.27) held 13.
TEST(PeriodicStatistics, TakeTheSecondHalfOfTheTimeSpan) {
  const double period = 0.331;
  const TimeSeries fine = periodic_series(period, 1e-4, 6.0),
                   coarse = periodic_series(period, 0.01, 6.0);
  TimeSeries s;
  const auto append = [&](const TimeSeries& from, double t0, double t1) {
    for (std::size_t i = 0; i < from.t.size(); ++i)
      if (from.t[i] > t0 && from.t[i] <= t1) {
        s.t.push_back(from.t[i]);
        s.lift.push_back(from.lift[i]);
        s.drag.push_back(from.drag[i]);
      }
  };
  append(fine, 0.0, 2.5);
  append(coarse, 2.5, 6.0 + 1e-12);
  const auto p = periodic_statistics(s, 0.1, 1.0);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->periods, 8);
  EXPECT_NEAR(p->period, period, 1e-6);
}

TEST(PeriodicStatistics, NeedTwoFullPeriods) {
  EXPECT_FALSE(periodic_statistics(periodic_series(1.0, 0.01, 2.5), 0.1, 1.0).has_value());
  EXPECT_TRUE(periodic_statistics(periodic_series(1.0, 0.01, 7.0), 0.1, 1.0).has_value());
  TimeSeries no_lift = periodic_series(1.0, 0.01, 7.0);
  no_lift.lift.clear();
  no_lift.drag.clear();
  EXPECT_FALSE(periodic_statistics(no_lift, 0.1, 1.0).has_value());
}

// Crank-Nicolson's drag, lift and pressure difference are reported from the means of its steps
// (from_midpoints): with steps of varying length a quantity quadratic in t comes back exactly from
// the fourth step on, linear from the third, an alternation (-1)^n around it vanishes, and a
// smooth one comes back to third order. The line through the last two means (the weight of the
// quadratic's Q'' left out) is off by k^2 y'' / 4 and fails the first.
TEST(FromMidpoints, KeepAQuadraticQuantityAndRemoveAnAlternation) {
  TimeSeries s;
  double t = 0;
  for (int n = 0; n < 12; ++n) {
    t += 0.01 * (1 + n % 3);  // steps of 0.01, 0.02, 0.03
    s.t.push_back(t);
    const double alternation = (n % 2 == 0 ? 1e-3 : -1e-3);
    s.drag.push_back(3.0 + 2.0 * t - 40.0 * t * t + alternation);
    s.lift.push_back(0.5 - t);
    s.pressure_difference.push_back(std::sin(10.0 * t));
  }
  const TimeSeries m = from_midpoints(s);
  EXPECT_EQ(m.t, s.t);
  EXPECT_EQ(m.drag[0], s.drag[0]);
  EXPECT_EQ(m.drag[1], s.drag[1]);
  for (std::size_t n = 2; n < s.t.size(); ++n) {
    EXPECT_NEAR(m.lift[n], 0.5 - s.t[n], 1e-14) << n;
    if (n < 3) continue;
    EXPECT_NEAR(m.drag[n], 3.0 + 2.0 * s.t[n] - 40.0 * s.t[n] * s.t[n], 1e-12) << n;
    // O(k^3 y'''): below 1e-3 for steps <= 0.03 and |y'''| <= 1000.
    EXPECT_NEAR(m.pressure_difference[n], std::sin(10.0 * s.t[n]), 1e-3) << n;
  }
}

}  // namespace
