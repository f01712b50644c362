#include "flow/time_stepping.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "flow/step_size_control.hpp"
#include "solvers/solver_error.hpp"

namespace quilt {

TimeStepper::TimeStepper(NavierStokesSolver& solver, const TimeSteppingParams& params,
                         TimeCallback time_changed)
    : solver_(&solver),
      params_(params),
      time_changed_(std::move(time_changed)),
      step_(params.step),
      previous_(solver.state()),
      current_(solver.state()),
      residual_(solver.state().block_size()),
      previous_residual_(solver.state().block_size()),
      older_(solver.state()),
      history_(solver.state().block_size()),
      history_velocity_(solver.state().block_size()),
      scratch_(solver.state().block_size()),
      mass_(params.mass, solver.assembly().velocity(), solver.problem().level,
            solver.assembly().lumped_mass()) {
  if (!(params.step > 0) || !std::isfinite(params.step))
    throw SolverError("time.step must be a finite number > 0, got " + std::to_string(params.step));
  if (!(params.end > 0) || !std::isfinite(params.end))
    throw SolverError("time.end must be a finite number > 0, got " + std::to_string(params.end));
  if (!(params.tolerance >= 0) || !std::isfinite(params.tolerance))
    throw SolverError("time.tolerance must be a finite number >= 0, got " +
                      std::to_string(params.tolerance));
  if (!(params.step_max > 0))
    throw SolverError("time.step_max must be > 0, got " + std::to_string(params.step_max));
  if (adaptive() && !has_local_error_estimate(params.scheme))
    throw SolverError(
        "adaptive time steps (time.tolerance > 0) need time.scheme = euler, bdf2 or cn: the "
        "fractional-step theta scheme has no predictor-corrector error estimate");
}

NavierStokesResult TimeStepper::solve(double c, double t) {
  last_coefficient_ = c;
  if (time_changed_) time_changed_(t);
  solver_->set_time(t);
  mass_.solve(history_.u1().data(), history_velocity_.u1().data());
  mass_.solve(history_.u2().data(), history_velocity_.u2().data());
  NavierStokesResult result = solver_->solve({.mass_coefficient = c,
                                              .history = &history_,
                                              .history_velocity = &history_velocity_,
                                              .mass = params_.mass,
                                              .step = macro_step_,
                                              .nonlinear_rel_tol = params_.tolerance});
  // M d' = c M u' - g - (the momentum residual M d' + S d' + K u' + B p' - f), i.e. R(u', p')
  // - S d' with S the SUPG part of the time derivative: the derivative at the new level that the
  // next theta step's history needs (flow/time_step_terms.hpp). On Dirichlet rows (where the
  // residual is the boundary force, not an equation) it is c M u' - g, the scheme's derivative
  // of the boundary data, which the SUPG/PSPG terms of the boundary elements read.
  std::swap(previous_residual_, residual_);
  has_older_ = has_residual_;
  const auto& dirichlet = solver_->problem().boundary.dirichlet;
  const FlowVector& v = solver_->state();
  const std::span<const double> u[2] = {v.u1(), v.u2()};
  const std::span<const double> g[2] = {history_.u1(), history_.u2()};
  const LevelVector* residual[2] = {&result.momentum_residual1, &result.momentum_residual2};
  const std::span<double> r[2] = {residual_.u1(), residual_.u2()};
  for (int q = 0; q < 2; ++q) {
    mass_.apply(u[q].data(), r[q].data());
    for (std::size_t i = 0; i < r[q].size(); ++i)
      r[q][i] = c * r[q][i] - g[q][i] - (dirichlet[i] ? 0.0 : (*residual[q])[i]);
  }
  has_residual_ = true;
  std::swap(older_, previous_);
  std::swap(previous_, current_);
  current_ = v;
  last_.nonlinear_steps += static_cast<int>(result.steps.size()) - 1;
  for (const auto& s : result.steps) last_.linear_iterations += s.linear_iterations;
  return result;
}

void TimeStepper::derivative(FlowVector& d) const {
  const std::span<const double> u[2] = {current_.u1(), current_.u2()};
  const std::span<const double> z[2] = {history_velocity_.u1(), history_velocity_.u2()};
  const std::span<double> out[2] = {d.u1(), d.u2()};
  for (int q = 0; q < 2; ++q)
    for (std::size_t i = 0; i < out[q].size(); ++i)
      out[q][i] = last_coefficient_ * u[q][i] - z[q][i];
}

NavierStokesResult TimeStepper::theta_step(double k, double a, double t) {
  if (!has_residual_) a = 1.0;  // no R(u^0, p^0): backward Euler
  const double c = 1.0 / (a * k);
  const double explicit_weight = (1.0 - a) / a;
  const std::span<const double> un[2] = {current_.u1(), current_.u2()};
  const std::span<const double> rn[2] = {residual_.u1(), residual_.u2()};
  const std::span<double> g[2] = {history_.u1(), history_.u2()};
  for (int q = 0; q < 2; ++q) {
    mass_.apply(un[q].data(), g[q].data());
    for (std::size_t i = 0; i < g[q].size(); ++i)
      g[q][i] = c * g[q][i] + explicit_weight * rn[q][i];
  }
  return solve(c, t);
}

NavierStokesResult TimeStepper::bdf2_step(double k, double t) {
  if (steps_ == 0) return theta_step(k, 1.0, t);
  const double w = k / previous_step_;  // 1 with fixed steps: the coefficients 3/2, 2, 1/2
  const double next = (1.0 + 2.0 * w) / (1.0 + w), now = 1.0 + w, before = w * w / (1.0 + w);
  const std::span<const double> un[2] = {current_.u1(), current_.u2()};
  const std::span<const double> um[2] = {previous_.u1(), previous_.u2()};
  const std::span<double> g[2] = {history_.u1(), history_.u2()};
  const std::span<double> combined = scratch_.p();
  for (int q = 0; q < 2; ++q) {  // g = M ((1 + w) u^n - w^2 / (1 + w) u^{n-1}) / k
    for (std::size_t i = 0; i < combined.size(); ++i)
      combined[i] = (now * un[q][i] - before * um[q][i]) / k;
    mass_.apply(combined.data(), g[q].data());
  }
  return solve(next / k, t);
}

NavierStokesResult TimeStepper::step(double t0, double k, double t1) {
  macro_step_ = k;
  switch (params_.scheme) {
    case TimeScheme::euler:
      return theta_step(k, 1.0, t1);
    case TimeScheme::crank_nicolson:
      return theta_step(k, 0.5, t1);
    case TimeScheme::bdf2:
      return bdf2_step(k, t1);
    case TimeScheme::fractional_step_theta:
      break;
  }
  const double theta = 1.0 - 1.0 / std::sqrt(2.0);
  const double alpha = (1.0 - 2.0 * theta) / (1.0 - theta);
  theta_step(theta * k, alpha, t0 + theta * k);
  theta_step((1.0 - 2.0 * theta) * k, 1.0 - alpha, t1 - theta * k);
  return theta_step(theta * k, alpha, t1);
}

void TimeStepper::predict(const TimeStepperState& before, double k) {
  const std::span<double> e[2] = {scratch_.u1(), scratch_.u2()};
  const std::span<const double> un[2] = {before.current.u1(), before.current.u2()};
  if (params_.scheme == TimeScheme::crank_nicolson) {
    // The velocities' quadratic: CN's derivatives carry the pressure's undamped alternation.
    const VelocityPrediction w = velocity_prediction(k, before.previous_step, before.older_step);
    const std::span<const double> um[2] = {before.previous.u1(), before.previous.u2()};
    const std::span<const double> uo[2] = {before.older.u1(), before.older.u2()};
    for (int q = 0; q < 2; ++q)
      for (std::size_t i = 0; i < e[q].size(); ++i)
        e[q][i] = w.now * un[q][i] + w.previous * um[q][i] + w.older * uo[q][i];
    return;
  }
  // Adams-Bashforth 2 from M d^n, M d^{n-1}: u^P = u^n + k/2 ((2 + w) d^n - w d^{n-1}).
  const double w = k / before.previous_step;
  const std::span<const double> dn[2] = {before.residual.u1(), before.residual.u2()};
  const std::span<const double> dm[2] = {before.previous_residual.u1(),
                                         before.previous_residual.u2()};
  const std::span<double> increment = scratch_.p();
  for (int q = 0; q < 2; ++q) {
    for (std::size_t i = 0; i < e[q].size(); ++i)
      e[q][i] = 0.5 * k * ((2.0 + w) * dn[q][i] - w * dm[q][i]);
    mass_.solve(e[q].data(), increment.data());
    for (std::size_t i = 0; i < e[q].size(); ++i) e[q][i] = un[q][i] + increment[i];
  }
}

double TimeStepper::local_error(const TimeStepperState& before, double k) {
  const LevelVector& mass = solver_->assembly().lumped_mass();
  const GlobalLevel& level = solver_->assembly().velocity().level(solver_->problem().level);
  predict(before, k);
  const FlowVector& v = solver_->state();
  const std::span<const double> u[2] = {v.u1(), v.u2()};
  const std::span<double> e[2] = {scratch_.u1(), scratch_.u2()};
  const std::span<double> me = scratch_.p();  // M e, then M u
  double error = 0, size = 0;
  for (int q = 0; q < 2; ++q) {
    // u^{n+1} - u^P; the Dirichlet values are the data's, not the scheme's: no error there. The
    // norm is the lumped mass's, whichever mass the scheme uses.
    for (std::size_t i = 0; i < mass.size(); ++i) {
      e[q][i] = level.dirichlet[i] ? 0.0 : u[q][i] - e[q][i];
      me[i] = mass[i] * e[q][i];
    }
    error += level.shared->dot(me.data(), e[q].data());
    for (std::size_t i = 0; i < mass.size(); ++i) me[i] = mass[i] * u[q][i];
    size += level.shared->dot(me.data(), u[q].data());
  }
  const double factor =
      local_error_factor(params_.scheme, k, before.previous_step, before.older_step);
  return size > 0 ? factor * std::sqrt(error / size) : 0.0;
}

NavierStokesResult TimeStepper::adaptive_step() {
  const StepSizeController control{.tolerance = params_.tolerance,
                                   .exponent = local_error_exponent(params_.scheme)};
  const TimeStepperState before = memory();
  const FlowVector state = solver_->state();
  std::string failure;  // the last try's solver error, if it failed
  for (;;) {
    // The last step ends at time.end: one that would leave less than a tenth of itself is
    // stretched to it (within step_max), and one that would leave less than itself splits what
    // remains in two.
    const double remaining = params_.end - time_;
    const double wanted = std::min(step_, params_.step_max);
    double k = wanted;
    if (remaining <= 1.1 * wanted && remaining <= params_.step_max)
      k = remaining;
    else if (remaining < 2.0 * wanted)
      k = remaining / 2.0;
    if (k < 1e-10 * params_.end)
      throw SolverError("time step collapsed to " + std::to_string(k) +
                        " at t = " + std::to_string(time_) + ": the error estimate " +
                        std::to_string(last_.error_estimate) + " stays above time.tolerance " +
                        std::to_string(params_.tolerance) +
                        (failure.empty() ? "" : " (last try: " + failure + ")"));
    // The first two steps have no u^{n-2}, d^{n-1} to predict from: not judged, and not grown.
    bool judged = before.has_older;
    double error = 0;
    NavierStokesResult result;
    try {
      result = step(time_, k, time_ + k);
      if (judged) error = local_error(before, k);
    } catch (const SolverError& e) {
      judged = true;  // the step was too long to solve
      error = std::numeric_limits<double>::infinity();
      failure = e.what();
    }
    const double next = judged ? control.next_step(k, error) : k;
    last_.error_estimate = error;
    if (control.accepts(error)) {
      step_ = next;
      older_step_ = previous_step_;
      previous_step_ = last_.dt = k;
      time_ += k;
      return result;
    }
    ++last_.rejected;
    restore(before);
    solver_->state() = state;
    step_ = next;
  }
}

TimeStepperState TimeStepper::memory() const {
  return {.steps = steps_,
          .time = time_,
          .step = step_,
          .previous_step = previous_step_,
          .older_step = older_step_,
          .has_residual = has_residual_,
          .has_older = has_older_,
          .previous = previous_,
          .current = current_,
          .residual = residual_,
          .previous_residual = previous_residual_,
          .older = older_};
}

void TimeStepper::restore(TimeStepperState m) {
  const std::size_t block = solver_->state().block_size();
  for (const FlowVector* v : {&m.previous, &m.current, &m.residual, &m.previous_residual, &m.older})
    if (v->block_size() != block || v->values().size() != 3 * block)
      throw SolverError("time stepper restore: a vector of block size " +
                        std::to_string(v->block_size()) + ", this run has " +
                        std::to_string(block));
  steps_ = m.steps;
  time_ = m.time;
  step_ = m.step;
  previous_step_ = m.previous_step;
  older_step_ = m.older_step;
  has_residual_ = m.has_residual;
  has_older_ = m.has_older;
  previous_ = std::move(m.previous);
  current_ = std::move(m.current);
  residual_ = std::move(m.residual);
  previous_residual_ = std::move(m.previous_residual);
  older_ = std::move(m.older);
}

NavierStokesResult TimeStepper::advance() {
  const auto start = std::chrono::steady_clock::now();
  last_ = {.step = steps_ + 1};
  NavierStokesResult result;
  if (adaptive()) {
    result = adaptive_step();
  } else {
    const double dt = params_.step;
    result = step(dt * steps_, dt, dt * (steps_ + 1));
    time_ = dt * (steps_ + 1);  // not summed: no drift
    older_step_ = previous_step_;
    previous_step_ = dt;
    last_.dt = dt;
  }
  last_.time = time_;
  ++steps_;
  last_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace quilt
