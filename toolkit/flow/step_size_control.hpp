#pragma once
// Adaptive time steps (time.tolerance > 0) from a predictor-corrector estimate of each step's
// local error (Milne's device). Backward Euler and BDF2 predict explicitly by Adams-Bashforth 2
// from the time derivatives d^n, d^{n-1} of the last two levels,
//   u^P = u^n + k/2 ((2 + w) d^n - w d^{n-1}),   w = k / k_1,  k_1 = t_n - t_{n-1},
// whose local error is u(t_n + k) - u^P = C_P k^3 u''' + O(k^4) with C_P = (2 w + 3) / (12 w)
// (the TR-AB2 pair of Gresho, Griffiths & Silvester, SISC 30 (2008)). Crank-Nicolson predicts by
// the quadratic through the velocities (t_{n-2}, u^{n-2}), (t_{n-1}, u^{n-1}), (t_n, u^n), with
//   C_P = (k + k_1) (k + k_1 + k_2) / (6 k^2),   k_2 = t_{n-1} - t_{n-2}   (1 at constant steps),
// because it carries the pressure as p^{n+1} = 2 p^{n+1/2} - p^n: the error that its start (a
// backward Euler step) leaves in p, and with it in d = M^{-1} R(u, p), alternates in sign
// undamped. That error is a gradient, which the velocities never see but AB2's prediction does:
// on DFG 2D-2, whose inflow ramps up from rest, TR-AB2 crept through the start in steps of 4e-6
// at tolerance 1e-5 (docs/benchmarks.md; Kay, Gresho, Griffiths & Silvester, SISC 32 (2010),
// average every tenth step to damp it). The implicit step has the local error C_s k^3 u''' with
// C_s = -1/12 (Crank-Nicolson, the trapezoidal rule) or -(1 + w)^2 / (6 w (1 + 2 w))
// (variable-step BDF2). Subtracting,
//   u(t_n + k) - u^{n+1} ~ C_s / (C_P - C_s) (u^{n+1} - u^P).
// Backward Euler's error -k^2/2 u'' dominates the difference, so its estimate is u^{n+1} - u^P
// itself. A prediction from past values carries the earlier steps' local errors, one from
// derivatives does not: where those errors persist (slow modes) the quadratic's difference loses
// the step's own error and keeps C_P k^3 u''', so Crank-Nicolson's estimate is
// C_P / (C_P - C_s) = 0.92 of the error at constant steps; backward Euler's would lose its leading
// term (its steps in AdaptiveSteps.FollowTheTolerance grew 2.4 and 4.7 times per decade of the
// tolerance instead of 3.2), so it keeps the derivatives. The fractional-step theta scheme has no
// such estimate: as a composite one-step method its k^3 error weighs the elementary
// differentials of u' = f(t, u) differently, not as one multiple of u''', so adaptive steps
// refuse it.

#include "flow/time_scheme.hpp"

namespace quilt {

/// Whether `scheme` has the estimate below: every scheme but the fractional-step theta scheme.
bool has_local_error_estimate(TimeScheme scheme);

/// The weights of u^n, u^{n-1}, u^{n-2} in Crank-Nicolson's prediction u^P at t_n + k: the
/// quadratic through the three levels, k_1 = t_n - t_{n-1} > 0, k_2 = t_{n-1} - t_{n-2} > 0.
struct VelocityPrediction {
  double now, previous, older;
};
VelocityPrediction velocity_prediction(double k, double k1, double k2);

/// f of |u(t_n + k) - u^{n+1}| ~ f |u^{n+1} - u^P| for one step of length k of `scheme` after
/// steps of lengths k_1 (the last) and k_2 (the one before). SolverError for a scheme without
/// the estimate.
double local_error_factor(TimeScheme scheme, double k, double k1, double k2);

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
