#pragma once
// Instationary Navier-Stokes by implicit time stepping on the stationary machinery: every step
// is one nonlinear solve of NavierStokesSolver (its set-up reused, nothing rebuilt), with the
// time derivative discretised by the mass M, consistent or lumped (flow/velocity_mass.hpp).
// With R(u, p) = f - K(u) u - B p the steady momentum residual:
//   BDF2:      M (3 u^{n+1} - 4 u^n + u^{n-1}) / (2 dt) = R^{n+1},
//   theta step of length k with implicit weight a (b = 1 - a):
//              M (u' - u) / k = a R(u', p') + b R(u, p),
//   backward Euler (a = 1), Crank-Nicolson (a = 1/2), and the fractional-step theta scheme:
//   three theta steps of lengths theta dt, (1 - 2 theta) dt, theta dt with a = alpha, beta,
//   alpha, theta = 1 - 1/sqrt(2), alpha = (1 - 2 theta) / (1 - theta), beta = 1 - alpha
//   (Glowinski 2003; Turek 1999, ch. 3: strongly A-stable and second order).
// A theta step is solved divided by a: K(u') u' + B p' + M u' / (a k) = f' + M u / (a k)
// + (b / a) R(u, p), i.e. with TimeStepTerms c = 1 / (a k) and that history; R(u, p) comes from
// the previous step's solve (its momentum residual), so the old operator is never re-assembled.
// The first step of BDF2 and of the schemes with b > 0 is a backward Euler step (no R^0 yet):
// one first-order step of length <= dt keeps the global order 2.
// The pressure is implicit in every step. The SUPG/PSPG element residuals carry the scheme's
// discrete time derivative d' = c u' - M^{-1} g (flow/time_step_terms.hpp), so R above is the
// stabilised steady residual less S d', and the stepper keeps M d' in its place: with it the
// theta recursion a d' + b d = (u' - u) / k holds for the derivative itself, and a uniformly
// accelerating flow is reproduced exactly (tests/flow/test_time_stepping.cpp).
// With time.tolerance > 0 the step size adapts (flow/step_size_control.hpp): from the third step
// on, each step's local error is estimated against a prediction (the Adams-Bashforth one from d^n
// and d^{n-1}; for Crank-Nicolson the quadratic through u^{n-2}, u^{n-1}, u^n), a step above the
// tolerance is retried shorter from u^n, and BDF2 takes its
// variable-step form with w = k / k_prev:
//   ((1 + 2w) u^{n+1} - (1 + w)^2 u^n + w^2 u^{n-1}) / ((1 + w) k) = R^{n+1}.

#include <functional>
#include <limits>

#include "flow/navier_stokes_solver.hpp"
#include "flow/time_scheme.hpp"
#include "flow/velocity_mass.hpp"

namespace quilt {

struct TimeSteppingParams {
  TimeScheme scheme = TimeScheme::bdf2;
  double step = 0.01;  ///< dt; with adaptive steps the first two steps' length
  double end = 1.0;    ///< the last time step ends here (from t = 0)
  /// > 0: adaptive steps, each step's estimated local error in the velocity at most this,
  /// relative to the velocity (discrete L2 norms); 0: fixed steps of length `step`.
  double tolerance = 0;
  /// Adaptive steps: the longest step allowed, e.g. a tenth of a period that the error estimate
  /// cannot see before it has grown (the onset of vortex shedding).
  double step_max = std::numeric_limits<double>::infinity();
  /// The mass matrix of the time derivative (flow/velocity_mass.hpp).
  TimeMass mass = TimeMass::consistent;
};

/// One line of the time-step log.
struct TimeStepRecord {
  int step = 0;  ///< n + 1
  double time = 0, dt = 0;
  int nonlinear_steps = 0, linear_iterations = 0;  ///< over the step's substeps and retries
  int rejected = 0;           ///< adaptive: tries of this step refused by the error estimate
  double error_estimate = 0;  ///< adaptive: the accepted try's (0 before the third step)
  double seconds = 0;
};

/// The stepper's memory between time steps: what a restart needs besides the solver's state
/// (flow/checkpoint.hpp).
struct TimeStepperState {
  int steps = 0;
  double time = 0;
  double step = 0;           ///< the length of the next step
  double previous_step = 0;  ///< the length of the last step (0 before the first)
  double older_step = 0;     ///< the length of the step before it (0 before the second)
  bool has_residual = false;
  bool has_older = false;  ///< M d^{n-1} and u^{n-2} exist (from the third step on)
  /// u^{n-1}, u^n, M d^n, M d^{n-1}, u^{n-2}
  FlowVector previous, current, residual, previous_residual, older;
};

/// Called with the time a (sub)step solves for, before its solve: time-dependent loads read it.
using TimeCallback = std::function<void(double t)>;

class TimeStepper {
 public:
  /// Starts at t = 0 from the solver's current state (its initial condition).
  TimeStepper(NavierStokesSolver& solver, const TimeSteppingParams& params,
              TimeCallback time_changed = {});

