#include "mesh/partition.hpp"

#include <metis.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "mesh/mesh_error.hpp"

namespace quilt {
namespace {

// Any fixed seed makes METIS deterministic; the value itself is arbitrary.
constexpr idx_t kMetisSeed = 20240611;

struct DualGraph {
  std::vector<idx_t> xadj{0};
  std::vector<idx_t> adjncy;
};

/// Macros adjacent through an interior edge, neighbours in local edge order.
DualGraph dual_graph(const CoarseMesh& mesh) {
  DualGraph g;
  for (int c = 0; c < mesh.num_cells(); ++c) {
    for (int e : mesh.cell_edges[c]) {
      const std::vector<int>& cells = mesh.edge_cells[e];
      if (cells.size() == 2) g.adjncy.push_back(cells[0] == c ? cells[1] : cells[0]);
    }
    g.xadj.push_back(static_cast<idx_t>(g.adjncy.size()));
  }
  return g;
}

bool connected(const DualGraph& g, int cells) {
  std::vector<char> seen(cells, 0);
  std::vector<int> stack{0};
  seen[0] = 1;
  int count = 1;
  while (!stack.empty()) {
    const int c = stack.back();
    stack.pop_back();
    for (idx_t k = g.xadj[c]; k < g.xadj[c + 1]; ++k)
      if (!seen[g.adjncy[k]]) {
        seen[g.adjncy[k]] = 1;
        ++count;
        stack.push_back(static_cast<int>(g.adjncy[k]));
      }
  }
  return count == cells;
}

/// METIS may leave a part empty on small graphs; every rank must own a macro. Repeatedly give
/// the lowest empty rank the most peripheral macro (fewest same-part neighbours, then highest
/// id) of the largest part (lowest rank on ties).
void fill_empty_ranks(const DualGraph& g, int ranks, std::vector<int>& rank) {
  std::vector<int> size(ranks, 0);
  for (int r : rank) ++size[r];
  for (int empty = 0; empty < ranks; ++empty) {
    if (size[empty] > 0) continue;
    const int donor = static_cast<int>(std::max_element(size.begin(), size.end()) - size.begin());
    int best = -1;
    int best_links = 0;
    for (int c = 0; c < static_cast<int>(rank.size()); ++c) {
      if (rank[c] != donor) continue;
      int links = 0;
      for (idx_t k = g.xadj[c]; k < g.xadj[c + 1]; ++k) links += rank[g.adjncy[k]] == donor;
      if (best < 0 || links <= best_links) {
        best = c;
        best_links = links;
      }
    }
    rank[best] = empty;
    --size[donor];
    ++size[empty];
  }
}

}  // namespace

std::vector<int> partition_macros(const CoarseMesh& mesh, int ranks) {
  const int cells = mesh.num_cells();
  if (ranks < 1 || ranks > cells)
    throw MeshError(mesh.source + ": cannot distribute " + std::to_string(cells) + " macros over " +
                    std::to_string(ranks) + " ranks; need 1 <= ranks <= macros");
  std::vector<int> rank(cells, 0);
  if (ranks == 1) return rank;
  if (ranks == cells) {
    std::iota(rank.begin(), rank.end(), 0);
    return rank;
  }
  if (static_cast<int>(mesh.cell_edges.size()) != cells)
    throw MeshError(mesh.source + ": partition_macros needs the topology (call build_topology)");

  DualGraph g = dual_graph(mesh);
  if (g.adjncy.empty()) {
    // No adjacency at all: contiguous blocks of macro ids (METIS needs edges).
    for (int c = 0; c < cells; ++c)
      rank[c] = static_cast<int>(static_cast<long long>(c) * ranks / cells);
    return rank;
  }

  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = kMetisSeed;
  // Contiguous parts keep the neighbour exchange small; METIS refuses the request (with a
  // message on stderr) for a disconnected dual graph, so ask only when it can succeed.
  options[METIS_OPTION_CONTIG] = connected(g, cells) ? 1 : 0;
  idx_t nvtxs = cells;
  idx_t ncon = 1;
  idx_t nparts = ranks;
  idx_t edgecut = 0;
  std::vector<idx_t> part(cells, 0);
  const int status =
      METIS_PartGraphKway(&nvtxs, &ncon, g.xadj.data(), g.adjncy.data(), nullptr, nullptr, nullptr,
                          &nparts, nullptr, nullptr, options, &edgecut, part.data());
  if (status != METIS_OK)
    throw MeshError(mesh.source + ": METIS_PartGraphKway failed (status " + std::to_string(status) +
                    ") partitioning " + std::to_string(cells) + " macros over " +
                    std::to_string(ranks) + " ranks");
  for (int c = 0; c < cells; ++c) rank[c] = static_cast<int>(part[c]);
  fill_empty_ranks(g, ranks, rank);
  return rank;
}

}  // namespace quilt
