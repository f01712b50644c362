// Macro-to-rank assignment: complete, every rank busy, deterministic, contiguous where METIS
// can make it so.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "mesh/mesh_error.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh/partition.hpp"
#include "mesh_files.hpp"

namespace quilt {
namespace {

const char* const kMeshes[] = {"unit_square_4x2.msh", "unit_square_unstructured.msh",
                               "l_shape.msh"};

/// Macros of `rank` form one connected piece of the dual graph.
bool contiguous(const CoarseMesh& mesh, const std::vector<int>& part, int rank) {
  std::vector<int> members;
  for (int c = 0; c < mesh.num_cells(); ++c)
    if (part[c] == rank) members.push_back(c);
  std::vector<char> seen(mesh.num_cells(), 0);
  std::vector<int> stack{members.front()};
  seen[members.front()] = 1;
  std::size_t reached = 1;
  while (!stack.empty()) {
    const int c = stack.back();
    stack.pop_back();
    for (int e : mesh.cell_edges[c])
      for (int other : mesh.edge_cells[e])
        if (part[other] == rank && !seen[other]) {
          seen[other] = 1;
          ++reached;
          stack.push_back(other);
        }
  }
  return reached == members.size();
}

TEST(Partition, EveryRankBusyEveryMacroAssignedDeterministic) {
  for (const char* name : kMeshes) {
    const CoarseMesh mesh = read_msh(mesh_path(name));
    for (int ranks = 1; ranks <= mesh.num_cells(); ++ranks) {
      const std::vector<int> part = partition_macros(mesh, ranks);
      ASSERT_EQ(part.size(), static_cast<std::size_t>(mesh.num_cells()));
      std::vector<int> load(ranks, 0);
      for (int r : part) {
        ASSERT_GE(r, 0);
        ASSERT_LT(r, ranks);
        ++load[r];
      }
      EXPECT_EQ(std::count(load.begin(), load.end(), 0), 0) << name << " ranks " << ranks;
      EXPECT_EQ(partition_macros(mesh, ranks), part) << name << " ranks " << ranks;
    }
  }
}

TEST(Partition, TrivialCounts) {
  const CoarseMesh mesh = read_msh(mesh_path("unit_square_unstructured.msh"));
  EXPECT_EQ(partition_macros(mesh, 1), std::vector<int>(mesh.num_cells(), 0));
  const std::vector<int> identity = partition_macros(mesh, mesh.num_cells());
  for (int c = 0; c < mesh.num_cells(); ++c) EXPECT_EQ(identity[c], c);
}

TEST(Partition, SmallRankCountsAreContiguousAndBalanced) {
  for (const char* name : kMeshes) {
    const CoarseMesh mesh = read_msh(mesh_path(name));
    for (int ranks = 2; ranks <= 4; ++ranks) {
      const std::vector<int> part = partition_macros(mesh, ranks);
      std::vector<int> load(ranks, 0);
      for (int r : part) ++load[r];
      const int fair = (mesh.num_cells() + ranks - 1) / ranks;
      EXPECT_LE(*std::max_element(load.begin(), load.end()), fair + 1) << name << " " << ranks;
      for (int r = 0; r < ranks; ++r)
        EXPECT_TRUE(contiguous(mesh, part, r)) << name << " ranks " << ranks << " rank " << r;
    }
  }
  const CoarseMesh cavity = read_msh(mesh_path("unit_square_4x2.msh"));
  for (int ranks : {2, 4}) {
    std::vector<int> load(ranks, 0);
    for (int r : partition_macros(cavity, ranks)) ++load[r];
    EXPECT_EQ(load, std::vector<int>(ranks, 8 / ranks));
  }
}

TEST(Partition, DisconnectedMesh) {
  // Two separate pairs of macros: METIS cannot make contiguous parts, and must not be asked to.
  CoarseMesh mesh;
  mesh.source = "islands";
  mesh.part_names = {"wall"};
  std::vector<std::array<int, 3>> boundary;
  for (int island = 0; island < 2; ++island) {
    const double x0 = 3.0 * island;
    const int b = mesh.num_vertices();
    for (int j = 0; j <= 1; ++j)
      for (int i = 0; i <= 2; ++i) mesh.vertices.push_back({x0 + i, static_cast<double>(j)});
    mesh.cells.push_back({b, b + 1, b + 4, b + 3});
    mesh.cells.push_back({b + 1, b + 2, b + 5, b + 4});
    for (auto [u, v] : {std::pair{0, 1}, {1, 2}, {2, 5}, {5, 4}, {4, 3}, {3, 0}})
      boundary.push_back({b + u, b + v, 0});
  }
  mesh.build_topology(boundary);
  for (int ranks = 1; ranks <= 4; ++ranks) {
    const std::vector<int> part = partition_macros(mesh, ranks);
    std::vector<int> load(ranks, 0);
    for (int r : part) ++load[r];
    EXPECT_EQ(std::count(load.begin(), load.end(), 0), 0) << ranks;
  }
}

TEST(Partition, ImpossibleCounts) {
  const CoarseMesh mesh = read_msh(mesh_path("l_shape.msh"));
  const int cells = mesh.num_cells();
  for (int ranks : {0, -1, cells + 1}) {
    try {
      partition_macros(mesh, ranks);
      ADD_FAILURE() << ranks;
    } catch (const MeshError& e) {
      const std::string message = e.what();
      EXPECT_NE(
          message.find(std::to_string(cells) + " macros over " + std::to_string(ranks) + " ranks"),
          std::string::npos)
          << message;
    }
  }
}

}  // namespace
}  // namespace quilt
