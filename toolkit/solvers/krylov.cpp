#include "solvers/krylov.hpp"

#include <cmath>
#include <sstream>
#include <utility>

#include "solvers/solver_error.hpp"

namespace quilt {
namespace {

std::string format(double v) {
  std::ostringstream s;
  s.precision(3);
  s << std::scientific << v;
  return s.str();
}

/// r = b - A x, filtered.
void residual(const LinearOperator& A, const LevelVector& b, const LevelVector& x, LevelVector& r) {
  A.apply(x, r);
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = b[i] - r[i];
  A.filter(r);
}

void breakdown(const char* solver, int iteration, const char* quantity, double value) {
  throw SolverError(std::string(solver) + ": breakdown at iteration " + std::to_string(iteration) +
                    ": " + quantity + " = " + format(value));
}

/// CG with b in r on entry: the residual overwrites it.
KrylovResult cg(const LinearOperator& A, Preconditioner& M, LevelVector r, LevelVector& x,
                const KrylovParams& params) {
  KrylovResult result;
  ConvergenceMonitor monitor("CG", params, result);
  const std::size_t n = A.size();
  // z = M r and q = A p share one vector: q is last read by the update of r, z first written
  // after it (8 bytes per unknown less to touch). Before that it takes A x0.
  LevelVector p(n), zq(n);
  LevelVector& z = zq;
  LevelVector& q = zq;
  A.apply(x, zq);
  for (std::size_t i = 0; i < n; ++i) r[i] = r[i] - zq[i];
  A.filter(r);
  if (monitor.check(0, std::sqrt(A.dot(r, r)))) return result;
  M.apply(r, z);
  double rz = A.filter_dot(z, r);
  p = z;
  for (int it = 1; it <= params.max_iter; ++it) {
    const double pq = A.apply_dot(p, q);
    if (!(pq > 0.0)) breakdown("CG", it, "p^T A p", pq);
    const double alpha = rz / pq;
    if (monitor.check(it, std::sqrt(A.update_dot(alpha, p, q, x, r)))) return result;
    M.apply(r, z);
    const double rz_new = A.filter_dot(z, r);
    if (!std::isfinite(rz_new)) breakdown("CG", it, "r^T z", rz_new);
    xpby(z, rz_new / rz, p);
    rz = rz_new;
  }
  monitor.finish();
  return result;
}

KrylovResult bicgstab(const LinearOperator& A, Preconditioner& M, const LevelVector& b,
                      LevelVector& x, const KrylovParams& params) {
  KrylovResult result;
  ConvergenceMonitor monitor("BiCGStab", params, result);
  const std::size_t n = A.size();
  LevelVector r(n), r0(n), p(n, 0.0), v(n, 0.0), p_hat(n), s(n), s_hat(n), t(n);
  residual(A, b, x, r);
  if (monitor.check(0, std::sqrt(A.dot(r, r)))) return result;
  r0 = r;
  double rho = 1.0, alpha = 1.0, omega = 1.0;
  const double tiny = 1e-300;
  for (int it = 1; it <= params.max_iter; ++it) {
    const double rho_new = A.dot(r0, r);
    if (std::abs(rho_new) < tiny || !std::isfinite(rho_new))
      breakdown("BiCGStab", it, "rho", rho_new);
    const double beta = (rho_new / rho) * (alpha / omega);
    for (std::size_t i = 0; i < n; ++i) p[i] = r[i] + beta * (p[i] - omega * v[i]);
    M.apply(p, p_hat);
    A.filter(p_hat);
    A.apply(p_hat, v);
    A.filter(v);
    const double r0v = A.dot(r0, v);
    if (std::abs(r0v) < tiny || !std::isfinite(r0v)) breakdown("BiCGStab", it, "r0^T v", r0v);
    alpha = rho_new / r0v;
    for (std::size_t i = 0; i < n; ++i) s[i] = r[i] - alpha * v[i];
    const double s_norm = std::sqrt(A.dot(s, s));
    if (s_norm <= std::max(params.rel_tol * result.initial_residual, params.abs_tol)) {
      axpy(alpha, p_hat, x);
      r = s;
      monitor.check(it, s_norm);
      return result;
    }
    M.apply(s, s_hat);
    A.filter(s_hat);
    A.apply(s_hat, t);
    A.filter(t);
    const double tt = A.dot(t, t);
    if (!(tt > 0.0)) breakdown("BiCGStab", it, "t^T t", tt);
    omega = A.dot(t, s) / tt;
    if (std::abs(omega) < tiny) breakdown("BiCGStab", it, "omega", omega);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * p_hat[i] + omega * s_hat[i];
      r[i] = s[i] - omega * t[i];
    }
    rho = rho_new;
    if (monitor.check(it, std::sqrt(A.dot(r, r)))) return result;
  }
  monitor.finish();
  return result;
}

KrylovResult fgmres(const LinearOperator& A, Preconditioner& M, const LevelVector& b,
                    LevelVector& x, const KrylovParams& params, KrylovWorkspace& workspace) {
  KrylovResult result;
  ConvergenceMonitor monitor("FGMRES", params, result);
  const std::size_t n = A.size();
  const int m = std::max(1, params.restart);
  // The bases grow with the iterations: allocating all 2m + 1 vectors up front costs, for the
  // restart length 100 of the flow solves, 200 vectors allocated and zeroed per solve of ~20
  // iterations (measured: 8% of a cavity run in page faults, memset and memmove). Every vector
  // is written before it is read, so what a workspace holds from an earlier solve is harmless.
  std::vector<LevelVector>& V = workspace.V;
  std::vector<LevelVector>& Z = workspace.Z;
  V.reserve(m + 1);  // no reallocation while references into the bases are held
  Z.reserve(m);
  const auto vector_of = [n](std::vector<LevelVector>& basis, int k) -> LevelVector& {
    while (static_cast<int>(basis.size()) <= k) basis.emplace_back(n);
    basis[k].resize(n);  // a workspace last used for another operator
    return basis[k];
  };
  std::vector<std::vector<double>> H(m + 1, std::vector<double>(m, 0.0));
  std::vector<double> cs(m), sn(m), g(m + 1);
  LevelVector& r = workspace.r;
  r.resize(n);
  residual(A, b, x, r);
  double beta = std::sqrt(A.dot(r, r));
  if (monitor.check(0, beta)) return result;
  int it = 0;
  while (it < params.max_iter) {
    LevelVector& v0 = vector_of(V, 0);
    for (std::size_t i = 0; i < n; ++i) v0[i] = r[i] / beta;
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    int j = 0;
    bool done = false;
    for (; j < m && it < params.max_iter; ++j) {
      ++it;
      M.apply(V[j], vector_of(Z, j));
      A.filter(Z[j]);
      A.apply(Z[j], vector_of(V, j + 1));
      A.filter(V[j + 1]);
      for (int i = 0; i <= j; ++i) {  // modified Gram-Schmidt
        H[i][j] = A.dot(V[j + 1], V[i]);
        axpy(-H[i][j], V[i], V[j + 1]);
      }
      H[j + 1][j] = std::sqrt(A.dot(V[j + 1], V[j + 1]));
      if (H[j + 1][j] > 0.0) scale(1.0 / H[j + 1][j], V[j + 1]);
      for (int i = 0; i < j; ++i) {  // apply the earlier Givens rotations to column j
        const double h = cs[i] * H[i][j] + sn[i] * H[i + 1][j];
        H[i + 1][j] = -sn[i] * H[i][j] + cs[i] * H[i + 1][j];
        H[i][j] = h;
      }
      const double denom = std::hypot(H[j][j], H[j + 1][j]);
      if (!(denom > 0.0)) breakdown("FGMRES", it, "|H(j:j+1, j)|", denom);
      cs[j] = H[j][j] / denom;
      sn[j] = H[j + 1][j] / denom;
      H[j][j] = denom;
      H[j + 1][j] = 0.0;
      g[j + 1] = -sn[j] * g[j];
      g[j] = cs[j] * g[j];
      if (monitor.check(it, std::abs(g[j + 1]))) {
        done = true;
        ++j;
        break;
      }
    }
    // x += Z y with H(0:j,0:j) y = g(0:j) (upper triangular)
    std::vector<double> y(j, 0.0);
    for (int i = j - 1; i >= 0; --i) {
      double s = g[i];
      for (int k = i + 1; k < j; ++k) s -= H[i][k] * y[k];
      y[i] = s / H[i][i];
    }
    for (int i = 0; i < j; ++i) axpy(y[i], Z[i], x);
    if (done) return result;
    residual(A, b, x, r);  // restart from the true residual
    beta = std::sqrt(A.dot(r, r));
    result.history.back() = beta;
    result.final_residual = beta;
    if (beta <= std::max(params.rel_tol * result.initial_residual, params.abs_tol)) {
      result.converged = true;
      return result;
    }
  }
  monitor.finish();
  return result;
}

}  // namespace

