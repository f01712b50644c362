#include "flow/least_squares_commutator.hpp"

#include <algorithm>
#include <cmath>

#include "accel/cpu/band_kernels.hpp"
#include "solvers/krylov.hpp"

namespace quilt {
namespace {

/// Power iterations for rho(Q^{-1} A) and rho(D_s^{-1} G^T diag(A)^{-1} G). Teko stops its
/// eigensolver at a relative accuracy of 5e-2; gamma and alpha only scale terms, and 10 steps
/// from the start vector below land within 6% of the 100-step values (cavity, Re 400, L = 5).
constexpr int kPowerSteps = 10;

/// The L solves: CG preconditioned by one A_p cycle per iteration, to one digit. The outer
/// FGMRES is flexible, so an inexact L^{-1} costs outer iterations, not correctness. Measured:
/// on the cavity (L = 5, Re 100 and 400) the FGMRES counts are the same for a relative tolerance
/// of 0.3, 0.1 and 1e-4, and for a single CG step; on DFG 2D-1 (L = 4, diagonal scaling) 0.1 and
/// 1e-8 give 13.3 and 13.5 per Picard step (12 and 150 CG iterations per solve), but 3 CG steps
/// 42.2. The cap only bounds the cost.
constexpr double kLaplacianTolerance = 0.1;
constexpr int kLaplacianMaxIterations = 30;

/// M^T in the band storage: band k of M^T at row r is band 8 - k of M at row r + offset(k).
/// The storage convention (entries whose column leaves the grid are 0) carries over, so only the
/// row range of each macro is guarded.
accel::BandedMatrix<double> transposed(const accel::BandedMatrix<double>& M) {
  accel::BandedMatrix<double> T(M.macros, M.n);
  const auto nn = static_cast<std::ptrdiff_t>(M.rows_per_macro());
  for (int k = 0; k < accel::kBands; ++k) {
    const std::ptrdiff_t offset = accel::band_offset(k, M.n);
    for (int m = 0; m < M.macros; ++m) {
      const std::ptrdiff_t base = m * nn;
      for (std::ptrdiff_t r = std::max<std::ptrdiff_t>(0, -offset); r < std::min(nn, nn - offset);
           ++r)
        T.band[k][base + r] = M.band[accel::kBands - 1 - k][base + r + offset];
    }
  }
  return T;
}

/// The globally assembled diagonal of a type-0 matrix (type-1).
LevelVector assembled_diagonal(const accel::BandedMatrix<double>& M, const SharedNodes& shared) {
  LevelVector d = M.band[accel::kCentre];
  shared.sum(d.data());
  return d;
}

/// 1 / v on the free nodes, 0 on the Dirichlet nodes: Q^{-1} G must vanish there.
LevelVector masked_inverse(const LevelVector& v, const std::vector<char>& dirichlet) {
  LevelVector inverse(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) inverse[i] = dirichlet[i] ? 0.0 : 1.0 / v[i];
  return inverse;
}

/// A start vector for the power iterations with every frequency in it (a hash of the macro-local
/// grid position; a checkerboard would start in the kernel of the Q1/Q1 gradient), averaged over
/// shared nodes so that it is the same for every rank count.
LevelVector start_vector(const SharedNodes& shared) {
  LevelVector x(shared.size());
  const int n = shared.n();
  for (std::size_t r = 0; r < x.size(); ++r) {
    const double i = static_cast<double>(r % n), j = static_cast<double>((r / n) % n);
    const double h = std::sin(12.9898 * i + 78.233 * j) * 43758.5453;
    x[r] = h - std::floor(h) - 0.5;
  }
  shared.average(x.data());
  return x;
}

/// |lambda_max| of x -> M x (apply(x, y) sets y = M x) by kPowerSteps power iterations: the
/// growth of the norm in the last step.
template <class Apply>
double spectral_radius(LevelVector x, const SharedNodes& shared, Apply&& apply) {
  LevelVector y(x.size());
  double rho = 0.0;
  for (int step = 0; step < kPowerSteps; ++step) {
    const double norm_x = std::sqrt(shared.dot(x.data(), x.data()));
    apply(x, y);
    const double norm_y = std::sqrt(shared.dot(y.data(), y.data()));
    if (!(norm_y > 0.0)) return 0.0;
    rho = norm_y / norm_x;
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = y[i] / norm_y;
  }
  return rho;
}

/// gamma = rho(Q^{-1} A) / 3 (EHSST eq. 4.28), with the Dirichlet rows of Q^{-1} A zero (Teko
/// zeroes the identity rows of F for the same reason: they would otherwise set rho).
double commutator_shift(const GlobalLevel& velocity, const LevelVector& inverse_weight) {
  const SharedNodes& shared = *velocity.shared;
  LevelVector x = start_vector(shared);
  filter(velocity.dirichlet, x);
  const double rho =
      spectral_radius(std::move(x), shared, [&](const LevelVector& a, LevelVector& b) {
        accel::cpu::spmv(velocity.matrix, a.data(), b.data());
        shared.sum(b.data());
        for (std::size_t i = 0; i < b.size(); ++i) b[i] *= inverse_weight[i];
      });
  return rho / 3.0;
}

}  // namespace

PressureGradient::PressureGradient(const FlowBlocks& blocks, const SharedNodes& shared)
    : blocks_(&blocks),
      shared_(&shared),
      transposed_{transposed(blocks.B1), transposed(blocks.B2)},
      scratch_(shared.size()) {}

void PressureGradient::apply(const double* p, double* v1, double* v2) const {
  accel::cpu::spmv(blocks_->B1, p, v1);
  accel::cpu::spmv(blocks_->B2, p, v2);
  shared_->sum(v1);
  shared_->sum(v2);
}

void PressureGradient::apply_transpose(const double* v1, const double* v2, double* p) const {
  accel::cpu::spmv(transposed_[0], v1, p);
  accel::cpu::spmv(transposed_[1], v2, scratch_.data());
  for (std::size_t i = 0; i < scratch_.size(); ++i) p[i] += scratch_[i];
  shared_->sum(p);
}

// (G^T W G)_ii = sum_k W_k G_ki^2 needs the assembled G_ki, which make_local_matrices provides
// for every pair (k, i) inside a macro. A pair on a shared macro edge (or k = i on one) then
// appears in every macro holding that edge (node), min(mult_k, mult_i) of them; a diagonal pair
// lies in one element, so in one macro. Each macro's share is weighted by the inverse of that
// count, and the shares are summed over the copies of i.
LevelVector PressureGradient::weighted_column_squares(const LevelVector& w) const {
  const SharedNodes& shared = *shared_;
  const std::vector<double>& multiplicity = shared.multiplicity();
  const int n = shared.n();
  const auto nn = static_cast<std::ptrdiff_t>(n) * n;
  LevelVector squares(shared.size(), 0.0);
  for (const accel::BandedMatrix<double>* block : {&blocks_->B1, &blocks_->B2}) {
    accel::BandedMatrix<double> G = *block;
    shared.make_local_matrices(G);
    for (int k = 0; k < accel::kBands; ++k) {
      const std::ptrdiff_t offset = accel::band_offset(k, n);
      const bool diagonal_pair = k % 3 != 1 && k / 3 != 1;
      for (int m = 0; m < G.macros; ++m)
        for (std::ptrdiff_t r = std::max<std::ptrdiff_t>(0, -offset); r < std::min(nn, nn - offset);
             ++r) {
          const std::ptrdiff_t row = m * nn + r, column = row + offset;
          const double g = G.band[k][row];
          const double copies =
              diagonal_pair ? 1.0 : std::min(multiplicity[row], multiplicity[column]);
          squares[column] += w[row] * g * g / copies;
        }
    }
  }
  shared.sum(squares.data());
  return squares;
}

WeightedPressureLaplacian::WeightedPressureLaplacian(const PressureGradient& gradient,
                                                     const LevelVector& weight,
                                                     const accel::BandedMatrix<double>& C,
                                                     double gamma, bool constant_kernel)
    : gradient_(&gradient),
      weight_(&weight),
      C_(&C),
      gamma_(gamma),
      constant_kernel_(constant_kernel),
      ones_(weight.size(), 1.0),
      global_nodes_(gradient.shared().dot(ones_.data(), ones_.data())),
      v1_(weight.size()),
      v2_(weight.size()),
      t_(weight.size()) {}

void WeightedPressureLaplacian::apply(const LevelVector& x, LevelVector& y) const {
  const LevelVector& w = *weight_;
  y.resize(x.size());
  gradient_->apply(x.data(), v1_.data(), v2_.data());
  for (std::size_t i = 0; i < w.size(); ++i) {
    v1_[i] *= w[i];
    v2_[i] *= w[i];
  }
  gradient_->apply_transpose(v1_.data(), v2_.data(), y.data());
  if (gamma_ == 0.0) return;
  accel::cpu::spmv(*C_, x.data(), t_.data());
  gradient_->shared().sum(t_.data());
  axpy(gamma_, t_, y);
}

double WeightedPressureLaplacian::dot(const LevelVector& x, const LevelVector& y) const {
  return gradient_->shared().dot(x.data(), y.data());
}

void WeightedPressureLaplacian::filter(LevelVector& v) const {
  if (!constant_kernel_) return;
  const double mean = gradient_->shared().dot(v.data(), ones_.data()) / global_nodes_;
  for (double& value : v) value -= mean;
}

LeastSquaresCommutator::LeastSquaresCommutator(const GlobalLevel& velocity,
                                               const FlowBlocks& blocks,
                                               GlobalMultigrid& laplacian_mg,
                                               const LevelVector& lumped_mass,
                                               bool fix_pressure_mean, LscScaling scaling)
    : velocity_(&velocity),
      laplacian_mg_(&laplacian_mg),
      gradient_(blocks, *velocity.shared),
      inverse_diagonal_(masked_inverse(assembled_diagonal(velocity.matrix, *velocity.shared),
                                       velocity.dirichlet)),
      inverse_weight_(scaling == LscScaling::diagonal
                          ? inverse_diagonal_
                          : masked_inverse(lumped_mass, velocity.dirichlet)),
      gamma_(commutator_shift(velocity, inverse_weight_)),
      laplacian_(gradient_, inverse_weight_, blocks.C, gamma_, fix_pressure_mean),
      b_(lumped_mass.size()),
      y_(lumped_mass.size()),
      z_(lumped_mass.size()),
      v1_(lumped_mass.size()),
      v2_(lumped_mass.size()),
      a1_(lumped_mass.size()),
      a2_(lumped_mass.size()) {
  // alpha D_s^{-1} (EHSST eq. 4.29): D_s = diag(G^T diag(A)^{-1} G + C),
  // alpha = 1 / rho(D_s^{-1} G^T diag(A)^{-1} G).
  const SharedNodes& shared = *velocity.shared;
  LevelVector outer = gradient_.weighted_column_squares(inverse_diagonal_);
  axpy(1.0, assembled_diagonal(blocks.C, shared), outer);
  const WeightedPressureLaplacian scaled(gradient_, inverse_diagonal_, blocks.C, 0.0, false);
  const double rho =
      spectral_radius(start_vector(shared), shared, [&](const LevelVector& x, LevelVector& y) {
        scaled.apply(x, y);
        for (std::size_t i = 0; i < y.size(); ++i) y[i] /= outer[i];
      });
  const double alpha = 1.0 / rho;
  for (double& d : outer) d = alpha / d;
  inverse_outer_ = std::move(outer);
}

void LeastSquaresCommutator::solve_laplacian(const LevelVector& b, LevelVector& x) {
  std::fill(x.begin(), x.end(), 0.0);
  KrylovParams params;
  params.rel_tol = kLaplacianTolerance;
  params.max_iter = kLaplacianMaxIterations;
  params.fail_on_cap = false;
  solve_krylov(KrylovMethod::cg, laplacian_, *laplacian_mg_, b, x, params);
}

void LeastSquaresCommutator::apply_commutator(const LevelVector& y, LevelVector& t) {
  const SharedNodes& shared = *velocity_->shared;
  const LevelVector& q = inverse_weight_;
  gradient_.apply(y.data(), v1_.data(), v2_.data());
  multiply(q, v1_, v1_);
  multiply(q, v2_, v2_);
  accel::cpu::spmv(velocity_->matrix, v1_.data(), a1_.data());
  accel::cpu::spmv(velocity_->matrix, v2_.data(), a2_.data());
  shared.sum(a1_.data());
  shared.sum(a2_.data());
  multiply(q, a1_, a1_);
  multiply(q, a2_, a2_);
  gradient_.apply_transpose(a1_.data(), a2_.data(), t.data());
}

void LeastSquaresCommutator::apply(const double* d, double* c) {
  std::copy(d, d + b_.size(), b_.begin());
  laplacian_.filter(b_);
  solve_laplacian(b_, y_);  // y = L^{-1} d
  apply_commutator(y_, b_);
  solve_laplacian(b_, z_);  // z = L^{-1} G^T Q^{-1} A Q^{-1} G y
  for (std::size_t i = 0; i < z_.size(); ++i) c[i] = z_[i] + inverse_outer_[i] * d[i];
}

}  // namespace quilt
