#include "flow/time_series.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <numeric>
#include <utility>

#include "io/atomic_file.hpp"

namespace quilt {
namespace {

/// The times at which `y` crosses `level` upwards on [first, y.size()), linearly interpolated.
std::vector<double> upward_crossings(const std::vector<double>& t, const std::vector<double>& y,
                                     double level, std::size_t first) {
  std::vector<double> crossings;
  for (std::size_t i = std::max<std::size_t>(first, 1); i < y.size(); ++i) {
    const double a = y[i - 1] - level, b = y[i] - level;
    if (a < 0 && b >= 0) crossings.push_back(t[i - 1] + (t[i] - t[i - 1]) * (-a / (b - a)));
  }
  return crossings;
}

}  // namespace

std::array<double, 3> step_mean_weights(const std::vector<double>& t, std::size_t n) {
  // Step j back (j = 0, 1[, 2]): mean m_j = Q(tau_j) + h_j^2 / 8 Q'' with tau_j its midpoint and
  // h_j its length; Q = q0 + q1 (s - t_n) + q2 (s - t_n)^2 / 2, and Q(t_n) = q0 = sum_j a_j m_j
  // is wanted.
  const std::size_t steps = std::min<std::size_t>(n, 3);
  std::array<std::array<double, 3>, 3> rows{};
  for (std::size_t j = 0; j < steps; ++j) {
    const double h = t[n - j] - t[n - j - 1], x = 0.5 * (t[n - j] + t[n - j - 1]) - t[n];
    rows[j] = {1.0, x, 0.5 * x * x + h * h / 8.0};
  }
  if (steps == 2) {  // the line through two means
    const double w = rows[0][1] / (rows[1][1] - rows[0][1]);
    return {1.0 + w, -w, 0.0};
  }
  // Cramer's rule for q0: a_j is the cofactor of row j's 1, over the determinant.
  const auto minor = [&](int i) {
    return rows[(i + 1) % 3][1] * rows[(i + 2) % 3][2] -
           rows[(i + 1) % 3][2] * rows[(i + 2) % 3][1];
  };
  const double det = minor(0) + minor(1) + minor(2);
  return {minor(0) / det, minor(1) / det, minor(2) / det};
}

std::array<double, 4> midpoint_weights(const std::vector<double>& t, std::size_t n) {
  if (n < 2) return {1.0, 0.0, 0.0, 0.0};
  // m_j = (y_{n-j} + y_{n-j-1}) / 2 gives y_{n-k} the weight (a_k + a_{k-1}) / 2.
  const std::array<double, 3> a = step_mean_weights(t, n);
  return {0.5 * a[0], 0.5 * (a[0] + a[1]), 0.5 * (a[1] + a[2]), 0.5 * a[2]};
}

double from_midpoints(const std::vector<double>& t, const std::vector<double>& y, std::size_t n) {
  const std::array<double, 4> c = midpoint_weights(t, n);
  double value = 0;
  for (std::size_t k = 0; k < 4 && k <= n; ++k) value += c[k] * y[n - k];
  return value;
}

TimeSeries from_midpoints(const TimeSeries& s) {
  TimeSeries out = s;
  for (auto [from, to] : {std::pair{&s.drag, &out.drag}, std::pair{&s.lift, &out.lift},
                          std::pair{&s.pressure_difference, &out.pressure_difference}})
    for (std::size_t n = 0; n < from->size(); ++n) (*to)[n] = from_midpoints(s.t, *from, n);
  return out;
}

std::optional<PeriodicStatistics> periodic_statistics(const TimeSeries& s, double reference_length,
                                                      double reference_velocity) {
  if (s.lift.size() != s.t.size() || s.t.size() < 4) return std::nullopt;
  // The second half in time, not in steps: adaptive steps crowd where the flow starts (DFG 2D-2
  // with Crank-Nicolson took 900 of 2915 steps before t = 0.23, docs/benchmarks.md).
  const std::size_t half = static_cast<std::size_t>(
      std::upper_bound(s.t.begin(), s.t.end(), 0.5 * s.t.back()) - s.t.begin());
  const auto [lo, hi] = std::minmax_element(s.lift.begin() + half, s.lift.end());
  const std::vector<double> crossings = upward_crossings(s.t, s.lift, 0.5 * (*lo + *hi), half);
  if (crossings.size() < 3) return std::nullopt;  // two full periods at least
  PeriodicStatistics p;
  p.periods = static_cast<int>(crossings.size()) - 1;
  p.period = (crossings.back() - crossings.front()) / p.periods;
  p.strouhal = reference_length / (reference_velocity * p.period);
  const auto in_periods = [&](const std::vector<double>& y, double& min, double& max) {
    min = std::numeric_limits<double>::infinity();
    max = -min;
    for (std::size_t i = 0; i < y.size(); ++i)
      if (s.t[i] >= crossings.front() && s.t[i] <= crossings.back()) {
        min = std::min(min, y[i]);
        max = std::max(max, y[i]);
      }
  };
  in_periods(s.drag, p.drag_min, p.drag_max);
  in_periods(s.lift, p.lift_min, p.lift_max);
  return p;
}

void add_time_series(const TimeSeries& s, double reference_length, double reference_velocity,
                     Json& results) {
  Json& j = results["time_series"];
  j["t"] = s.t;
  if (!s.drag.empty()) {
    j["drag"] = s.drag;
    j["lift"] = s.lift;
  }
  if (!s.pressure_difference.empty()) j["pressure_difference"] = s.pressure_difference;
  j["nonlinear_steps"] = s.nonlinear_steps;
  j["linear_iterations"] = s.linear_iterations;
  j["seconds"] = s.seconds;
  j["rejected"] = s.rejected;
  const double steps = static_cast<double>(std::max<std::size_t>(s.t.size(), 1));
  results["time_steps"] = s.t.size();
  results["nonlinear_steps_per_time_step"] =
      std::accumulate(s.nonlinear_steps.begin(), s.nonlinear_steps.end(), 0.0) / steps;
  results["linear_iterations_per_time_step"] =
      std::accumulate(s.linear_iterations.begin(), s.linear_iterations.end(), 0.0) / steps;
  results["seconds_per_time_step"] =
      std::accumulate(s.seconds.begin(), s.seconds.end(), 0.0) / steps;
  results["rejected_time_steps"] = std::accumulate(s.rejected.begin(), s.rejected.end(), 0);
  if (s.drag.empty()) return;
  results["drag_max"] = *std::max_element(s.drag.begin(), s.drag.end());
  results["lift_max"] = *std::max_element(s.lift.begin(), s.lift.end());
  if (const auto p = periodic_statistics(s, reference_length, reference_velocity))
    results["periodic"] = {{"periods", p->periods},   {"period", p->period},
                           {"strouhal", p->strouhal}, {"drag_max", p->drag_max},
                           {"drag_min", p->drag_min}, {"lift_max", p->lift_max},
                           {"lift_min", p->lift_min}};
}

void write_time_series_csv(const std::string& path, const TimeSeries& s) {
  const bool forces = !s.drag.empty(), dp = !s.pressure_difference.empty();
  write_file_atomically(path, [&](std::ostream& out) {
    out << "t" << (forces ? ",drag,lift" : "") << (dp ? ",pressure_difference" : "")
        << ",nonlinear_steps,linear_iterations,seconds\n";
    char buffer[32];
    const auto number = [&](double x) {
      std::snprintf(buffer, sizeof buffer, "%.17g", x);
      out << buffer;
    };
    for (std::size_t i = 0; i < s.t.size(); ++i) {
      number(s.t[i]);
      if (forces) {
        out << ',';
        number(s.drag[i]);
        out << ',';
        number(s.lift[i]);
      }
      if (dp) {
        out << ',';
        number(s.pressure_difference[i]);
      }
      out << ',' << s.nonlinear_steps[i] << ',' << s.linear_iterations[i] << ',';
      number(s.seconds[i]);
      out << '\n';
    }
  });
}

}  // namespace quilt
