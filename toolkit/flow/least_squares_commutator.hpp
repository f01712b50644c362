#pragma once
// The least-squares commutator (LSC) approximation of the inverse pressure Schur complement
// S = C - D A^{-1} B (design.md §8) for the stabilised equal-order system, after Elman, Howle,
// Shadid, Silvester & Tuminaro, "Least squares preconditioners for stabilized discretizations of
// the Navier-Stokes equations", SISC 30 (2007) [EHSST], in the form of Trilinos Teko's
// LSCStrategy / InvLSCStrategy (which cites EHSST eqs. 4.28-4.29 for gamma and alpha).
//
// The commutator. With G a discrete pressure gradient (velocity rows, pressure columns) and Q
// a diagonal velocity weight (below), ask for a pressure-space X with A Q^{-1} G ~ Q^{-1} G X.
// Its least-squares solution in the Q-norm, column by column, is
//   X = (G^T Q^{-1} G)^{-1} G^T Q^{-1} A Q^{-1} G,
// and then A^{-1} G ~ Q^{-1} G X^{-1}, so G^T A^{-1} G ~ (G^T Q^{-1} G) X^{-1}. For the
// stabilised discretisation EHSST add gamma C to the Laplacian-like G^T Q^{-1} G (the spurious
// pressure modes of Q1/Q1 lie in its kernel) and an outer term alpha D_s^{-1}:
//   S^{-1} ~ L^{-1} (G^T Q^{-1} A Q^{-1} G) L^{-1} + alpha D_s^{-1},  L = G^T Q^{-1} G + gamma C,
//   gamma = rho(Q^{-1} A) / 3,                              (EHSST eq. 4.28)
//   D_s = diag(G^T diag(A)^{-1} G + C),  alpha = 1 / rho(D_s^{-1} G^T diag(A)^{-1} G)  (eq. 4.29).
// Teko's convention [F B^T; B C_T] reads here B_T = -G^T, C_T = -C: its S_T = C_T - B_T F^{-1}
// B_T^T is -S up to D + B^T, and its (B Q^{-1} B^T - gamma C_T) is L. IFISS (m_sxbfbt) puts the
// stabilisation term inside the middle factor instead; Teko's additive form is the one used here.
//
// Quilt's specifics:
// - Q: the lumped velocity mass (EHSST), or diag(A) with LscScaling::diagonal (the scaled BFBt
//   of Elman, Howle, Shadid, Shuttleworth & Tuminaro, SISC 27 (2006), and Teko's Q when it is
//   given no mass matrix). diag(A) carries the local viscous, convective and SUPG scales that
//   the mass ignores (see LscScaling for the measurements).
// - G is the assembled gradient B = [B1; B2] (weak gradient plus the SUPG pressure term), its
//   transpose applied through transposed copies of the bands. D = -B^T only without
//   stabilisation, so -D Q^{-1} B is not symmetric; B^T Q^{-1} B is, and CG solves with it
//   (G = -D^T instead gave the same FGMRES counts on the cavity, Re 100 and 400, L = 5).
// - Q^{-1} is zero on Dirichlet velocity nodes, so Q^{-1} G vanishes there (Teko zeroes those
//   rows likewise; Elman & Tuminaro (2009) analyse the boundary conditions this implies): L then
//   behaves like a pressure Laplacian with natural boundary conditions wherever the velocity is
//   prescribed. With the velocity prescribed on the whole boundary, L (like S) annihilates the
//   constant pressure: its solves then work on mean-free pressures.
// - L is applied matrix-free (its stencil is 5x5, wider than the 9 bands) and solved by CG
//   preconditioned by one ScaRC cycle of the Neumann pressure Laplacian A_p
//   (flow/pressure_laplacian.hpp) per iteration, to one digit.
// - rho(Q^{-1} A) and rho(D_s^{-1} G^T diag(A)^{-1} G) come from 10 power iterations, as Teko
//   estimates them (its eigensolver stops at 5e-2); gamma and alpha only scale terms.
// - Both EHSST terms are needed, and at their EHSST sizes: without alpha D_s^{-1} the FGMRES
//   cap (100) is hit in every step (the middle factor annihilates the modes that G annihilates);
//   alpha x3 or gamma x3 cost 1.3-1.7x the iterations, x0.3 within 10% (cavity, L = 5).

#include <array>

#include "accel/banded_matrix.hpp"
#include "flow/navier_stokes_system.hpp"
#include "flow/pressure_schur.hpp"
#include "solvers/global_multigrid.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

