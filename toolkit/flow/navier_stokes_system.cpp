#include "flow/navier_stokes_system.hpp"

#include <algorithm>
#include <utility>

#include "accel/cpu/band_kernels.hpp"
#include "la/vector_ops.hpp"

namespace quilt {

NavierStokesSystem::NavierStokesSystem(const GlobalLevel& velocity, const FlowBlocks& blocks,
                                       bool fix_pressure_mean, const JacobianBlocks* jacobian,
                                       MatrixFreeTerms terms)
    : velocity_(&velocity),
      blocks_(&blocks),
      jacobian_(jacobian),
      viscous_(terms.viscous),
      projection_(terms.projection),
      fix_pressure_mean_(fix_pressure_mean),
      block_(velocity.matrix.rows()),
      ones_(velocity.matrix.rows(), 1.0),
      scratch_(velocity.matrix.rows()) {
  global_nodes_ = velocity.shared->dot(ones_.data(), ones_.data());
}

void JacobianBlocks::fold(const accel::BandedMatrix<double>& A, const FlowBlocks& blocks) {
  const auto add = [](const accel::BandedMatrix<double>& from, accel::BandedMatrix<double>& to) {
    for (int k = 0; k < accel::kBands; ++k) axpy(1.0, from.band[k], to.band[k]);
  };
  add(A, J11);
  add(A, J22);
  add(blocks.D1, F1);
  add(blocks.D2, F2);
}

void NavierStokesSystem::apply(const LevelVector& x, LevelVector& y) const {
  const std::size_t N = block_;
  const double* x1 = x.data();
  const double* x2 = x1 + N;
  const double* xp = x2 + N;
  double* y1 = y.data();
  double* y2 = y1 + N;
  double* yp = y2 + N;
  const FlowBlocks& b = *blocks_;
  // Type-0 products per macro, accumulated into each block row in a fixed order, one sum per
  // block row.
  if (jacobian_) {  // the Jacobian, its velocity blocks folded (JacobianBlocks)
    const JacobianBlocks& J = *jacobian_;
    accel::cpu::spmv(J.J11, x1, y1);
    accel::cpu::spmv_add(J.N12, x2, y1);
    accel::cpu::spmv(J.N21, x1, y2);
    accel::cpu::spmv_add(J.J22, x2, y2);
  } else {  // K(w): A is read once for both components
    accel::cpu::spmv_pair<double>(velocity_->matrix, nullptr, x1, x2, y1, y2);
  }
  accel::cpu::spmv_add(b.B1, xp, y1);
  accel::cpu::spmv_add(b.B2, xp, y2);
  accel::cpu::spmv(b.C, xp, yp);
  if (projection_) projection_->subtract_patch_means(xp, yp);
  // The continuity rows' blocks on the velocity: D, or D + E in the Jacobian.
  const accel::BandedMatrix<double>& continuity1 = jacobian_ ? jacobian_->F1 : b.D1;
  const accel::BandedMatrix<double>& continuity2 = jacobian_ ? jacobian_->F2 : b.D2;
  accel::cpu::spmv_add(continuity1, x1, yp);
  accel::cpu::spmv_add(continuity2, x2, yp);
  if (jacobian_ && projection_) projection_->add_jacobian(x1, x2, yp);
  if (viscous_) viscous_->add(x1, x2, y1, y2, yp);  // S(u), linear in u
  const SharedNodes& shared = *velocity_->shared;
  shared.sum(y1);
  shared.sum(y2);
  shared.sum(yp);
  const auto& dirichlet = velocity_->dirichlet;
  for (std::size_t i = 0; i < N; ++i)
    if (dirichlet[i]) {  // unit rows
      y1[i] = x1[i];
      y2[i] = x2[i];
    }
}

void NavierStokesSystem::momentum_rows(const LevelVector& x, double* r1, double* r2) const {
  const std::size_t N = block_;
  const double* xp = x.data() + 2 * N;
  double* t = scratch_.data();
  accel::cpu::spmv_pair<double>(velocity_->matrix, nullptr, x.data(), x.data() + N, r1, r2);
  accel::cpu::spmv_add(blocks_->B1, xp, r1);
  accel::cpu::spmv_add(blocks_->B2, xp, r2);
  if (viscous_) {  // the momentum part of S(u); its continuity part goes to scratch and is dropped
    std::fill(t, t + N, 0.0);
    viscous_->add(x.data(), x.data() + N, r1, r2, t);
  }
  velocity_->shared->sum(r1);
  velocity_->shared->sum(r2);
}

void NavierStokesSystem::add_pressure_rows(const double* q, double* r1, double* r2) const {
  double* t = scratch_.data();
  for (const auto& [B, r] : {std::pair{&blocks_->B1, r1}, std::pair{&blocks_->B2, r2}}) {
    accel::cpu::spmv(*B, q, t);
    velocity_->shared->sum(t);
    for (std::size_t i = 0; i < block_; ++i) r[i] += t[i];
  }
}

void NavierStokesSystem::apply_divergence(const double* c1, const double* c2, double* t) const {
  accel::cpu::spmv(blocks_->D1, c1, t);
  accel::cpu::spmv_add(blocks_->D2, c2, t);
  velocity_->shared->sum(t);
}

double NavierStokesSystem::dot(const LevelVector& x, const LevelVector& y) const {
  const SharedNodes& shared = *velocity_->shared;
  // The three blocks' partial sums in one pass, then one deterministic reduction.
  return shared.comm().sum(shared.local_dot_fields(x.data(), y.data(), 3, block_));
}

void NavierStokesSystem::remove_pressure_mean(double* p) const {
  if (!fix_pressure_mean_) return;
  const double mean = velocity_->shared->dot(p, ones_.data()) / global_nodes_;
  for (std::size_t i = 0; i < block_; ++i) p[i] -= mean;
}

void NavierStokesSystem::filter(LevelVector& v) const {
  const auto& dirichlet = velocity_->dirichlet;
  double* v1 = v.data();
  double* v2 = v1 + block_;
  for (std::size_t i = 0; i < block_; ++i)
    if (dirichlet[i]) v1[i] = v2[i] = 0.0;
  remove_pressure_mean(v2 + block_);
}

}  // namespace quilt
