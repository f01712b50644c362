// Point location and evaluation of Q1 fields in refined macros (fem/point_evaluation.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "fem/point_evaluation.hpp"
#include "fem/q1_element.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"

using namespace quilt;

namespace {

double linear(double x, double y) {
  return 0.4 - 1.3 * x + 2.1 * y;
}

std::array<double, 4> corner_x(const MacroGeometry& g, int i, int j) {
  std::array<double, 4> x{};
  for (int a = 0; a < 4; ++a) x[a] = g.x[(i + kQ1DI[a]) + (j + kQ1DJ[a]) * g.n];
  return x;
}
std::array<double, 4> corner_y(const MacroGeometry& g, int i, int j) {
  std::array<double, 4> y{};
  for (int a = 0; a < 4; ++a) y[a] = g.y[(i + kQ1DI[a]) + (j + kQ1DJ[a]) * g.n];
  return y;
}

class PointEvaluation : public ::testing::TestWithParam<int> {};  // refinement level

}  // namespace

// Points drawn inside random elements of every macro are found in that element, at the same
// reference coordinates, by that macro only; a linear field (in the Q1 space on straight-edged
// quadrilaterals) is reproduced exactly, and so is the interpolant of arbitrary nodal values.
TEST_P(PointEvaluation, RandomPointsReproduceFieldsOnUnstructuredMesh) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_unstructured.msh"));
  const int level = GetParam();
  std::vector<MacroGeometry> macros;
  for (int c = 0; c < mesh.num_cells(); ++c) macros.push_back(refine_macro(mesh, {}, c, level));
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> ref(-0.999, 0.999), val(-1.0, 1.0);
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry& g = macros[c];
    std::uniform_int_distribution<int> element(0, g.n - 2);
    std::vector<double> lin(g.x.size()), noise(g.x.size());
    for (std::size_t r = 0; r < lin.size(); ++r) {
      lin[r] = linear(g.x[r], g.y[r]);
      noise[r] = val(rng);
    }
    for (int s = 0; s < 4; ++s) {
      const int i = element(rng), j = element(rng);
      const double xi = ref(rng), eta = ref(rng);
      const Q1Point q = evaluate_q1(corner_x(g, i, j), corner_y(g, i, j), xi, eta);
      const auto loc = locate_point(g, {q.x, q.y});
      ASSERT_TRUE(loc.has_value()) << "macro " << c << " element " << i << "," << j;
      EXPECT_EQ(loc->element_i, i);
      EXPECT_EQ(loc->element_j, j);
      EXPECT_NEAR(loc->xi, xi, 1e-10);
      EXPECT_NEAR(loc->eta, eta, 1e-10);
      EXPECT_NEAR(evaluate_q1_field(g, lin.data(), *loc), linear(q.x, q.y), 1e-13);
      double expected = 0;
      for (int a = 0; a < 4; ++a)
        expected += q.phi[a] * noise[(i + kQ1DI[a]) + (j + kQ1DJ[a]) * g.n];
      EXPECT_NEAR(evaluate_q1_field(g, noise.data(), *loc), expected, 1e-12);
      for (int other = 0; other < mesh.num_cells(); ++other)
        if (other != c) {
          EXPECT_FALSE(locate_point(macros[other], {q.x, q.y}).has_value());
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, PointEvaluation, ::testing::Values(1, 3, 6));

// Nodes and edge midpoints lie on element boundaries (reference coordinate exactly +-1 up to
// round-off): they must be found, and a field evaluates to the nodal value / the edge average.
TEST(PointEvaluationBoundaries, NodesAndEdgeMidpoints) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_unstructured.msh"));
  const int level = 2;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  for (int c = 0; c < mesh.num_cells(); ++c) {
    const MacroGeometry g = refine_macro(mesh, {}, c, level);
    std::vector<double> v(g.x.size());
    for (double& x : v) x = val(rng);
    for (int j = 0; j < g.n; ++j)
      for (int i = 0; i < g.n; ++i) {
        const std::size_t r = i + static_cast<std::size_t>(j) * g.n;
        const auto at_node = locate_point(g, {g.x[r], g.y[r]});
        ASSERT_TRUE(at_node.has_value()) << "macro " << c << " node " << r;
        EXPECT_NEAR(evaluate_q1_field(g, v.data(), *at_node), v[r], 1e-13);
        if (i + 1 < g.n) {
          const Point2 mid{0.5 * (g.x[r] + g.x[r + 1]), 0.5 * (g.y[r] + g.y[r + 1])};
          const auto at_mid = locate_point(g, mid);
          ASSERT_TRUE(at_mid.has_value());
          EXPECT_NEAR(evaluate_q1_field(g, v.data(), *at_mid), 0.5 * (v[r] + v[r + 1]), 1e-13);
        }
        if (j + 1 < g.n) {
          const std::size_t up = r + g.n;
          const Point2 mid{0.5 * (g.x[r] + g.x[up]), 0.5 * (g.y[r] + g.y[up])};
          const auto at_mid = locate_point(g, mid);
          ASSERT_TRUE(at_mid.has_value());
          EXPECT_NEAR(evaluate_q1_field(g, v.data(), *at_mid), 0.5 * (v[r] + v[up]), 1e-13);
        }
      }
  }
}

// Points outside the domain, or just outside its boundary (beyond the reference tolerance), are
// in no macro; a point on the boundary is in at least one.
TEST(PointEvaluationBoundaries, OutsidePointsAreRejected) {
  for (const char* file : {"unit_square_4x2.msh", "unit_square_unstructured.msh"}) {
    const CoarseMesh mesh = read_msh(mesh_path(file));
    int boundary_hits = 0;
    for (int c = 0; c < mesh.num_cells(); ++c) {
      const MacroGeometry g = refine_macro(mesh, {}, c, 3);
      for (const Point2 p : {Point2{1.5, 0.5}, Point2{-0.01, 0.5}, Point2{0.37, 1.0 + 1e-9},
                             Point2{-1e-9, -1e-9}, Point2{1.0 + 1e-9, 0.73}})
        EXPECT_FALSE(locate_point(g, p).has_value()) << file << " macro " << c;
      if (locate_point(g, {0.37, 1.0})) ++boundary_hits;
    }
    EXPECT_GE(boundary_hits, 1) << file;
  }
}
