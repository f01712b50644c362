#include "mesh/coarse_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <string>
#include <utility>

#include "mesh/mesh_error.hpp"

namespace quilt {
namespace {

// Endpoints of local edge k in the direction of increasing grid index (coarse_mesh.hpp).
constexpr std::array<std::array<int, 2>, 4> kLocalEdge = {{{0, 1}, {1, 2}, {3, 2}, {0, 3}}};

// Relative tolerance for "lies on a segment" and "coincides": far below any sensible macro
// size ratio, far above the rounding of coordinates read from a file.
constexpr double kGeomTol = 1e-9;

std::string format_point(Point2 p) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "(%.9g, %.9g)", p.x, p.y);
  return buf;
}

double cross(Point2 u, Point2 v) {
  return u.x * v.y - u.y * v.x;
}
Point2 minus(Point2 a, Point2 b) {
  return {a.x - b.x, a.y - b.y};
}

class Diagnostics {
 public:
  explicit Diagnostics(const CoarseMesh& mesh) : mesh_(mesh) {}

  /// "<file>:<line>: " for a cell read from a file, "<file>: " otherwise.
  std::string at_cell(int c) const { return at(mesh_.cell_lines, c); }
  std::string at_boundary(int i) const { return at(mesh_.boundary_lines, i); }
  std::string at_mesh() const { return source() + ": "; }

  std::string vertex(int v) const {
    return "vertex " + std::to_string(v) + " " + format_point(mesh_.vertices[v]);
  }
  std::string cell(int c) const {
    std::string s = "cell " + std::to_string(c) + " (vertices";
    for (int v : mesh_.cells[c])
      s += " " + std::to_string(v) + " " + format_point(mesh_.vertices[v]);
    return s + ")";
  }
  std::string edge(int a, int b) const {
    return "edge " + std::to_string(a) + "-" + std::to_string(b) + " from " +
           format_point(mesh_.vertices[a]) + " to " + format_point(mesh_.vertices[b]);
  }
  std::string part(int p) const { return "'" + mesh_.part_names[p] + "'"; }

 private:
  std::string source() const { return mesh_.source.empty() ? "<coarse mesh>" : mesh_.source; }
  std::string at(const std::vector<int>& lines, int i) const {
    if (i >= 0 && i < static_cast<int>(lines.size()) && lines[i] > 0)
      return source() + ":" + std::to_string(lines[i]) + ": ";
    return source() + ": ";
  }
  const CoarseMesh& mesh_;
};

}  // namespace

int CoarseMesh::part_id(const std::string& name) const {
  const auto it = std::find(part_names.begin(), part_names.end(), name);
  return it == part_names.end() ? -1 : static_cast<int>(it - part_names.begin());
}

