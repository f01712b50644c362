#include "flow/time_stepping.hpp"

#include <chrono>
#include <cmath>

#include "solvers/solver_error.hpp"

namespace quilt {

TimeStepper::TimeStepper(NavierStokesSolver& solver, const TimeSteppingParams& params)
    : solver_(&solver),
      params_(params),
      previous_(solver.state()),
      current_(solver.state()),
      history_(solver.state().block_size()) {
  if (!(params.step > 0) || !std::isfinite(params.step))
    throw SolverError("time.step must be a finite number > 0, got " + std::to_string(params.step));
  if (!(params.end > 0) || !std::isfinite(params.end))
    throw SolverError("time.end must be a finite number > 0, got " + std::to_string(params.end));
}

double TimeStepper::history_terms() {
  const double dt = params_.step;
  const bool bdf2 = params_.scheme == TimeScheme::bdf2 && steps_ > 0;
  const LevelVector& mass = solver_->assembly().lumped_mass();
  const double a = bdf2 ? 2.0 / dt : 1.0 / dt;  // g = M (a u^n + b u^{n-1})
  const double b = bdf2 ? -0.5 / dt : 0.0;
  const std::span<const double> un[2] = {current_.u1(), current_.u2()};
  const std::span<const double> um[2] = {previous_.u1(), previous_.u2()};
  const std::span<double> g[2] = {history_.u1(), history_.u2()};
  for (int k = 0; k < 2; ++k)
    for (std::size_t i = 0; i < mass.size(); ++i) g[k][i] = mass[i] * (a * un[k][i] + b * um[k][i]);
  return bdf2 ? 1.5 / dt : 1.0 / dt;
}

NavierStokesResult TimeStepper::advance() {
  const auto start = std::chrono::steady_clock::now();
  const double c = history_terms();
  const double t = params_.step * (steps_ + 1);  // not summed: no drift over many steps
  solver_->set_time(t);
  NavierStokesResult result = solver_->solve({.mass_coefficient = c, .history = &history_});
  previous_ = current_;
  current_ = solver_->state();
  time_ = t;
  ++steps_;
  last_ = {
      .step = steps_,
      .time = t,
      .dt = params_.step,
      .nonlinear_steps = static_cast<int>(result.steps.size()) - 1,
      .linear_iterations = 0,
      .seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
  for (const auto& s : result.steps) last_.linear_iterations += s.linear_iterations;
  return result;
}

}  // namespace quilt
