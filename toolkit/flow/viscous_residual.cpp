#include "flow/viscous_residual.hpp"

#include <algorithm>
#include <cmath>

#include "accel/cpu/band_kernels.hpp"
#include "fem/scalar_assembly.hpp"
#include "mesh/macro_nodes.hpp"

namespace quilt {
namespace {

/// Grid offset from a node of local edge k to its inward neighbour (mesh/macro_nodes.hpp order).
std::ptrdiff_t inward_offset(int n, int k) {
  const std::array<std::ptrdiff_t, 4> inward{n, -1, -n, 1};
  return inward[k];
}

/// The local edge that meets edge k at its end q = 0 (`last` false) or q = n - 1 (true).
int adjacent_edge(int k, bool last) {
  const bool horizontal = k == 0 || k == 2;
  if (horizontal) return last ? 1 : 3;
  return last ? 2 : 0;
}

/// Calls f(r0, r1, r2) for every node r0 of the boundary edges of a macro, with r1, r2 the next
/// two nodes inward on its grid line. At a corner where both edges of the macro lie on the
/// boundary, the line along either edge holds boundary nodes only: the diagonal line is taken
/// (once per edge: both give the same values).
template <class F>
void for_each_boundary_line(const MacroGeometry& g, const std::array<bool, 4>& boundary_edge,
                            F&& f) {
  if (g.n < 3) return;
  for (int k = 0; k < 4; ++k) {
    if (!boundary_edge[k]) continue;
    for (int q = 0; q < g.n; ++q) {
      std::ptrdiff_t step = inward_offset(g.n, k);
      const bool end = q == 0 || q == g.n - 1;
      if (end && boundary_edge[adjacent_edge(k, q != 0)])
        step += inward_offset(g.n, adjacent_edge(k, q != 0));
      const auto r0 = static_cast<std::ptrdiff_t>(edge_node(g.n, k, q));
      f(static_cast<std::size_t>(r0), static_cast<std::size_t>(r0 + step),
        static_cast<std::size_t>(r0 + 2 * step));
    }
  }
}

}  // namespace

GradientRecovery::GradientRecovery(const LevelHierarchy& velocity, const LevelVector& lumped_mass,
                                   const std::vector<std::array<bool, 4>>& boundary_edges)
    : velocity_(&velocity),
      lumped_mass_(&lumped_mass),
      boundary_edges_(&boundary_edges),
      level_(velocity.finest()),
      extrapolations_(lumped_mass.size(), 0.0),
      scratch_(lumped_mass.size()) {
  const std::size_t nn = velocity.level(level_).matrix.rows_per_macro();
  const auto macros = static_cast<int>(boundary_edges.size());
  for (int k = 0; k < 2; ++k) {
    derivative_[k] = accel::BandedMatrix<double>(macros, velocity.level(level_).n);
    for (int m = 0; m < macros; ++m)
      add_derivative(velocity.geometry(level_, m), k, derivative_[k], m);
  }
  for (std::size_t m = 0; m < boundary_edges.size(); ++m)
    for_each_boundary_line(
        velocity.geometry(level_, static_cast<int>(m)), boundary_edges[m],
        [&](std::size_t r0, std::size_t, std::size_t) { extrapolations_[m * nn + r0] += 1.0; });
  velocity.level(level_).shared->sum(extrapolations_.data());
}

void GradientRecovery::recover(const double* u1, const double* u2, NodalGradient& G) const {
  project(u1, u2, G);
  extrapolate_to_boundary(G);
}

void GradientRecovery::project(const double* u1, const double* u2, NodalGradient& G) const {
  // d[2c + k]_i = int d_k u_c,h phi_i (type-0): the weak derivatives, both components in one
  // pass over each matrix.
  const GlobalLevel& finest = velocity_->level(level_);
  for (int k = 0; k < 2; ++k)
    accel::cpu::spmv_pair<double>(derivative_[k], nullptr, u1, u2, G.d[k].data(),
                                  G.d[2 + k].data());
  const LevelVector& mass = *lumped_mass_;
  for (auto& f : G.d) {
    finest.shared->sum(f.data());
    for (std::size_t i = 0; i < f.size(); ++i) f[i] /= mass[i];
  }
}

void GradientRecovery::extrapolate_to_boundary(NodalGradient& G) const {
  const GlobalLevel& finest = velocity_->level(level_);
  const std::size_t nn = finest.matrix.rows_per_macro();
  for (auto& f : scratch_.d) std::fill(f.begin(), f.end(), 0.0);
  for (std::size_t m = 0; m < boundary_edges_->size(); ++m) {
    const MacroGeometry& g = velocity_->geometry(level_, static_cast<int>(m));
    const std::size_t o = m * nn;
    for_each_boundary_line(g, (*boundary_edges_)[m],
                           [&](std::size_t r0, std::size_t r1, std::size_t r2) {
                             // Linear extrapolation in the arc length along the grid line.
                             const double ratio = std::hypot(g.x[r0] - g.x[r1], g.y[r0] - g.y[r1]) /
                                                  std::hypot(g.x[r1] - g.x[r2], g.y[r1] - g.y[r2]);
                             for (int f = 0; f < 4; ++f) {
                               const double g1 = G.d[f][o + r1], g2 = G.d[f][o + r2];
                               scratch_.d[f][o + r0] += g1 + ratio * (g1 - g2);
                             }
                           });
  }
  for (int f = 0; f < 4; ++f) {
    finest.shared->sum(scratch_.d[f].data());
    for (std::size_t i = 0; i < extrapolations_.size(); ++i)
      if (extrapolations_[i] > 0) G.d[f][i] = scratch_.d[f][i] / extrapolations_[i];
  }
}

ViscousResidualTerm::ViscousResidualTerm(const LevelHierarchy& velocity,
                                         const LevelVector& lumped_mass,
                                         const std::vector<std::array<bool, 4>>& boundary_edges)
    : velocity_(&velocity),
      recovery_(velocity, lumped_mass, boundary_edges),
      gradient_(lumped_mass.size()) {}

void ViscousResidualTerm::linearise(const Linearisation& at) {
  // delta_K = 0 without convection or SUPG, and the PSPG rows carry C alone with local projection.
  supg_ = at.convection && at.stab.params.supg_scale != 0.0;
  pspg_ = at.stab.params.pressure == PressureStabilisation::pspg;
  if (!supg_ && !pspg_) return;
  const int L = velocity_->finest();
  const accel::BandedMatrix<double>& A = velocity_->level(L).matrix;
  // Only the pairs that are not zero are stored: made at the first linearisation that needs
  // them (Stokes keeps 4 of the 6 blocks, local projection 2), refilled in place after it.
  const std::array<bool, 6> used = {supg_, supg_, pspg_, pspg_, pspg_, pspg_};
  std::array<accel::BandedMatrix<double>*, 6> block{};
  for (std::size_t k = 0; k < block.size(); ++k) {
    if (!used[k]) continue;
    if (blocks_[k].macros == 0) blocks_[k] = accel::BandedMatrix<double>(A.macros, A.n);
    blocks_[k].fill(0.0);
    block[k] = &blocks_[k];
  }
  const ViscousResidualBlocks blocks{block[0], block[1], block[2], block[3], block[4], block[5]};
  const std::size_t nn = A.rows_per_macro();
  for (int m = 0; m < A.macros; ++m)
    add_viscous_residual_blocks(velocity_->geometry(L, m), at.macro(m * nn), at.nu, at.convection,
                                at.stab, blocks, m);
}

void ViscousResidualTerm::add(const double* u1, const double* u2, double* y1, double* y2,
                              double* yp) const {
  recovery_.recover(u1, u2, gradient_);
  const auto& [x, y, xx, xy, yx, yy] = blocks_;
  const auto& G = gradient_.d;
  if (supg_) {
    accel::cpu::spmv_add(x, G[0].data(), y1);
    accel::cpu::spmv_add(y, G[1].data(), y1);
    accel::cpu::spmv_add(x, G[2].data(), y2);
    accel::cpu::spmv_add(y, G[3].data(), y2);
  }
  if (pspg_) {
    accel::cpu::spmv_add(xx, G[0].data(), yp);
    accel::cpu::spmv_add(xy, G[1].data(), yp);
    accel::cpu::spmv_add(yx, G[2].data(), yp);
    accel::cpu::spmv_add(yy, G[3].data(), yp);
  }
}

}  // namespace quilt
