#pragma once
// The mass matrix M of one velocity component on the finest level, as the time derivative of
// flow/time_stepping.hpp discretises it.
//   consistent: the Galerkin (phi_j, phi_i), nine bands. The semi-discrete equations are then
//               the Galerkin method in space; the Q1 consistent mass keeps the phase of advected
//               waves to O(h^4) in 1D where lumping loses it at O(h^2) (Gresho & Sani 2000,
//               §3.13), and the volume-form boundary force carries (d_t u, phi_i) on the wall
//               rows (John 2004). Measured on DFG 2D-3 (design.md §8): max c_L +32 % / +10 % at
//               L = 3 / 4 lumped, -15 % / -4 % consistent.
//   lumped:     its row sums on the diagonal (Gauss-Lobatto quadrature).
// The pseudo-time continuation of stationary solves keeps the lumped mass: it only damps, its
// equations are the steady ones.

#include "fem/scalar_assembly.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

enum class TimeMass { consistent, lumped };

/// Adds c M of macro m (geometry g) to A: the time step's mass term of an operator level.
void add_time_mass(TimeMass kind, const MacroGeometry& g, accel::BandedMatrix<double>& A, int m,
                   double c);

class VelocityMass {
 public:
  /// M on `level` of `velocity`; `lumped` is that level's lumped mass (type-1). Both must
  /// outlive this object.
  VelocityMass(TimeMass kind, const LevelHierarchy& velocity, int level, const LevelVector& lumped);

  TimeMass kind() const { return kind_; }
  /// y = M x on every node (type-1 in and out).
  void apply(const double* x, double* y) const;
  /// x = M^{-1} b on every node (type-1). Consistent: conjugate gradients preconditioned by
  /// diag(M) from b / M_lumped, to |r| <= 1e-12 |b| (diag(M)^{-1} M has its spectrum in
  /// [1/4, 9/4] on uniform grids: a digit per 3.3 iterations); SolverError if 200 do not reach
  /// it.
  void solve(const double* b, double* x);

 private:
  TimeMass kind_;
  const SharedNodes* shared_;
  const LevelVector* lumped_;
  accel::BandedMatrix<double> matrix_;  ///< type-0; consistent only
  LevelVector diagonal_;                ///< diag(M), type-1; consistent only
  LevelVector r_, z_, p_, q_;           ///< conjugate gradients
};

}  // namespace quilt
