#include "flow/velocity_mass.hpp"

#include <cmath>
#include <string>

#include "accel/cpu/band_kernels.hpp"
#include "solvers/solver_error.hpp"

namespace quilt {

void add_time_mass(TimeMass kind, const MacroGeometry& g, accel::BandedMatrix<double>& A, int m,
                   double c) {
  if (kind == TimeMass::consistent)
    add_mass(g, A, m, c);
  else
    add_lumped_mass(g, A, m, c);
}

VelocityMass::VelocityMass(TimeMass kind, const LevelHierarchy& velocity, int level,
                           const LevelVector& lumped)
    : kind_(kind), shared_(velocity.level(level).shared.get()), lumped_(&lumped) {
  if (kind != TimeMass::consistent) return;
  const GlobalLevel& finest = velocity.level(level);
  matrix_ = accel::BandedMatrix<double>(finest.matrix.macros, finest.n);
  for (int m = 0; m < finest.matrix.macros; ++m) add_mass(velocity.geometry(level, m), matrix_, m);
  const auto& centre = matrix_.band[accel::kCentre];
  diagonal_.assign(centre.begin(), centre.end());
  shared_->sum(diagonal_.data());
  for (LevelVector* v : {&r_, &z_, &p_, &q_}) v->resize(lumped.size());
}

void VelocityMass::apply(const double* x, double* y) const {
  const LevelVector& m = *lumped_;
  if (kind_ == TimeMass::lumped) {
    for (std::size_t i = 0; i < m.size(); ++i) y[i] = m[i] * x[i];
    return;
  }
  accel::cpu::spmv(matrix_, x, y);
  shared_->sum(y);
}

void VelocityMass::solve(const double* b, double* x) {
  const LevelVector& m = *lumped_;
  const std::size_t N = m.size();
  for (std::size_t i = 0; i < N; ++i) x[i] = b[i] / m[i];
  if (kind_ == TimeMass::lumped) return;
  const double target = 1e-12 * std::sqrt(shared_->dot(b, b));
  apply(x, r_.data());
  for (std::size_t i = 0; i < N; ++i) {
    r_[i] = b[i] - r_[i];
    z_[i] = r_[i] / diagonal_[i];
    p_[i] = z_[i];
  }
  double rz = shared_->dot(r_.data(), z_.data());
  for (int k = 0; k < 200; ++k) {
    if (std::sqrt(shared_->dot(r_.data(), r_.data())) <= target) return;
    apply(p_.data(), q_.data());
    const double alpha = rz / shared_->dot(p_.data(), q_.data());
    for (std::size_t i = 0; i < N; ++i) {
      x[i] += alpha * p_[i];
      r_[i] -= alpha * q_[i];
      z_[i] = r_[i] / diagonal_[i];
    }
    const double rz_next = shared_->dot(r_.data(), z_.data());
    const double beta = rz_next / rz;
    rz = rz_next;
    for (std::size_t i = 0; i < N; ++i) p_[i] = z_[i] + beta * p_[i];
  }
  throw SolverError("consistent mass solve: no convergence to 1e-12 in 200 iterations");
}

}  // namespace quilt
