#pragma once
// The isoparametric bilinear (Q1) quadrilateral: shape functions on the reference square
// [-1,1]^2, the bilinear map to the physical element, its Jacobian, and 2- and 3-point
// Gauss-Legendre rules (exact for the Q1 mass matrix on any quadrilateral: phi_i phi_j det J is
// cubic in each reference variable, since det J is affine in each).

#include <array>

namespace quilt {

/// The reference shape functions phi_a and their derivatives by xi and eta at one point.
struct Q1Reference {
  std::array<double, 4> phi, dxi, deta;
};

Q1Reference reference_q1(double xi, double eta);

/// One Gauss point: reference coordinates and weight, with the reference shape functions there,
/// which are the same on every element (computed once, with the rule).
struct GaussPoint {
  double xi, eta, weight;
  Q1Reference reference;
};

/// Tensor-product Gauss-Legendre rule with `points` points per direction (2 or 3).
std::array<GaussPoint, 4> gauss2x2();
std::array<GaussPoint, 9> gauss3x3();

/// Local vertex a of the element has reference corner (XI[a], ETA[a]) and grid offset
/// (DI[a], DJ[a]) from the element's lower-left node: counterclockwise 0:(0,0) 1:(1,0) 2:(1,1)
/// 3:(0,1).
inline constexpr std::array<int, 4> kQ1DI = {0, 1, 1, 0};
inline constexpr std::array<int, 4> kQ1DJ = {0, 0, 1, 1};

/// Shape function values, physical gradients and the Jacobian determinant of a bilinear element
/// at one reference point.
struct Q1Point {
  std::array<double, 4> phi;
  std::array<double, 4> dphi_dx;
  std::array<double, 4> dphi_dy;
  double x, y;   ///< physical position
  double det_j;  ///< > 0 for a counterclockwise, non-degenerate element
};

/// Evaluates the element with corners (x[a], y[a]), a = 0..3 counterclockwise, at (xi, eta).
Q1Point evaluate_q1(const std::array<double, 4>& x, const std::array<double, 4>& y, double xi,
                    double eta);
/// One physical coordinate (x or y) of a Gauss point of the element with corner coordinates c:
/// sum_a phi_a c_a.
inline double gauss_point_position(const std::array<double, 4>& c, const GaussPoint& gp) {
  double position = 0;
  for (int a = 0; a < 4; ++a) position += gp.reference.phi[a] * c[a];
  return position;
}

/// The Jacobian J = d(x,y)/d(xi,eta) of the bilinear map at a Gauss point, and det J.
struct Q1Jacobian {
  double j11, j12, j21, j22, det;
};
inline Q1Jacobian q1_jacobian(const std::array<double, 4>& x, const std::array<double, 4>& y,
                              const GaussPoint& gp) {
  const auto& dxi = gp.reference.dxi;
  const auto& deta = gp.reference.deta;
  Q1Jacobian J{0, 0, 0, 0, 0};
  for (int a = 0; a < 4; ++a) {
    J.j11 += dxi[a] * x[a];
    J.j12 += deta[a] * x[a];
    J.j21 += dxi[a] * y[a];
    J.j22 += deta[a] * y[a];
  }
  J.det = J.j11 * J.j22 - J.j12 * J.j21;
  return J;
}

/// The same as evaluate_q1 above at a point of gauss2x2() or gauss3x3(), from its reference
/// values (bitwise equal). Inline: every element loop of the assembly calls it per Gauss point;
/// as a call (the 15 numbers of Q1Point returned through memory) the Laplacian's assembly on the
/// unstructured square at L = 8 took 1.6 times as long (its share of a perf profile, 8.2 against
/// 5.0 %).
inline Q1Point evaluate_q1(const std::array<double, 4>& x, const std::array<double, 4>& y,
                           const GaussPoint& gp) {
  const auto& dxi = gp.reference.dxi;
  const auto& deta = gp.reference.deta;
  Q1Point q{};
  q.phi = gp.reference.phi;
  q.x = gauss_point_position(x, gp);
  q.y = gauss_point_position(y, gp);
  const Q1Jacobian J = q1_jacobian(x, y, gp);
  q.det_j = J.det;
  const double inv = 1.0 / q.det_j;
  // grad phi = J^{-T} (dphi/dxi, dphi/deta)
  for (int a = 0; a < 4; ++a) {
    q.dphi_dx[a] = inv * (J.j22 * dxi[a] - J.j21 * deta[a]);
    q.dphi_dy[a] = inv * (-J.j12 * dxi[a] + J.j11 * deta[a]);
  }
  return q;
}

}  // namespace quilt
