#include "fem/scalar_assembly.hpp"

#include <algorithm>
#include <array>

#include "fem/q1_element.hpp"

namespace quilt {
namespace {

/// Corner coordinates of element (i, j) (its lower-left node) in counterclockwise order.
void element_corners(const MacroGeometry& g, int i, int j, std::array<double, 4>& x,
                     std::array<double, 4>& y) {
  for (int a = 0; a < 4; ++a) {
    const std::size_t r = static_cast<std::size_t>(i + kQ1DI[a]) + (j + kQ1DJ[a]) * g.n;
    x[a] = g.x[r];
    y[a] = g.y[r];
  }
}

/// Scatters a 4x4 element matrix E(a, b) = a(phi_b, phi_a) into the bands of macro m.
template <class ElementMatrix>
void assemble_bilinear(const MacroGeometry& g, BandedMatrix<double>& A, int m,
                       ElementMatrix&& element_matrix) {
  const int n = g.n;
  std::array<double, 4> x{}, y{};
  std::array<std::array<double, 4>, 4> e{};
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      element_corners(g, i, j, x, y);
      e = {};
      element_matrix(x, y, e);
      for (int a = 0; a < 4; ++a) {
        const std::size_t row = static_cast<std::size_t>(i + kQ1DI[a]) + (j + kQ1DJ[a]) * n;
        for (int b = 0; b < 4; ++b) {
          const int k = accel::band_index(kQ1DI[b] - kQ1DI[a], kQ1DJ[b] - kQ1DJ[a]);
          A.at(k, m, row) += e[a][b];
        }
      }
    }
}

}  // namespace

void add_laplacian(const MacroGeometry& g, BandedMatrix<double>& A, int m, double scale) {
  const auto rule = gauss2x2();
  assemble_bilinear(g, A, m, [&](const auto& x, const auto& y, auto& e) {
    for (const auto& gp : rule) {
      const Q1Point q = evaluate_q1(x, y, gp.xi, gp.eta);
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
      const Q1Point q = evaluate_q1(x, y, gp.xi, gp.eta);
      const double w = scale * gp.weight * q.det_j;
      for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b) e[a][b] += w * q.phi[a] * q.phi[b];
    }
  });
}

void assemble_lumped_mass(const MacroGeometry& g, double* diagonal) {
  const int n = g.n;
  const auto rule = gauss2x2();
  std::fill(diagonal, diagonal + static_cast<std::size_t>(n) * n, 0.0);
  std::array<double, 4> x{}, y{};
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      element_corners(g, i, j, x, y);
      for (const auto& gp : rule) {
        const Q1Point q = evaluate_q1(x, y, gp.xi, gp.eta);
        for (int a = 0; a < 4; ++a)
          diagonal[(i + kQ1DI[a]) + (j + kQ1DJ[a]) * n] += gp.weight * q.det_j * q.phi[a];
      }
    }
}

void assemble_load(const MacroGeometry& g, const ScalarFunction& f, double* b) {
  const int n = g.n;
  const auto rule = gauss3x3();
  std::fill(b, b + static_cast<std::size_t>(n) * n, 0.0);
  std::array<double, 4> x{}, y{};
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      element_corners(g, i, j, x, y);
      for (const auto& gp : rule) {
        const Q1Point q = evaluate_q1(x, y, gp.xi, gp.eta);
        const double w = gp.weight * q.det_j * f(q.x, q.y);
        for (int a = 0; a < 4; ++a) b[(i + kQ1DI[a]) + (j + kQ1DJ[a]) * n] += w * q.phi[a];
      }
    }
}

SquaredErrors q1_squared_errors(const MacroGeometry& g, const double* uh, const ScalarFunction& u,
                                const ScalarFunction& du_dx, const ScalarFunction& du_dy) {
  const int n = g.n;
  const auto rule = gauss3x3();
  SquaredErrors err;
  std::array<double, 4> x{}, y{};
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      element_corners(g, i, j, x, y);
      for (const auto& gp : rule) {
        const Q1Point q = evaluate_q1(x, y, gp.xi, gp.eta);
        double v = 0, vx = 0, vy = 0;
        for (int a = 0; a < 4; ++a) {
          const double ua = uh[(i + kQ1DI[a]) + (j + kQ1DJ[a]) * n];
          v += ua * q.phi[a];
          vx += ua * q.dphi_dx[a];
          vy += ua * q.dphi_dy[a];
        }
        const double w = gp.weight * q.det_j;
        const double e0 = u(q.x, q.y) - v;
        const double ex = du_dx(q.x, q.y) - vx;
        const double ey = du_dy(q.x, q.y) - vy;
        err.l2 += w * e0 * e0;
        err.h1_semi += w * (ex * ex + ey * ey);
      }
    }
  return err;
}

double macro_area(const MacroGeometry& g) {
  const int n = g.n;
  const auto rule = gauss2x2();
  double area = 0.0;
  std::array<double, 4> x{}, y{};
  for (int j = 0; j + 1 < n; ++j)
    for (int i = 0; i + 1 < n; ++i) {
      element_corners(g, i, j, x, y);
      for (const auto& gp : rule) area += gp.weight * evaluate_q1(x, y, gp.xi, gp.eta).det_j;
    }
  return area;
}

}  // namespace quilt
