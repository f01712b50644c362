#include "flow/time_stepping.hpp"

#include <chrono>
#include <cmath>

#include "solvers/solver_error.hpp"

namespace quilt {

TimeStepper::TimeStepper(NavierStokesSolver& solver, const TimeSteppingParams& params,
                         TimeCallback time_changed)
    : solver_(&solver),
      params_(params),
      time_changed_(std::move(time_changed)),
      previous_(solver.state()),
      current_(solver.state()),
      residual_(solver.state().block_size()),
      history_(solver.state().block_size()) {
  if (!(params.step > 0) || !std::isfinite(params.step))
    throw SolverError("time.step must be a finite number > 0, got " + std::to_string(params.step));
  if (!(params.end > 0) || !std::isfinite(params.end))
    throw SolverError("time.end must be a finite number > 0, got " + std::to_string(params.end));
}

NavierStokesResult TimeStepper::solve(double c, double t) {
  if (time_changed_) time_changed_(t);
  solver_->set_time(t);
  NavierStokesResult result =
      solver_->solve({.mass_coefficient = c, .history = &history_, .step = params_.step});
  // M d' = c M u' - g - (the momentum residual M d' + S d' + K u' + B p' - f), i.e. R(u', p')
  // - S d' with S the SUPG part of the time derivative: the derivative at the new level that the
  // next theta step's history needs (flow/time_step_terms.hpp). On Dirichlet rows (where the
  // residual is the boundary force, not an equation) it is c M u' - g, the scheme's derivative
  // of the boundary data, which the SUPG/PSPG terms of the boundary elements read.
  const LevelVector& mass = solver_->assembly().lumped_mass();
  const auto& dirichlet = solver_->problem().boundary.dirichlet;
  const FlowVector& v = solver_->state();
  const std::span<const double> u[2] = {v.u1(), v.u2()};
  const std::span<const double> g[2] = {history_.u1(), history_.u2()};
  const LevelVector* residual[2] = {&result.momentum_residual1, &result.momentum_residual2};
  const std::span<double> r[2] = {residual_.u1(), residual_.u2()};
  for (int k = 0; k < 2; ++k)
    for (std::size_t i = 0; i < mass.size(); ++i)
      r[k][i] = c * mass[i] * u[k][i] - g[k][i] - (dirichlet[i] ? 0.0 : (*residual[k])[i]);
  has_residual_ = true;
  previous_ = current_;
  current_ = v;
  last_.nonlinear_steps += static_cast<int>(result.steps.size()) - 1;
  for (const auto& s : result.steps) last_.linear_iterations += s.linear_iterations;
  return result;
}

NavierStokesResult TimeStepper::theta_step(double k, double a, double t) {
  if (!has_residual_) a = 1.0;  // no R(u^0, p^0): backward Euler
  const double c = 1.0 / (a * k);
  const double explicit_weight = (1.0 - a) / a;
  const LevelVector& mass = solver_->assembly().lumped_mass();
  const std::span<const double> un[2] = {current_.u1(), current_.u2()};
  const std::span<const double> rn[2] = {residual_.u1(), residual_.u2()};
  const std::span<double> g[2] = {history_.u1(), history_.u2()};
  for (int q = 0; q < 2; ++q)
    for (std::size_t i = 0; i < mass.size(); ++i)
      g[q][i] = c * mass[i] * un[q][i] + explicit_weight * rn[q][i];
  return solve(c, t);
}

NavierStokesResult TimeStepper::bdf2_step(double t) {
  if (steps_ == 0) return theta_step(params_.step, 1.0, t);
  const double dt = params_.step;
  const LevelVector& mass = solver_->assembly().lumped_mass();
  const std::span<const double> un[2] = {current_.u1(), current_.u2()};
  const std::span<const double> um[2] = {previous_.u1(), previous_.u2()};
  const std::span<double> g[2] = {history_.u1(), history_.u2()};
  for (int q = 0; q < 2; ++q)  // g = M (4 u^n - u^{n-1}) / (2 dt)
    for (std::size_t i = 0; i < mass.size(); ++i)
      g[q][i] = mass[i] * (2.0 * un[q][i] - 0.5 * um[q][i]) / dt;
  return solve(1.5 / dt, t);
}

TimeStepperState TimeStepper::memory() const {
  return {.steps = steps_,
          .has_residual = has_residual_,
          .previous = previous_,
          .current = current_,
          .residual = residual_};
}

void TimeStepper::restore(TimeStepperState m) {
  const std::size_t block = solver_->state().block_size();
  for (const FlowVector* v : {&m.previous, &m.current, &m.residual})
    if (v->block_size() != block || v->values().size() != 3 * block)
      throw SolverError("time stepper restore: a vector of block size " +
                        std::to_string(v->block_size()) + ", this run has " +
                        std::to_string(block));
  steps_ = m.steps;
  time_ = params_.step * steps_;
  has_residual_ = m.has_residual;
  previous_ = std::move(m.previous);
  current_ = std::move(m.current);
  residual_ = std::move(m.residual);
}

NavierStokesResult TimeStepper::advance() {
  const auto start = std::chrono::steady_clock::now();
  const double dt = params_.step;
  const double t0 = dt * steps_, t1 = dt * (steps_ + 1);  // not summed: no drift
  last_ = {.step = steps_ + 1, .time = t1, .dt = dt};
  NavierStokesResult result;
  switch (params_.scheme) {
    case TimeScheme::euler:
      result = theta_step(dt, 1.0, t1);
      break;
    case TimeScheme::crank_nicolson:
      result = theta_step(dt, 0.5, t1);
      break;
    case TimeScheme::bdf2:
      result = bdf2_step(t1);
      break;
    case TimeScheme::fractional_step_theta: {
      const double theta = 1.0 - 1.0 / std::sqrt(2.0);
      const double alpha = (1.0 - 2.0 * theta) / (1.0 - theta);
      theta_step(theta * dt, alpha, t0 + theta * dt);
      theta_step((1.0 - 2.0 * theta) * dt, 1.0 - alpha, t1 - theta * dt);
      result = theta_step(theta * dt, alpha, t1);
      break;
    }
  }
  time_ = t1;
  ++steps_;
  last_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace quilt
