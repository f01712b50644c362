#pragma once
// Locating a physical point in a refined macro and evaluating a Q1 field there, for point
// functionals such as the DFG pressure difference p(0.15, 0.2) - p(0.25, 0.2) and centreline
// profiles (design.md §9).

#include <optional>

#include "mesh/macro_geometry.hpp"

namespace quilt {

/// Element (i, j) of the macro (its lower-left node is i + j*n) and reference coordinates
/// (xi, eta) in [-1, 1]^2 of the point under that element's bilinear map.
struct PointLocation {
  int element_i = 0;
  int element_j = 0;
  double xi = 0.0;
  double eta = 0.0;
};

/// The element of macro g containing p, found by inverting the bilinear map (Newton) in every
/// element whose bounding box contains p; accepted when xi, eta lie in [-1 - tolerance,
/// 1 + tolerance]. A point on an edge shared by several elements gets the first in grid order.
/// nullopt when p is not in the macro.
std::optional<PointLocation> locate_point(const MacroGeometry& g, Point2 p,
                                          double tolerance = 1e-12);

/// The Q1 field with nodal values `values` (n*n, grid order) at a located point.
double evaluate_q1_field(const MacroGeometry& g, const double* values, const PointLocation& loc);

}  // namespace quilt
