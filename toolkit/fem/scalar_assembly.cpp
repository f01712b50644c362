#include "fem/scalar_assembly.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "fem/macro_elements.hpp"
#include "fem/q1_element.hpp"

namespace quilt {
namespace {

/// Whether every element of g is a translate of element (0, 0): the macro is a parallelogram
/// refined by bilinear interpolation (no curved edge). The edge vectors of every element must
/// equal element (0, 0)'s up to the rounding of the node coordinates (64 ulps of the macro's
/// extent); a trapezoid or a charted edge differs by far more.
bool is_affine(const MacroGeometry& g) {
  const int n = g.n;
  if (n < 2) return false;
  const auto [x_lo, x_hi] = std::minmax_element(g.x.begin(), g.x.end());
  const auto [y_lo, y_hi] = std::minmax_element(g.y.begin(), g.y.end());
  const double extent = std::max({*x_hi - *x_lo, *y_hi - *y_lo, std::abs(*x_lo), std::abs(*x_hi),
                                  std::abs(*y_lo), std::abs(*y_hi)});
  const double tol = 64.0 * std::numeric_limits<double>::epsilon() * extent;
  // Per grid line, every element's three edge vectors against element (0, 0)'s, without an exit
  // per element, so that the loop vectorises (the set-up checks every macro of every level);
  // !(d <= tol) also fails a NaN.
  const double* __restrict x = g.x.data();
  const double* __restrict y = g.y.data();
  for (std::size_t step :
       {std::size_t{1}, static_cast<std::size_t>(n), static_cast<std::size_t>(n) + 1}) {
    const double ex = x[step] - x[0], ey = y[step] - y[0];
    for (int j = 0; j + 1 < n; ++j) {
      const std::size_t row = static_cast<std::size_t>(j) * n;
      int differ = 0;
      for (std::size_t p = row; p + 1 < row + n; ++p)
        differ |= static_cast<int>(!(std::abs((x[p + step] - x[p]) - ex) <= tol)) |
                  static_cast<int>(!(std::abs((y[p + step] - y[p]) - ey) <= tol));
      if (differ != 0) return false;
    }
  }
  return true;
}

/// Scatters a 4x4 element matrix E(a, b) = a(phi_b, phi_a) into the bands of macro m.
/// element_matrix must depend on the element's shape only (a constant coefficient): on an affine
/// macro every element is element (0, 0) translated, so its matrix is computed once, the
/// macro's stencil (FEAST's SBBLAS: Becker 2007), and every interior row of the bands sums the
/// same four numbers in the same order, bitwise the same row (accel/stencil_zones.hpp then
/// stores the macro as 25 zone stencils).
template <class ElementMatrix>
void assemble_bilinear(const MacroGeometry& g, BandedMatrix<double>& A, int m,
                       ElementMatrix&& element_matrix) {
  std::array<std::array<double, 4>, 4> em{};
  const bool affine = is_affine(g);
  if (affine) element_matrix(macro_element(g, 0, 0).x, macro_element(g, 0, 0).y, em);
  for (int j = 0; j + 1 < g.n; ++j)
    for (int i = 0; i + 1 < g.n; ++i) {
      const MacroElement e = macro_element(g, i, j);
      if (!affine) {
        em = {};
        element_matrix(e.x, e.y, em);
      }
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) {
          const int k = accel::band_index(kQ1DI[b] - kQ1DI[a], kQ1DJ[b] - kQ1DJ[a]);
          A.at(k, m, e.node[a]) += em[a][b];
        }
    }
}

}  // namespace

void add_laplacian(const MacroGeometry& g, BandedMatrix<double>& A, int m, double scale) {
  const auto rule = gauss2x2();
  assemble_bilinear(g, A, m, [&](const auto& x, const auto& y, auto& e) {
    for (const auto& gp : rule) {
      const Q1Point q = evaluate_q1(x, y, gp);
      const double w = scale * gp.weight * q.det_j;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
          e[a][b] += w * (q.dphi_dx[a] * q.dphi_dx[b] + q.dphi_dy[a] * q.dphi_dy[b]);
    }
  });
}

void add_mass(const MacroGeometry& g, BandedMatrix<double>& A, int m, double scale) {
  const auto rule = gauss2x2();
  assemble_bilinear(g, A, m, [&](const auto& x, const auto& y, auto& e) {
    for (const auto& gp : rule) {
      const Q1Point q = evaluate_q1(x, y, gp);
      const double w = scale * gp.weight * q.det_j;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) e[a][b] += w * q.phi[a] * q.phi[b];
    }
  });
}

