#include "flow/flow_problem.hpp"

#include "mesh/msh_reader.hpp"

namespace quilt {
namespace {

DistributedMesh read_and_distribute(const NavierStokesParams& params, const Communicator& comm,
                                    std::vector<VelocityCondition>& conditions) {
  CoarseMesh coarse = read_msh(params.mesh_file);
  ChartMap charts = bind_charts(coarse, params.charts);
  conditions = parse_velocity_conditions(coarse, params.conditions);
  return distribute(std::move(coarse), std::move(charts), comm);
}

}  // namespace

FlowProblem::FlowProblem(const NavierStokesParams& params, const Communicator& comm)
    : mesh(read_and_distribute(params, comm, conditions)),
      level(params.level),
      boundary(velocity_boundary(mesh, level, conditions)),
      dirichlet_parts(quilt::dirichlet_parts(mesh.mesh, conditions)),
      boundary_edges(mesh.num_local()) {
  for (int m = 0; m < mesh.num_local(); ++m)
    for (int k = 0; k < 4; ++k)
      boundary_edges[m][k] = mesh.mesh.edge_part[mesh.mesh.cell_edges[mesh.macros[m]][k]] >= 0;
}

void FlowProblem::impose_dirichlet_values(FlowVector& x) const {
  const auto u1 = x.u1();
  const auto u2 = x.u2();
  for (std::size_t i = 0; i < u1.size(); ++i)
    if (boundary.dirichlet[i]) {
      u1[i] = boundary.u1[i];
      u2[i] = boundary.u2[i];
    }
}

}  // namespace quilt
