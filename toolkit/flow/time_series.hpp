#pragma once
// The quantities of an instationary run over time (DFG 2D-2 / 2D-3: drag, lift and pressure
// difference per time step), their evaluation over the periods of a periodic flow, and their
// output as the results document's "time_series" and as CSV.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "io/json.hpp"

namespace quilt {

/// One entry per time step; drag, lift and pressure_difference are empty when the run does not
/// evaluate them (no postprocess.forces, no postprocess.pressure_points).
struct TimeSeries {
  std::vector<double> t, drag, lift, pressure_difference;
  std::vector<int> nonlinear_steps, linear_iterations;
  std::vector<double> seconds;
  std::vector<int> rejected;  ///< adaptive steps: the tries refused by the error estimate
};

/// Crank-Nicolson determines its pressure through the mean of each step's end values,
/// Lambda_n = (p^n + p^{n-1}) / 2 (the multiplier of the trapezoidal step), and p^n itself carries
/// the error of p^{n-1} on, alternating undamped (flow/time_stepping.hpp): the backward Euler
/// start leaves one of O(k dp/dt) (DFG 2D-2 at L = 3, dt = 0.01: c_D alternates by 4e-4 to 8e-4
/// from step to step). A quantity y that the pressure carries (drag, lift, pressure difference,
/// the pressure field itself) is therefore taken at t_n as Q(t_n), Q the quadratic whose step means
/// (Q(t_j) + Q(t_{j-1})) / 2 are the last three steps' (y_j + y_{j-1}) / 2: exact for y quadratic
/// in t, off by O(k^3 y''') otherwise, and free of any alternation (-1)^n. With two means
/// only (n = 2), the line through them; y*_0 = y_0, y*_1 = y_1. (The line through the last two
/// means at every step is off by k^2 y'' / 4, +0.24 % at the lift's peaks on DFG 2D-2 at L = 3, TOL
/// 1e-4.) The alternation is not removed in the scheme itself: carrying extrapolated pressures in
/// the theta step's history was unstable with PSPG, whose continuity rows feed the moved time
/// derivative back (docs/benchmarks.md, 2026-11-29).
double from_midpoints(const std::vector<double>& t, const std::vector<double>& y, std::size_t n);

/// from_midpoints(t, y, n) = sum_k c_k y[n - k] (k <= min(n, 3)): the weights c, which do not
/// depend on y (so that whole fields, such as the pressure, are taken the same way).
std::array<double, 4> midpoint_weights(const std::vector<double>& t, std::size_t n);

/// For n >= 2: from_midpoints(t, y, n) = sum_j a_j m_j over the step means
/// m_j = (y[n - j] + y[n - j - 1]) / 2 (j < min(n, 3); a_2 = 0 for n = 2): the weights a. A time
/// derivative's step means are the steps' difference quotients (the trapezoidal rule).
std::array<double, 3> step_mean_weights(const std::vector<double>& t, std::size_t n);

/// The series with drag, lift and pressure_difference from_midpoints at every step.
TimeSeries from_midpoints(const TimeSeries& s);

/// A periodic flow measured over its last full periods: the lift's upward crossings of its mean
/// level (the midpoint of its extremes over the second half of the run), found by linear
/// interpolation between time steps; the period is the mean distance of the crossings, and the
/// extremes are taken between the first and the last crossing.
struct PeriodicStatistics {
  int periods = 0;
  double period = 0;
  double strouhal = 0;  ///< St = L / (U T), ReynoldsScale's L and U (DFG 2D-2: D / (U_mean T))
  double drag_max = 0, drag_min = 0, lift_max = 0, lift_min = 0;
};

/// The statistics over the full periods in the second half of the series' time span (the
/// start-up left out), or nothing when it holds fewer than two full periods or no lift.
std::optional<PeriodicStatistics> periodic_statistics(const TimeSeries& series,
                                                      double reference_length,
                                                      double reference_velocity);

/// The series and their maxima as the results document's "time_series", "drag_max",
/// "lift_max" (absent quantities left out), "periodic" (with "strouhal") when
/// periodic_statistics found periods, "time_steps" with the means per time step of the
/// nonlinear steps, linear iterations and seconds, and "rejected_time_steps" (their sum).
void add_time_series(const TimeSeries& series, double reference_length, double reference_velocity,
                     Json& results);

/// A CSV file (a header line, one row per time step, 17 significant digits) written atomically:
/// t, then drag, lift, pressure_difference where evaluated, then nonlinear_steps,
/// linear_iterations, seconds. IoError naming the path when it cannot be written.
void write_time_series_csv(const std::string& path, const TimeSeries& series);

}  // namespace quilt
