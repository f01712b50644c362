#pragma once
// Helpers of the MSH reader tests: a small MSH 2.2 mesh, mesh text written to temporary files,
// edits of that text, the expected "<file>:<line>: " of an error, and the comparison of two
// coarse meshes.

#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "mesh/coarse_mesh.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/msh_reader.hpp"

namespace quilt::test {

// MSH 2.2: two unit macros side by side, "wall" on three sides, "lid" on top.
inline const char* const kTwoMacros = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
3
1 1 "wall"
1 2 "lid"
2 3 "domain"
$EndPhysicalNames
$Nodes
6
1 0 0 0
2 1 0 0
3 2 0 0
4 2 1 0
5 1 1 0
6 0 1 0
$EndNodes
$Elements
9
1 15 2 1 1 1
2 1 2 1 1 1 2
3 1 2 1 2 2 3
4 1 2 1 3 3 4
5 1 2 2 4 4 5
6 1 2 2 5 5 6
7 1 2 1 6 6 1
8 3 2 3 1 1 2 5 6
9 3 2 3 2 2 3 4 5
$EndElements
)";

/// A unique path in the test's temp directory ("quilt_<test>_<pid>_<n><suffix>").
inline std::filesystem::path temp_path(const std::string& suffix) {
  static int counter = 0;
  std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  std::replace(test.begin(), test.end(), '/', '_');  // parameterised tests: "Name/0"
  return std::filesystem::path(::testing::TempDir()) /
         ("quilt_" + test + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) +
          suffix);
}

/// A .msh file in the test's temp directory, removed afterwards.
class TempFile {
 public:
  explicit TempFile(const std::string& content) : path_(temp_path(".msh")) {
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

inline std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

/// 1-based number of the first line of `text` containing `needle`.
inline int line_of(const std::string& text, const std::string& needle) {
  const auto pos = text.find(needle);
  EXPECT_NE(pos, std::string::npos) << needle;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + pos, '\n'));
}

/// Reads `content` and returns the MeshError message ("" if it loaded).
inline std::string read_error(const std::string& content, std::string* path = nullptr) {
  TempFile file(content);
  if (path) *path = file.path();
  try {
    read_msh(file.path());
  } catch (const MeshError& e) {
    return e.what();
  }
  return "";
}

/// Expects a MeshError that starts with "<file>:<line>: " and contains `what`.
inline void expect_error_at(const std::string& content, int line, const std::string& what) {
  std::string path;
  const std::string message = read_error(content, &path);
  EXPECT_EQ(message.rfind(path + ":" + std::to_string(line) + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(what), std::string::npos) << message;
}

/// The same coarse mesh: vertices (to `tol` relative to max(1, |coordinate|)), cells, parts and
/// the whole topology; the source file and the line provenance may differ.
inline void expect_same_mesh(const CoarseMesh& a, const CoarseMesh& b, double tol = 0.0) {
  ASSERT_EQ(a.num_vertices(), b.num_vertices());
  for (int v = 0; v < a.num_vertices(); ++v) {
    const double scale = std::max({1.0, std::abs(a.vertices[v].x), std::abs(a.vertices[v].y)});
    EXPECT_NEAR(a.vertices[v].x, b.vertices[v].x, tol * scale) << "vertex " << v;
    EXPECT_NEAR(a.vertices[v].y, b.vertices[v].y, tol * scale) << "vertex " << v;
  }
  EXPECT_EQ(a.cells, b.cells);
  EXPECT_EQ(a.part_names, b.part_names);
  EXPECT_EQ(a.edges, b.edges);
  EXPECT_EQ(a.cell_edges, b.cell_edges);
  EXPECT_EQ(a.cell_edge_reversed, b.cell_edge_reversed);
  EXPECT_EQ(a.edge_cells, b.edge_cells);
  EXPECT_EQ(a.edge_part, b.edge_part);
  EXPECT_EQ(a.vertex_cells, b.vertex_cells);
  EXPECT_EQ(a.vertex_parts, b.vertex_parts);
}

}  // namespace quilt::test
