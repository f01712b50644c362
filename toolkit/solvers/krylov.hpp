#pragma once
// Krylov drivers (design.md §6): preconditioned CG for symmetric positive definite problems,
// right-preconditioned BiCGStab (van der Vorst 1992) and flexible GMRES (Saad 1993) for
// nonsymmetric ones; each takes any Preconditioner, so the global multigrid, or a method
// that changes from one application to the next, plugs in unchanged.

#include <string>
#include <vector>

#include "solvers/linear_operator.hpp"

namespace quilt {

enum class KrylovMethod { cg, bicgstab, fgmres };

struct KrylovParams {
  double rel_tol = 1e-8;    ///< stop when |r| <= rel_tol |r_0| ...
  double abs_tol = 0.0;     ///< ... or |r| <= abs_tol
  int max_iter = 100;       ///< iteration cap
  int restart = 30;         ///< fgmres: Krylov space dimension before a restart
  double divergence = 1e6;  ///< |r| > divergence |r_0| is divergence
  bool fail_on_cap = true;  ///< reaching max_iter unconverged throws SolverError
};

struct KrylovResult {
  int iterations = 0;
  double initial_residual = 0.0;
  double final_residual = 0.0;
  bool converged = false;
  std::vector<double> history;  ///< |r| after every iteration, history[0] = |r_0|
  double relative_residual() const {
    return initial_residual > 0 ? final_residual / initial_residual : 0.0;
  }
};

/// The vectors of FGMRES (its two bases and the residual), kept from one solve to the next of
/// a nonlinear or time-stepping loop. Vectors this large are mapped fresh from the kernel and
/// zeroed page by page at every allocation: with bases allocated per solve, that was 9 % of a
/// cavity run at L = 8. Grows to the largest basis a solve used; never shrinks.
struct KrylovWorkspace {
  std::vector<LevelVector> V, Z;
  LevelVector r;
};

/// Solves A x = b from the initial guess in x (which must carry the Dirichlet values).
KrylovResult solve_krylov(KrylovMethod method, const LinearOperator& A, Preconditioner& M,
                          const LevelVector& b, LevelVector& x, const KrylovParams& params);
/// The same with b given up: CG keeps its residual in b's storage (8 bytes per unknown less to
/// touch), the others read b as above. b is left empty or with unspecified values.
KrylovResult solve_krylov(KrylovMethod method, const LinearOperator& A, Preconditioner& M,
                          LevelVector&& b, LevelVector& x, const KrylovParams& params);
/// The same, FGMRES working in `workspace` (CG and BiCGStab allocate their few vectors).
KrylovResult solve_krylov(KrylovMethod method, const LinearOperator& A, Preconditioner& M,
                          const LevelVector& b, LevelVector& x, const KrylovParams& params,
                          KrylovWorkspace& workspace);

KrylovMethod parse_krylov_method(const std::string& name);  ///< cg | bicgstab | fgmres
std::string to_string(KrylovMethod method);

/// Shared stopping logic: throws SolverError on NaN/divergence, reports convergence.
class ConvergenceMonitor {
 public:
  ConvergenceMonitor(const char* solver, const KrylovParams& params, KrylovResult& result);
  /// Records |r| after `iteration`; true when converged.
  bool check(int iteration, double residual);
  /// Throws SolverError if the cap was reached and params.fail_on_cap.
  void finish();

 private:
  const char* solver_;
  const KrylovParams& params_;
  KrylovResult& result_;
  double target_ = 0.0;
};

}  // namespace quilt
