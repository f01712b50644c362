// quilt-poisson: -Laplace(u) = f with a manufactured solution, solved by the two-layer ScaRC
// solver. Parses the configuration, calls the library, prints a summary, writes JSON/VTU.
//
//   mpirun -np 4 build/bin/quilt-poisson --config apps/configs/poisson.ini --results out.json

#include <cstdio>

#include "common/mpi_main.hpp"
#include "common/poisson_options.hpp"
#include "fem/manufactured_solution.hpp"
#include "io/config.hpp"
#include "io/results_report.hpp"
#include "io/vtu_writer.hpp"
#include "parallel/communicator.hpp"
#include "solvers/poisson_problem.hpp"
#include "solvers/poisson_report.hpp"

using namespace quilt;

namespace {

/// u_h - u at the nodes: shows where the discretisation error lies, which the L2 and H1 norms
/// of the summary do not.
std::vector<double> nodal_error(const std::vector<MacroGeometry>& geometry,
                                const LevelVector& solution, const std::string& name) {
  const ManufacturedSolution exact = manufactured_solution(name);
  std::vector<double> error;
  error.reserve(solution.size());
  for (const MacroGeometry& g : geometry)
    for (std::size_t i = 0; i < g.x.size(); ++i)
      error.push_back(solution[error.size()] - exact.u(g.x[i], g.y[i]));
  return error;
}

void print_summary(const PoissonParams& params, const PoissonResult& r) {
  std::printf("quilt-poisson: %s, L=%d (Lc=%d), %zu dofs, %d macros, %d ranks\n",
              params.mesh_file.c_str(), r.level, r.coarse_level, r.dofs, r.macros, r.ranks);
  std::printf("  solver: %s\n", r.description.c_str());
  std::printf("  iterations %d, |r|/|r0| = %.3e, L2 error %.6e, H1 error %.6e\n",
              r.solve.iterations, r.solve.relative_residual(), r.l2_error, r.h1_error);
  std::printf(
      "  time: total %.3f s, setup %.3f s, rhs %.3f s, solve %.3f s (local %.3f s, coarse %.3f "
      "s)\n",
      r.timings.total, r.timings.setup, r.timings.rhs, r.timings.solve, r.timings.local_solve,
      r.timings.coarse_solve);
  std::printf("  checksum %s\n", checksum_text(r.checksum).c_str());
}

int run(int argc, char** argv, const Communicator& comm, ResultsReport& report) {
  Config config("quilt-poisson", "-Laplace(u) = f on a macro mesh, two-layer ScaRC solver");
  declare_poisson_keys(config);
  if (!config.parse(argc, argv)) return 0;
  // The output paths first: an error in the keys read next is then reported in --results too.
  report.check_output(config, "poisson", comm);
  const PoissonParams params = read_poisson_params(config, comm);

  PoissonResult r = solve_poisson(params, comm);

  if (comm.rank() == 0) print_summary(params, r);
  report.write(poisson_results_json(params, r), comm);
  if (config.has("vtu")) {
    const std::vector<MacroGeometry> geometry = refine_local_macros(r.mesh, r.level);
    const std::vector<double> error = nodal_error(geometry, r.solution, params.solution);
    write_vtu(config.get<std::string>("vtu"), "poisson",
              {geometry, r.mesh.macros, {}, {{"u", r.solution}, {"error", error}}}, comm);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mpi_main("quilt-poisson", argc, argv, run);
}
