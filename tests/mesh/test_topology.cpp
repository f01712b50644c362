// build_topology on meshes built in code: the adjacency every upper layer relies on, and the
// validation of meshes that did not come from a file.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "mesh/coarse_mesh.hpp"
#include "mesh/mesh_error.hpp"

namespace quilt {
namespace {

constexpr int kLocalEdge[4][2] = {{0, 1}, {1, 2}, {3, 2}, {0, 3}};

/// Structured nx x ny macros on the unit square; parts bottom, right, top, left.
struct Grid {
  CoarseMesh mesh;
  std::vector<std::array<int, 3>> boundary;
};

Grid grid(int nx, int ny) {
  Grid g;
  g.mesh.source = "grid";
  g.mesh.part_names = {"bottom", "right", "top", "left"};
  auto id = [&](int i, int j) { return i + j * (nx + 1); };
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i)
      g.mesh.vertices.push_back({static_cast<double>(i) / nx, static_cast<double>(j) / ny});
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      g.mesh.cells.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)});
  for (int i = 0; i < nx; ++i) {
    g.boundary.push_back({id(i, 0), id(i + 1, 0), 0});
    g.boundary.push_back({id(i + 1, ny), id(i, ny), 2});
  }
  for (int j = 0; j < ny; ++j) {
    g.boundary.push_back({id(nx, j), id(nx, j + 1), 1});
    g.boundary.push_back({id(0, j + 1), id(0, j), 3});
  }
  return g;
}

std::string topology_error(CoarseMesh mesh, const std::vector<std::array<int, 3>>& boundary) {
  try {
    mesh.build_topology(boundary);
  } catch (const MeshError& e) {
    return e.what();
  }
  return "";
}

TEST(Topology, StructuredGridAdjacency) {
  Grid g = grid(4, 2);
  CoarseMesh& mesh = g.mesh;
  mesh.build_topology(g.boundary);
  EXPECT_EQ(mesh.num_edges(), 22);
  for (int c = 0; c < mesh.num_cells(); ++c)
    for (int k = 0; k < 4; ++k) {
      const int a = mesh.cells[c][kLocalEdge[k][0]], b = mesh.cells[c][kLocalEdge[k][1]];
      const auto& edge = mesh.edges[mesh.cell_edges[c][k]];
      EXPECT_EQ(edge[0], std::min(a, b));
      EXPECT_EQ(edge[1], std::max(a, b));
      EXPECT_LT(edge[0], edge[1]);
      EXPECT_EQ(mesh.cell_edge_reversed[c][k], a > b);
      const auto& around = mesh.edge_cells[mesh.cell_edges[c][k]];
      EXPECT_NE(std::find(around.begin(), around.end(), c), around.end());
    }
  int interior = 0;
  for (int e = 0; e < mesh.num_edges(); ++e) {
    interior += mesh.edge_cells[e].size() == 2;
    EXPECT_EQ(mesh.edge_part[e] < 0, mesh.edge_cells[e].size() == 2);
  }
  EXPECT_EQ(interior, 10);
  // Interior vertex (0.5, 0.5) = id 7: four cells, ascending, no part.
  EXPECT_EQ(mesh.vertex_cells[7], (std::vector<int>{1, 2, 5, 6}));
  EXPECT_TRUE(mesh.vertex_parts[7].empty());
  EXPECT_EQ(mesh.vertex_parts[0], (std::vector<int>{0, 3}));   // corner (0,0)
  EXPECT_EQ(mesh.vertex_parts[14], (std::vector<int>{1, 2}));  // corner (1,1)
  EXPECT_EQ(mesh.vertex_parts[2], (std::vector<int>{0}));      // (0.5, 0)
  EXPECT_EQ(mesh.part_id("top"), 2);
  EXPECT_EQ(mesh.part_id("lid"), -1);
}

TEST(Topology, ReversedEdgesAcrossRotatedMacros) {
  // The same two macros, the second listed from a different starting corner: the shared edge
  // is run in opposite grid directions and the flags must say so.
  Grid g = grid(2, 1);
  g.mesh.cells[1] = {g.mesh.cells[1][2], g.mesh.cells[1][3], g.mesh.cells[1][0],
                     g.mesh.cells[1][1]};
  g.mesh.build_topology(g.boundary);
  int shared = -1;
  for (int e = 0; e < g.mesh.num_edges(); ++e)
    if (g.mesh.edge_cells[e].size() == 2) shared = e;
  ASSERT_GE(shared, 0);
  const auto& c0 = g.mesh.cell_edges[0];
  const auto& c1 = g.mesh.cell_edges[1];
  const int k0 = static_cast<int>(std::find(c0.begin(), c0.end(), shared) - c0.begin());
  const int k1 = static_cast<int>(std::find(c1.begin(), c1.end(), shared) - c1.begin());
  EXPECT_EQ(k0, 1);
  EXPECT_EQ(k1, 1);
  EXPECT_NE(g.mesh.cell_edge_reversed[0][k0], g.mesh.cell_edge_reversed[1][k1]);
}

