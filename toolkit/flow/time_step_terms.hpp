#pragma once
// What an implicit time step adds to the stationary Navier-Stokes problem (flow/time_stepping.hpp).

#include "flow/flow_vector.hpp"
#include "flow/velocity_mass.hpp"

namespace quilt {

/// A time step solves K(v) v + c M v = h + g on the rows that are not Dirichlet rows (M the
/// mass of flow/velocity_mass.hpp, g the history on the momentum rows): the scheme's discrete
/// time derivative is d = c v - M^{-1} g, nodal (BDF2: (3 v - 4 u^n + u^{n-1}) / (2 dt); a
/// theta step: the derivative M^{-1} R(v, p) that the scheme's own relation
/// M (v - u^n) / k = a R(v) + b R(u^n) gives at the new level). d is also the time derivative in
/// the SUPG and PSPG element residuals (Tezduyar 1992; Hughes, Franca & Balestra 1986): without it
/// the stabilised equations are inconsistent, the PSPG term pulling grad p towards f - (w.grad) u
/// instead of f - (w.grad) u - d_t u, which an accelerating flow (DFG 2D-3) feels as an
/// O(tau_K d_t u) pressure error.
struct TimeStepTerms {
  double mass_coefficient = 0;          ///< c, e.g. 1 / dt (backward Euler), 3 / (2 dt) (BDF2)
  const FlowVector* history = nullptr;  ///< g (type-1, momentum rows); null: none
  /// z = M^{-1} g (u1, u2; type-1, every node): d = c v - z; with a history, not null.
  const FlowVector* history_velocity = nullptr;
  TimeMass mass = TimeMass::consistent;  ///< the M in c M
  /// dt of the scheme (a fractional-step theta step: the whole step, not the substep): the
  /// time scale in tau_K and delta_K (flow/navier_stokes_operators.hpp).
  double step = 0;
  /// > 0: the solve's relative nonlinear tolerance, where it is below the solver's own
  /// (nonlinear.rel_tol). Adaptive steps pass their time tolerance: their error estimate
  /// u^{n+1} - u^P sees the solve's algebraic error too, and with a relative residual of 1e-4
  /// against a time tolerance of 1e-5 that error, not the time error, set the steps (DFG 2D-3 at
  /// L = 4, CN: 18 614 steps instead of 1266; docs/benchmarks.md). CVODE likewise stops its
  /// Newton iteration at a tenth of its local error test (Hindmarsh et al., ACM TOMS 31 (2005)).
  double nonlinear_rel_tol = 0;
};

}  // namespace quilt
