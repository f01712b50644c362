#pragma once
// The coarse mesh as one rank sees it: every rank holds the whole (small) coarse mesh, the
// macro-to-rank map, and the list of macros it works on (design.md §3, §5).

#include <vector>

#include "mesh/chart.hpp"
#include "mesh/coarse_mesh.hpp"
#include "mesh/macro_geometry.hpp"
#include "parallel/communicator.hpp"

namespace quilt {

struct DistributedMesh {
  CoarseMesh mesh;
  ChartMap charts;
  std::vector<int> owner;        ///< rank of every macro
  std::vector<int> macros;       ///< this rank's macros (global ids, ascending)
  std::vector<int> local_index;  ///< global macro id -> index in `macros`, -1 if not ours
  int rank = 0;
  int ranks = 1;

  int num_local() const { return static_cast<int>(macros.size()); }
};

/// Collective: checks that every rank holds the same mesh and charts (check_same_mesh: an
/// InconsistentInputError on every rank otherwise), partitions with METIS (the same result on
/// every rank) and picks this rank's macros.
DistributedMesh distribute(CoarseMesh mesh, ChartMap charts, const Communicator& comm);

/// Node coordinates of this rank's macros on `level`, in the order of dm.macros.
std::vector<MacroGeometry> refine_local_macros(const DistributedMesh& dm, int level);

}  // namespace quilt