void CoarseMesh::build_topology(const std::vector<std::array<int, 3>>& boundary) {
  const Diagnostics d(*this);
  const int nv = num_vertices();
  const int nc = num_cells();
  if (nc == 0) throw MeshError(d.at_mesh() + "the mesh has no cells");

  // Vertex references.
  for (int c = 0; c < nc; ++c) {
    for (int v : cells[c])
      if (v < 0 || v >= nv)
        throw MeshError(d.at_cell(c) + "cell " + std::to_string(c) + " refers to vertex " +
                        std::to_string(v) + ", but the mesh has " + std::to_string(nv) +
                        " vertices");
    for (int k = 0; k < 4; ++k)
      for (int l = k + 1; l < 4; ++l)
        if (cells[c][k] == cells[c][l])
          throw MeshError(d.at_cell(c) + d.cell(c) + " uses " + d.vertex(cells[c][k]) +
                          " twice (degenerate quadrilateral)");
  }
  vertex_cells.assign(nv, {});
  for (int c = 0; c < nc; ++c)
    for (int v : cells[c]) vertex_cells[v].push_back(c);
  for (int v = 0; v < nv; ++v)
    if (vertex_cells[v].empty())
      throw MeshError(d.at_mesh() + d.vertex(v) + " belongs to no cell (dangling vertex)");

  // Shape: counterclockwise (positive shoelace area) and strictly convex (every turn to the
  // left). Inverted macros are an error, not something to repair: the file is wrong.
  for (int c = 0; c < nc; ++c) {
    std::array<Point2, 4> p;
    for (int k = 0; k < 4; ++k) p[k] = vertices[cells[c][k]];
    double twice_area = 0.0;
    for (int k = 0; k < 4; ++k) twice_area += cross(p[k], p[(k + 1) % 4]);
    if (!(twice_area > 0.0)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g", 0.5 * twice_area);
      throw MeshError(d.at_cell(c) + d.cell(c) + " is clockwise or degenerate (signed area " + buf +
                      "); macros must be convex and counterclockwise");
    }
    for (int k = 0; k < 4; ++k) {
      const Point2 in = minus(p[k], p[(k + 3) % 4]);
      const Point2 out = minus(p[(k + 1) % 4], p[k]);
      const double turn = cross(in, out);
      if (!(turn > kGeomTol * std::hypot(in.x, in.y) * std::hypot(out.x, out.y))) {
        const double interior =
            180.0 - std::atan2(turn, in.x * out.x + in.y * out.y) * 180.0 / std::numbers::pi;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6g", interior);
        throw MeshError(d.at_cell(c) + d.cell(c) + " is not convex: interior angle " + buf +
                        " degrees at " + d.vertex(cells[c][k]));
      }
    }
  }

  // Edges in order of first appearance, stored canonically (lo, hi).
  edges.clear();
  edge_cells.clear();
  cell_edges.assign(nc, {});
  cell_edge_reversed.assign(nc, {});
  std::map<std::pair<int, int>, int> edge_id;
  for (int c = 0; c < nc; ++c) {
    for (int k = 0; k < 4; ++k) {
      const int a = cells[c][kLocalEdge[k][0]];
      const int b = cells[c][kLocalEdge[k][1]];
      const auto key = std::minmax(a, b);
      const auto [it, inserted] = edge_id.emplace(key, num_edges());
      if (inserted) {
        edges.push_back({key.first, key.second});
        edge_cells.emplace_back();
      }
      const int e = it->second;
      cell_edges[c][k] = e;
      cell_edge_reversed[c][k] = a > b;
      std::vector<int>& around = edge_cells[e];
      if (around.size() == 2)
        throw MeshError(d.at_cell(c) + d.edge(key.first, key.second) + " belongs to cells " +
                        std::to_string(around[0]) + ", " + std::to_string(around[1]) + " and " +
                        std::to_string(c) +
                        "; a macro edge may be shared by at most two macros (non-manifold)");
      around.push_back(c);
    }
  }
  // Two counterclockwise neighbours run through their common edge in opposite directions;
  // the same direction means they overlap (one is folded over the other).
  auto ccw_forward = [&](int c, int e) {
    for (int k = 0; k < 4; ++k)
      if (cell_edges[c][k] == e) {
        // Local edges 0 and 1 run counterclockwise in grid order, 2 and 3 clockwise.
        const bool grid_forward = !cell_edge_reversed[c][k];
        return k < 2 ? grid_forward : !grid_forward;
      }
    return false;
  };
  for (int e = 0; e < num_edges(); ++e) {
    if (edge_cells[e].size() == 2 &&
        ccw_forward(edge_cells[e][0], e) == ccw_forward(edge_cells[e][1], e))
      throw MeshError(d.at_cell(edge_cells[e][1]) + "cells " + std::to_string(edge_cells[e][0]) +
                      " and " + std::to_string(edge_cells[e][1]) + " overlap across " +
                      d.edge(edges[e][0], edges[e][1]));
  }

  // Boundary parts.
  edge_part.assign(num_edges(), -1);
  const int np = static_cast<int>(part_names.size());
  for (int i = 0; i < static_cast<int>(boundary.size()); ++i) {
    const auto [a, b, p] = boundary[i];
    const std::string at = d.at_boundary(i);
    if (a < 0 || a >= nv || b < 0 || b >= nv || a == b)
      throw MeshError(at + "boundary edge " + std::to_string(a) + "-" + std::to_string(b) +
                      " does not join two distinct vertices of the mesh (" + std::to_string(nv) +
                      " vertices)");
    if (p < 0 || p >= np)
      throw MeshError(at + "boundary " + d.edge(a, b) + " has part id " + std::to_string(p) +
                      ", but the mesh names " + std::to_string(np) + " parts");
    const auto it = edge_id.find(std::minmax(a, b));
    if (it == edge_id.end())
      throw MeshError(at + "boundary " + d.edge(a, b) + " of part " + d.part(p) +
                      " is not an edge of any macro (non-conforming macro edge)");
    const int e = it->second;
    if (edge_cells[e].size() == 2)
      throw MeshError(at + "boundary part " + d.part(p) + " tags interior " + d.edge(a, b) +
                      " shared by cells " + std::to_string(edge_cells[e][0]) + " and " +
                      std::to_string(edge_cells[e][1]));
    if (edge_part[e] >= 0 && edge_part[e] != p)
      throw MeshError(at + d.edge(a, b) + " is tagged with both parts " + d.part(edge_part[e]) +
                      " and " + d.part(p));
    edge_part[e] = p;
  }

  // Conformity. Two distinct vertices at one place (unmerged duplicates) or a vertex inside
  // another macro's edge (hanging node, T-junction) both show up as edges with one cell where
  // the domain continues; report them as what they are before the untagged-boundary check.
  std::vector<int> on_boundary;
  for (int e = 0; e < num_edges(); ++e)
    if (edge_cells[e].size() == 1) {
      on_boundary.push_back(edges[e][0]);
      on_boundary.push_back(edges[e][1]);
    }
  std::sort(on_boundary.begin(), on_boundary.end());
  on_boundary.erase(std::unique(on_boundary.begin(), on_boundary.end()), on_boundary.end());
  double extent = 0.0;
  for (const Point2& p : vertices) extent = std::max({extent, std::abs(p.x), std::abs(p.y)});
  const double same = kGeomTol * std::max(extent, 1e-300);
  std::vector<int> by_x = on_boundary;
  std::sort(by_x.begin(), by_x.end(), [&](int u, int v) {
    return std::make_pair(vertices[u].x, u) < std::make_pair(vertices[v].x, v);
  });
  for (std::size_t i = 0; i < by_x.size(); ++i)
    for (std::size_t j = i + 1;
         j < by_x.size() && vertices[by_x[j]].x - vertices[by_x[i]].x <= same; ++j)
      if (std::abs(vertices[by_x[j]].y - vertices[by_x[i]].y) <= same) {
        const int u = std::min(by_x[i], by_x[j]);
        const int v = std::max(by_x[i], by_x[j]);
        throw MeshError(d.at_cell(vertex_cells[v][0]) + "vertices " + std::to_string(u) + " and " +
                        std::to_string(v) + " coincide at " + format_point(vertices[u]) +
                        " (duplicate node: non-conforming macro edge)");
      }
  for (int e = 0; e < num_edges(); ++e) {
    if (edge_cells[e].size() != 1) continue;
    const Point2 a = vertices[edges[e][0]];
    const Point2 ab = minus(vertices[edges[e][1]], a);
    const double len2 = ab.x * ab.x + ab.y * ab.y;
    for (int v : on_boundary) {
      if (v == edges[e][0] || v == edges[e][1]) continue;
      const Point2 av = minus(vertices[v], a);
      const double t = (av.x * ab.x + av.y * ab.y) / len2;
      if (t > kGeomTol && t < 1.0 - kGeomTol && std::abs(cross(ab, av)) <= kGeomTol * len2)
        throw MeshError(d.at_cell(edge_cells[e][0]) + d.vertex(v) + " lies inside " +
                        d.edge(edges[e][0], edges[e][1]) + " of cell " +
                        std::to_string(edge_cells[e][0]) +
                        " (hanging node: non-conforming macro edge)");
    }
  }
  for (int e = 0; e < num_edges(); ++e)
    if (edge_cells[e].size() == 1 && edge_part[e] < 0)
      throw MeshError(d.at_cell(edge_cells[e][0]) + "boundary " + d.edge(edges[e][0], edges[e][1]) +
                      " of cell " + std::to_string(edge_cells[e][0]) +
                      " is in no boundary part (untagged boundary edge: add it to a physical "
                      "line group)");

  vertex_parts.assign(nv, {});
  for (int e = 0; e < num_edges(); ++e)
    if (edge_part[e] >= 0)
      for (int v : edges[e]) vertex_parts[v].push_back(edge_part[e]);
  for (std::vector<int>& parts : vertex_parts) {
    std::sort(parts.begin(), parts.end());
    parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
  }
}

}  // namespace quilt
