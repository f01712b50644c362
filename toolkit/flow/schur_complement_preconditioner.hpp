#pragma once
// The lower block-triangular Schur-complement preconditioner of the Navier-Stokes system
// (design.md §8; Turek 1999, ch. 3).

#include "flow/navier_stokes_system.hpp"
#include "flow/pressure_schur.hpp"
#include "solvers/global_multigrid.hpp"

namespace quilt {

/// K_S^{-1} d for K_S = [A 0 0; 0 A 0; D1 D2 S~] (design.md §8): (1) c_u = one ScaRC cycle on A
/// per velocity component, both in one GlobalMultigrid::apply_pair (or `velocity_cycles` of them
/// per component, from zero), (2) d_p - D c_u,
/// (3) c_p = S~^{-1} (d_p - D c_u).
class SchurComplementPreconditioner final : public Preconditioner {
 public:
  SchurComplementPreconditioner(const NavierStokesSystem& system, GlobalMultigrid& velocity_mg,
                                PressureSchurApproximation& schur, int velocity_cycles = 1);
  void apply(const LevelVector& d, LevelVector& c) override;

 private:
  const NavierStokesSystem* system_;
  GlobalMultigrid* velocity_mg_;
  PressureSchurApproximation* schur_;
  int velocity_cycles_;
  LevelVector d_component_, c_component_, divergence_;
  LevelVector d_second_, c_second_;  ///< the second component's, for apply_pair (one cycle)
};

}  // namespace quilt
