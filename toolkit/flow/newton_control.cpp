#include "flow/newton_control.hpp"

#include <algorithm>

namespace quilt {

double forcing_term(double eta_prev, double residual, double residual_prev, double eta_max,
                    double target) {
  constexpr double gamma = 0.9;
  const double ratio = residual / residual_prev;
  double eta = gamma * ratio * ratio;
  const double safeguard = gamma * eta_prev * eta_prev;
  if (safeguard > 0.1) eta = std::max(eta, safeguard);
  eta = std::min(eta, eta_max);
  const double finish = 0.5 * target / residual;
  return eta < 10.0 * finish ? std::min(finish, eta_max) : eta;
}

void NewtonLineSearch::start(double residual, LevelVector& v, const LevelVector& c) {
  v_ = v;
  c_ = c;
  residual_ = residual;
  lambda_ = 1.0;
  pending_ = true;
  axpy(1.0, c, v);
}

NewtonLineSearch::Outcome NewtonLineSearch::check(double residual, LevelVector& v) {
  constexpr double armijo = 1e-4, shortest = 1.0 / 32;
  if (!pending_) return Outcome::none;
  if (residual <= (1.0 - armijo * lambda_) * residual_) {
    pending_ = false;
    return Outcome::accepted;
  }
  if (lambda_ <= shortest) {
    pending_ = false;
    return Outcome::exhausted;
  }
  lambda_ *= 0.5;
  v = v_;
  axpy(lambda_, c_, v);
  return Outcome::shortened;
}

}  // namespace quilt
