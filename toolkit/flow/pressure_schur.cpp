#include "flow/pressure_schur.hpp"

#include <algorithm>

#include "accel/cpu/band_kernels.hpp"

namespace quilt {

void ScaledPressureMass::apply(const double* d, double* c) {
  const LevelVector& m = *mass_;
  for (std::size_t i = 0; i < m.size(); ++i) c[i] = nu_ * d[i] / m[i];
}

PressureConvectionDiffusion::PressureConvectionDiffusion(GlobalMultigrid& laplacian_mg,
                                                         const accel::BandedMatrix<double>& Fp,
                                                         const SharedNodes& shared,
                                                         const LevelVector& lumped_mass, double nu)
    : laplacian_mg_(&laplacian_mg),
      Fp_(&Fp),
      shared_(&shared),
      mass_(&lumped_mass),
      nu_(nu),
      ones_(lumped_mass.size(), 1.0),
      total_mass_(shared.dot(lumped_mass.data(), ones_.data())),
      d_(lumped_mass.size()),
      y_(lumped_mass.size()) {}

void PressureConvectionDiffusion::apply(const double* d, double* c) {
  const LevelVector& m = *mass_;
  const double beta = shared_->dot(d, ones_.data()) / total_mass_;
  std::copy(d, d + d_.size(), d_.begin());
  laplacian_mg_->apply(d_, y_);          // y = A_p^{-1} d
  accel::cpu::spmv(*Fp_, y_.data(), c);  // c = F_p y (type-0) ...
  shared_->sum(c);                       // ... summed to type-1
  for (std::size_t i = 0; i < m.size(); ++i) c[i] = c[i] / m[i] + nu_ * beta;
}

}  // namespace quilt
