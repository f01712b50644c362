#include "flow/pressure_laplacian.hpp"

#include "fem/scalar_assembly.hpp"

namespace quilt {

LevelHierarchy pressure_laplacian(const DistributedMesh& dm, const Communicator& comm, int L) {
  const std::vector<bool> no_dirichlet(dm.mesh.part_names.size(), false);
  return LevelHierarchy(dm, comm, L, no_dirichlet,
                        [](const MacroGeometry& g, accel::BandedMatrix<double>& A, int m) {
                          add_laplacian(g, A, m);
                          add_mass(g, A, m, kPressureLaplacianShift);
                        });
}

}  // namespace quilt
