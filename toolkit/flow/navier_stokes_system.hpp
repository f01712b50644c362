#pragma once
// The linearised (Oseen) Navier-Stokes system K(w) on the finest level, as one LinearOperator on
// the equation-wise vector [u1 | u2 | p] (each block macros * n * n values, type-1), and its
// lower block-triangular Schur-complement preconditioner (design.md §8; Turek 1999, ch. 3).

#include "accel/banded_matrix.hpp"
#include "flow/navier_stokes_operators.hpp"
#include "parallel/shared_nodes.hpp"
#include "solvers/global_multigrid.hpp"
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

/// The Newton part of the Jacobian on this rank's macros, finest level (type-0;
/// add_newton_blocks).
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

/// K(w), or with `newton` the Jacobian K(w) + N(w, p) of the residual at (w, p).
class NavierStokesSystem final : public LinearOperator {
 public:
  /// velocity: the finest level of the velocity hierarchy (A, shared nodes, Dirichlet mask).
  /// fix_pressure_mean: the velocity is prescribed on the whole boundary, so p is determined up
  /// to a constant and K is singular; the filter then removes the mean from pressure defects.
  NavierStokesSystem(const GlobalLevel& velocity, const FlowBlocks& blocks, bool fix_pressure_mean,
                     const NewtonCoupling* newton = nullptr);

  std::size_t size() const override { return 3 * block_; }
  std::size_t block_size() const { return block_; }
  void apply(const LevelVector& x, LevelVector& y) const override;
  double dot(const LevelVector& x, const LevelVector& y) const override;
  void filter(LevelVector& v) const override;

  /// r_k = A u_k + B_k p (k = 1, 2; type-1) with every row from the weak form, Dirichlet rows
  /// included: the momentum residual the volume form of the boundary forces needs.
  void momentum_rows(const LevelVector& x, double* r1, double* r2) const;
  /// t = D1 c1 + D2 c2 (type-1), the pressure rows' action on a velocity.
  void apply_divergence(const double* c1, const double* c2, double* t) const;
  /// Subtracts the mean over all global nodes from a pressure block (no-op unless fixed).
  void remove_pressure_mean(double* p) const;
  const GlobalLevel& velocity_level() const { return *velocity_; }

 private:
  const GlobalLevel* velocity_;
  const FlowBlocks* blocks_;
  const NewtonCoupling* newton_;
  bool fix_pressure_mean_;
  std::size_t block_;
  double global_nodes_ = 0;
  mutable LevelVector scratch_;
};

/// c_p ~ S^{-1} d_p for the pressure Schur complement S = C - D A^{-1} B.
class PressureSchurApproximation {
 public:
  virtual ~PressureSchurApproximation() = default;
  virtual void apply(const double* d, double* c) = 0;
};

/// S~ = M_p / nu with the lumped pressure mass: the Schur complement of the Stokes operator is
/// spectrally equivalent to M_p / nu; it degrades as convection grows (measured: ~75 FGMRES
/// iterations per digit at Re = 400 on the 4x2 cavity, L = 5, against 5 for Stokes).
class ScaledPressureMass final : public PressureSchurApproximation {
 public:
  ScaledPressureMass(const LevelVector& lumped_mass, double nu) : mass_(&lumped_mass), nu_(nu) {}
  void apply(const double* d, double* c) override;

 private:
  const LevelVector* mass_;
  double nu_;
};

/// Pressure convection-diffusion (Kay, Loghin & Wathen 2002; Elman, Silvester & Wathen 2014,
/// ch. 9): S ~ A_p F_p^{-1} M_p, so S^{-1} ~ M_p^{-1} F_p A_p^{-1}, with A_p the pressure
/// Laplacian (one ScaRC cycle; flow/pressure_laplacian.hpp), F_p the velocity operator nu L_p +
/// N_p(w) + SUPG on the pressure space with the inflow Robin term (type-0, finest level;
/// add_pressure_convection_diffusion) and M_p the lumped pressure mass. F_p carries the same
/// streamline diffusion as A, so that the discrete commutator div A - F_p div stays small
/// (measured on DFG 2D-1, L = 2..4: 13-17 FGMRES iterations per nonlinear step with it, 20-22
/// without).
///
/// The shifted Neumann A_p (flow/pressure_laplacian.hpp) maps the constant pressure to 1 / eps
/// times itself, and F_p keeps of that only the inflow Robin term: with convection this carries
/// the constant mode, which a do-nothing outflow makes a mode of S (measured: projecting it out
/// of d doubles the iterations, 30-35 per step); at w = 0 (Stokes) F_p annihilates it. The
/// constant mode's Stokes limit nu M_p^{-1} (Cahouet & Chabard 1988) is therefore added:
/// c = M_p^{-1} F_p A_p^{-1} d + nu beta 1 with beta = 1^T d / 1^T M_p 1. For w = 0 the whole
/// approximation reduces to nu M_p^{-1} up to the O(eps) shift.
class PressureConvectionDiffusion final : public PressureSchurApproximation {
 public:
  PressureConvectionDiffusion(GlobalMultigrid& laplacian_mg, const accel::BandedMatrix<double>& Fp,
                              const SharedNodes& shared, const LevelVector& lumped_mass, double nu);
  void apply(const double* d, double* c) override;

 private:
  GlobalMultigrid* laplacian_mg_;
  const accel::BandedMatrix<double>* Fp_;
  const SharedNodes* shared_;
  const LevelVector* mass_;
  double nu_;
  LevelVector ones_;
  double total_mass_;  ///< 1^T M_p 1, the domain's area
  LevelVector d_, y_;
};

/// K_S^{-1} d for K_S = [A 0 0; 0 A 0; D1 D2 S~] (design.md §8): (1) c_u = one ScaRC cycle on A
/// per velocity component, (2) d_p - D c_u, (3) c_p = S~^{-1} (d_p - D c_u).
class SchurComplementPreconditioner final : public Preconditioner {
 public:
  SchurComplementPreconditioner(const NavierStokesSystem& system, GlobalMultigrid& velocity_mg,
                                PressureSchurApproximation& schur);
  void apply(const LevelVector& d, LevelVector& c) override;

 private:
  const NavierStokesSystem* system_;
  GlobalMultigrid* velocity_mg_;
  PressureSchurApproximation* schur_;
  LevelVector d_component_, c_component_, divergence_;
};

}  // namespace quilt
