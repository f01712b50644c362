#pragma once
// The linearised (Oseen) Navier-Stokes system K(w), or its Jacobian, on the finest level, as one
// LinearOperator on the equation-wise vector [u1 | u2 | p] (each block macros * n * n values,
// type-1) (design.md §8). Its preconditioner: flow/schur_complement_preconditioner.hpp.

#include "accel/banded_matrix.hpp"
#include "flow/local_projection_term.hpp"
#include "flow/navier_stokes_operators.hpp"
#include "flow/viscous_residual.hpp"
#include "parallel/shared_nodes.hpp"
#include "solvers/level_hierarchy.hpp"
#include "solvers/linear_operator.hpp"

namespace quilt {

/// The off-diagonal and pressure blocks of this rank's macros on the finest level (type-0; A
/// lives in the velocity LevelHierarchy).
struct FlowBlocks {
  accel::BandedMatrix<double> B1, B2, D1, D2, C;
  FlowBlocks() = default;
  FlowBlocks(int macros, int n)
      : B1(macros, n), B2(macros, n), D1(macros, n), D2(macros, n), C(macros, n) {}
};

/// The Newton part of the Jacobian on this rank's macros of a coarser level (type-0;
/// add_newton_blocks): the coarse system's (flow/coarse_navier_stokes_system.hpp), which adds
/// A_H and D itself. The finest level keeps JacobianBlocks.
struct NewtonCoupling {
  accel::BandedMatrix<double> N11, N12, N21, N22, E1, E2;
  NewtonCoupling(int macros, int n)
      : N11(macros, n),
        N12(macros, n),
        N21(macros, n),
        N22(macros, n),
        E1(macros, n),
        E2(macros, n) {}
  NewtonBlocks blocks() { return {&N11, &N12, &N21, &N22, &E1, &E2}; }
};

/// The Jacobian's blocks that act on the velocity, finest level (type-0): the Newton part
/// (add_newton_blocks) with the Oseen blocks folded in, J11 = A + N11, J22 = A + N22,
/// F1 = D1 + E1, F2 = D2 + E2, and N12, N21 as assembled. A Jacobian product then streams 6 band
/// matrices for these terms where A (for both components), D1, D2 and the 6 Newton blocks took
/// 9 sweeps, each 12 arrays (A's pair 13): 105 arrays a product instead of 144.
struct JacobianBlocks {
  accel::BandedMatrix<double> J11, N12, N21, J22, F1, F2;
  JacobianBlocks(int macros, int n)
      : J11(macros, n),
        N12(macros, n),
        N21(macros, n),
        J22(macros, n),
        F1(macros, n),
        F2(macros, n) {}
  /// Where add_newton_blocks adds the Newton part, before fold().
  NewtonBlocks newton_blocks() { return {&J11, &N12, &N21, &J22, &F1, &F2}; }
  /// Adds A to J11 and J22, and D1, D2 to F1, F2: the Jacobian's blocks from its Newton part.
  void fold(const accel::BandedMatrix<double>& A, const FlowBlocks& blocks);
};

/// The parts of K(w) that no 9-band block holds, applied matrix-free (null: not part of K).
struct MatrixFreeTerms {
  const ViscousResidualTerm* viscous = nullptr;     ///< S(u), the consistent residual
  const LocalProjectionTerm* projection = nullptr;  ///< s(p, q) less C
};

/// K(w), or with `jacobian` the Jacobian K(w) + N(w, p) of the residual at (w, p). K(w) includes
/// the matrix-free terms: S(u) of flow/navier_stokes_operators.hpp in apply() and
/// momentum_rows(), the local projection's patch means in apply(); apply_divergence() (a
/// preconditioner step) leaves them out.
class NavierStokesSystem final : public LinearOperator {
 public:
  /// velocity: the finest level of the velocity hierarchy (A, shared nodes, Dirichlet mask).
  /// fix_pressure_mean: the velocity is prescribed on the whole boundary, so p is determined up
  /// to a constant and K is singular; the filter then removes the mean from pressure defects.
  NavierStokesSystem(const GlobalLevel& velocity, const FlowBlocks& blocks, bool fix_pressure_mean,
                     const JacobianBlocks* jacobian = nullptr, MatrixFreeTerms terms = {});

  std::size_t size() const override { return 3 * block_; }
  std::size_t block_size() const { return block_; }
  void apply(const LevelVector& x, LevelVector& y) const override;
  double dot(const LevelVector& x, const LevelVector& y) const override;
  void filter(LevelVector& v) const override;

  /// r_k = A u_k + B_k p (k = 1, 2; type-1) with every row from the weak form, Dirichlet rows
  /// included: the momentum residual the volume form of the boundary forces needs.
  void momentum_rows(const LevelVector& x, double* r1, double* r2) const;
  /// r_k += B_k q (k = 1, 2; type-1, Dirichlet rows included): momentum_rows' part of a pressure.
  void add_pressure_rows(const double* q, double* r1, double* r2) const;
  /// t = D1 c1 + D2 c2 (type-1), the pressure rows' action on a velocity.
  void apply_divergence(const double* c1, const double* c2, double* t) const;
  /// Subtracts the mean over all global nodes from a pressure block (no-op unless fixed).
  void remove_pressure_mean(double* p) const;
  const GlobalLevel& velocity_level() const { return *velocity_; }

 private:
  const GlobalLevel* velocity_;
  const FlowBlocks* blocks_;
  const JacobianBlocks* jacobian_;
  const ViscousResidualTerm* viscous_;
  const LocalProjectionTerm* projection_;
  bool fix_pressure_mean_;
  std::size_t block_;
  double global_nodes_ = 0;
  LevelVector ones_;  ///< 1 at every node: the weights of the pressure mean
  mutable LevelVector scratch_;
};

}  // namespace quilt
