#pragma once
// The nodal (Q1) interpolant of a field on one refined macro, shared by the flow tests.
#include <functional>
#include <vector>

#include "mesh/macro_geometry.hpp"

using Field = std::function<double(double, double)>;

inline std::vector<double> nodal(const quilt::MacroGeometry& g, const Field& f) {
  std::vector<double> v(g.x.size());
  for (std::size_t r = 0; r < v.size(); ++r) v[r] = f(g.x[r], g.y[r]);
  return v;
}
