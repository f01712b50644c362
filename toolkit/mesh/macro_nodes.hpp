#pragma once
// Where the nodes of a refined macro sit in the coarse topology: corners are coarse vertices,
// edge nodes belong to coarse edges, the rest are interior to the macro. Used to identify the
// copies of shared nodes (parallel layer), to number nodes globally (coarse-grid solver, tests)
// and to mark boundary nodes.

#include <cstddef>
#include <vector>

#include "mesh/coarse_mesh.hpp"

namespace quilt {

/// Grid index of the q-th node (q = 0..n-1, increasing grid index) on local edge k (0..3).
constexpr std::size_t edge_node(int n, int k, int q) {
  switch (k) {
    case 0:
      return static_cast<std::size_t>(q);
    case 1:
      return static_cast<std::size_t>(n - 1) + static_cast<std::size_t>(q) * n;
    case 2:
      return static_cast<std::size_t>(q) + static_cast<std::size_t>(n - 1) * n;
    default:
      return static_cast<std::size_t>(q) * n;
  }
}

/// Grid index of the q-th node of local edge k counted in canonical edge order (lo -> hi).
inline std::size_t canonical_edge_node(const CoarseMesh& mesh, int cell, int n, int k, int q) {
  return edge_node(n, k, mesh.cell_edge_reversed[cell][k] ? n - 1 - q : q);
}

/// Grid index of local corner c (vertex c of the cell).
constexpr std::size_t corner_node(int n, int c) {
  switch (c) {
    case 0:
      return 0;
    case 1:
      return static_cast<std::size_t>(n - 1);
    case 2:
      return static_cast<std::size_t>(n) * n - 1;
    default:
      return static_cast<std::size_t>(n - 1) * n;
  }
}

/// Global node numbering on one level: coarse vertices first, then the n-2 inner nodes of every
/// coarse edge (canonical order), then the (n-2)^2 inner nodes of every macro.
class GlobalNumbering {
 public:
  GlobalNumbering(const CoarseMesh& mesh, int level);
  std::size_t size() const { return size_; }
  int n() const { return n_; }
  /// Global ids of the n*n nodes of `cell`, in grid order.
  std::vector<std::size_t> cell_nodes(int cell) const;

 private:
  const CoarseMesh* mesh_;
  int n_;
  std::size_t size_;
};

/// 1 for every node of `cell` (grid order) that lies on a boundary part p with
/// selected_parts[p] true: the inner nodes of such boundary edges and every coarse vertex that
/// touches such a part (even where the cell's own edges are interior), else 0. The same for all
/// copies of a shared node.
std::vector<char> boundary_node_mask(const CoarseMesh& mesh, int cell, int n,
                                     const std::vector<bool>& selected_parts);

}  // namespace quilt
