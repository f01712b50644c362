// Charts and refined macro geometry: copies of shared nodes agree bit for bit, levels are
// nested bit for bit, curved edges stay on their circle and keep elements valid.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <string>

#include "mesh/chart.hpp"
#include "mesh/macro_geometry.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"

namespace quilt {
namespace {

/// Grid index of the q-th node of local edge k, q counted in the grid direction.
std::size_t edge_node(int n, int k, int q) {
  switch (k) {
    case 0:
      return q;
    case 1:
      return (n - 1) + static_cast<std::size_t>(q) * n;
    case 2:
      return q + static_cast<std::size_t>(n - 1) * n;
    default:
      return static_cast<std::size_t>(q) * n;
  }
}

std::size_t corner_node(int n, int corner) {
  const std::size_t last = n - 1;
  switch (corner) {
    case 0:
      return 0;
    case 1:
      return last;
    case 2:
      return last + last * n;
    default:
      return last * n;
  }
}

/// Coordinates of edge e as seen by `cell`, in canonical order (lo -> hi), x then y.
std::vector<double> canonical_edge(const CoarseMesh& mesh, const MacroGeometry& g, int cell,
                                   int e) {
  int k = 0;
  while (mesh.cell_edges[cell][k] != e) ++k;
  std::vector<double> xy;
  for (int m = 0; m < g.n; ++m) {
    const int q = mesh.cell_edge_reversed[cell][k] ? g.n - 1 - m : m;
    xy.push_back(g.x[edge_node(g.n, k, q)]);
  }
  for (int m = 0; m < g.n; ++m) {
    const int q = mesh.cell_edge_reversed[cell][k] ? g.n - 1 - m : m;
    xy.push_back(g.y[edge_node(g.n, k, q)]);
  }
  return xy;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

std::vector<MacroGeometry> refine_all(const CoarseMesh& mesh, const ChartMap& charts, int level) {
  std::vector<MacroGeometry> macros;
  for (int c = 0; c < mesh.num_cells(); ++c) macros.push_back(refine_macro(mesh, charts, c, level));
  return macros;
}

void expect_shared_nodes_agree(const CoarseMesh& mesh, const ChartMap& charts, int level) {
  const std::vector<MacroGeometry> macros = refine_all(mesh, charts, level);
  int interior_edges = 0;
  for (int e = 0; e < mesh.num_edges(); ++e) {
    if (mesh.edge_cells[e].size() != 2) continue;
    ++interior_edges;
    const int c0 = mesh.edge_cells[e][0], c1 = mesh.edge_cells[e][1];
    EXPECT_TRUE(
        same_bits(canonical_edge(mesh, macros[c0], c0, e), canonical_edge(mesh, macros[c1], c1, e)))
        << mesh.source << " level " << level << " edge " << e << " cells " << c0 << ", " << c1;
  }
  EXPECT_GT(interior_edges, 0);
  // Every copy of a coarse vertex is the vertex itself, however many macros meet there.
  for (int v = 0; v < mesh.num_vertices(); ++v)
    for (int c : mesh.vertex_cells[v]) {
      int corner = 0;
      while (mesh.cells[c][corner] != v) ++corner;
      const std::size_t q = corner_node(macros[c].n, corner);
      EXPECT_TRUE(same_bits(macros[c].x[q], mesh.vertices[v].x) &&
                  same_bits(macros[c].y[q], mesh.vertices[v].y))
          << mesh.source << " level " << level << " vertex " << v << " cell " << c;
    }
}

void expect_nested(const CoarseMesh& mesh, const ChartMap& charts, int max_level) {
  for (int c = 0; c < mesh.num_cells(); ++c) {
    MacroGeometry coarse = refine_macro(mesh, charts, c, 0);
    for (int level = 1; level <= max_level; ++level) {
      const MacroGeometry fine = refine_macro(mesh, charts, c, level);
      bool nested = true;
      for (int j = 0; j < coarse.n; ++j)
        for (int i = 0; i < coarse.n; ++i) {
          const std::size_t qc = i + static_cast<std::size_t>(j) * coarse.n;
          const std::size_t qf = 2 * i + static_cast<std::size_t>(2 * j) * fine.n;
          nested =
              nested && same_bits(coarse.x[qc], fine.x[qf]) && same_bits(coarse.y[qc], fine.y[qf]);
        }
      EXPECT_TRUE(nested) << mesh.source << " cell " << c << " level " << level;
      coarse = fine;
    }
  }
}

double triangle_area(const MacroGeometry& g, std::size_t a, std::size_t b, std::size_t c) {
  return 0.5 * ((g.x[b] - g.x[a]) * (g.y[c] - g.y[a]) - (g.x[c] - g.x[a]) * (g.y[b] - g.y[a]));
}

/// Smallest of the four corner triangles over all elements: positive iff every element is a
/// convex counterclockwise quadrilateral.
double min_corner_triangle(const MacroGeometry& g) {
  double smallest = INFINITY;
  for (int j = 0; j + 1 < g.n; ++j)
    for (int i = 0; i + 1 < g.n; ++i) {
      const std::size_t p0 = i + static_cast<std::size_t>(j) * g.n, p1 = p0 + 1, p2 = p1 + g.n,
                        p3 = p0 + g.n;
      smallest = std::min({smallest, triangle_area(g, p0, p1, p2), triangle_area(g, p1, p2, p3),
                           triangle_area(g, p2, p3, p0), triangle_area(g, p3, p0, p1)});
    }
  return smallest;
}

/// Largest deviation from the bilinear map of the corners.
double distance_from_bilinear(const MacroGeometry& g) {
  const std::size_t last = g.n - 1;
  const std::size_t c[4] = {0, last, last + last * g.n, last * g.n};
  double worst = 0;
  for (int j = 0; j < g.n; ++j)
    for (int i = 0; i < g.n; ++i) {
      const double s = static_cast<double>(i) / last, t = static_cast<double>(j) / last;
      const double w[4] = {(1 - s) * (1 - t), s * (1 - t), s * t, (1 - s) * t};
      double x = 0, y = 0;
      for (int k = 0; k < 4; ++k) x += w[k] * g.x[c[k]], y += w[k] * g.y[c[k]];
      const std::size_t q = i + static_cast<std::size_t>(j) * g.n;
      worst = std::max(worst, std::hypot(g.x[q] - x, g.y[q] - y));
    }
  return worst;
}

// --- charts -------------------------------------------------------------------------------

TEST(Chart, LineInterpolatesComponentwise) {
  const Chart line = Chart::parse("line");
  const Point2 p = line.interpolate({1, 2}, {3, -2}, 0.25);
  EXPECT_EQ(p.x, 0.75 * 1 + 0.25 * 3);
  EXPECT_EQ(p.y, 0.75 * 2 + 0.25 * -2);
}

TEST(Chart, CircleTakesTheShorterArcAtConstantSpeed) {
  const Chart circle = Chart::parse("circle 1 -1 2");
  ASSERT_EQ(circle.kind, Chart::Kind::circle);
  EXPECT_EQ(circle.centre.x, 1.0);
  EXPECT_EQ(circle.centre.y, -1.0);
  EXPECT_EQ(circle.radius, 2.0);
  auto at = [&](double deg) {
    const double a = deg * std::numbers::pi / 180;
    return Point2{1 + 2 * std::cos(a), -1 + 2 * std::sin(a)};
  };
  // Across the branch cut of atan2: 170 deg -> -170 deg passes through 180 deg, not 0 deg.
  Point2 p = circle.interpolate(at(170), at(-170), 0.5);
  EXPECT_NEAR(p.x, -1.0, 1e-14);
  EXPECT_NEAR(p.y, -1.0, 1e-14);
  p = circle.interpolate(at(-170), at(170), 0.25);
  EXPECT_NEAR(p.x, at(-175).x, 1e-14);
  EXPECT_NEAR(p.y, at(-175).y, 1e-14);
  // Clockwise arc, quarter of the way: 90 -> 0 deg.
  p = circle.interpolate(at(90), at(0), 0.25);
  EXPECT_NEAR(p.x, at(67.5).x, 1e-14);
  EXPECT_NEAR(p.y, at(67.5).y, 1e-14);
  // The chart's radius wins over end points slightly off the circle.
  p = circle.interpolate({1 + 2.001, -1}, {1, -1 + 1.999}, 0.5);
  EXPECT_NEAR(std::hypot(p.x - 1, p.y + 1), 2.0, 1e-15);
}

TEST(Chart, ParseRejectsMalformedSpecs) {
  for (const char* spec : {"", "ellipse 0 0 1", "circle 0 0", "circle 0 0 1 2", "circle 0 0 -1",
                           "circle 0 0 0", "circle a 0 1", "circle 0 0 1x", "line 1"}) {
    try {
      Chart::parse(spec);
      ADD_FAILURE() << "accepted '" << spec << "'";
    } catch (const MeshError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + spec + "'"), std::string::npos)
          << e.what();
    }
  }
}

// Four macros between the square [-1,1]^2 and a circular hole of radius 0.5 at the origin:
// inner edges are quarter circles bulging into the macros, so a bilinear interior would
// put nodes inside the hole and fold elements from level 3 on.
CoarseMesh ring_mesh() {
  CoarseMesh mesh;
  mesh.source = "ring";
  mesh.part_names = {"outer", "hole"};
  const double h = 0.5 / std::numbers::sqrt2;
  mesh.vertices = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}, {-h, -h}, {h, -h}, {h, h}, {-h, h}};
  mesh.cells = {{0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
  mesh.build_topology(
      {{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 0, 0}, {4, 5, 1}, {5, 6, 1}, {6, 7, 1}, {7, 4, 1}});
  return mesh;
}

TEST(Chart, BindChartsByPartName) {
  const CoarseMesh mesh = ring_mesh();
  const ChartMap charts = bind_charts(mesh, {"hole circle 0 0 0.5", "outer line"});
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts.at(1).kind, Chart::Kind::circle);
  EXPECT_EQ(charts.at(0).kind, Chart::Kind::line);
  auto error = [&](const std::string& binding) {
    try {
      bind_charts(mesh, {"outer line", binding});
    } catch (const MeshError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("cylinder circle 0 0 0.5")
                .find("no boundary part 'cylinder' (its parts: "
                      "outer, hole)"),
            std::string::npos);
  EXPECT_NE(error("hole circle 0 0").find("expected 'line' or 'circle cx cy r'"),
            std::string::npos);
  EXPECT_NE(error("outer line").find("is bound twice"), std::string::npos);
  EXPECT_NE(error("hole circle 0 0 0.6").find("not on the circle of radius 0.6"),
            std::string::npos);
}

// A huge circle through the two ends of a straight part: the middle vertices are off it by the
// sagitta, 1.25e-3 here, which is within 1e-4 of the radius (100) but 5 % of an edge (0.25). It
// must be refused, or refinement would bend the lid onto the circle.
TEST(Chart, HugeCircleOnAStraightPartIsRefused) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_4x2.msh"));
  EXPECT_THROW(bind_charts(mesh, {"top circle 0.5 -98.99875 100"}), MeshError);
  // The same part's own straight line stays accepted.
  EXPECT_NO_THROW(bind_charts(mesh, {"top line"}));
}

