// A Quilt user's program, built against the installed package: reads a coarse mesh and solves
// the Poisson problem on it with the two-layer ScaRC solver. Exits non-zero unless the mesh and
// the solve are what unit_square_4x2.msh must give.
//   quilt_consumer MESH.msh
#include <cstdio>
#include <exception>

#include <quilt/accel/smoother_type.hpp>
#include <quilt/mesh/msh_reader.hpp>
#include <quilt/parallel/communicator.hpp>
#include <quilt/solvers/poisson_problem.hpp>

int main(int argc, char** argv) {
  quilt::MpiEnvironment mpi(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: quilt_consumer MESH.msh\n");
    return 2;
  }
  try {
    const quilt::CoarseMesh mesh = quilt::read_msh(argv[1]);
    std::printf("macros %d, vertices %d, edges %d\n", mesh.num_cells(), mesh.num_vertices(),
                mesh.num_edges());

    quilt::PoissonParams params;
    params.mesh_file = argv[1];
    params.level = 5;
    params.solver = "cg";
    params.krylov.rel_tol = 1e-8;
    params.coarse_threshold = 100;  // several global levels even on this small mesh
    // The local layer (Quilt::accel) by its own API: line Gauss-Seidel in both directions.
    params.multigrid.local.smoother = quilt::accel::parse_smoother("aditrigs");
    const quilt::Communicator comm;
    const quilt::PoissonResult r = quilt::solve_poisson(params, comm);
    const double rel = r.solve.relative_residual();
    if (comm.rank() == 0)
      std::printf(
          "poisson: level %d, %zu dofs, %d iterations, relative residual %.3e, "
          "L2 error %.3e (local smoother %s)\n",
          r.level, r.dofs, r.solve.iterations, rel, r.l2_error,
          quilt::accel::to_string(params.multigrid.local.smoother).c_str());

    // 4 x 2 macros; on level 5 (32 x 32 cells per macro) the Q1 L2 error of sin*sin is ~1e-4.
    const bool ok = mesh.num_cells() == 8 && r.macros == 8 && r.solve.converged && rel <= 1e-8 &&
                    r.l2_error < 1e-3;
    if (!ok) std::fprintf(stderr, "quilt_consumer: unexpected result\n");
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quilt_consumer: %s\n", e.what());
    return 1;
  }
}
