#include "flow/flow_postprocessing.hpp"

#include <cmath>
#include <limits>

#include "fem/flow_functionals.hpp"
#include "fem/point_evaluation.hpp"
#include "fem/scalar_assembly.hpp"
#include "parallel/shared_nodes.hpp"

namespace quilt {
namespace {

std::size_t nodes_per_macro(int level) {
  const auto n = static_cast<std::size_t>(accel::nodes_per_side(level));
  return n * n;
}

}  // namespace

double kinetic_energy(const DistributedMesh& dm, int level, const LevelVector& u1,
                      const LevelVector& u2, const Communicator& comm) {
  const std::size_t nn = nodes_per_macro(level);
  double local = 0;
  for (int m = 0; m < dm.num_local(); ++m)
    local += quilt::kinetic_energy(refine_macro(dm.mesh, dm.charts, dm.macros[m], level),
                                   u1.data() + m * nn, u2.data() + m * nn);
  return comm.sum(local);
}

std::vector<double> evaluate_at_points(const DistributedMesh& dm, int level,
                                       const LevelVector& field, const std::vector<Point2>& points,
                                       const Communicator& comm) {
  const std::size_t nn = nodes_per_macro(level);
  const double none = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> found(points.size(), none);
  for (int m = 0; m < dm.num_local(); ++m) {
    const MacroGeometry g = refine_macro(dm.mesh, dm.charts, dm.macros[m], level);
    for (std::size_t k = 0; k < points.size(); ++k) {
      if (!std::isnan(found[k])) continue;
      if (const auto loc = locate_point(g, points[k]))
        found[k] = evaluate_q1_field(g, field.data() + m * nn, *loc);
    }
  }
  // Gather every rank's answers; the first rank (in rank order) that found a point decides.
  std::vector<double> all(found.size() * comm.size());
  check_mpi(MPI_Allgather(found.data(), static_cast<int>(found.size()), MPI_DOUBLE, all.data(),
                          static_cast<int>(found.size()), MPI_DOUBLE, comm.handle()),
            "MPI_Allgather (point evaluation)");
  std::vector<double> values(points.size(), none);
  for (std::size_t k = 0; k < points.size(); ++k)
    for (int r = 0; r < comm.size() && std::isnan(values[k]); ++r)
      values[k] = all[r * points.size() + k];
  return values;
}

LevelVector vorticity(const DistributedMesh& dm, int level, const LevelVector& u1,
                      const LevelVector& u2, const Communicator& comm) {
  const std::size_t nn = nodes_per_macro(level);
  LevelVector omega(u1.size()), mass(u1.size());
  for (int m = 0; m < dm.num_local(); ++m) {
    const MacroGeometry g = refine_macro(dm.mesh, dm.charts, dm.macros[m], level);
    vorticity_load(g, u1.data() + m * nn, u2.data() + m * nn, omega.data() + m * nn);
    assemble_lumped_mass(g, mass.data() + m * nn);
  }
  const SharedNodes shared(dm, comm, level);
  shared.sum(omega.data());
  shared.sum(mass.data());
  for (std::size_t i = 0; i < omega.size(); ++i) omega[i] /= mass[i];
  return omega;
}

double divergence_l2(const DistributedMesh& dm, int level, const LevelVector& u1,
                     const LevelVector& u2, const Communicator& comm) {
  const std::size_t nn = nodes_per_macro(level);
  double local = 0;
  for (int m = 0; m < dm.num_local(); ++m)
    local += divergence_l2_squared(refine_macro(dm.mesh, dm.charts, dm.macros[m], level),
                                   u1.data() + m * nn, u2.data() + m * nn);
  return std::sqrt(comm.sum(local));
}

}  // namespace quilt
