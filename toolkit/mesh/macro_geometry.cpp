#include "mesh/macro_geometry.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "mesh/mesh_error.hpp"

namespace quilt {
namespace {

// 2^15 + 1 nodes per side is ~1e9 nodes per macro: far beyond any memory, and the largest
// level whose n*n still fits an int.
constexpr int kMaxLevel = 15;

/// Nodes of the edge lo -> hi at t = m/(n-1), in canonical order. Ends are the coarse vertices
/// themselves. t = m/2^level is exact, so level l and level l+1 evaluate the same t at a common
/// node and the edge is nested bit for bit.
std::vector<Point2> canonical_edge_nodes(Point2 lo, Point2 hi, const Chart* chart, int n) {
  std::vector<Point2> nodes(n);
  nodes.front() = lo;
  nodes.back() = hi;
  for (int m = 1; m + 1 < n; ++m) {
    const double t = static_cast<double>(m) / static_cast<double>(n - 1);
    nodes[m] = chart ? chart->interpolate(lo, hi, t)
                     : Point2{(1.0 - t) * lo.x + t * hi.x, (1.0 - t) * lo.y + t * hi.y};
  }
  return nodes;
}

}  // namespace

MacroGeometry refine_macro(const CoarseMesh& mesh, const ChartMap& charts, int cell, int level) {
  if (cell < 0 || cell >= mesh.num_cells())
    throw MeshError(mesh.source + ": refine_macro: cell " + std::to_string(cell) +
                    " out of range (mesh has " + std::to_string(mesh.num_cells()) + " cells)");
  if (level < 0 || level > kMaxLevel)
    throw MeshError(mesh.source + ": refine_macro: level " + std::to_string(level) +
                    " out of range 0.." + std::to_string(kMaxLevel));
  if (static_cast<int>(mesh.cell_edges.size()) != mesh.num_cells())
    throw MeshError(mesh.source + ": refine_macro needs the topology (call build_topology)");

  const int n = (1 << level) + 1;
  MacroGeometry g;
  g.level = level;
  g.n = n;
  g.x.resize(static_cast<std::size_t>(n) * n);
  g.y.resize(static_cast<std::size_t>(n) * n);
  auto put = [&](int i, int j, Point2 p) {
    const std::size_t q = static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n;
    g.x[q] = p.x;
    g.y[q] = p.y;
  };

  // Side k in grid order (k = 0 bottom, 1 right, 2 top, 3 left; coarse_mesh.hpp), computed in
  // canonical order and flipped where the macro runs the edge hi -> lo.
  std::array<std::vector<Point2>, 4> side;
  bool curved = false;
  for (int k = 0; k < 4; ++k) {
    const int e = mesh.cell_edges[cell][k];
    const Chart* chart = nullptr;
    if (const int part = mesh.edge_part[e]; part >= 0)
      if (const auto it = charts.find(part); it != charts.end()) chart = &it->second;
    curved = curved || (chart && chart->kind == Chart::Kind::circle);
    side[k] = canonical_edge_nodes(mesh.vertices[mesh.edges[e][0]], mesh.vertices[mesh.edges[e][1]],
                                   chart, n);
    if (mesh.cell_edge_reversed[cell][k]) std::reverse(side[k].begin(), side[k].end());
  }
  for (int m = 0; m < n; ++m) {
    put(m, 0, side[0][m]);
    put(n - 1, m, side[1][m]);
    put(m, n - 1, side[2][m]);
    put(0, m, side[3][m]);
  }

  const std::array<Point2, 4> c = {
      mesh.vertices[mesh.cells[cell][0]], mesh.vertices[mesh.cells[cell][1]],
      mesh.vertices[mesh.cells[cell][2]], mesh.vertices[mesh.cells[cell][3]]};
  for (int j = 1; j + 1 < n; ++j) {
    const double t = static_cast<double>(j) / static_cast<double>(n - 1);
    for (int i = 1; i + 1 < n; ++i) {
      const double s = static_cast<double>(i) / static_cast<double>(n - 1);
      // Bilinear map of the corners: the exact geometry of a straight-sided macro.
      const double w0 = (1.0 - s) * (1.0 - t), w1 = s * (1.0 - t), w2 = s * t, w3 = (1.0 - s) * t;
      Point2 p{w0 * c[0].x + w1 * c[1].x + w2 * c[2].x + w3 * c[3].x,
               w0 * c[0].y + w1 * c[1].y + w2 * c[2].y + w3 * c[3].y};
      if (curved) {
        // Transfinite (Coons) patch, Gordon & Hall 1973: the sum of the two ruled surfaces
        // between opposite sides minus the bilinear interpolant of the corners. It reproduces
        // all four sides exactly, so interior nodes follow the curved edge.
        const Point2 b = side[0][i], r = side[1][j], tp = side[2][i], l = side[3][j];
        p = {(1.0 - t) * b.x + t * tp.x + (1.0 - s) * l.x + s * r.x - p.x,
             (1.0 - t) * b.y + t * tp.y + (1.0 - s) * l.y + s * r.y - p.y};
      }
      put(i, j, p);
    }
  }
  return g;
}

double max_element_aspect(const MacroGeometry& g) {
  const int n = g.n;
  const double* __restrict x = g.x.data();
  const double* __restrict y = g.y.data();
  // The eigenvalues of J^T J = [a b; b c] are mean +- radius; with q = radius / mean their ratio
  // (1 + q) / (1 - q) grows with q, so the loop keeps the largest
  // q^2 = (((a - c) / 2)^2 + b^2) / mean^2: no square root and no call per element (the set-up
  // rates every macro of every level; with std::hypot and std::sqrt per element it took 7 ms at
  // L = 9, now under 5).
  const auto q2_at = [&](std::size_t p) {
    const std::size_t e = p + 1, north = p + n, ne = north + 1;
    // Derivatives of the bilinear map at the element centre (reference square [0, 1]^2).
    const double x_s = 0.5 * ((x[e] - x[p]) + (x[ne] - x[north]));
    const double y_s = 0.5 * ((y[e] - y[p]) + (y[ne] - y[north]));
    const double x_t = 0.5 * ((x[north] - x[p]) + (x[ne] - x[e]));
    const double y_t = 0.5 * ((y[north] - y[p]) + (y[ne] - y[e]));
    const double a = x_s * x_s + y_s * y_s, c = x_t * x_t + y_t * y_t, b = x_s * x_t + y_s * y_t;
    const double mean = 0.5 * (a + c), h = 0.5 * (a - c);
    return (h * h + b * b) / (mean * mean);
  };
  // Four running maxima, the elements of a grid line dealt to them in turn: independent chains.
  constexpr int kLanes = 4;
  double worst[kLanes] = {0.0, 0.0, 0.0, 0.0};
  for (int j = 0; j + 1 < n; ++j) {
    const std::size_t first = static_cast<std::size_t>(j) * n, end = first + n - 1;
    std::size_t p = first;
    for (; p + kLanes <= end; p += kLanes)
      for (int k = 0; k < kLanes; ++k) {
        const double q2 = q2_at(p + k);
        worst[k] = q2 > worst[k] ? q2 : worst[k];
      }
    for (; p < end; ++p) worst[0] = std::max(worst[0], q2_at(p));
  }
  const double worst_q2 = std::max({worst[0], worst[1], worst[2], worst[3]});
  const double q = std::sqrt(worst_q2);
  return std::sqrt((1.0 + q) / (1.0 - q));
}

}  // namespace quilt
