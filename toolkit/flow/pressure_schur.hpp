#pragma once
// Approximations of the inverse pressure Schur complement S = C - D A^{-1} B of the Navier-Stokes
// system (design.md §8): step (3) of the Schur-complement preconditioner.

#include "accel/banded_matrix.hpp"
#include "parallel/shared_nodes.hpp"
#include "solvers/global_multigrid.hpp"

namespace quilt {

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
///
/// In a time step the solver hands it A_p + c C in place of A_p (the PSPG block C weighted by
/// the step's mass coefficient c; add_stabilised_pressure_laplacian, re-assembled per nonlinear
/// step): S = C + D A^{-1} B ~ [A_p + C M_p^{-1} F_p] F_p^{-1} M_p with F_p ~ c M_p. With A_p
/// alone, C ~ tau_K L_p outweighs D (c M)^{-1} B ~ L_p / c where c tau_K >> 1 (measured on DFG
/// 2D-3, fs-theta, dt = 0.01, L = 3: 176 FGMRES iterations per time step with A_p, 50 with
/// A_p + c C).
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

}  // namespace quilt
