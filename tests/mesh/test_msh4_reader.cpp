// The MSH 4.1 reader: entity blocks, sparse node tags and physical tags of entities give the
// same CoarseMesh as the MSH 2.2 reader; every malformed file is rejected with a message naming
// the file and the offending line; the shipped meshes read the same in both versions.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "mesh/coarse_mesh.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh/msh_test_files.hpp"
#include "mesh_files.hpp"

namespace quilt {
namespace {

using test::expect_error_at;
using test::expect_same_mesh;
using test::kTwoMacros;
using test::line_of;
using test::replace;
using test::TempFile;

// kTwoMacros as MSH 4.1: sparse node tags in blocks out of tag order (file order 1 12 20 31 9 5
// 100), "wall" on curves 1, 2, 4, "lid" on curve 3, the macros on two surfaces, a point element
// on a node of no macro (point 2).
const char* const kTwoEntities = R"($MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
4
0 4 "origin"
1 1 "wall"
1 2 "lid"
2 3 "domain"
$EndPhysicalNames
$Entities
2 4 2 0
1 0 0 0 1 4
2 5 5 0 0
1 0 0 0 2 0 0 1 1 0
2 2 0 0 2 1 0 1 1 0
3 0 1 0 2 1 0 1 2 0
4 0 0 0 0 1 0 1 1 2 1 -1
1 0 0 0 1 1 0 1 3 4 1 2 -3 4
2 1 0 0 2 1 0 1 3 0
$EndEntities
$Nodes
4 7 1 100
0 1 0 1
1
0 0 0
1 3 0 3
12
20
31
2.0 1 0
1 1 0
0 1 0
1 1 0 2
9
5
2 0 0
1 0 0
0 2 0 1
100
5 5 0
$EndNodes
$Elements
8 10 1 41
0 1 15 1
1 1
0 2 15 1
41 100
1 1 1 2
2 1 5
3 5 9
1 2 1 1
4 9 12
1 3 1 2
5 12 20
6 20 31
1 4 1 1
7 31 1
2 1 3 1
8 1 5 20 31
2 2 3 1
9 5 9 12 20
$EndElements
)";

TEST(Msh4Reader, ReadsTwoEntitiesLikeMsh22) {
  TempFile file(kTwoEntities);
  const CoarseMesh mesh = read_msh(file.path());
  EXPECT_EQ(mesh.source, file.path());
  EXPECT_EQ(mesh.num_vertices(), 6);  // node 100 carries only a point element
  EXPECT_EQ(mesh.num_cells(), 2);
  ASSERT_EQ(mesh.part_names, (std::vector<std::string>{"wall", "lid"}));
  // Vertices in ascending node tag order: 1 5 9 12 20 31.
  EXPECT_EQ(mesh.vertices[1].x, 1.0);
  EXPECT_EQ(mesh.vertices[1].y, 0.0);
  EXPECT_EQ(mesh.vertices[5].x, 0.0);
  EXPECT_EQ(mesh.vertices[5].y, 1.0);
  EXPECT_EQ(mesh.cells[0], (std::array<int, 4>{0, 1, 4, 5}));
  EXPECT_EQ(mesh.cells[1], (std::array<int, 4>{1, 2, 3, 4}));
  EXPECT_EQ(mesh.vertex_parts[4], (std::vector<int>{1}));     // (1,1): lid only
  EXPECT_EQ(mesh.vertex_parts[5], (std::vector<int>{0, 1}));  // (0,1): wall and lid
  EXPECT_EQ(mesh.cell_lines, (std::vector<int>{line_of(kTwoEntities, "8 1 5 20 31"),
                                               line_of(kTwoEntities, "9 5 9 12 20")}));
  EXPECT_EQ(mesh.boundary_lines.size(), 6u);
  expect_same_mesh(mesh, read_msh(TempFile(kTwoMacros).path()));
}

TEST(Msh4Reader, CurveWithoutPhysicalTagNamesNoPart) {
  // Curve 2 in no physical group: its line is skipped, so the edge it covers is untagged.
  const std::string text = replace(kTwoEntities, "2 2 0 0 2 1 0 1 1 0", "2 2 0 0 2 1 0 0 0");
  expect_error_at(text, line_of(text, "9 5 9 12 20"), "untagged boundary edge");
}

TEST(Msh4Reader, SkipsUnknownSections) {
  const std::string text =
      replace(kTwoEntities, "$Nodes", "$PartitionedEntities\n0\n$EndPartitionedEntities\n$Nodes");
  EXPECT_EQ(read_msh(TempFile(text).path()).num_cells(), 2);
}

TEST(Msh4ReaderErrors, WrongVersion) {
  expect_error_at(replace(kTwoEntities, "4.1 0 8", "4.0 0 8"), 2,
                  "MSH version 4.0 is not supported; Quilt reads MSH 2.2 and 4.1 ASCII");
}

TEST(Msh4ReaderErrors, Binary) {
  expect_error_at(replace(kTwoEntities, "4.1 0 8", "4.1 1 8"), 2, "binary MSH files");
}

TEST(Msh4ReaderErrors, ParametricNodes) {
  const std::string text = replace(kTwoEntities, "1 3 0 3", "1 3 1 3");
  expect_error_at(text, line_of(text, "1 3 1 3"), "parametric node coordinates");
}

TEST(Msh4ReaderErrors, UnknownPhysicalTag) {
  // The error names the curve's line in $Entities, where the tag is.
  const std::string text = replace(kTwoEntities, "2 2 0 0 2 1 0 1 1 0", "2 2 0 0 2 1 0 1 7 0");
  expect_error_at(text, line_of(text, "2 2 0 0 2 1 0 1 7 0"),
                  "curve 2 has physical tag 7, which is not a named physical line group");
}

TEST(Msh4ReaderErrors, SurfaceTagOnCurve) {
  const std::string text = replace(kTwoEntities, "3 0 1 0 2 1 0 1 2 0", "3 0 1 0 2 1 0 1 3 0");
  expect_error_at(text, line_of(text, "3 0 1 0 2 1 0 1 3 0"), "physical tag 3");
}

TEST(Msh4ReaderErrors, CurveInTwoBoundaryParts) {
  // As gmsh writes such a line twice in MSH 2.2: one edge in two parts is an error.
  const std::string text = replace(kTwoEntities, "3 0 1 0 2 1 0 1 2 0", "3 0 1 0 2 1 0 2 2 1 0");
  expect_error_at(text, line_of(text, "5 12 20"), "is tagged with both parts 'lid' and 'wall'");
}

TEST(Msh4ReaderErrors, TruncatedNodes) {
  const std::string full = kTwoEntities;
  const std::string text = full.substr(0, full.find("20\n31"));
  expect_error_at(text, line_of(text, "12\n"),
                  "unexpected end of file in $Nodes (read 1 of 3 node tags of the entity block)");
}

TEST(Msh4ReaderErrors, TruncatedElements) {
  const std::string full = kTwoEntities;
  const std::string text = full.substr(0, full.find("6 20 31"));
  expect_error_at(text, line_of(text, "5 12 20"),
                  "unexpected end of file in $Elements (read 1 of 2 elements of the entity block)");
}

TEST(Msh4ReaderErrors, SectionEndsInsideABlock) {
  const std::string text = replace(kTwoEntities, "9 5 9 12 20\n", "");
  expect_error_at(text, line_of(text, "$EndElements"),
                  "$Elements ends after 0 of 1 elements of the entity block");
}

TEST(Msh4ReaderErrors, BlockLongerThanItsCount) {
  const std::string text = replace(kTwoEntities, "1 3 0 3\n12\n20\n31", "1 3 0 4\n12\n20\n31");
  expect_error_at(text, line_of(text, "2.0 1 0"), "expected one node tag (nodeTag) in $Nodes");
}

TEST(Msh4ReaderErrors, HeaderCountDisagreesWithBlocks) {
  const std::string text = replace(kTwoEntities, "4 7 1 100", "4 8 1 100");
  expect_error_at(text, line_of(text, "4 8 1 100"),
                  "$Nodes announces 8 nodes, its entity blocks hold 7");
}

TEST(Msh4ReaderErrors, Triangle) {
  const std::string text = replace(kTwoEntities, "2 2 3 1\n9 5 9 12 20", "2 2 2 1\n9 5 9 12");
  expect_error_at(text, line_of(text, "2 2 2 1"),
                  "element type 2 (triangle) is not supported; Quilt needs quadrilateral macros");
}

TEST(Msh4ReaderErrors, QuadrangleOnACurve) {
  const std::string text = replace(kTwoEntities, "2 2 3 1\n", "1 2 3 1\n");
  expect_error_at(text, line_of(text, "1 2 3 1"),
                  "element type 3 in a block of dimension 1; expected dimension 2");
}

TEST(Msh4ReaderErrors, WrongElementFieldCount) {
  const std::string text = replace(kTwoEntities, "9 5 9 12 20", "9 5 9 12");
  expect_error_at(text, line_of(text, "9 5 9 12"), "should have 5 fields");
}

TEST(Msh4ReaderErrors, CurveNotInEntities) {
  const std::string text = replace(kTwoEntities, "1 4 1 1\n7 31 1", "1 9 1 1\n7 31 1");
  expect_error_at(text, line_of(text, "1 9 1 1"), "curve 9, which is not in $Entities");
}

TEST(Msh4ReaderErrors, NoEntitiesSection) {
  const std::string full = kTwoEntities;
  const auto begin = full.find("$Entities"), end = full.find("$Nodes");
  const std::string text = full.substr(0, begin) + full.substr(end);
  expect_error_at(text, line_of(text, "$EndElements"), "no $Entities section");
}

TEST(Msh4ReaderErrors, EntityFieldCount) {
  const std::string text = replace(kTwoEntities, "2 1 0 0 2 1 0 1 3 0", "2 1 0 0 2 1 0 1 3 0 9");
  expect_error_at(text, line_of(text, "2 1 0 0 2 1 0 1 3 0 9"),
                  "the surface has 1 fields too many");
  const std::string short_list = replace(kTwoEntities, "1 0 0 0 1 4", "1 0 0 0 2 4");
  expect_error_at(short_list, line_of(short_list, "1 0 0 0 2 4"),
                  "numPhysicalTags is 2, but the line ends after 1 more fields");
}

TEST(Msh4ReaderErrors, DuplicateNodeTag) {
  const std::string text = replace(kTwoEntities, "0 2 0 1\n100", "0 2 0 1\n12");
  expect_error_at(text, line_of(text, "0 2 0 1\n12") + 2, "node id 12 appears twice");
}

TEST(Msh4ReaderErrors, NonPlanarNode) {
  const std::string text = replace(kTwoEntities, "2 0 0\n", "2 0 0.5\n");
  expect_error_at(text, line_of(text, "2 0 0.5"), "z = 0.5");
}

// --- the shipped meshes in MSH 4.1 --------------------------------------------------------

// Every shipped mesh (written by meshes/generate_meshes.py in MSH 2.2).
const char* const kShipped[] = {"unit_square_4x2", "unit_square_2x2", "unit_square_unstructured",
                                "l_shape",         "dfg_channel",     "strip_ar10",
                                "strip_ar100"};

// gmsh writes coordinates with 16 significant digits, the shipped files with 17.
constexpr double kGmshDigits = 1e-15;

TEST(ShippedMeshesMsh41, CommittedTwinOfUnitSquare4x2) {
  // meshes/unit_square_4x2_v41.msh: gmsh 4.8 -2 -format msh41 on unit_square_4x2.geo.
  const CoarseMesh v41 = read_msh(mesh_path("unit_square_4x2_v41.msh"));
  EXPECT_EQ(v41.num_cells(), 8);
  expect_same_mesh(v41, read_msh(mesh_path("unit_square_4x2.msh")));
}

bool have_gmsh() {
  static const bool found = std::system("gmsh --version > /dev/null 2>&1") == 0;
  return found;
}

/// Runs gmsh with `args` writing MSH 4.1 to a temp file; returns its path ("" on failure).
std::string gmsh_msh41(const std::string& args) {
  const std::string out = test::temp_path(".msh").string();
  const std::string command = "gmsh " + args + " -format msh41 -o '" + out + "' > /dev/null 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return out;
}

class ShippedMeshInMsh41 : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedMeshInMsh41, ConvertedByGmshReadsTheSame) {
  if (!have_gmsh()) GTEST_SKIP() << "gmsh is not installed";
  const std::string msh22 = mesh_path(std::string(GetParam()) + ".msh");
  const std::string msh41 = gmsh_msh41("'" + msh22 + "' -save");
  expect_same_mesh(read_msh(msh41), read_msh(msh22), kGmshDigits);
  std::filesystem::remove(msh41);
}

TEST_P(ShippedMeshInMsh41, MeshedFromTheGeoReadsTheSame) {
  if (!have_gmsh()) GTEST_SKIP() << "gmsh is not installed";
  const std::string name = GetParam();
  const std::string msh41 = gmsh_msh41("-2 '" + mesh_path(name + ".geo") + "'");
  expect_same_mesh(read_msh(msh41), read_msh(mesh_path(name + ".msh")), kGmshDigits);
  std::filesystem::remove(msh41);
}

INSTANTIATE_TEST_SUITE_P(AllShipped, ShippedMeshInMsh41, ::testing::ValuesIn(kShipped));

}  // namespace
}  // namespace quilt
