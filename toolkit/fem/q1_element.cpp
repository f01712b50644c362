#include "fem/q1_element.hpp"

#include <cmath>

namespace quilt {

std::array<GaussPoint, 4> gauss2x2() {
  const double g = 1.0 / std::sqrt(3.0);
  return {{{-g, -g, 1.0}, {g, -g, 1.0}, {-g, g, 1.0}, {g, g, 1.0}}};
}

std::array<GaussPoint, 9> gauss3x3() {
  const double g = std::sqrt(0.6);
  const std::array<double, 3> p = {-g, 0.0, g};
  const std::array<double, 3> w = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
  std::array<GaussPoint, 9> rule{};
  for (int b = 0; b < 3; ++b)
    for (int a = 0; a < 3; ++a) rule[b * 3 + a] = {p[a], p[b], w[a] * w[b]};
  return rule;
}

Q1Point evaluate_q1(const std::array<double, 4>& x, const std::array<double, 4>& y, double xi,
                    double eta) {
  // Reference corners (-1,-1), (1,-1), (1,1), (-1,1); phi_a = (1 + xi_a xi)(1 + eta_a eta) / 4.
  constexpr std::array<double, 4> xa = {-1.0, 1.0, 1.0, -1.0};
  constexpr std::array<double, 4> ea = {-1.0, -1.0, 1.0, 1.0};
  Q1Point q{};
  std::array<double, 4> dxi{}, deta{};
  for (int a = 0; a < 4; ++a) {
    q.phi[a] = 0.25 * (1.0 + xa[a] * xi) * (1.0 + ea[a] * eta);
    dxi[a] = 0.25 * xa[a] * (1.0 + ea[a] * eta);
    deta[a] = 0.25 * ea[a] * (1.0 + xa[a] * xi);
  }
  double j11 = 0, j12 = 0, j21 = 0, j22 = 0;  // J = d(x,y)/d(xi,eta)
  for (int a = 0; a < 4; ++a) {
    q.x += q.phi[a] * x[a];
    q.y += q.phi[a] * y[a];
    j11 += dxi[a] * x[a];
    j12 += deta[a] * x[a];
    j21 += dxi[a] * y[a];
    j22 += deta[a] * y[a];
  }
  q.det_j = j11 * j22 - j12 * j21;
  const double inv = 1.0 / q.det_j;
  // grad phi = J^{-T} (dphi/dxi, dphi/deta)
  for (int a = 0; a < 4; ++a) {
    q.dphi_dx[a] = inv * (j22 * dxi[a] - j21 * deta[a]);
    q.dphi_dy[a] = inv * (-j12 * dxi[a] + j11 * deta[a]);
  }
  return q;
}

}  // namespace quilt
