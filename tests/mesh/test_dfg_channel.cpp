// The shipped DFG flow-around-a-cylinder coarse mesh (meshes/dfg_channel.msh, reference
// dfg_cylinder.md): its boundary parts, the circle chart of the cylinder, element shapes of the
// refined macros at levels 0..6, the domain area and the pressure-difference points.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "fem/point_evaluation.hpp"
#include "fem/scalar_assembly.hpp"
#include "mesh/chart.hpp"
#include "mesh/macro_geometry.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"

namespace quilt {
namespace {

constexpr double kCx = 0.2, kCy = 0.2, kR = 0.05;
constexpr double kLength = 2.2, kHeight = 0.41;
constexpr int kMaxLevel = 6;
const char* const kCylinderChart = "cylinder circle 0.2 0.2 0.05";

const CoarseMesh& dfg_mesh() {
  static const CoarseMesh mesh = read_msh(mesh_path("dfg_channel.msh"));
  return mesh;
}

double degrees(double radians) {
  return radians * 180.0 / std::numbers::pi;
}

/// Interior angle (degrees) at c of the polygon ... p -> c -> n ...; negative for a right turn.
double corner_angle(Point2 p, Point2 c, Point2 n) {
  const double ux = p.x - c.x, uy = p.y - c.y, vx = n.x - c.x, vy = n.y - c.y;
  return degrees(std::atan2(vx * uy - vy * ux, ux * vx + uy * vy));
}

/// Grid index of the q-th node of local edge k (coarse_mesh.hpp), q in the grid direction.
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

struct Shape {
  double min_area = INFINITY;
  double min_angle = INFINITY;
  double max_angle = -INFINITY;
};

/// Smallest element area (shoelace) and extreme interior angles over the elements of g.
Shape element_shape(const MacroGeometry& g) {
  Shape s;
  for (int j = 0; j + 1 < g.n; ++j)
    for (int i = 0; i + 1 < g.n; ++i) {
      const std::size_t q0 = i + static_cast<std::size_t>(j) * g.n;
      const std::size_t q[4] = {q0, q0 + 1, q0 + 1 + g.n, q0 + g.n};
      Point2 p[4];
      for (int k = 0; k < 4; ++k) p[k] = {g.x[q[k]], g.y[q[k]]};
      double area = 0;
      for (int k = 0; k < 4; ++k) {
        const Point2 a = p[k], b = p[(k + 1) % 4];
        area += 0.5 * (a.x * b.y - b.x * a.y);
        const double angle = corner_angle(p[(k + 3) % 4], a, b);
        s.min_angle = std::min(s.min_angle, angle);
        s.max_angle = std::max(s.max_angle, angle);
      }
      s.min_area = std::min(s.min_area, area);
    }
  return s;
}

TEST(DfgChannel, LoadsWithTheFourBoundaryParts) {
  const CoarseMesh& mesh = dfg_mesh();
  EXPECT_GE(mesh.num_cells(), 20);
  EXPECT_LE(mesh.num_cells(), 40);
  const int inflow = mesh.part_id("inflow"), outflow = mesh.part_id("outflow"),
            wall = mesh.part_id("wall"), cylinder = mesh.part_id("cylinder");
  ASSERT_GE(inflow, 0);
  ASSERT_GE(outflow, 0);
  ASSERT_GE(wall, 0);
  ASSERT_GE(cylinder, 0);
  EXPECT_EQ(mesh.part_names.size(), 4u);
  // Every boundary edge lies on the side its part names.
  double inflow_length = 0, outflow_length = 0, wall_length = 0;
  int cylinder_edges = 0;
  for (int e = 0; e < mesh.num_edges(); ++e) {
    const int part = mesh.edge_part[e];
    if (part < 0) continue;
    const Point2 a = mesh.vertices[mesh.edges[e][0]], b = mesh.vertices[mesh.edges[e][1]];
    const double length = std::hypot(b.x - a.x, b.y - a.y);
    if (part == inflow) {
      EXPECT_TRUE(a.x == 0.0 && b.x == 0.0) << "edge " << e;
      inflow_length += length;
    } else if (part == outflow) {
      EXPECT_TRUE(a.x == kLength && b.x == kLength) << "edge " << e;
      outflow_length += length;
    } else if (part == wall) {
      EXPECT_TRUE(a.y == b.y && (a.y == 0.0 || a.y == kHeight)) << "edge " << e;
      wall_length += length;
    } else {
      ASSERT_EQ(part, cylinder);
      ++cylinder_edges;
    }
  }
  EXPECT_NEAR(inflow_length, kHeight, 1e-14);
  EXPECT_NEAR(outflow_length, kHeight, 1e-14);
  EXPECT_NEAR(wall_length, 2 * kLength, 1e-14);
  EXPECT_GE(cylinder_edges, 8);
}

TEST(DfgChannel, BindChartsAcceptsTheCylinderCircle) {
  const CoarseMesh& mesh = dfg_mesh();
  ChartMap charts;
  ASSERT_NO_THROW(charts = bind_charts(mesh, {kCylinderChart}));
  ASSERT_EQ(charts.size(), 1u);
  EXPECT_EQ(charts.at(mesh.part_id("cylinder")).kind, Chart::Kind::circle);
  // The coarse vertices are exact (cos/sin, written round-trip), not merely within the
  // binding's tolerance; the cylinder is 0.01 below the centreline, not on it.
  for (int e = 0; e < mesh.num_edges(); ++e) {
    if (mesh.edge_part[e] != mesh.part_id("cylinder")) continue;
    for (int v : mesh.edges[e]) {
      EXPECT_NEAR(std::hypot(mesh.vertices[v].x - kCx, mesh.vertices[v].y - kCy), kR, 1e-16)
          << "vertex " << v;
    }
  }
  EXPECT_THROW(bind_charts(mesh, {"cylinder circle 0.2 0.205 0.05"}), MeshError);
}

TEST(DfgChannel, CoarseMacrosAreConvexWithModerateAngles) {
  const CoarseMesh& mesh = dfg_mesh();
  for (int c = 0; c < mesh.num_cells(); ++c)
    for (int k = 0; k < 4; ++k) {
      const Point2 p = mesh.vertices[mesh.cells[c][(k + 3) % 4]];
      const Point2 v = mesh.vertices[mesh.cells[c][k]];
      const Point2 n = mesh.vertices[mesh.cells[c][(k + 1) % 4]];
      const double angle = corner_angle(p, v, n);
      EXPECT_GE(angle, 30.0) << "cell " << c << " corner " << k;
      EXPECT_LE(angle, 150.0) << "cell " << c << " corner " << k;
    }
}

TEST(DfgChannel, WakeMacrosAreNotStretched) {
  // Macros reaching into the wake x in [0.25, 1.0]: longest over shortest edge <= 3.
  const CoarseMesh& mesh = dfg_mesh();
  int wake = 0;
  for (int c = 0; c < mesh.num_cells(); ++c) {
    double x_min = INFINITY, x_max = -INFINITY, shortest = INFINITY, longest = 0;
    for (int k = 0; k < 4; ++k) {
      const Point2 a = mesh.vertices[mesh.cells[c][k]];
      const Point2 b = mesh.vertices[mesh.cells[c][(k + 1) % 4]];
      x_min = std::min(x_min, a.x);
      x_max = std::max(x_max, a.x);
      shortest = std::min(shortest, std::hypot(b.x - a.x, b.y - a.y));
      longest = std::max(longest, std::hypot(b.x - a.x, b.y - a.y));
    }
    if (x_max <= 0.25 || x_min >= 1.0) continue;
    ++wake;
    EXPECT_LE(longest / shortest, 3.0 + 1e-12) << "cell " << c;
  }
  EXPECT_GT(wake, 8);
}

TEST(DfgChannel, CylinderNodesLieOnTheCircleAtEveryLevel) {
  const CoarseMesh& mesh = dfg_mesh();
  const ChartMap charts = bind_charts(mesh, {kCylinderChart});
  const int cylinder = mesh.part_id("cylinder");
  for (int level = 0; level <= kMaxLevel; ++level) {
    int arcs = 0;
    for (int c = 0; c < mesh.num_cells(); ++c)
      for (int k = 0; k < 4; ++k) {
        if (mesh.edge_part[mesh.cell_edges[c][k]] != cylinder) continue;
        ++arcs;
        const MacroGeometry g = refine_macro(mesh, charts, c, level);
        double off = 0;
        for (int q = 0; q < g.n; ++q) {
          const std::size_t node = edge_node(g.n, k, q);
          off = std::max(off, std::abs(std::hypot(g.x[node] - kCx, g.y[node] - kCy) - kR));
        }
        EXPECT_LE(off, 1e-14) << "cell " << c << " level " << level;
      }
    EXPECT_GE(arcs, 8);
  }
}

TEST(DfgChannel, RefinedElementsStayWellShaped) {
  // Interior nodes of the ring macros come from the Coons patch of the arc: every element
  // stays convex (positive area) and no angle drops below 20 degrees, at every level.
  const CoarseMesh& mesh = dfg_mesh();
  const ChartMap charts = bind_charts(mesh, {kCylinderChart});
  for (int level = 0; level <= kMaxLevel; ++level) {
    Shape worst;
    for (int c = 0; c < mesh.num_cells(); ++c) {
      const Shape s = element_shape(refine_macro(mesh, charts, c, level));
      EXPECT_GT(s.min_area, 0.0) << "cell " << c << " level " << level;
      worst.min_angle = std::min(worst.min_angle, s.min_angle);
      worst.max_angle = std::max(worst.max_angle, s.max_angle);
    }
    EXPECT_GE(worst.min_angle, 20.0) << "level " << level;
    EXPECT_LE(worst.max_angle, 160.0) << "level " << level;
  }
}

TEST(DfgChannel, AreaConvergesToTheChannelMinusTheDisc) {
  // The refined cylinder boundary is the regular polygon of N = 8 * 2^level chords inscribed in
  // the circle, so the Q1 area is the channel minus that polygon: the error pi r^2 - polygon
  // area ~ 2 pi^3 r^2 / (3 N^2) shrinks 4x per level.
  const CoarseMesh& mesh = dfg_mesh();
  const ChartMap charts = bind_charts(mesh, {kCylinderChart});
  const double exact = kLength * kHeight - std::numbers::pi * kR * kR;
  double previous_error = 0;
  for (int level = 0; level <= kMaxLevel; ++level) {
    double area = 0;
    for (int c = 0; c < mesh.num_cells(); ++c)
      area += macro_area(refine_macro(mesh, charts, c, level));
    const double n = 8.0 * (1 << level);
    const double polygon = 0.5 * n * kR * kR * std::sin(2 * std::numbers::pi / n);
    EXPECT_NEAR(area, kLength * kHeight - polygon, 1e-12) << "level " << level;
    const double error = area - exact;
    EXPECT_GT(error, 0.0) << "level " << level;
    if (level > 0) {
      EXPECT_GT(previous_error / error, 3.9) << "level " << level;
      EXPECT_LT(previous_error / error, 4.1) << "level " << level;
    }
    previous_error = error;
  }
  EXPECT_LT(previous_error, 3e-7);
}

TEST(DfgChannel, PressurePointsLieInsideExactlyOneMacro) {
  // dp = p(0.15, 0.2) - p(0.25, 0.2): front and back of the cylinder, on its surface. Neither
  // is on a macro edge, so each belongs to one ring macro (one with a cylinder edge).
  const CoarseMesh& mesh = dfg_mesh();
  const ChartMap charts = bind_charts(mesh, {kCylinderChart});
  const int cylinder = mesh.part_id("cylinder");
  for (const Point2 p : {Point2{0.15, 0.2}, Point2{0.25, 0.2}}) {
    std::vector<int> owners;
    for (int c = 0; c < mesh.num_cells(); ++c)
      if (locate_point(refine_macro(mesh, charts, c, 2), p)) owners.push_back(c);
    ASSERT_EQ(owners.size(), 1u) << "point (" << p.x << ", " << p.y << ")";
    const auto& edges = mesh.cell_edges[owners[0]];
    EXPECT_TRUE(std::any_of(edges.begin(), edges.end(),
                            [&](int e) { return mesh.edge_part[e] == cylinder; }))
        << "point (" << p.x << ", " << p.y << ") in cell " << owners[0];
  }
}

}  // namespace
}  // namespace quilt