// --- refinement -----------------------------------------------------------------------------

TEST(Refinement, GridSizeAndCorners) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_4x2.msh"));
  for (int level = 0; level <= 4; ++level) {
    const MacroGeometry g = refine_macro(mesh, {}, 5, level);
    EXPECT_EQ(g.level, level);
    EXPECT_EQ(g.n, (1 << level) + 1);
    EXPECT_EQ(g.x.size(), static_cast<std::size_t>(g.n * g.n));
    EXPECT_EQ(g.y.size(), g.x.size());
  }
  // Macro 5 is [0.25,0.5]x[0.5,1]: nodes on the tensor grid, lexicographic i + j*n.
  const MacroGeometry g = refine_macro(mesh, {}, 5, 2);
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 5; ++i) {
      EXPECT_DOUBLE_EQ(g.x[i + 5 * j], 0.25 + 0.0625 * i);
      EXPECT_DOUBLE_EQ(g.y[i + 5 * j], 0.5 + 0.125 * j);
    }
  EXPECT_THROW(refine_macro(mesh, {}, 8, 1), MeshError);
  EXPECT_THROW(refine_macro(mesh, {}, 0, -1), MeshError);
}

TEST(Refinement, ElementAspectRatios) {
  // Squares, 2:1 rectangles, the strips' 10:1 and 100:1 elements (either orientation of the
  // macro's local axes), a rotated square, a rhombus of 60 degrees (sqrt 3 = ratio of its
  // diagonals), and the unstructured square's quadrilaterals, between.
  const auto worst = [](const char* name, int level) {
    const CoarseMesh mesh = read_msh(mesh_path(name));
    double w = 0.0;
    for (int c = 0; c < mesh.num_cells(); ++c)
      w = std::max(w, max_element_aspect(refine_macro(mesh, {}, c, level)));
    return w;
  };
  EXPECT_NEAR(worst("unit_square_2x2.msh", 4), 1.0, 1e-12);
  EXPECT_NEAR(worst("unit_square_4x2.msh", 4), 2.0, 1e-12);
  EXPECT_NEAR(worst("strip_ar10.msh", 3), 10.0, 1e-9);
  EXPECT_NEAR(worst("strip_ar100.msh", 3), 100.0, 1e-7);
  const double unstructured = worst("unit_square_unstructured.msh", 4);
  EXPECT_GT(unstructured, 1.1);
  EXPECT_LT(unstructured, 2.5);
  const auto shape = [](std::vector<double> x, std::vector<double> y) {
    MacroGeometry g;
    g.n = 2;
    g.x.assign(x.begin(), x.end());
    g.y.assign(y.begin(), y.end());
    return max_element_aspect(g);
  };
  const double c = std::cos(0.3), s = std::sin(0.3);
  EXPECT_NEAR(shape({0, c, -s, c - s}, {0, s, c, s + c}), 1.0, 1e-12);
  const double h = std::sqrt(3.0) / 2;
  EXPECT_NEAR(shape({0, 1, 0.5, 1.5}, {0, 0, h, h}), std::sqrt(3.0), 1e-12);
}

