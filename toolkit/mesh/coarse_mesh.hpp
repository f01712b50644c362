#pragma once
// The coarse mesh: an unstructured quilt of quadrilateral macros (design.md §3).
//
// Conventions used by every layer above:
//  - cells[c] lists the macro's vertices counterclockwise; vertex 0 is the origin of the macro's
//    local grid, local x runs 0 -> 1, local y runs 0 -> 3.
//  - local edge k of a macro, in the direction of increasing grid index:
//      k = 0: v0 -> v1 (j = 0),   k = 1: v1 -> v2 (i = n-1),
//      k = 2: v3 -> v2 (j = n-1), k = 3: v0 -> v3 (i = 0).
//  - a global edge is stored canonically as (lo, hi) with lo < hi (vertex ids); every quantity
//    on a shared edge (node coordinates, sums) is computed in canonical order, so both macros
//    get the same bits whatever their local orientation.

#include <array>
#include <string>
#include <vector>

namespace quilt {

struct Point2 {
  double x = 0.0;
  double y = 0.0;
};

struct CoarseMesh {
  std::string source;  ///< file it was read from (for messages)
  std::vector<Point2> vertices;
  std::vector<std::array<int, 4>> cells;  ///< counterclockwise vertex ids
  std::vector<std::string> part_names;    ///< physical boundary groups, indexed by part id

  // Topology, filled by build_topology().
  std::vector<std::array<int, 2>> edges;                ///< canonical (lo, hi)
  std::vector<std::array<int, 4>> cell_edges;           ///< global edge id of local edge k
  std::vector<std::array<bool, 4>> cell_edge_reversed;  ///< local direction is hi -> lo
  std::vector<std::vector<int>> edge_cells;             ///< 1 (boundary) or 2 (interior) cells
  std::vector<int> edge_part;                           ///< boundary part id, -1 for interior edges
  std::vector<std::vector<int>> vertex_cells;           ///< cells around each vertex, ascending
  std::vector<std::vector<int>> vertex_parts;           ///< boundary parts touching each vertex

  // Provenance for messages (optional, set by read_msh): the file line of each cell and of each
  // entry of build_topology()'s `boundary`, so topology errors read "file:line: ...".
  std::vector<int> cell_lines;
  std::vector<int> boundary_lines;

  int num_cells() const { return static_cast<int>(cells.size()); }
  int num_edges() const { return static_cast<int>(edges.size()); }
  int num_vertices() const { return static_cast<int>(vertices.size()); }

  /// Part id of a physical name, -1 if the mesh has no such group.
  int part_id(const std::string& name) const;

  /// Builds the topology from vertices, cells and the boundary edges' parts, and validates:
  /// every cell convex and counterclockwise (non-degenerate), every edge in one or two cells,
  /// every boundary edge (one cell) tagged with a part, no tagged interior edge, no unused
  /// (dangling) vertex. Throws MeshError naming the cell/edge/vertex and the source file.
  /// boundary: list of (v0, v1, part) as read from the file.
  void build_topology(const std::vector<std::array<int, 3>>& boundary);
};

}  // namespace quilt