ConvergenceMonitor::ConvergenceMonitor(const char* solver, const KrylovParams& params,
                                       KrylovResult& result)
    : solver_(solver), params_(params), result_(result) {}

bool ConvergenceMonitor::check(int iteration, double residual) {
  if (!std::isfinite(residual))
    throw SolverError(std::string(solver_) + ": residual is " + format(residual) +
                      " at iteration " + std::to_string(iteration));
  if (iteration == 0) {
    result_.initial_residual = residual;
    target_ = std::max(params_.rel_tol * residual, params_.abs_tol);
  } else if (residual > params_.divergence * result_.initial_residual) {
    throw SolverError(std::string(solver_) + ": diverged at iteration " +
                      std::to_string(iteration) + ": |r| = " + format(residual) + " > " +
                      format(params_.divergence) +
                      " |r_0| = " + format(params_.divergence * result_.initial_residual));
  }
  result_.iterations = iteration;
  result_.final_residual = residual;
  result_.history.push_back(residual);
  result_.converged = residual <= target_;
  return result_.converged;
}

void ConvergenceMonitor::finish() {
  if (result_.converged || !params_.fail_on_cap) return;
  throw SolverError(std::string(solver_) +
                    ": no convergence in solver.max_iter = " + std::to_string(params_.max_iter) +
                    " iterations: |r|/|r_0| = " + format(result_.relative_residual()) +
                    " > solver.rel_tol = " + format(params_.rel_tol));
}