/// The diagonal velocity weight Q of the LSC. Measured (FGMRES iterations per Picard step, one
/// ILU velocity V-cycle): cavity L = 5, Re 100 / 400: mass 7.4 / 18.6, diagonal 7.4 / 17.0 (PCD
/// 10.1 / 22.4); DFG 2D-1, L = 4: mass 76.2, diagonal 13.3 (PCD 16.9). On the DFG mesh the
/// lumped mass misses how A's diagonal varies over the stretched cells and the flow.
enum class LscScaling {
  mass,     ///< the lumped velocity mass (EHSST)
  diagonal  ///< diag(A) (Elman et al. 2006; Teko's default)
};

/// The discrete pressure gradient G = [B1; B2] on the finest level and its transpose, both as
/// type-0 bands (G^T per macro is the transpose of the macro's G: the sum over macros commutes
/// with transposition).
class PressureGradient {
 public:
  PressureGradient(const FlowBlocks& blocks, const SharedNodes& shared);
  /// v_k = (G p)_k, k = 1, 2, type-1.
  void apply(const double* p, double* v1, double* v2) const;
  /// p = G^T [v1; v2], type-1.
  void apply_transpose(const double* v1, const double* v2, double* p) const;
  /// diag(G^T W G) for a diagonal velocity weight W (type-1), from the globally assembled
  /// entries of G.
  LevelVector weighted_column_squares(const LevelVector& w) const;
  const SharedNodes& shared() const { return *shared_; }

 private:
  const FlowBlocks* blocks_;
  const SharedNodes* shared_;
  std::array<accel::BandedMatrix<double>, 2> transposed_;
  mutable LevelVector scratch_;
};

/// y = G^T W G x + gamma C x, matrix-free, for a velocity weight W that is zero on Dirichlet
/// nodes: L of the LSC (W = Q^{-1}) and the operator of its alpha (W = diag(A)^{-1}, gamma = 0).
/// Symmetric whenever C is. With `constant_kernel` the filter removes the mean: the constant
/// pressure is then in the kernel, and CG works in its orthogonal complement.
class WeightedPressureLaplacian final : public LinearOperator {
 public:
  WeightedPressureLaplacian(const PressureGradient& gradient, const LevelVector& weight,
                            const accel::BandedMatrix<double>& C, double gamma,
                            bool constant_kernel);
  std::size_t size() const override { return weight_->size(); }
  void apply(const LevelVector& x, LevelVector& y) const override;
  double dot(const LevelVector& x, const LevelVector& y) const override;
  void filter(LevelVector& v) const override;

 private:
  const PressureGradient* gradient_;
  const LevelVector* weight_;
  const accel::BandedMatrix<double>* C_;
  double gamma_;
  bool constant_kernel_;
  LevelVector ones_;
  double global_nodes_;
  mutable LevelVector v1_, v2_, t_;
};

/// S^{-1} ~ L^{-1} (G^T Q^{-1} A Q^{-1} G) L^{-1} + alpha D_s^{-1} (header). Built per
/// nonlinear step from the finest velocity level (A, Dirichlet mask), the blocks B1, B2, C, the
/// lumped mass (velocity and pressure share the Q1 nodes: it is the velocity mass too), and the
/// multigrid of A_p that preconditions the L solves.
class LeastSquaresCommutator final : public PressureSchurApproximation {
 public:
  LeastSquaresCommutator(const GlobalLevel& velocity, const FlowBlocks& blocks,
                         GlobalMultigrid& laplacian_mg, const LevelVector& lumped_mass,
                         bool fix_pressure_mean, LscScaling scaling);
  void apply(const double* d, double* c) override;

 private:
  /// x = L^{-1} b by preconditioned CG to a loose tolerance.
  void solve_laplacian(const LevelVector& b, LevelVector& x);
  /// t = G^T Q^{-1} A Q^{-1} G y, the middle factor.
  void apply_commutator(const LevelVector& y, LevelVector& t);

  const GlobalLevel* velocity_;
  GlobalMultigrid* laplacian_mg_;
  PressureGradient gradient_;
  LevelVector inverse_diagonal_;  ///< diag(A)^{-1}, zero on Dirichlet nodes
  LevelVector inverse_weight_;    ///< Q^{-1}, zero on Dirichlet nodes
  double gamma_;
  WeightedPressureLaplacian laplacian_;  ///< L
  LevelVector inverse_outer_;            ///< alpha D_s^{-1}
  LevelVector b_, y_, z_, v1_, v2_, a1_, a2_;
};

}  // namespace quilt
