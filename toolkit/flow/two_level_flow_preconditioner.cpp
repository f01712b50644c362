#include "flow/two_level_flow_preconditioner.hpp"

namespace quilt {

TwoLevelFlowPreconditioner::TwoLevelFlowPreconditioner(Preconditioner& fine,
                                                       CoarseNavierStokesSystem& coarse,
                                                       std::size_t size)
    : fine_(&fine), coarse_(&coarse), defect_(size), fine_correction_(size) {}

void TwoLevelFlowPreconditioner::apply(const LevelVector& d, LevelVector& c) {
  defect_ = d;  // Krylov vectors may carry values on Dirichlet rows, which P^T would spread
  K_->filter(defect_);
  c.assign(d.size(), 0.0);
  coarse_->add_correction(defect_, c);
  K_->filter(c);  // zero on Dirichlet nodes; the pressure mean removed where it is free
  K_->apply(c, defect_);
  for (std::size_t i = 0; i < d.size(); ++i) defect_[i] = d[i] - defect_[i];
  K_->filter(defect_);
  fine_->apply(defect_, fine_correction_);
  for (std::size_t i = 0; i < d.size(); ++i) c[i] += fine_correction_[i];
}

}  // namespace quilt