TEST(TopologyErrors, DanglingVertex) {
  Grid g = grid(2, 1);
  g.mesh.vertices.push_back({5, 5});
  const std::string message = topology_error(g.mesh, g.boundary);
  EXPECT_NE(message.find("grid: vertex 6 (5, 5) belongs to no cell (dangling vertex)"),
            std::string::npos)
      << message;
}

TEST(TopologyErrors, VertexOutOfRange) {
  Grid g = grid(2, 1);
  g.mesh.cells[1][2] = 17;
  EXPECT_NE(topology_error(g.mesh, g.boundary).find("cell 1 refers to vertex 17"),
            std::string::npos);
}

TEST(TopologyErrors, RepeatedVertex) {
  Grid g = grid(1, 1);
  g.mesh.cells[0] = {0, 1, 3, 3};
  g.mesh.vertices[2] = g.mesh.vertices[3];
  EXPECT_NE(topology_error(g.mesh, g.boundary).find("twice (degenerate quadrilateral)"),
            std::string::npos);
}

TEST(TopologyErrors, DegenerateCell) {
  Grid g = grid(1, 1);
  g.mesh.vertices[2] = {0.5, 0.5};  // v3 moved onto the diagonal v2..v0: a straight angle
  const std::string message = topology_error(g.mesh, g.boundary);
  EXPECT_NE(message.find("not convex"), std::string::npos) << message;
  // Three corners at one point: zero area is degenerate, not merely non-convex.
  g.mesh.vertices[1] = g.mesh.vertices[2] = g.mesh.vertices[3] = {0.0, 1.0};
  EXPECT_NE(topology_error(g.mesh, g.boundary).find("clockwise or degenerate"), std::string::npos);
}

TEST(TopologyErrors, FlatAngleIsNotConvex) {
  Grid g = grid(1, 1);
  g.mesh.vertices[1] = {0.5, 0.5};  // v1 halfway along the diagonal v0..v2
  const std::string message = topology_error(g.mesh, g.boundary);
  EXPECT_NE(message.find("interior angle 180 degrees"), std::string::npos) << message;
}

TEST(TopologyErrors, NonManifoldEdge) {
  // A third macro glued onto the edge (1,0)-(1,1) of a two-macro strip, overlapping the second.
  Grid g = grid(2, 1);
  g.mesh.vertices.push_back({1.5, 0.0});
  g.mesh.vertices.push_back({1.5, 1.0});
  g.mesh.cells.push_back({1, 6, 7, 4});
  g.mesh.source = "";
  const std::string message = topology_error(g.mesh, g.boundary);
  EXPECT_NE(message.find("<coarse mesh>: edge 1-4 from (0.5, 0) to (0.5, 1) belongs to cells 0, 1 "
                         "and 2"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("non-manifold"), std::string::npos);
}

TEST(TopologyErrors, OverlappingMacros) {
  // Cell 1 folded back over cell 0: both counterclockwise, both on the left of their edge.
  Grid g = grid(2, 1);
  g.mesh.vertices[2] = {0.25, 0.0};
  g.mesh.vertices[5] = {0.25, 1.0};
  g.mesh.cells[1] = {2, 1, 4, 5};  // (0.25,0) (0.5,0) (0.5,1) (0.25,1): inside cell 0
  const std::string message = topology_error(g.mesh, g.boundary);
  EXPECT_NE(message.find("overlap"), std::string::npos) << message;
}

TEST(TopologyErrors, BadBoundaryEntries) {
  Grid g = grid(2, 1);
  auto bad = g.boundary;
  bad.push_back({1, 4, 0});  // the interior edge
  EXPECT_NE(topology_error(g.mesh, bad).find("boundary part 'bottom' tags interior edge 1-4"),
            std::string::npos);
  bad = g.boundary;
  bad.push_back({0, 4, 1});  // a diagonal
  EXPECT_NE(topology_error(g.mesh, bad).find("is not an edge of any macro"), std::string::npos);
  bad = g.boundary;
  bad.push_back({0, 1, 9});
  EXPECT_NE(topology_error(g.mesh, bad).find("part id 9"), std::string::npos);
  bad = g.boundary;
  bad.push_back({0, 1, 3});
  EXPECT_NE(topology_error(g.mesh, bad).find("tagged with both parts 'bottom' and 'left'"),
            std::string::npos);
  bad = g.boundary;
  bad.pop_back();
  EXPECT_NE(topology_error(g.mesh, bad).find("untagged boundary edge"), std::string::npos);
}

TEST(TopologyErrors, ProvenanceLines) {
  Grid g = grid(2, 1);
  g.mesh.source = "cavity.msh";
  g.mesh.cell_lines = {40, 41};
  g.mesh.boundary_lines.assign(g.boundary.size(), 30);
  g.mesh.boundary_lines.back() = 37;
  auto bad = g.boundary;
  bad.back() = {1, 4, 0};
  const std::string message = topology_error(g.mesh, bad);
  EXPECT_EQ(message.rfind("cavity.msh:37: ", 0), 0u) << message;
  std::swap(g.mesh.cells[1][1], g.mesh.cells[1][3]);
  EXPECT_EQ(topology_error(g.mesh, g.boundary).rfind("cavity.msh:41: cell 1", 0), 0u);
}

}  // namespace
}  // namespace quilt
