#pragma once
// A Schur complement approximation with the additive coarse correction of the coarse system
// (design.md §8): S~^{-1} d + P S_H^{-1} P^T d, S_H the Schur complement of K_H
// (CoarseNavierStokesSystem::add_pressure_correction). It serves the time steps in which the
// two-level step does not pay (NavierStokesSolver::coarse_system_sees_this_step): there it
// still shortens the solves (DFG 2D-3, L = 3, dt = 0.01, t <= 0.1: 659 -> 395 FGMRES
// iterations), since the channel's smooth pressure modes are global even where the velocity's
// response to a defect is local.

#include <memory>

#include "flow/coarse_navier_stokes_system.hpp"
#include "flow/pressure_schur.hpp"

namespace quilt {

class CoarseCorrectedSchur final : public PressureSchurApproximation {
 public:
  /// `two_level`: whether the solves use the two-level step, which has the coarse correction
  /// already; decided by the owner per linearisation, with K_H brought up to date.
  CoarseCorrectedSchur(std::unique_ptr<PressureSchurApproximation> fine,
                       CoarseNavierStokesSystem& coarse, const bool& two_level)
      : fine_(std::move(fine)), coarse_(&coarse), two_level_(&two_level) {}
  void apply(const double* d, double* c) override {
    fine_->apply(d, c);
    if (!*two_level_) coarse_->add_pressure_correction(d, c);
  }

 private:
  std::unique_ptr<PressureSchurApproximation> fine_;
  CoarseNavierStokesSystem* coarse_;
  const bool* two_level_;
};

}  // namespace quilt
