#pragma once
// Instationary Navier-Stokes by implicit time stepping on the stationary machinery: every step
// is one nonlinear solve of NavierStokesSolver (its set-up reused, nothing rebuilt), with the
// time derivative discretised by the lumped mass M:
//   backward Euler:  M (u^{n+1} - u^n) / dt + K(u^{n+1}) u^{n+1} + B p^{n+1} = f^{n+1},
//   BDF2:            M (3 u^{n+1} - 4 u^n + u^{n-1}) / (2 dt) + ... = f^{n+1},
// (Hairer & Wanner, Solving ODEs II, ch. V.1), the first BDF2 step taken by backward Euler; the
// pressure is implicit in every step (index-2 DAE: BDF keeps its order for the velocity). The
// stabilisation terms are those of the stationary operator (the time derivative is not part of
// the SUPG/PSPG residual).

#include <functional>

#include "flow/navier_stokes_solver.hpp"

namespace quilt {

enum class TimeScheme { euler, bdf2 };

struct TimeSteppingParams {
  TimeScheme scheme = TimeScheme::bdf2;
  double step = 0.01;  ///< dt
  double end = 1.0;    ///< the last time step ends here (from t = 0)
};

/// One line of the time-step log.
struct TimeStepRecord {
  int step = 0;  ///< n + 1
  double time = 0, dt = 0;
  int nonlinear_steps = 0, linear_iterations = 0;
  double seconds = 0;
};

class TimeStepper {
 public:
  /// Starts at t = 0 from the solver's current state (its initial condition).
  TimeStepper(NavierStokesSolver& solver, const TimeSteppingParams& params);

  /// Solves for the next time level; the state then holds u^{n+1}, p^{n+1}.
  NavierStokesResult advance();
  double time() const { return time_; }
  int steps() const { return steps_; }
  bool finished() const { return time_ >= params_.end - 1e-9 * params_.step; }
  const TimeStepRecord& last() const { return last_; }

 private:
  /// g of the step and its mass coefficient c: K v + c M v = h + g.
  double history_terms();

  NavierStokesSolver* solver_;
  TimeSteppingParams params_;
  double time_ = 0;
  int steps_ = 0;
  FlowVector previous_, current_;  ///< u^{n-1}, u^n
  FlowVector history_;
  TimeStepRecord last_;
};

}  // namespace quilt