TEST(Refinement, SharedNodesAgreeBitForBit) {
  for (const char* name : {"unit_square_unstructured.msh", "l_shape.msh", "unit_square_4x2.msh"}) {
    const CoarseMesh mesh = read_msh(mesh_path(name));
    for (int level = 0; level <= 6; ++level) expect_shared_nodes_agree(mesh, {}, level);
  }
}

TEST(Refinement, SharedEdgesRunInBothDirections) {
  // The bit-for-bit test above is only meaningful if the meshes have edges that their two
  // macros run in opposite grid directions.
  for (const char* name : {"unit_square_unstructured.msh", "l_shape.msh"}) {
    const CoarseMesh mesh = read_msh(mesh_path(name));
    int opposite = 0;
    for (int e = 0; e < mesh.num_edges(); ++e) {
      if (mesh.edge_cells[e].size() != 2) continue;
      bool reversed[2];
      for (int s = 0; s < 2; ++s) {
        const int c = mesh.edge_cells[e][s];
        int k = 0;
        while (mesh.cell_edges[c][k] != e) ++k;
        reversed[s] = mesh.cell_edge_reversed[c][k];
      }
      opposite += reversed[0] != reversed[1];
    }
    EXPECT_GT(opposite, 0) << name;
  }
}

TEST(Refinement, LevelsAreNestedBitForBit) {
  for (const char* name : {"unit_square_unstructured.msh", "l_shape.msh"})
    expect_nested(read_msh(mesh_path(name)), {}, 6);
  const CoarseMesh ring = ring_mesh();
  expect_nested(ring, bind_charts(ring, {"hole circle 0 0 0.5"}), 6);
}

