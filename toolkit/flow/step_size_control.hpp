#pragma once
// Adaptive time steps (time.tolerance > 0) from a predictor-corrector estimate of each step's
// local error (Milne's device). The explicit second-order Adams-Bashforth prediction from the
// time derivatives d^n, d^{n-1} of the last two levels,
//   u^P = u^n + k/2 ((2 + w) d^n - w d^{n-1}),   w = k / k_prev,
// has the local error u(t + k) - u^P = C_P k^3 u''' + O(k^4) with C_P = (2 w + 3) / (12 w); the
// implicit step has C_s k^3 u''' with C_s = -1/12 (Crank-Nicolson, the trapezoidal rule) or
// -(1 + w)^2 / (6 w (1 + 2 w)) (variable-step BDF2). Subtracting,
//   u(t + k) - u^{n+1} ~ C_s / (C_P - C_s) (u^{n+1} - u^P)
// (the TR-AB2 pair of Gresho, Griffiths & Silvester, SISC 30 (2008); for Navier-Stokes Kay,
// Gresho, Griffiths & Silvester, SISC 32 (2010)). Backward Euler's error -k^2/2 u'' dominates the
// difference, so its estimate is u^{n+1} - u^P itself. The fractional-step theta scheme has no
// such estimate: as a composite one-step method its k^3 error weighs the elementary differentials
// of u' = f(t, u) differently, not as one multiple of u''', so adaptive steps refuse it.

#include "flow/time_scheme.hpp"

namespace quilt {

/// Whether `scheme` has the estimate below: every scheme but the fractional-step theta scheme.
bool has_local_error_estimate(TimeScheme scheme);

/// f of |u(t + k) - u^{n+1}| ~ f |u^{n+1} - u^P| for one step of `scheme` at the step ratio
/// w = k / k_prev > 0. SolverError for a scheme without the estimate.
double local_error_factor(TimeScheme scheme, double w);

/// The exponent of the local error, O(k^{q}): 2 for backward Euler, 3 for the second-order
/// schemes.
int local_error_exponent(TimeScheme scheme);

/// The step size rule (Hairer, Norsett & Wanner, Solving ODEs I, sec. II.4): a step whose error
/// estimate e is at most the tolerance is accepted; the next (or the retried) step is
/// k * 0.9 (tolerance / e)^{1/q}, at most twice and at least a fifth of k. After an accepted step
/// a proposal of at most kKeepStepUpTo k keeps k itself, as the implicit ODE codes do to reuse
/// their Newton matrices: CVODE changes the step after a successful one only to grow it 1.5
/// times or more (Hindmarsh et al., ACM TOMS 31 (2005); its THRESH), RADAU5 keeps it while
/// 1 <= k_new / k <= 1.2 (Hairer & Wanner, Solving ODEs II, sec. IV.8). The next solve's time
/// coefficient c is then bitwise the last one, so the preconditioner set up for it is kept
/// (flow/preconditioner_refresh.hpp); with a step changed by a few per cent at every step it was
/// set up at every solve. A kept step whose estimate then exceeds the tolerance is retried
/// shorter, as any step. The rule needs an estimate free of the solves' algebraic error
/// (TimeStepTerms::nonlinear_rel_tol): on a noisy one it turned dips into jumps and then runs
/// of short steps (DFG 2D-3 at L = 4: 1.5 times the steps; docs/benchmarks.md).
struct StepSizeController {
  /// The largest proposed growth after an accepted step that keeps the step (RADAU5's).
  static constexpr double kKeepStepUpTo = 1.2;

  double tolerance = 0;  ///< > 0
  int exponent = 3;      ///< q of local_error_exponent

  bool accepts(double error) const { return error <= tolerance; }
  double next_step(double k, double error) const;
};

}  // namespace quilt
