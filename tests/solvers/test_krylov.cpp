// The Krylov drivers on small problems whose answers are known in closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "solvers/krylov.hpp"
#include "solvers/solver_error.hpp"

using namespace quilt;

namespace {

/// 1D Dirichlet Laplacian tridiag(-1, 2, -1) plus a convection term c*(x_{i+1} - x_{i-1})/2
/// (nonsymmetric for c != 0); rows 0 and n-1 are unit rows.
class Tridiagonal final : public LinearOperator {
 public:
  Tridiagonal(std::size_t n, double convection, double shift = 0.0)
      : n_(n), c_(convection), shift_(shift) {}
  std::size_t size() const override { return n_; }
  void apply(const LevelVector& x, LevelVector& y) const override {
    y.assign(n_, 0.0);
    y[0] = x[0];
    y[n_ - 1] = x[n_ - 1];
    for (std::size_t i = 1; i + 1 < n_; ++i)
      y[i] = (2.0 + shift_) * x[i] - x[i - 1] - x[i + 1] + 0.5 * c_ * (x[i + 1] - x[i - 1]);
  }
  double dot(const LevelVector& x, const LevelVector& y) const override {
    double s = 0;
    for (std::size_t i = 0; i < n_; ++i) s += x[i] * y[i];
    return s;
  }
  void filter(LevelVector& v) const override { v[0] = v[n_ - 1] = 0.0; }

 private:
  std::size_t n_;
  double c_, shift_;
};

/// Exact solution x_i = sin(pi i / (n-1)) and its right-hand side.
LevelVector exact(std::size_t n) {
  LevelVector x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = std::sin(M_PI * i / (n - 1.0)) + 0.1 * i;
  return x;
}

}  // namespace

class KrylovMethods : public ::testing::TestWithParam<KrylovMethod> {};

TEST_P(KrylovMethods, SolvesToToleranceAndRecoversSolution) {
  const std::size_t n = 65;
  const double convection = GetParam() == KrylovMethod::cg ? 0.0 : 0.8;
  Tridiagonal A(n, convection);
  const LevelVector u = exact(n);
  LevelVector b(n);
  A.apply(u, b);
  LevelVector x(n, 0.0);
  x[0] = u[0];
  x[n - 1] = u[n - 1];
  IdentityPreconditioner M;
  KrylovParams params;
  params.rel_tol = 1e-10;
  params.max_iter = 500;
  params.restart = 70;
  const KrylovResult r = solve_krylov(GetParam(), A, M, b, x, params);
  EXPECT_TRUE(r.converged);
  EXPECT_LE(r.relative_residual(), 1e-10);
  for (std::size_t i = 0; i < n; ++i) EXPECT_NEAR(x[i], u[i], 1e-7);
  // CG and full GMRES on the (n-2)-dimensional interior space finish in at most n-2 steps in
  // exact arithmetic (allow a few for round-off); BiCGStab has no such bound, only ~2x.
  const int bound =
      GetParam() == KrylovMethod::bicgstab ? 2 * static_cast<int>(n) : static_cast<int>(n) + 2;
  EXPECT_LE(r.iterations, bound);
}

TEST_P(KrylovMethods, GivingUpTheRightHandSideSolvesBitwiseAsLending) {
  // solve_krylov(..., std::move(b), ...): CG keeps its residual in b's storage; every method
  // gives the iterates and residuals of the const overload, from a nonzero guess.
  const std::size_t n = 33;
  Tridiagonal A(n, GetParam() == KrylovMethod::cg ? 0.0 : 0.5);
  const LevelVector u = exact(n);
  LevelVector b(n);
  A.apply(u, b);
  LevelVector x0(n);
  for (std::size_t i = 0; i < n; ++i) x0[i] = 0.3 * std::cos(0.7 * i);
  x0[0] = u[0];
  x0[n - 1] = u[n - 1];
  IdentityPreconditioner M;
  KrylovParams params;
  params.max_iter = 200;
  LevelVector x = x0, y = x0;
  const KrylovResult lent = solve_krylov(GetParam(), A, M, b, x, params);
  LevelVector given = b;
  const KrylovResult gave = solve_krylov(GetParam(), A, M, std::move(given), y, params);
  EXPECT_TRUE(lent.converged);
  EXPECT_EQ(x, y);
  EXPECT_EQ(lent.history, gave.history);
  EXPECT_GT(lent.iterations, 2);
}

