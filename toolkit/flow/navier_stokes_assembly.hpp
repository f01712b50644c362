#pragma once
// The operators of the linearised Navier-Stokes system (design.md §8), set up once and
// re-assembled in place per nonlinear step: A = nu L + N(w) + SUPG (+ M / dtau) on the finest
// level L, and on the levels 0..L-1 (the velocity injected there) when a multigrid update asks
// for them; the convection part that the local multigrid rediscretises on its coarse levels; the
// finest level's B, D, C blocks, the PCD operator F_p, the load, for a Newton step the
// Jacobian's Newton blocks, and the linearisation of the matrix-free viscous residual term S
// (flow/viscous_residual.hpp).

#include <optional>

#include "flow/flow_problem.hpp"
#include "flow/level_velocity.hpp"
#include "flow/local_projection_term.hpp"
#include "flow/navier_stokes_system.hpp"
#include "flow/time_step_terms.hpp"
#include "flow/viscous_residual.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

class NavierStokesAssembly {
 public:
  /// The storage of every operator (and the lumped pressure mass), zero; the problem and the
  /// communicator must outlive this object.
  NavierStokesAssembly(const FlowProblem& problem, const NavierStokesParams& params,
                       const Communicator& comm);
  NavierStokesAssembly(const NavierStokesAssembly&) = delete;
  NavierStokesAssembly& operator=(const NavierStokesAssembly&) = delete;

  /// K(v) on the finest level, linearised at the velocity of v, with M / dtau added to A when
  /// inverse_dtau > 0 (lumped); F_p (for PCD) and, with a body force, the load. A time step's
  /// terms add c M to A (the terms' mass, flow/velocity_mass.hpp) and lumped to F_p, and the time
  /// derivative c v - M^{-1} g to the SUPG and PSPG residuals: c S in A and D, S M^{-1} g in
  /// time_load() (flow/time_step_terms.hpp). The coarser levels keep their numbers until
  /// assemble_coarse_levels().
  void assemble(const FlowVector& v, double nu, double inverse_dtau,
                const TimeStepTerms& time = {});
  /// A on the levels below the finest, at the linearisation of the last assemble(): what a
  /// multigrid needs before it is built or updated, and a residual does not.
  void assemble_coarse_levels();
  /// The load's Dirichlet values from the problem's current boundary values (FlowProblem::
  /// set_time); without a body force the load holds nothing else.
  void refresh_boundary_values() { problem_->impose_dirichlet_values(load_); }
  /// A_p + c C on every level of `laplacian` (a pressure_laplacian() hierarchy): the PCD
  /// pressure operator of a time step (add_stabilised_pressure_laplacian), at the linearisation,
  /// viscosity and time step of the last assemble(); c = 0: A_p itself, bitwise.
  void assemble_pressure_laplacian(LevelHierarchy& laplacian, double c) const;
  /// B, D, C of a coarser level at the linearisation of the last assemble() (its A, without a
  /// pseudo-time or time-step mass, into the scratch `A`): the coarse system of the two-level
  /// preconditioner (flow/coarse_navier_stokes_system.hpp) takes A itself from velocity().
  void assemble_blocks(int level, FlowBlocks& blocks, accel::BandedMatrix<double>& A) const;
  /// The Jacobian's velocity blocks at v (after assemble() at the same v and time terms): the
  /// Newton part, then A and D folded in (JacobianBlocks).
  void assemble_newton(const FlowVector& v, double nu);
  /// The Newton blocks of a coarser level, at the velocity of the last assemble() and the
  /// pressure of v injected there (stationary, without the viscous residual term).
  void assemble_newton_blocks(int level, const FlowVector& v, NewtonCoupling& newton) const;

  const LevelHierarchy& velocity() const { return velocity_; }
  const FlowBlocks& blocks() const { return blocks_; }
  /// The Jacobian's velocity blocks of the last assemble_newton() (null before the first).
  const JacobianBlocks* jacobian() const { return jacobian_ ? &*jacobian_ : nullptr; }
  /// S(u) at the linearisation of the last assemble(); null with ViscousResidual::dropped.
  const ViscousResidualTerm* viscous_term() const { return viscous_ ? &*viscous_ : nullptr; }
  /// S(u) and the local projection's patch means, at the linearisation of the last assemble().
  MatrixFreeTerms matrix_free_terms() const {
    return {viscous_term(), projection_ ? &*projection_ : nullptr};
  }
  /// F_p (type-0, finest level); no macros unless the Schur approximation is PCD.
  const accel::BandedMatrix<double>& pressure_convection_diffusion() const { return Fp_; }
  /// h: the Dirichlet values on the momentum rows' Dirichlet nodes, the body force elsewhere.
  const FlowVector& load() const { return load_; }
  /// (f, phi_i) on the Dirichlet nodes, whose load rows hold the Dirichlet values instead; zero
  /// elsewhere, and empty without a body force: the force's part of the wall traction
  /// (NavierStokesResult::momentum_residual1).
  const FlowVector& wall_load() const { return wall_load_; }
  /// S M^{-1} g of the last assemble() (type-1, every row; Dirichlet rows included, for the
  /// boundary forces): the known part of the time derivative in the SUPG and PSPG residuals.
  /// Zero (or empty, before the first time step) without a time step's history.
  const FlowVector& time_load() const { return time_load_; }
  /// y = S z (type-1, every row): a time step's nodal derivative part z (u1, u2) in the SUPG and
  /// PSPG residuals, with the coefficients of the last assemble(); time_load() is S M^{-1} g.
  void apply_time_derivative_terms(const FlowVector& z, FlowVector& y) const;
  /// The lumped pressure (= velocity) mass of the finest level, type-1.
  const LevelVector& lumped_mass() const { return lumped_mass_; }

 private:
  /// A on the levels first..last (the finest level with B, D, C, F_p and the load).
  void assemble_velocity_levels(int first, int last);
  /// The time step's coefficient, mass and time scale, and z = M^{-1} g (none: stationary).
  void prepare_time_step(const TimeStepTerms& time);
  void assemble_time_load();
  void keep_wall_load();
  MacroVelocity velocity_at(const MacroGeometry& g, int m) const;

  const FlowProblem* problem_;
  const NavierStokesParams* params_;
  Stabilisation stab_;  ///< params' keys, with the time step's scale
  bool convection_;
  bool body_force_;
  LevelHierarchy velocity_;
  FlowBlocks blocks_;
  accel::BandedMatrix<double> Fp_;
  std::optional<JacobianBlocks> jacobian_;
  std::optional<ViscousResidualTerm> viscous_;
  std::optional<LocalProjectionTerm> projection_;
  NodalGradient state_gradient_;  ///< G_h of the Newton linearisation (reconstructed residual)
  FlowVector load_;
  FlowVector wall_load_;
  double nu_ = 0;                 ///< of the last assemble()
  double pseudo_time_shift_ = 0;  ///< 1/dtau of the last assemble(): the lumped mass in A
  double time_coefficient_ = 0;   ///< c of the time step's c M and derivative; 0: stationary
  TimeMass time_mass_ = TimeMass::consistent;  ///< the M of c M
  FlowVector history_velocity_;                ///< z = M^{-1} g (u1, u2) of the last assemble()
  FlowVector time_load_;
  FlowVector time_derivative_;  ///< c v - z at the Newton linearisation (u1, u2)
  LevelVector lumped_mass_;
  LevelVelocities w_;  ///< the linearisation velocity on every level
};

}  // namespace quilt
