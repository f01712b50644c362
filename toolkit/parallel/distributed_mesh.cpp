#include "parallel/distributed_mesh.hpp"

#include "mesh/partition.hpp"

namespace quilt {

DistributedMesh distribute(CoarseMesh mesh, ChartMap charts, const Communicator& comm) {
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

}  // namespace quilt