TEST_P(KrylovMethods, IterationCapIsAnError) {
  Tridiagonal A(129, 0.0);
  LevelVector b(129, 1.0), x(129, 0.0);
  b[0] = b[128] = 0.0;
  IdentityPreconditioner M;
  KrylovParams params;
  params.max_iter = 3;
  try {
    solve_krylov(GetParam(), A, M, b, x, params);
    FAIL() << "expected a SolverError";
  } catch (const SolverError& e) {
    EXPECT_NE(std::string(e.what()).find("solver.max_iter = 3"), std::string::npos) << e.what();
  }
  params.fail_on_cap = false;
  x.assign(129, 0.0);
  const KrylovResult r = solve_krylov(GetParam(), A, M, b, x, params);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 3);
}

TEST_P(KrylovMethods, NanInRightHandSideIsReported) {
  Tridiagonal A(17, 0.0);
  LevelVector b(17, 1.0), x(17, 0.0);
  b[5] = std::nan("");
  IdentityPreconditioner M;
  EXPECT_THROW(solve_krylov(GetParam(), A, M, b, x, KrylovParams{}), SolverError);
}

INSTANTIATE_TEST_SUITE_P(All, KrylovMethods,
                         ::testing::Values(KrylovMethod::cg, KrylovMethod::bicgstab,
                                           KrylovMethod::fgmres));

// Full GMRES on an ill-conditioned, nonnormal operator (n = 800: kappa ~ 1e5): its residual
// reaches 1e-13 within n - 2 steps only while the Krylov basis stays orthogonal. FGMRES's modified
// Gram-Schmidt keeps it; one pass of classical Gram-Schmidt does not (tried: |r|/|r_0| is still
// 4.5e-13 after 802 iterations).
TEST(Krylov, FgmresKeepsItsBasisOrthogonalOnAnIllConditionedOperator) {
  const std::size_t n = 800;
  Tridiagonal A(n, 1.5);
  const LevelVector u = exact(n);
  LevelVector b(n), x(n, 0.0), r(n);
  A.apply(u, b);
  x[0] = u[0];  // the Dirichlet values: corrections are zero there
  x[n - 1] = u[n - 1];
  IdentityPreconditioner M;
  KrylovParams params;
  params.rel_tol = 1e-13;
  params.max_iter = static_cast<int>(n) + 2;
  params.restart = params.max_iter;
  params.fail_on_cap = false;
  const KrylovResult result = solve_krylov(KrylovMethod::fgmres, A, M, b, x, params);
  EXPECT_TRUE(result.converged) << "|r|/|r_0| = " << result.relative_residual() << " after "
                                << result.iterations << " iterations";
  A.apply(x, r);  // the true residual, not the recurrence's
  for (std::size_t i = 0; i < n; ++i) r[i] = b[i] - r[i];
  EXPECT_LE(std::sqrt(A.dot(r, r) / A.dot(b, b)), 1e-12);
}

TEST(Krylov, CgReportsBreakdownOnIndefiniteOperator) {
  Tridiagonal A(33, 0.0, -3.0);  // shift makes the interior operator indefinite
  LevelVector b(33, 1.0), x(33, 0.0);
  b[0] = b[32] = 0.0;
  IdentityPreconditioner M;
  try {
    KrylovParams params;
    params.max_iter = 200;
    solve_krylov(KrylovMethod::cg, A, M, b, x, params);
    FAIL() << "expected breakdown";
  } catch (const SolverError& e) {
    EXPECT_NE(std::string(e.what()).find("p^T A p"), std::string::npos) << e.what();
  }
}
