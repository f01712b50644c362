#include "fem/flow_functionals.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

#include "fem/macro_elements.hpp"
#include "fem/q1_element.hpp"

namespace quilt {
namespace {

/// u_h and its gradient at one quadrature point of an element.
struct VelocityAt {
  double u1 = 0, u2 = 0, du1_dx = 0, du1_dy = 0, du2_dx = 0, du2_dy = 0;
};

VelocityAt velocity_at(const Q1Point& q, const MacroElement& e, const double* u1,
                       const double* u2) {
  VelocityAt v;
  for (int a = 0; a < 4; ++a) {
    const double a1 = u1[e.node[a]], a2 = u2[e.node[a]];
    v.u1 += a1 * q.phi[a];
    v.u2 += a2 * q.phi[a];
    v.du1_dx += a1 * q.dphi_dx[a];
    v.du1_dy += a1 * q.dphi_dy[a];
    v.du2_dx += a2 * q.dphi_dx[a];
    v.du2_dy += a2 * q.dphi_dy[a];
  }
  return v;
}

}  // namespace

double kinetic_energy(const MacroGeometry& g, const double* u1, const double* u2) {
  double energy = 0.0;
  for_each_quadrature_point(g, gauss3x3(), [&](const MacroElement& e, const Q1Point& q, double w) {
    const VelocityAt v = velocity_at(q, e, u1, u2);
    energy += w * (v.u1 * v.u1 + v.u2 * v.u2);
  });
  return 0.5 * energy;
}

void vorticity_load(const MacroGeometry& g, const double* u1, const double* u2, double* out) {
  std::fill(out, out + static_cast<std::size_t>(g.n) * g.n, 0.0);
  // 2x2 Gauss is exact: det J grad u_h and phi_i are both bilinear in the reference variables.
  for_each_quadrature_point(g, gauss2x2(), [&](const MacroElement& e, const Q1Point& q, double w) {
    const VelocityAt v = velocity_at(q, e, u1, u2);
    const double wv = w * (v.du2_dx - v.du1_dy);
    for (int a = 0; a < 4; ++a) out[e.node[a]] += wv * q.phi[a];
  });
}

double divergence_l2_squared(const MacroGeometry& g, const double* u1, const double* u2) {
  double sum = 0.0;
  for_each_quadrature_point(g, gauss3x3(), [&](const MacroElement& e, const Q1Point& q, double w) {
    const VelocityAt v = velocity_at(q, e, u1, u2);
    const double div = v.du1_dx + v.du2_dy;
    sum += w * div * div;
  });
  return sum;
}

}  // namespace quilt
