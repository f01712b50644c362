#include "fem/point_evaluation.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "fem/q1_element.hpp"

namespace quilt {
namespace {

/// Reference corner of local vertex a: (-1,-1), (1,-1), (1,1), (-1,1).
constexpr double corner_xi(int a) {
  return 2.0 * kQ1DI[a] - 1.0;
}
constexpr double corner_eta(int a) {
  return 2.0 * kQ1DJ[a] - 1.0;
}

std::array<double, 4> q1_basis(double xi, double eta) {
  std::array<double, 4> phi{};
  for (int a = 0; a < 4; ++a)
    phi[a] = 0.25 * (1.0 + corner_xi(a) * xi) * (1.0 + corner_eta(a) * eta);
  return phi;
}

/// Inverts the bilinear map of the element with corners (x[a], y[a]) at p by Newton's method
/// from the centre. Newton converges quadratically here (a bilinear map, convex element), so once
/// the update has dropped below 1e-10 one more step reaches round-off; an absolute stopping test
/// near machine epsilon would not do, since round-off in x(xi, eta) - p is amplified by
/// |coordinates| / h_K in reference coordinates. false if the Jacobian degenerates or the
/// iteration does not settle (p far from a distorted element: it is not in that element).
bool invert_bilinear(const std::array<double, 4>& x, const std::array<double, 4>& y, Point2 p,
                     double& xi, double& eta) {
  xi = 0.0;
  eta = 0.0;
  constexpr int kMaxIterations = 30;
  bool settled = false;
  for (int it = 0; it < kMaxIterations; ++it) {
    double fx = -p.x, fy = -p.y, j11 = 0, j12 = 0, j21 = 0, j22 = 0;
    const std::array<double, 4> phi = q1_basis(xi, eta);
    for (int a = 0; a < 4; ++a) {
      const double dxi = 0.25 * corner_xi(a) * (1.0 + corner_eta(a) * eta);
      const double deta = 0.25 * corner_eta(a) * (1.0 + corner_xi(a) * xi);
      fx += phi[a] * x[a];
      fy += phi[a] * y[a];
      j11 += dxi * x[a];
      j12 += deta * x[a];
      j21 += dxi * y[a];
      j22 += deta * y[a];
    }
    const double det = j11 * j22 - j12 * j21;
    if (!(std::abs(det) > 0.0)) return false;
    const double dxi = (j22 * fx - j12 * fy) / det;
    const double deta = (-j21 * fx + j11 * fy) / det;
    xi -= dxi;
    eta -= deta;
    if (!std::isfinite(xi) || !std::isfinite(eta)) return false;
    if (settled) return true;
    settled = std::abs(dxi) + std::abs(deta) < 1e-10;
  }
  return false;
}

}  // namespace

std::optional<PointLocation> locate_point(const MacroGeometry& g, Point2 p, double tolerance) {
  const int n = g.n;
  std::array<double, 4> x{}, y{};
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      for (int a = 0; a < 4; ++a) {
        const std::size_t r =
            static_cast<std::size_t>(i + kQ1DI[a]) + static_cast<std::size_t>(j + kQ1DJ[a]) * n;
        x[a] = g.x[r];
        y[a] = g.y[r];
      }
      const auto [x_lo, x_hi] = std::minmax({x[0], x[1], x[2], x[3]});
      const auto [y_lo, y_hi] = std::minmax({y[0], y[1], y[2], y[3]});
      // The reference tolerance, carried over to physical lengths by the element's size.
      const double slack = tolerance * std::max(x_hi - x_lo, y_hi - y_lo);
      if (p.x < x_lo - slack || p.x > x_hi + slack || p.y < y_lo - slack || p.y > y_hi + slack)
        continue;
      double xi = 0.0, eta = 0.0;
      if (!invert_bilinear(x, y, p, xi, eta)) continue;
      const double bound = 1.0 + tolerance;
      if (std::abs(xi) <= bound && std::abs(eta) <= bound)
        return PointLocation{i, j, std::clamp(xi, -1.0, 1.0), std::clamp(eta, -1.0, 1.0)};
    }
  return std::nullopt;
}

double evaluate_q1_field(const MacroGeometry& g, const double* values, const PointLocation& loc) {
  const std::array<double, 4> phi = q1_basis(loc.xi, loc.eta);
  double v = 0.0;
  for (int a = 0; a < 4; ++a)
    v += phi[a] * values[static_cast<std::size_t>(loc.element_i + kQ1DI[a]) +
                         static_cast<std::size_t>(loc.element_j + kQ1DJ[a]) * g.n];
  return v;
}

}  // namespace quilt
