#include "parallel/distributed_mesh.hpp"

#include "mesh/partition.hpp"
#include "parallel/rank_consistency.hpp"

namespace quilt {

DistributedMesh distribute(CoarseMesh mesh, ChartMap charts, const Communicator& comm) {
  // Before the partition: ranks holding different meshes would partition them differently.
  check_same_mesh(mesh, charts, comm);
  DistributedMesh dm;
  dm.owner = partition_macros(mesh, comm.size());
  dm.rank = comm.rank();
  dm.ranks = comm.size();
  dm.local_index.assign(mesh.cells.size(), -1);
  for (int c = 0; c < mesh.num_cells(); ++c)
    if (dm.owner[c] == dm.rank) {
      dm.local_index[c] = static_cast<int>(dm.macros.size());
      dm.macros.push_back(c);
    }
  dm.mesh = std::move(mesh);
  dm.charts = std::move(charts);
  return dm;
}

std::vector<MacroGeometry> refine_local_macros(const DistributedMesh& dm, int level) {
  std::vector<MacroGeometry> geometry;
  geometry.reserve(dm.macros.size());
  for (int cell : dm.macros) geometry.push_back(refine_macro(dm.mesh, dm.charts, cell, level));
  return geometry;
}

}  // namespace quilt