TEST(Refinement, StraightMacrosAreBilinear) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_unstructured.msh"));
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, 4);
    EXPECT_LT(distance_from_bilinear(g), 1e-15) << "cell " << c;
    EXPECT_GT(min_corner_triangle(g), 0.0) << "cell " << c;
  }
}

TEST(Refinement, CircleEdgesStayOnTheCircleAndElementsStayValid) {
  const CoarseMesh mesh = ring_mesh();
  const ChartMap charts = bind_charts(mesh, {"hole circle 0 0 0.5"});
  for (int level = 0; level <= 7; ++level) {
    for (int c = 0; c < mesh.num_cells(); ++c) {
      const MacroGeometry g = refine_macro(mesh, charts, c, level);
      // Local edge 2 (v3 -> v2) is the arc in every macro of the ring.
      double off_circle = 0;
      for (int i = 0; i < g.n; ++i) {
        const std::size_t q = edge_node(g.n, 2, i);
        off_circle = std::max(off_circle, std::abs(std::hypot(g.x[q], g.y[q]) - 0.5));
      }
      EXPECT_LE(off_circle, 1e-14) << "cell " << c << " level " << level;
      EXPECT_GT(min_corner_triangle(g), 0.0) << "cell " << c << " level " << level;
    }
    expect_shared_nodes_agree(mesh, charts, level);
  }
}

