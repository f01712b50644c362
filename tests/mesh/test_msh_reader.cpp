// The MSH 2.2 reader (and what both versions share): shipped meshes load with the right shape, and
// every malformed file is rejected with a message naming the file and the offending line.

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>
#include <string>

#include "mesh/coarse_mesh.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh/msh_test_files.hpp"
#include "mesh_files.hpp"

namespace quilt {
namespace {

using test::expect_error_at;
using test::kTwoMacros;
using test::line_of;
using test::replace;
using test::TempFile;

TEST(MshReader, ReadsTwoMacros) {
  TempFile file(kTwoMacros);
  const CoarseMesh mesh = read_msh(file.path());
  EXPECT_EQ(mesh.source, file.path());
  EXPECT_EQ(mesh.num_vertices(), 6);
  EXPECT_EQ(mesh.num_cells(), 2);
  EXPECT_EQ(mesh.num_edges(), 7);
  ASSERT_EQ(mesh.part_names, (std::vector<std::string>{"wall", "lid"}));
  EXPECT_EQ(mesh.part_id("lid"), 1);
  EXPECT_EQ(mesh.part_id("domain"), -1);  // a surface group names no boundary part
  EXPECT_EQ(mesh.cells[1], (std::array<int, 4>{1, 2, 3, 4}));
  EXPECT_EQ(mesh.vertices[3].x, 2.0);
  EXPECT_EQ(mesh.vertices[3].y, 1.0);
  int lid_edges = 0;
  for (int e = 0; e < mesh.num_edges(); ++e) {
    if (mesh.edge_part[e] == 1) {
      ++lid_edges;
      EXPECT_EQ(mesh.vertices[mesh.edges[e][0]].y, 1.0);
      EXPECT_EQ(mesh.vertices[mesh.edges[e][1]].y, 1.0);
    }
  }
  EXPECT_EQ(lid_edges, 2);
  EXPECT_EQ(mesh.vertex_parts[4], (std::vector<int>{1}));     // (1,1): lid only
  EXPECT_EQ(mesh.vertex_parts[5], (std::vector<int>{0, 1}));  // (0,1): wall and lid
  EXPECT_EQ(mesh.cell_lines,
            (std::vector<int>{line_of(kTwoMacros, "8 3 2"), line_of(kTwoMacros, "9 3 2")}));
}

TEST(MshReader, KeepsOnlyQuadVerticesRenumberedInFileOrder) {
  // Sparse, unordered node ids; node 7 is used by a point element only and is dropped.
  const std::string text = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
1
1 1 "wall"
$EndPhysicalNames
$Nodes
5
7 5 5 0
30 0 1 0
10 0 0 0
20 1 0 0
40 1 1 0
$EndNodes
$Elements
6
1 15 2 1 1 7
2 1 2 1 1 10 20
3 1 2 1 1 20 40
4 1 2 1 1 40 30
5 1 2 1 1 30 10
6 3 2 2 1 10 20 40 30
$EndElements
)";
  const CoarseMesh mesh = read_msh(TempFile(text).path());
  ASSERT_EQ(mesh.num_vertices(), 4);
  EXPECT_EQ(mesh.cells[0], (std::array<int, 4>{1, 2, 3, 0}));
  EXPECT_EQ(mesh.vertices[0].y, 1.0);
  EXPECT_EQ(mesh.vertices[2].x, 1.0);
}

TEST(MshReader, AcceptsCrlfUnknownSectionsAndBlankLines) {
  std::string text =
      replace(kTwoMacros, "$Nodes", "$Comments\nanything $here\n$EndComments\n\n$Nodes");
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(read_msh(TempFile(crlf).path()).num_cells(), 2);
}

TEST(MshReader, CannotOpen) {
  try {
    read_msh("/nonexistent/quilt.msh");
    FAIL();
  } catch (const MeshError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/quilt.msh"), std::string::npos);
  }
}

TEST(MshReaderErrors, Triangle) {
  const std::string text = replace(kTwoMacros, "9 3 2 3 2 2 3 4 5", "9 2 2 3 2 2 3 4");
  expect_error_at(text, line_of(text, "9 2 2"),
                  "element type 2 (triangle) is not supported; Quilt needs quadrilateral macros");
}

// Found by the libFuzzer harness: a tag count near LLONG_MAX overflowed the field count (signed
// overflow, undefined); it is a counted error naming the line.
TEST(MshReaderErrors, HugeTagCount) {
  const std::string text =
      replace(kTwoMacros, "9 3 2 3 2 2 3 4 5", "9 3 9223372036854775806 3 2 2 3 4 5");
  expect_error_at(text, line_of(text, "9 3 9223372036854775806"),
                  "tags should have 9223372036854775813 fields, found 9");
}

TEST(MshReaderErrors, SecondOrderQuadrangle) {
  const std::string text = replace(kTwoMacros, "9 3 2 3 2 2 3 4 5", "9 10 2 3 2 2 3 4 5 1 1 1 1 1");
  expect_error_at(text, line_of(text, "9 10 2"), "element type 10");
}

TEST(MshReaderErrors, OtherVersion) {
  expect_error_at(replace(kTwoMacros, "2.2 0 8", "4 0 8"), 2, "MSH version 4 is not supported");
  expect_error_at(replace(kTwoMacros, "2.2 0 8", "2.1 0 8"), 2,
                  "MSH version 2.1 is not supported; Quilt reads MSH 2.2 and 4.1 ASCII");
}

TEST(MshReaderErrors, VersionDecidesTheLayout) {
  // A 2.2 body announced as 4.1 is read as 4.1: its $Nodes count line is no 4.1 header.
  const std::string text = replace(kTwoMacros, "2.2 0 8", "4.1 0 8");
  expect_error_at(text, line_of(text, "$Nodes") + 1,
                  "expected 'numEntityBlocks numNodes minNodeTag maxNodeTag' in $Nodes");
}

TEST(MshReaderErrors, Binary) {
  expect_error_at(replace(kTwoMacros, "2.2 0 8", "2.2 1 8"), 2, "binary MSH files");
}

TEST(MshReaderErrors, NotAnMshFile) {
  expect_error_at("solid cube\nfacet normal 0 0 1\n", 1, "expected $MeshFormat");
  expect_error_at(replace(kTwoMacros, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n", ""), 1,
                  "expected $MeshFormat");
}

TEST(MshReaderErrors, MissingEndOfHeader) {
  const std::string text = replace(kTwoMacros, "$EndMeshFormat", "$EndFormat");
  expect_error_at(text, 3, "expected $EndMeshFormat");
}

TEST(MshReaderErrors, SectionShorterThanItsCount) {
  const std::string text = replace(kTwoMacros, "6\n1 0 0 0", "7\n1 0 0 0");
  expect_error_at(text, line_of(text, "$EndNodes"), "$Nodes ends after 6 of 7 nodes");
}

TEST(MshReaderErrors, SectionLongerThanItsCount) {
  const std::string text = replace(kTwoMacros, "6\n1 0 0 0", "5\n1 0 0 0");
  expect_error_at(text, line_of(text, "6 0 1 0"), "expected $EndNodes");
}

TEST(MshReaderErrors, TruncatedFile) {
  const std::string full = kTwoMacros;
  const std::string text = full.substr(0, full.find("5 1 2 2 4 4 5"));
  expect_error_at(text, line_of(text, "4 1 2 1 3 3 4"),
                  "unexpected end of file in $Elements (read 4 of 9 elements)");
}

TEST(MshReaderErrors, UnclosedUnknownSection) {
  const std::string text = std::string(kTwoMacros) + "$NodeData\n1\n";
  expect_error_at(text, line_of(text, "$NodeData"), "$EndNodeData missing");
}

TEST(MshReaderErrors, NotANumber) {
  const std::string text = replace(kTwoMacros, "2 1 0 0", "2 1.0x 0 0");
  expect_error_at(text, line_of(text, "1.0x"),
                  "expected the x coordinate (a number), found '1.0x'");
  const std::string count = replace(kTwoMacros, "$Nodes\n6", "$Nodes\nsix");
  expect_error_at(count, line_of(count, "six"), "found 'six'");
}

TEST(MshReaderErrors, WrongFieldCount) {
  const std::string text = replace(kTwoMacros, "9 3 2 3 2 2 3 4 5", "9 3 2 3 2 2 3 4");
  expect_error_at(text, line_of(text, "9 3 2"), "should have 9 fields, found 8");
}

TEST(MshReaderErrors, NonPlanarNode) {
  const std::string text = replace(kTwoMacros, "4 2 1 0", "4 2 1 0.001");
  expect_error_at(text, line_of(text, "4 2 1 0.001"), "z = 0.001");
}

TEST(MshReaderErrors, UnknownNode) {
  const std::string text = replace(kTwoMacros, "9 3 2 3 2 2 3 4 5", "9 3 2 3 2 2 3 42 5");
  expect_error_at(text, line_of(text, "9 3 2"), "node 42");
}

TEST(MshReaderErrors, ClockwiseQuad) {
  const std::string text = replace(kTwoMacros, "8 3 2 3 1 1 2 5 6", "8 3 2 3 1 1 6 5 2");
  expect_error_at(text, line_of(text, "8 3 2"), "cell 0");
  expect_error_at(text, line_of(text, "8 3 2"), "clockwise or degenerate");
}

TEST(MshReaderErrors, NonConvexQuad) {
  // Node 5 pulled to (0.3, 0.3): macro 0 gets a reflex angle there.
  const std::string text = replace(kTwoMacros, "5 1 1 0", "5 0.3 0.3 0");
  expect_error_at(text, line_of(text, "8 3 2"), "is not convex");
  expect_error_at(text, line_of(text, "8 3 2"), "vertex 4 (0.3, 0.3)");
}

// Macro A = [0,1]^2; its right side faces two macros [1,2]x[0,0.5] and [1,2]x[0.5,1].
const char* const kHangingNode = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
1
1 1 "wall"
$EndPhysicalNames
$Nodes
8
1 0 0 0
2 1 0 0
3 2 0 0
4 2 0.5 0
5 2 1 0
6 1 1 0
7 0 1 0
8 1 0.5 0
$EndNodes
$Elements
10
1 1 2 1 1 1 2
2 1 2 1 1 2 3
3 1 2 1 1 3 4
4 1 2 1 1 4 5
5 1 2 1 1 5 6
6 1 2 1 1 6 7
7 1 2 1 1 7 1
8 3 2 1 1 1 2 6 7
9 3 2 1 1 2 3 4 8
10 3 2 1 1 8 4 5 6
$EndElements
)";

TEST(MshReaderErrors, HangingNode) {
  expect_error_at(kHangingNode, line_of(kHangingNode, "8 3 2"), "non-conforming macro edge");
  expect_error_at(kHangingNode, line_of(kHangingNode, "8 3 2"), "vertex 7 (1, 0.5)");
}

TEST(MshReaderErrors, DuplicateNodes) {
  // Node 7 duplicates node 5 at (1, 1) and macro 1 uses it: the macros are not connected there.
  std::string text = replace(kTwoMacros, "6\n1 0 0 0", "7\n1 0 0 0");
  text = replace(text, "6 0 1 0\n", "6 0 1 0\n7 1 1 0\n");
  text = replace(text, "9 3 2 3 2 2 3 4 5", "9 3 2 3 2 2 3 4 7");
  text = replace(text, "5 1 2 2 4 4 5", "5 1 2 2 4 4 7");
  expect_error_at(text, line_of(text, "9 3 2"), "coincide");
}

TEST(MshReaderErrors, BoundaryLineNotAnEdge) {
  const std::string text = replace(kTwoMacros, "3 1 2 1 2 2 3", "3 1 2 1 2 2 4");
  expect_error_at(text, line_of(text, "3 1 2 1 2 2 4"), "is not an edge of any macro");
}

TEST(MshReaderErrors, TaggedInteriorEdge) {
  std::string text = replace(kTwoMacros, "\n9\n1 15", "\n10\n1 15");
  text = replace(text, "$EndElements", "10 1 2 2 9 2 5\n$EndElements");
  expect_error_at(text, line_of(text, "10 1 2 2 9"), "boundary part 'lid' tags interior edge");
}

TEST(MshReaderErrors, UnknownPhysicalTag) {
  const std::string text = replace(kTwoMacros, "4 1 2 1 3 3 4", "4 1 2 7 3 3 4");
  expect_error_at(text, line_of(text, "4 1 2 7"), "physical tag 7");
}

TEST(MshReaderErrors, SurfaceTagOnLine) {
  // Tag 3 names a surface group, not a boundary part.
  const std::string text = replace(kTwoMacros, "4 1 2 1 3 3 4", "4 1 2 3 3 3 4");
  expect_error_at(text, line_of(text, "4 1 2 3"), "not a named physical line group");
}

TEST(MshReaderErrors, UntaggedBoundaryEdge) {
  std::string text = replace(kTwoMacros, "4 1 2 1 3 3 4\n", "");
  text = replace(text, "\n9\n1 15", "\n8\n1 15");
  expect_error_at(text, line_of(text, "9 3 2"), "untagged boundary edge");
  expect_error_at(text, line_of(text, "9 3 2"), "edge 2-3 from (2, 0) to (2, 1)");
}

TEST(MshReaderErrors, DanglingBoundaryNode) {
  std::string text = replace(kTwoMacros, "6\n1 0 0 0", "7\n1 0 0 0");
  text = replace(text, "6 0 1 0\n", "6 0 1 0\n7 3 0 0\n");
  text = replace(text, "3 1 2 1 2 2 3", "3 1 2 1 2 3 7");
  expect_error_at(text, line_of(text, "3 1 2 1 2 3 7"), "dangling boundary node");
}

TEST(MshReaderErrors, NoQuadrilaterals) {
  std::string text = replace(kTwoMacros, "8 3 2 3 1 1 2 5 6\n9 3 2 3 2 2 3 4 5\n", "");
  text = replace(text, "\n9\n1 15", "\n7\n1 15");
  expect_error_at(text, line_of(text, "$EndElements"), "no quadrilateral elements");
}

// --- the shipped meshes -------------------------------------------------------------------

double signed_area(const CoarseMesh& mesh, int c) {
  double twice = 0;
  for (int k = 0; k < 4; ++k) {
    const Point2 a = mesh.vertices[mesh.cells[c][k]];
    const Point2 b = mesh.vertices[mesh.cells[c][(k + 1) % 4]];
    twice += a.x * b.y - a.y * b.x;
  }
  return 0.5 * twice;
}

double total_area(const CoarseMesh& mesh) {
  double sum = 0;
  for (int c = 0; c < mesh.num_cells(); ++c) sum += signed_area(mesh, c);
  return sum;
}

/// Interior angles of every macro, in degrees.
std::vector<double> angles(const CoarseMesh& mesh) {
  std::vector<double> result;
  for (const auto& cell : mesh.cells)
    for (int k = 0; k < 4; ++k) {
      const Point2 p = mesh.vertices[cell[(k + 3) % 4]], c = mesh.vertices[cell[k]],
                   n = mesh.vertices[cell[(k + 1) % 4]];
      const double ux = p.x - c.x, uy = p.y - c.y, vx = n.x - c.x, vy = n.y - c.y;
      result.push_back(std::atan2(vx * uy - vy * ux, ux * vx + uy * vy) * 180.0 / std::numbers::pi);
    }
  return result;
}

/// Every edge of part `name` satisfies `on_side` at both ends; returns the edge count.
template <typename Pred>
int check_side(const CoarseMesh& mesh, const std::string& name, Pred on_side) {
  const int part = mesh.part_id(name);
  EXPECT_GE(part, 0) << name;
  int count = 0;
  for (int e = 0; e < mesh.num_edges(); ++e)
    if (mesh.edge_part[e] == part) {
      ++count;
      for (int v : mesh.edges[e]) EXPECT_TRUE(on_side(mesh.vertices[v])) << name << " edge " << e;
    }
  return count;
}

void check_unit_square_sides(const CoarseMesh& mesh) {
  ASSERT_EQ(mesh.part_names, (std::vector<std::string>{"bottom", "right", "top", "left"}));
  int boundary_edges = 0;
  for (const auto& cells : mesh.edge_cells) boundary_edges += cells.size() == 1;
  const int tagged = check_side(mesh, "bottom", [](Point2 p) { return p.y == 0.0; }) +
                     check_side(mesh, "right", [](Point2 p) { return p.x == 1.0; }) +
                     check_side(mesh, "top", [](Point2 p) { return p.y == 1.0; }) +
                     check_side(mesh, "left", [](Point2 p) { return p.x == 0.0; });
  EXPECT_EQ(tagged, boundary_edges);
}

TEST(ShippedMeshes, UnitSquare4x2) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_4x2.msh"));
  EXPECT_EQ(mesh.num_cells(), 8);
  EXPECT_EQ(mesh.num_vertices(), 15);
  EXPECT_EQ(mesh.num_edges(), 22);
  check_unit_square_sides(mesh);
  for (int c = 0; c < mesh.num_cells(); ++c) EXPECT_DOUBLE_EQ(signed_area(mesh, c), 0.125);
  EXPECT_NEAR(total_area(mesh), 1.0, 1e-15);
  EXPECT_EQ(check_side(mesh, "top", [](Point2 p) { return p.y == 1.0; }), 4);
  EXPECT_EQ(check_side(mesh, "right", [](Point2 p) { return p.x == 1.0; }), 2);
}

