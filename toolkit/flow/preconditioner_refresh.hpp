#pragma once
// When the solves of an instationary run set their preconditioner up again: the multigrids'
// operators and smoothers, the coarse-grid factorisations and K_H (flow/navier_stokes_solver.hpp).

namespace quilt {

/// A time step's operator K(v) + c M changes from one solve to the next only with the velocity,
/// by the step's change of it, and with a short step c M dominates it: the preconditioner set up
/// for an earlier solve serves later ones about as well as a fresh one. It is kept (a lagged
/// preconditioner: Knoll & Keyes 2004, J. Comput. Phys. 193; SUNDIALS' CVODE keeps its own over
/// steps likewise, Hindmarsh et al. 2005) while the linear iterations per correction stay
/// level. DFG 2D-3 at L = 3, t in [0, 8], set it up for 61 of its 2400 solves, with 2.8 % more
/// linear iterations, max c_D, max c_L and dp(8) the same to 4 digits, in 0.78 of the time
/// (docs/benchmarks.md, 2026-11-28 20:32 UTC).
///
/// A solve's first correction sets the preconditioner up again when
///  - none is set up for a time step (the first solve, or a stationary solve came between),
///  - the time coefficient c is another (a new step length),
///  - one was requested (a checkpoint: a restart sets up afresh, and so must the run that wrote
///    it, for both to go on bitwise alike),
///  - or the last solve needed at least (1 + growth) times the fewest linear iterations per
///    correction of the solves since the set-up; growth = 0: at every solve.
/// A correction that missed its linear tolerance makes the solver set up at its next correction
/// besides (flow/navier_stokes_solver.cpp), which `set_up` then records.
class PreconditionerRefresh {
 public:
  explicit PreconditionerRefresh(double growth) : growth_(growth) {}

  /// Whether the next solve's first correction sets the preconditioner up again, at time
  /// coefficient c.
  bool due(double c) const;
  /// The preconditioner was set up for time coefficient c.
  void set_up(double c);
  /// A solve ended after `corrections` corrections of `linear_iterations` iterations in all.
  void solved(int corrections, int linear_iterations);
  /// The next solve sets up again.
  void request() { requested_ = true; }
  /// No preconditioner for a time step is set up (a stationary solve set up its own).
  void forget() { set_up_ = false; }

 private:
  double growth_;
  bool set_up_ = false, requested_ = false;
  double c_ = 0;
  double fewest_ = 0;  ///< linear iterations per correction, fewest since the set-up (0: none)
  double last_ = 0;    ///< of the last solve (0: none)
};

}  // namespace quilt