  /// Solves for the next time level; the state then holds u^{n+1}, p^{n+1}. Returns the result
  /// of its last (sub)step.
  NavierStokesResult advance();
  double time() const { return time_; }
  int steps() const { return steps_; }
  bool finished() const { return time_ >= params_.end - 1e-9 * params_.step; }
  bool adaptive() const { return params_.tolerance > 0; }
  const TimeStepRecord& last() const { return last_; }
  const TimeSteppingParams& params() const { return params_; }

  /// The discrete time derivative at the new level of the last (sub)step, d' = c u' - M^{-1} g
  /// (nodal, every node), into d's u1 and u2.
  void derivative(FlowVector& d) const;
  /// The mass of the time derivative.
  const VelocityMass& mass() const { return mass_; }

  /// The memory to checkpoint, and its restoration (with the solver's state restored beside it,
  /// the next advance() computes bitwise what it would have computed without the restart).
  TimeStepperState memory() const;
  /// SolverError when the vectors do not have this stepper's sizes.
  void restore(TimeStepperState memory);

 private:
  /// One step of the scheme of length k from t0 to t1 (t0 + k, or as fixed steps compute it).
  NavierStokesResult step(double t0, double k, double t1);
  /// One theta step of length k with implicit weight a, ending at time t.
  NavierStokesResult theta_step(double k, double a, double t);
  /// One BDF2 step of length k ending at time t.
  NavierStokesResult bdf2_step(double k, double t);
  /// Solves with c and the history in history_, then keeps R(u', p') and u'.
  NavierStokesResult solve(double c, double t);
  /// An adaptive step: tried, and retried shorter from `before` while its error estimate is
  /// above the tolerance.
  NavierStokesResult adaptive_step();
  /// The prediction u^P of the step of length k from the state `before`, into scratch_'s u1, u2
  /// (flow/step_size_control.hpp).
  void predict(const TimeStepperState& before, double k);
  /// The relative local error estimate of the step of length k from the state `before` to the
  /// solver's state (flow/step_size_control.hpp).
  double local_error(const TimeStepperState& before, double k);

  NavierStokesSolver* solver_;
  TimeSteppingParams params_;
  TimeCallback time_changed_;
  double time_ = 0;
  int steps_ = 0;
  double step_ = 0;                ///< the length of the next step
  double previous_step_ = 0;       ///< the length of the last step
  double older_step_ = 0;          ///< the length of the step before it
  double macro_step_ = 0;          ///< the length of the step being taken (all its substeps)
  double last_coefficient_ = 0;    ///< c of the last solve
  FlowVector previous_, current_;  ///< u^{n-1}, u^n (the last two (sub)step states)
  FlowVector residual_;            ///< M d^n, the time derivative at u^n (momentum rows)
  FlowVector previous_residual_;   ///< M d^{n-1} (adaptive steps)
  FlowVector older_;               ///< u^{n-2} (adaptive Crank-Nicolson steps)
  bool has_residual_ = false, has_older_ = false;
  FlowVector history_;           ///< g of the next solve (u1, u2)
  FlowVector history_velocity_;  ///< M^{-1} g (u1, u2)
  FlowVector scratch_;           ///< BDF2's combination; the error estimate's difference
  VelocityMass mass_;
  TimeStepRecord last_;
};

}  // namespace quilt
