#include "flow/viscous_residual.hpp"

#include <algorithm>
#include <cmath>

#include "fem/macro_elements.hpp"
#include "mesh/macro_nodes.hpp"

namespace quilt {
namespace {

/// load[2c + k]_i = int d_k u_c,h phi_i over the macro (type-0, overwritten). 2x2 Gauss is exact:
/// det J grad u_h and phi_i are bilinear in the reference variables.
void gradient_load(const MacroGeometry& g, const double* u1, const double* u2,
                   const std::array<double*, 4>& load) {
  const std::size_t nn = static_cast<std::size_t>(g.n) * g.n;
  for (double* f : load) std::fill(f, f + nn, 0.0);
  for_each_quadrature_point(g, gauss2x2(), [&](const MacroElement& e, const Q1Point& q, double w) {
    std::array<double, 4> grad{};  // {du1/dx, du1/dy, du2/dx, du2/dy}
    for (int a = 0; a < 4; ++a) {
      grad[0] += u1[e.node[a]] * q.dphi_dx[a];
      grad[1] += u1[e.node[a]] * q.dphi_dy[a];
      grad[2] += u2[e.node[a]] * q.dphi_dx[a];
      grad[3] += u2[e.node[a]] * q.dphi_dy[a];
    }
    for (int a = 0; a < 4; ++a)
      for (int f = 0; f < 4; ++f) load[f][e.node[a]] += w * grad[f] * q.phi[a];
  });
}

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
  const GlobalLevel& finest = velocity_->level(level_);
  const std::size_t nn = finest.matrix.rows_per_macro();
  for (std::size_t m = 0; m < boundary_edges_->size(); ++m) {
    const std::size_t o = m * nn;
    gradient_load(velocity_->geometry(level_, static_cast<int>(m)), u1 + o, u2 + o,
                  {G.d[0].data() + o, G.d[1].data() + o, G.d[2].data() + o, G.d[3].data() + o});
  }
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

void ViscousResidualTerm::add(const double* u1, const double* u2, double* y1, double* y2,
                              double* yp) const {
  recovery_.recover(u1, u2, gradient_);
  const int L = velocity_->finest();
  const std::size_t nn = velocity_->level(L).matrix.rows_per_macro();
  const auto macros = static_cast<int>(gradient_.d[0].size() / nn);
  for (int m = 0; m < macros; ++m) {
    const std::size_t o = m * nn;
    add_viscous_residual(velocity_->geometry(L, m), at_.macro(o), gradient_.macro(m, nn), at_.nu,
                         at_.convection, at_.stab, y1 + o, y2 + o, yp + o);
  }
}

}  // namespace quilt
