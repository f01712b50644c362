#include "flow/schur_complement_preconditioner.hpp"

#include <algorithm>

namespace quilt {

SchurComplementPreconditioner::SchurComplementPreconditioner(const NavierStokesSystem& system,
                                                             GlobalMultigrid& velocity_mg,
                                                             PressureSchurApproximation& schur,
                                                             int velocity_cycles)
    : system_(&system),
      velocity_mg_(&velocity_mg),
      schur_(&schur),
      velocity_cycles_(velocity_cycles),
      d_component_(system.block_size()),
      c_component_(system.block_size()),
      divergence_(system.block_size()),
      d_second_(velocity_cycles == 1 ? system.block_size() : 0),
      c_second_(velocity_cycles == 1 ? system.block_size() : 0) {}

void SchurComplementPreconditioner::apply(const LevelVector& d, LevelVector& c) {
  const std::size_t N = system_->block_size();
  c.resize(3 * N);
  KrylovParams cycles;  // a fixed number of cycles: no tolerance, no error at the cap
  cycles.rel_tol = 0.0;
  cycles.max_iter = velocity_cycles_;
  cycles.fail_on_cap = false;
  if (velocity_cycles_ == 1) {  // (1) velocity: one cycle for both components, A read once
    std::copy(d.begin(), d.begin() + N, d_component_.begin());
    std::copy(d.begin() + N, d.begin() + 2 * N, d_second_.begin());
    velocity_mg_->apply_pair(d_component_, d_second_, c_component_, c_second_);
    std::copy(c_component_.begin(), c_component_.end(), c.begin());
    std::copy(c_second_.begin(), c_second_.end(), c.begin() + N);
  } else {  // (1) velocity: global multigrid cycles per component
    for (int k = 0; k < 2; ++k) {
      std::copy(d.begin() + k * N, d.begin() + (k + 1) * N, d_component_.begin());
      std::fill(c_component_.begin(), c_component_.end(), 0.0);
      velocity_mg_->solve(d_component_, c_component_, cycles);
      std::copy(c_component_.begin(), c_component_.end(), c.begin() + k * N);
    }
  }
  // (2) pressure defect update, (3) the Schur complement approximation.
  system_->apply_divergence(c.data(), c.data() + N, divergence_.data());
  for (std::size_t i = 0; i < N; ++i) divergence_[i] = d[2 * N + i] - divergence_[i];
  double* cp = c.data() + 2 * N;
  schur_->apply(divergence_.data(), cp);
  system_->remove_pressure_mean(cp);
}

}  // namespace quilt
