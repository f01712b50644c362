#pragma once
// Benchmark quantities of a computed flow, over all macros and ranks (design.md §9).

#include <vector>

#include "la/vector_ops.hpp"
#include "mesh/coarse_mesh.hpp"
#include "parallel/communicator.hpp"
#include "parallel/distributed_mesh.hpp"

namespace quilt {

/// 1/2 int |u|^2 over the domain.
double kinetic_energy(const DistributedMesh& dm, int level, const LevelVector& u1,
                      const LevelVector& u2, const Communicator& comm);

/// Values of a nodal field at points, each evaluated in the element that holds it (the
/// lowest-numbered rank that finds the point answers). NaN for a point outside the domain.
std::vector<double> evaluate_at_points(const DistributedMesh& dm, int level,
                                       const LevelVector& field, const std::vector<Point2>& points,
                                       const Communicator& comm);

/// Nodal vorticity dv/dx - du/dy by lumped L2 projection (type-1).
LevelVector vorticity(const DistributedMesh& dm, int level, const LevelVector& u1,
                      const LevelVector& u2, const Communicator& comm);

/// |div u_h|_L2 over the domain: how far the discrete velocity is from solenoidal.
double divergence_l2(const DistributedMesh& dm, int level, const LevelVector& u1,
                     const LevelVector& u2, const Communicator& comm);

}  // namespace quilt
