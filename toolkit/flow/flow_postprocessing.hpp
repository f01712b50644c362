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

/// Force of the fluid on a boundary part.
struct BoundaryForce {
  double x = 0, y = 0;
};

/// Residual (volume) form (John 2004; Braack & Richter 2006): F_k = -sum_i r_k,i over the
/// global nodes i of the part, with r the momentum residual from the weak form
/// (NavierStokesResult::momentum_residual*), i.e. the weak form tested with the Q1 function that
/// is 1 on the part's nodes and 0 elsewhere. Exact for the discrete solution and the most
/// accurate drag/lift available (superconvergent).
BoundaryForce volume_force(const DistributedMesh& dm, int level, const LevelVector& residual1,
                           const LevelVector& residual2, int part, const Communicator& comm);

/// The pressure on the boundary part `part` (a no-slip wall) at `points` lying on it (NaN at a
/// point on none of its sides), from the normal traction of the discrete momentum equations, as
/// the forces of volume_force. On a wall node i the residual is r_i = int_part (nu du/dn - p n)
/// phi_i ds (n out of the fluid), whose normal part is -p (du_n/dn = 0 on a no-slip wall):
/// int_part p phi_i ds = t_i = -r_i . N_i / |N_i| with N_i = int_part phi_i n ds, solved with the
/// boundary mass matrix of the part (not lumped: lumping is first order where neighbouring sides
/// differ in length), p linear along a side. The consistent boundary flux (Gresho, Lee, Sani,
/// Maslanik & Eaton 1987; Melbø & Kvamsdal 2003): second order where the Q1 pressure's own wall
/// values are first order, with either pressure stabilisation (design.md §8, "The pressure
/// difference"). Collective.
std::vector<double> wall_pressure(const DistributedMesh& dm, int level,
                                  const LevelVector& residual1, const LevelVector& residual2,
                                  int part, const std::vector<Point2>& points,
                                  const Communicator& comm);

/// Surface integral of the traction, F = int_S (-p n + nu grad(u) n) ds (n pointing out of the
/// fluid's complement, i.e. into the fluid), 2-point Gauss on every fine boundary element side of
/// the part: the cross-check of volume_force, first order less accurate.
BoundaryForce surface_force(const DistributedMesh& dm, int level, const LevelVector& u1,
                            const LevelVector& u2, const LevelVector& p, double nu, int part,
                            const Communicator& comm);

/// Length of the recirculation zone behind a body along the line y = y0: x_r - x0 where x_r is
/// the first point after x0 where u1 changes from negative to non-negative (linear interpolation
/// between `samples` equidistant evaluations on [x0, x1]); 0 if u1 is not negative behind x0.
double recirculation_length(const DistributedMesh& dm, int level, const LevelVector& u1, double x0,
                            double x1, double y0, int samples, const Communicator& comm);

}  // namespace quilt