void add_derivative(const MacroGeometry& g, int k, BandedMatrix<double>& A, int m) {
  const auto rule = gauss2x2();
  assemble_bilinear(g, A, m, [&](const auto& x, const auto& y, auto& e) {
    for (const auto& gp : rule) {
      const Q1Point q = evaluate_q1(x, y, gp);
      const double w = gp.weight * q.det_j;
      const auto& d = k == 0 ? q.dphi_dx : q.dphi_dy;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) e[a][b] += w * q.phi[a] * d[b];
    }
  });
}

void assemble_lumped_mass(const MacroGeometry& g, double* diagonal) {
  std::fill(diagonal, diagonal + static_cast<std::size_t>(g.n) * g.n, 0.0);
  for_each_quadrature_point(g, gauss2x2(), [&](const MacroElement& e, const Q1Point& q, double w) {
    for (int a = 0; a < 4; ++a) diagonal[e.node[a]] += w * q.phi[a];
  });
}

void add_lumped_mass(const MacroGeometry& g, BandedMatrix<double>& A, int m, double scale) {
  for_each_quadrature_point(g, gauss2x2(), [&](const MacroElement& e, const Q1Point& q, double w) {
    for (int a = 0; a < 4; ++a) A.at(accel::kCentre, m, e.node[a]) += scale * w * q.phi[a];
  });
}

void assemble_load(const MacroGeometry& g, const BatchFunction& f, double* b) {
  std::fill(b, b + static_cast<std::size_t>(g.n) * g.n, 0.0);
  // 2x2 Gauss integrates bicubics exactly: the load's quadrature error stays below the Q1
  // discretisation error and the rates O(h^2) in L2, O(h) in H1 are kept (Strang's first
  // lemma). The 3x3 rule used before evaluated f 2.25 times as often: 0.42 s of the 1.12 s
  // set-up of the Poisson solve at L = 9.
  const auto rule = gauss2x2();
  std::vector<double> fq(static_cast<std::size_t>(g.n - 1) * rule.size());
  for_each_quadrature_row(
      g, rule, [&](std::span<const double> x, std::span<const double> y) { f(x, y, fq); },
      [&](const MacroElement& e, std::size_t k0) {
        // Only phi and det J: the positions came with the row, no shape gradient is needed.
        for (std::size_t p = 0; p < rule.size(); ++p) {
          const double wf = rule[p].weight * q1_jacobian(e.x, e.y, rule[p]).det * fq[k0 + p];
          for (int a = 0; a < 4; ++a) b[e.node[a]] += wf * rule[p].reference.phi[a];
        }
      });
}

SquaredErrors q1_squared_errors(const MacroGeometry& g, const double* uh,
                                const BatchFunctionWithGradient& u) {
  const auto rule = gauss3x3();
  const std::size_t per_row = static_cast<std::size_t>(g.n - 1) * rule.size();
  std::vector<double> value(per_row), d_dx(per_row), d_dy(per_row);
  SquaredErrors err;
  for_each_quadrature_row(
      g, rule,
      [&](std::span<const double> x, std::span<const double> y) { u(x, y, value, d_dx, d_dy); },
      [&](const MacroElement& e, std::size_t k0) {
        std::array<double, 4> ue;
        for (int a = 0; a < 4; ++a) ue[a] = uh[e.node[a]];
        // Summed per element in registers: err, captured by reference, is updated through memory.
        double l2 = 0, h1_semi = 0;
        for (std::size_t p = 0; p < rule.size(); ++p) {
          // u_h and its reference gradient, then grad u_h = J^{-T} (du_h/dxi, du_h/deta): the
          // shape functions' physical gradients (evaluate_q1) are not needed one by one.
          const Q1Reference& r = rule[p].reference;
          const Q1Jacobian J = q1_jacobian(e.x, e.y, rule[p]);
          double v = 0, v_xi = 0, v_eta = 0;
          for (int a = 0; a < 4; ++a) {
            v += r.phi[a] * ue[a];
            v_xi += r.dxi[a] * ue[a];
            v_eta += r.deta[a] * ue[a];
          }
          const double inv = 1.0 / J.det;
          const double e0 = value[k0 + p] - v;
          const double ex = d_dx[k0 + p] - inv * (J.j22 * v_xi - J.j21 * v_eta);
          const double ey = d_dy[k0 + p] - inv * (J.j11 * v_eta - J.j12 * v_xi);
          const double w = rule[p].weight * J.det;
          l2 += w * e0 * e0;
          h1_semi += w * (ex * ex + ey * ey);
        }
        err.l2 += l2;
        err.h1_semi += h1_semi;
      });
  return err;
}

double macro_area(const MacroGeometry& g) {
  double area = 0.0;
  for_each_quadrature_point(g, gauss2x2(),
                            [&](const MacroElement&, const Q1Point&, double w) { area += w; });
  return area;
}

}  // namespace quilt
