#pragma once
// Iteration over the bilinear elements of a refined macro and their quadrature points: the one
// loop every Q1 integral on a macro (operators, loads, errors, functionals) is written with.

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "fem/q1_element.hpp"
#include "mesh/macro_geometry.hpp"

namespace quilt {

/// Element (i, j) of a macro (lower-left node i + j n): its node indices in grid order and
/// corner coordinates, counterclockwise (kQ1DI / kQ1DJ).
struct MacroElement {
  int i = 0, j = 0;
  std::array<std::size_t, 4> node{};
  std::array<double, 4> x{}, y{};
};

inline MacroElement macro_element(const MacroGeometry& g, int i, int j) {
  MacroElement e;
  e.i = i;
  e.j = j;
  for (int a = 0; a < 4; ++a) {
    e.node[a] =
        static_cast<std::size_t>(i + kQ1DI[a]) + static_cast<std::size_t>(j + kQ1DJ[a]) * g.n;
    e.x[a] = g.x[e.node[a]];
    e.y[a] = g.y[e.node[a]];
  }
  return e;
}

/// Calls f(element, q, w) at every point of `rule` (gauss2x2() or gauss3x3()) in every element,
/// element rows j outer, i inner, with w = Gauss weight * det J (the quadrature weight in
/// physical coordinates).
template <class Rule, class F>
void for_each_quadrature_point(const MacroGeometry& g, const Rule& rule, F&& f) {
  for (int j = 0; j + 1 < g.n; ++j)
    for (int i = 0; i + 1 < g.n; ++i) {
      const MacroElement e = macro_element(g, i, j);
      for (const auto& gp : rule) {
        const Q1Point q = evaluate_q1(e.x, e.y, gp);
        f(e, q, gp.weight * q.det_j);
      }
    }
}

/// For integrands with a closed form evaluated in batches: per row of elements, points(x, y)
/// first receives the physical positions of all the row's quadrature points (gauss_point_position,
/// evaluate_q1's q.x and q.y), then element(e, k0) is called for each element of the
/// row, whose points are k0 .. k0 + rule.size() - 1 of those spans, in the rule's order. The
/// element evaluates itself at the rule's points as far as it needs (evaluate_q1, or less).
template <class Rule, class Points, class Element>
void for_each_quadrature_row(const MacroGeometry& g, const Rule& rule, Points&& points,
                             Element&& element) {
  const std::size_t per_row = static_cast<std::size_t>(g.n - 1) * rule.size();
  std::vector<double> x(per_row), y(per_row);
  for (int j = 0; j + 1 < g.n; ++j) {
    std::size_t k = 0;
    for (int i = 0; i + 1 < g.n; ++i) {
      const MacroElement e = macro_element(g, i, j);
      for (const auto& gp : rule) {
        x[k] = gauss_point_position(e.x, gp);
        y[k++] = gauss_point_position(e.y, gp);
      }
    }
    points(std::span<const double>(x), std::span<const double>(y));
    for (int i = 0; i + 1 < g.n; ++i)
      element(macro_element(g, i, j), static_cast<std::size_t>(i) * rule.size());
  }
}

}  // namespace quilt