KrylovResult solve_krylov(KrylovMethod method, const LinearOperator& A, Preconditioner& M,
                          const LevelVector& b, LevelVector& x, const KrylovParams& params,
                          KrylovWorkspace& workspace) {
  switch (method) {
    case KrylovMethod::cg:
      return cg(A, M, LevelVector(b), x, params);
    case KrylovMethod::bicgstab:
      return bicgstab(A, M, b, x, params);
    default:
      return fgmres(A, M, b, x, params, workspace);
  }
}

KrylovResult solve_krylov(KrylovMethod method, const LinearOperator& A, Preconditioner& M,
                          LevelVector&& b, LevelVector& x, const KrylovParams& params) {
  if (method == KrylovMethod::cg) return cg(A, M, std::move(b), x, params);
  return solve_krylov(method, A, M, std::as_const(b), x, params);
}

KrylovResult solve_krylov(KrylovMethod method, const LinearOperator& A, Preconditioner& M,
                          const LevelVector& b, LevelVector& x, const KrylovParams& params) {
  KrylovWorkspace workspace;
  return solve_krylov(method, A, M, b, x, params, workspace);
}

KrylovMethod parse_krylov_method(const std::string& name) {
  if (name == "cg") return KrylovMethod::cg;
  if (name == "bicgstab") return KrylovMethod::bicgstab;
  if (name == "fgmres") return KrylovMethod::fgmres;
  throw SolverError("unknown Krylov method '" + name + "' (expected cg, bicgstab or fgmres)");
}

std::string to_string(KrylovMethod method) {
  switch (method) {
    case KrylovMethod::cg:
      return "cg";
    case KrylovMethod::bicgstab:
      return "bicgstab";
    default:
      return "fgmres";
  }
}

}  // namespace quilt
