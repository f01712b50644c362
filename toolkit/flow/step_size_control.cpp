#include "flow/step_size_control.hpp"

#include <algorithm>
#include <cmath>

#include "solvers/solver_error.hpp"

namespace quilt {

bool has_local_error_estimate(TimeScheme scheme) {
  return scheme != TimeScheme::fractional_step_theta;
}

VelocityPrediction velocity_prediction(double k, double k1, double k2) {
  // Lagrange's basis at t_n + k on the nodes t_n, t_n - k_1, t_n - k_1 - k_2.
  return {.now = (k + k1) * (k + k1 + k2) / (k1 * (k1 + k2)),
          .previous = -k * (k + k1 + k2) / (k1 * k2),
          .older = k * (k + k1) / (k2 * (k1 + k2))};
}

double local_error_factor(TimeScheme scheme, double k, double k1, double k2) {
  const double w = k / k1;
  double predictor = 0, implicit = 0;
  switch (scheme) {
    case TimeScheme::euler:
      return 1.0;
    case TimeScheme::crank_nicolson:
      // The quadratic's error u'''/6 (t - t_n)(t - t_{n-1})(t - t_{n-2}) at t = t_n + k.
      predictor = (k + k1) * (k + k1 + k2) / (6.0 * k * k);
      implicit = -1.0 / 12.0;
      break;
    case TimeScheme::bdf2:
      predictor = (2.0 * w + 3.0) / (12.0 * w);  // Adams-Bashforth 2
      implicit = -(1.0 + w) * (1.0 + w) / (6.0 * w * (1.0 + 2.0 * w));
      break;
    case TimeScheme::fractional_step_theta:
      throw SolverError("local error estimate: none for the fractional-step theta scheme");
  }
  return std::abs(implicit / (predictor - implicit));
}

int local_error_exponent(TimeScheme scheme) {
  return scheme == TimeScheme::euler ? 2 : 3;
}

double StepSizeController::next_step(double k, double error) const {
  constexpr double kSafety = 0.9, kMaxGrowth = 2.0, kMaxShrink = 0.2;
  if (error == 0) return kMaxGrowth * k;  // nothing moved (a state at rest): grow
  if (!std::isfinite(error)) return kMaxShrink * k;
  const double factor = kSafety * std::pow(tolerance / error, 1.0 / exponent);
  if (accepts(error) && factor <= kKeepStepUpTo) return k;
  return k * std::clamp(factor, kMaxShrink, kMaxGrowth);
}

}  // namespace quilt
