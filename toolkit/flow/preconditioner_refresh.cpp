#include "flow/preconditioner_refresh.hpp"

#include <algorithm>
#include <cmath>

namespace quilt {

bool PreconditionerRefresh::due(double c) const {
  // The fractional-step theta scheme's substeps share c mathematically (alpha theta = (1 -
  // alpha)(1 - 2 theta)); their products may differ in the last bits.
  if (!set_up_ || requested_ || std::abs(c - c_) > 1e-12 * std::abs(c_)) return true;
  return growth_ == 0 || (last_ > 0 && last_ >= (1.0 + growth_) * fewest_);
}

void PreconditionerRefresh::set_up(double c) {
  set_up_ = true;
  requested_ = false;
  c_ = c;
  fewest_ = 0;
  last_ = 0;
}

void PreconditionerRefresh::solved(int corrections, int linear_iterations) {
  if (corrections == 0) return;  // converged at its first residual: nothing measured
  last_ = static_cast<double>(linear_iterations) / corrections;
  fewest_ = fewest_ > 0 ? std::min(fewest_, last_) : last_;
}

}  // namespace quilt
