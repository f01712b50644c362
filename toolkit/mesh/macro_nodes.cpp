#include "mesh/macro_nodes.hpp"

namespace quilt {

GlobalNumbering::GlobalNumbering(const CoarseMesh& mesh, int level)
    : mesh_(&mesh), n_((1 << level) + 1) {
  const std::size_t inner = static_cast<std::size_t>(n_ - 2);
  size_ = mesh.vertices.size() + mesh.edges.size() * inner + mesh.cells.size() * inner * inner;
}

std::vector<std::size_t> GlobalNumbering::cell_nodes(int cell) const {
  const CoarseMesh& mesh = *mesh_;
  const int n = n_;
  const std::size_t inner = static_cast<std::size_t>(n - 2);
  const std::size_t edge_base = mesh.vertices.size();
  const std::size_t cell_base = edge_base + mesh.edges.size() * inner;
  std::vector<std::size_t> ids(static_cast<std::size_t>(n) * n);
  for (int j = 1; j + 1 < n; ++j)
    for (int i = 1; i + 1 < n; ++i)
      ids[i + static_cast<std::size_t>(j) * n] =
          cell_base + cell * inner * inner + (i - 1) + (j - 1) * inner;
  for (int k = 0; k < 4; ++k) {
    const std::size_t e = mesh.cell_edges[cell][k];
    for (int q = 1; q + 1 < n; ++q)
      ids[canonical_edge_node(mesh, cell, n, k, q)] = edge_base + e * inner + (q - 1);
  }
  for (int c = 0; c < 4; ++c) ids[corner_node(n, c)] = mesh.cells[cell][c];
  return ids;
}

std::vector<char> boundary_node_mask(const CoarseMesh& mesh, int cell, int n,
                                     const std::vector<bool>& selected_parts) {
  std::vector<char> mask(static_cast<std::size_t>(n) * n, 0);
  auto selected = [&](int part) {
    return part >= 0 && part < static_cast<int>(selected_parts.size()) && selected_parts[part];
  };
  for (int k = 0; k < 4; ++k)
    if (selected(mesh.edge_part[mesh.cell_edges[cell][k]]))
      for (int q = 0; q < n; ++q) mask[edge_node(n, k, q)] = 1;
  for (int c = 0; c < 4; ++c)
    for (int part : mesh.vertex_parts[mesh.cells[cell][c]])
      if (selected(part)) mask[corner_node(n, c)] = 1;
  return mask;
}

}  // namespace quilt
