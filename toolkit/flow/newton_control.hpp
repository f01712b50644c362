#pragma once
// Step control of the inexact Newton iteration (flow/navier_stokes_solver.hpp): how exactly each
// Newton correction is solved (the forcing term) and how far along it the iterate moves (the
// line search).

#include "la/vector_ops.hpp"

namespace quilt {

/// The forcing term eta_k, |J d + r| <= eta_k |r|, of Eisenstat & Walker (1996), choice 2 with
/// gamma = 0.9, alpha = 2 and their safeguard gamma eta_{k-1}^2 when that exceeds 0.1, at most
/// eta_max. Near the end it is replaced by eta_f = 0.5 target / |r_k| (at most eta_max), the
/// reduction that ends the iteration with this step: below eta_f solving more exactly would
/// only over-solve the last step (Kelley 1995, sec. 6.3), and within a factor 10 above it the
/// step would leave a residual just short of the target, for one more full solve (DFG 2D-1,
/// L = 4: 80 iterations for 4.9 digits in the last step, against 71 for 4.2 digits and one
/// more step of 29).
double forcing_term(double eta_prev, double residual, double residual_prev, double eta_max,
                    double target);

/// Backtracking on the residual norm (Armijo condition with 1e-4, Dennis & Schnabel 1983, sec.
/// 6.3): v_k + lambda c_k is accepted when |r(v_k + lambda c_k)| <= (1 - 1e-4 lambda) |r(v_k)|,
/// otherwise lambda is halved, down to 1/32, where the step is taken as it is. The residual at the
/// trial point is the next nonlinear step's own, so an accepted step costs nothing extra and
/// each halving one assembly.
class NewtonLineSearch {
 public:
  enum class Outcome {
    none,       ///< no Newton step pending
    accepted,   ///< the pending step passed the test
    shortened,  ///< failed: v now holds the halved step, to be tested next
    exhausted   ///< failed at the shortest step, which is kept
  };
  /// v += c, remembering v, c and residual = |r(v)| for the test.
  void start(double residual, LevelVector& v, const LevelVector& c);
  /// Tests the pending step with the residual at the current v.
  Outcome check(double residual, LevelVector& v);
  /// lambda of the step last accepted or exhausted.
  double step_length() const { return lambda_; }
  void reset() { pending_ = false; }

 private:
  LevelVector v_, c_;
  double residual_ = 0.0, lambda_ = 1.0;
  bool pending_ = false;
};

}  // namespace quilt
