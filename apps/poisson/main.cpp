// quilt-poisson: -Laplace(u) = f with a manufactured solution, solved by the two-layer ScaRC
// solver. Parses the configuration, calls the library, prints a summary, writes JSON/VTU.
//
//   mpirun -np 4 build/bin/quilt-poisson --config apps/configs/poisson.ini --results out.json

#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>

#include "accel/local_solver.hpp"
#include "common/mpi_main.hpp"
#include "common/scarc_options.hpp"
#include "io/config.hpp"
#include "io/json.hpp"
#include "io/vtu_writer.hpp"
#include "parallel/communicator.hpp"
#include "solvers/poisson_problem.hpp"

namespace po = boost::program_options;
using namespace quilt;

namespace {

void declare_keys(Config& config) {
  // clang-format off
  config.keys()
    ("mesh.file", po::value<std::string>()->default_value("meshes/unit_square_4x2.msh"),
     "coarse mesh (Gmsh MSH 2.2 or 4.1 ASCII, quadrilaterals)")
    ("mesh.level", po::value<int>()->default_value(6), "refinement level L (2^L x 2^L elements per macro)")
    ("mesh.chart", po::value<std::vector<std::string>>()->composing(),
     "bind a boundary part to a chart: 'PART line' or 'PART circle CX CY R' (repeatable)")
    ("problem.solution", po::value<std::string>()->default_value("sin_sin"),
     "manufactured solution: sin_sin (unit square, zero boundary values) | exp_sin (any mesh)")
    ("solver.type", po::value<std::string>()->default_value("cg"),
     "outer solver: cg | bicgstab | fgmres (preconditioned by one ScaRC cycle) | mg (ScaRC alone)")
    ("solver.rel_tol", po::value<double>()->default_value(1e-8), "relative residual reduction")
    ("solver.abs_tol", po::value<double>()->default_value(0.0), "absolute residual bound")
    ("solver.max_iter", po::value<int>()->default_value(100), "iteration cap (exceeding it is an error)")
    ("solver.restart", po::value<int>()->default_value(30), "fgmres restart length");
  // clang-format on
  declare_scarc_keys(config);
}

PoissonParams read_params(const Config& config, const Communicator& comm) {
  PoissonParams p;
  p.mesh_file = config.get<std::string>("mesh.file");
  p.level = config.get<int>("mesh.level");
  if (p.level < 0 || p.level > 12) config.fail("mesh.level", "must be in 0..12");
  if (config.has("mesh.chart")) p.charts = config.get<std::vector<std::string>>("mesh.chart");
  p.solution = config.get<std::string>("problem.solution");
  if (p.solution != "sin_sin" && p.solution != "exp_sin")
    config.fail("problem.solution", "'" + p.solution + "' is not sin_sin or exp_sin");
  p.solver = config.get<std::string>("solver.type");
  if (p.solver != "cg" && p.solver != "bicgstab" && p.solver != "fgmres" && p.solver != "mg")
    config.fail("solver.type", "'" + p.solver + "' is not cg, bicgstab, fgmres or mg");
  p.krylov.rel_tol = config.get<double>("solver.rel_tol");
  p.krylov.abs_tol = config.get<double>("solver.abs_tol");
  p.krylov.max_iter = config.get<int>("solver.max_iter");
  p.krylov.restart = config.get<int>("solver.restart");
  if (p.krylov.max_iter < 1) config.fail("solver.max_iter", "must be >= 1");
  const ScarcOptions scarc = read_scarc_options(config, comm);
  p.multigrid = scarc.multigrid;
  p.coarse_threshold = scarc.coarse_threshold;
  return p;
}

int run(int argc, char** argv, const Communicator& comm) {
  Config config("quilt-poisson", "-Laplace(u) = f on a macro mesh, two-layer ScaRC solver");
  declare_keys(config);
  if (!config.parse(argc, argv)) return 0;
  const PoissonParams params = read_params(config, comm);

  PoissonResult r = solve_poisson(params, comm);

  if (comm.rank() == 0) {
    std::printf("quilt-poisson: %s, L=%d (Lc=%d), %zu dofs, %d macros, %d ranks\n",
                params.mesh_file.c_str(), r.level, r.coarse_level, r.dofs, r.macros, r.ranks);
    std::printf("  solver: %s\n", r.description.c_str());
    std::printf("  iterations %d, |r|/|r0| = %.3e, L2 error %.6e, H1 error %.6e\n",
                r.solve.iterations, r.solve.relative_residual(), r.l2_error, r.h1_error);
    std::printf("  time: total %.3f s, setup %.3f s, solve %.3f s (local %.3f s, coarse %.3f s)\n",
                r.timings.total, r.timings.setup, r.timings.solve, r.timings.local_solve,
                r.timings.coarse_solve);
    std::printf("  checksum %016llx\n", static_cast<unsigned long long>(r.checksum));
  }
  if (config.has("results") && comm.rank() == 0) {
    Json j = Json::object();
    j["problem"] = "poisson";
    j["solution"] = params.solution;
    j["mesh"] = params.mesh_file;
    j["level"] = r.level;
    j["coarse_level"] = r.coarse_level;
    j["macros"] = r.macros;
    j["ranks"] = r.ranks;
    j["dofs"] = r.dofs;
    j["solver"] = params.solver;
    j["description"] = r.description;
    j["target"] = accel::to_string(params.multigrid.local.target);
    j["precision"] = accel::to_string(params.multigrid.local.precision);
    j["iterations"] = r.solve.iterations;
    j["final_relative_residual"] = r.solve.relative_residual();
    j["residual_history"] = r.solve.history;
    j["l2_error"] = r.l2_error;
    j["h1_error"] = r.h1_error;
    char checksum[17];
    std::snprintf(checksum, sizeof checksum, "%016llx",
                  static_cast<unsigned long long>(r.checksum));
    j["checksum"] = std::string(checksum);
    Json& t = j["timings"];
    t["total"] = r.timings.total;
    t["setup"] = r.timings.setup;
    t["solve"] = r.timings.solve;
    t["local_solve"] = r.timings.local_solve;
    t["coarse_solve"] = r.timings.coarse_solve;
    write_json(config.get<std::string>("results"), j);
  }
  if (config.has("vtu")) {
    const std::vector<MacroGeometry> geometry = refine_local_macros(r.mesh, r.level);
    write_vtu(config.get<std::string>("vtu"), "poisson", geometry, {{"u", &r.solution}}, comm);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return mpi_main("quilt-poisson", argc, argv, run);
}
