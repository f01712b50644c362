#include "fem/q1_element.hpp"

#include <cmath>

namespace quilt {

namespace {

/// The rule of the points xi_a x eta_b with weights w_a w_b.
template <std::size_t N>
std::array<GaussPoint, N * N> tensor_rule(const std::array<double, N>& p,
                                          const std::array<double, N>& w) {
  std::array<GaussPoint, N * N> rule{};
  for (std::size_t b = 0; b < N; ++b)
    for (std::size_t a = 0; a < N; ++a)
      rule[b * N + a] = {p[a], p[b], w[a] * w[b], reference_q1(p[a], p[b])};
  return rule;
}

}  // namespace

std::array<GaussPoint, 4> gauss2x2() {
  const double g = 1.0 / std::sqrt(3.0);
  static const std::array<GaussPoint, 4> rule = tensor_rule<2>({-g, g}, {1.0, 1.0});
  return rule;
}

std::array<GaussPoint, 9> gauss3x3() {
  const double g = std::sqrt(0.6);
  static const std::array<GaussPoint, 9> rule =
      tensor_rule<3>({-g, 0.0, g}, {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0});
  return rule;
}

Q1Reference reference_q1(double xi, double eta) {
  // Reference corners (-1,-1), (1,-1), (1,1), (-1,1); phi_a = (1 + xi_a xi)(1 + eta_a eta) / 4.
  constexpr std::array<double, 4> xa = {-1.0, 1.0, 1.0, -1.0};
  constexpr std::array<double, 4> ea = {-1.0, -1.0, 1.0, 1.0};
  Q1Reference r{};
  for (int a = 0; a < 4; ++a) {
    r.phi[a] = 0.25 * (1.0 + xa[a] * xi) * (1.0 + ea[a] * eta);
    r.dxi[a] = 0.25 * xa[a] * (1.0 + ea[a] * eta);
    r.deta[a] = 0.25 * ea[a] * (1.0 + xa[a] * xi);
  }
  return r;
}

Q1Point evaluate_q1(const std::array<double, 4>& x, const std::array<double, 4>& y, double xi,
                    double eta) {
  return evaluate_q1(x, y, GaussPoint{xi, eta, 0.0, reference_q1(xi, eta)});
}

}  // namespace quilt
