#pragma once
// The two-level preconditioner of the Navier-Stokes system (design.md §8): the coarse system
// K_H (flow/coarse_navier_stokes_system.hpp) first, then the block-triangular preconditioner M
// on what it leaves,
//   c_0 = P K_H^{-1} P^T d,   c = c_0 + M^{-1} (d - K c_0),
// a multiplicative two-level step (the coarse-grid correction before the smoother). The coarse
// step first measured fewer FGMRES iterations than after M, or on both sides (DFG 2D-1, L = 4:
// 129, 148, 130), and costs one operator application.

#include "flow/coarse_navier_stokes_system.hpp"
#include "solvers/linear_operator.hpp"

namespace quilt {

class TwoLevelFlowPreconditioner final : public Preconditioner {
 public:
  /// `fine`: M; `coarse`: K_H, kept current by its owner; `size`: 3 x the block size.
  TwoLevelFlowPreconditioner(Preconditioner& fine, CoarseNavierStokesSystem& coarse,
                             std::size_t size);
  /// K of the solve that follows (the Oseen system or the Jacobian).
  void set_operator(const LinearOperator& K) { K_ = &K; }
  void apply(const LevelVector& d, LevelVector& c) override;

 private:
  Preconditioner* fine_;
  CoarseNavierStokesSystem* coarse_;
  const LinearOperator* K_ = nullptr;
  LevelVector defect_, fine_correction_;
};

}  // namespace quilt