TEST(ShippedMeshes, UnitSquareUnstructured) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_unstructured.msh"));
  EXPECT_GE(mesh.num_cells(), 10);
  EXPECT_LE(mesh.num_cells(), 20);
  check_unit_square_sides(mesh);
  EXPECT_NEAR(total_area(mesh), 1.0, 1e-14);

  std::vector<int> valence(mesh.num_vertices(), 0);
  for (const auto& e : mesh.edges) ++valence[e[0]], ++valence[e[1]];
  std::map<int, int> interior;
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if (mesh.vertex_parts[v].empty()) ++interior[valence[v]];
  EXPECT_GT(interior[3], 0);
  EXPECT_GT(interior[5], 0);

  int parallelograms = 0;
  for (const auto& cell : mesh.cells) {
    const Point2 a = mesh.vertices[cell[0]], b = mesh.vertices[cell[1]], c = mesh.vertices[cell[2]],
                 d = mesh.vertices[cell[3]];
    parallelograms += std::abs(a.x + c.x - b.x - d.x) + std::abs(a.y + c.y - b.y - d.y) < 1e-3;
  }
  EXPECT_LT(parallelograms, mesh.num_cells() / 4);
  for (double angle : angles(mesh)) {
    EXPECT_GE(angle, 45.0);
    EXPECT_LE(angle, 150.0);
  }
}

TEST(ShippedMeshes, LShape) {
  const CoarseMesh mesh = read_msh(mesh_path("l_shape.msh"));
  EXPECT_GE(mesh.num_cells(), 10);
  EXPECT_LE(mesh.num_cells(), 12);
  ASSERT_EQ(mesh.part_names, (std::vector<std::string>{"boundary"}));
  EXPECT_NEAR(total_area(mesh), 0.75, 1e-15);
  for (int e = 0; e < mesh.num_edges(); ++e)
    EXPECT_EQ(mesh.edge_part[e] == 0, mesh.edge_cells[e].size() == 1);
  for (const Point2& p : mesh.vertices) EXPECT_FALSE(p.x > 0.5 && p.y > 0.5);
  for (double angle : angles(mesh)) {
    EXPECT_GE(angle, 45.0);
    EXPECT_LE(angle, 150.0);
  }
}

}  // namespace
}  // namespace quilt