TEST(Refinement, OnlyChartedEdgesMakeAMacroCurved) {
  // Macro 0 = [0,1]^2 whose bottom edge is an arc of a circle through (0,0) and (1,0);
  // macro 1 = [1,2]x[0,1] touches the circle at its corner (1,0) only and stays bilinear.
  CoarseMesh mesh;
  mesh.source = "arc";
  mesh.part_names = {"arc", "wall"};
  mesh.vertices = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {1, 1}, {0, 1}};
  mesh.cells = {{0, 1, 4, 5}, {1, 2, 3, 4}};
  mesh.build_topology({{0, 1, 0}, {1, 2, 1}, {2, 3, 1}, {3, 4, 1}, {4, 5, 1}, {5, 0, 1}});
  const ChartMap charts = bind_charts(mesh, {"arc circle 0.5 2 2.0615528128088303"});
  for (int level = 2; level <= 5; ++level) {
    const MacroGeometry curved = refine_macro(mesh, charts, 0, level);
    const MacroGeometry straight = refine_macro(mesh, charts, 1, level);
    EXPECT_LT(distance_from_bilinear(straight), 1e-15);
    // The arc sags r - 2 = 0.0616 below the chord at x = 0.5. On the vertical x = 0.5 the
    // Coons patch is (1-t) * bottom + t * top: row t sits (1-t) * sag below its bilinear place.
    const double sag = 2.0615528128088303 - 2;
    EXPECT_NEAR(distance_from_bilinear(curved), sag, 1e-12);
    for (int j = 0; j < curved.n; ++j) {
      const double t = static_cast<double>(j) / (curved.n - 1);
      EXPECT_NEAR(curved.y[(curved.n - 1) / 2 + static_cast<std::size_t>(j) * curved.n],
                  t - (1 - t) * sag, 1e-14);
    }
    for (int i = 0; i < curved.n; ++i)
      EXPECT_NEAR(std::hypot(curved.x[i] - 0.5, curved.y[i] - 2), 2.0615528128088303, 1e-14);
    EXPECT_GT(min_corner_triangle(curved), 0.0);
  }
}

}  // namespace
}  // namespace quilt
