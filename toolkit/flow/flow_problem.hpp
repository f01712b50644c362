#pragma once
// The set-up of a flow problem from its parameters: the coarse mesh read, charted and
// distributed, the velocity boundary conditions on the finest level, built once.

#include <array>
#include <vector>

#include "flow/boundary_conditions.hpp"
#include "flow/flow_vector.hpp"
#include "flow/navier_stokes_params.hpp"
#include "parallel/distributed_mesh.hpp"

namespace quilt {

struct FlowProblem {
  /// Reads params.mesh_file, binds params.charts, parses params.conditions and distributes the
  /// macros over comm (MeshError / ConfigError naming the file or part on bad input).
  FlowProblem(const NavierStokesParams& params, const Communicator& comm);

  std::vector<VelocityCondition> conditions;  ///< before mesh: filled while the mesh is read
  DistributedMesh mesh;
  int level = 0;
  VelocityBoundary boundary;          ///< finest level: Dirichlet mask and values
  std::vector<bool> dirichlet_parts;  ///< per boundary part, for the velocity hierarchy
  std::vector<std::array<bool, 4>> boundary_edges;  ///< per local macro: edge k on the boundary

  /// macros * n * n: the values of one field on the finest level.
  std::size_t block_size() const { return boundary.dirichlet.size(); }
  /// The boundary values at time t (conditions with 'sin T'); the Dirichlet mask is unchanged.
  void set_time(double t) { boundary = velocity_boundary(mesh, level, conditions, t); }
  /// Sets the prescribed velocity on the Dirichlet nodes of x.
  void impose_dirichlet_values(FlowVector& x) const;
};

}  // namespace quilt
