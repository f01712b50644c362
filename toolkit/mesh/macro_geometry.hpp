#pragma once
// Node coordinates of one refined macro (design.md §3).

#include <vector>

#include "accel/staggered_allocator.hpp"
#include "mesh/chart.hpp"
#include "mesh/coarse_mesh.hpp"

namespace quilt {

/// Coordinates of the n x n nodes of macro `cell` on `level` (n = 2^level + 1), lexicographic
/// (index i + j*n). Corner nodes are the coarse vertices; edge nodes are computed in canonical
/// edge order at t = k/(n-1) (on the chart if the edge is a charted boundary edge), so copies of a
/// shared node agree bit for bit; interior nodes by bilinear interpolation of the corners, or
/// by transfinite (Coons) interpolation of the four edge curves when an edge is curved.
struct MacroGeometry {
  int level = 0;
  int n = 0;
  /// Large arrays (16 bytes per node on every level), from the huge-page pool.
  accel::StaggeredVector<double> x;
  accel::StaggeredVector<double> y;
};

MacroGeometry refine_macro(const CoarseMesh& mesh, const ChartMap& charts, int cell, int level);

/// The largest aspect ratio of the macro's elements: sqrt(lambda_max / lambda_min) of the metric
/// J^T J of the bilinear map at each element's centre (the ratio of the sides of a rectangle;
/// skew raises it too). 1 for a grid of squares.
double max_element_aspect(const MacroGeometry& g);

}  // namespace quilt
