#include "common/poisson_options.hpp"

#include <string>
#include <vector>

#include "common/scarc_options.hpp"
#include "io/atomic_file.hpp"
#include "parallel/rank_consistency.hpp"
#include "solvers/global_system.hpp"

namespace po = boost::program_options;

namespace quilt {

void declare_poisson_keys(Config& config) {
  // clang-format off
  config.keys()
    ("mesh.file", po::value<std::string>()->default_value("meshes/unit_square_4x2.msh"),
     "coarse mesh (Gmsh MSH 2.2 or 4.1 ASCII, quadrilaterals); a relative path is taken "
     "relative to the configuration file when set there, else to the working directory")
    ("mesh.level", po::value<int>()->default_value(6), "refinement level L (2^L x 2^L elements per macro)")
    ("mesh.chart", po::value<std::vector<std::string>>()->composing(),
     "bind a boundary part to a chart: 'PART line' or 'PART circle CX CY R' (repeatable)")
    ("problem.solution", po::value<std::string>()->default_value("sin_sin"),
     "manufactured solution: sin_sin (unit square, zero boundary values) | exp_sin (any mesh)")
    ("solver.type", po::value<std::string>()->default_value("cg"),
     "outer solver: cg | bicgstab | fgmres (preconditioned by one ScaRC cycle) | mg (ScaRC alone)")
    ("solver.rel_tol", number_key(1e-8), "relative residual reduction")
    ("solver.abs_tol", number_key(0.0), "absolute residual bound")
    ("solver.max_iter", po::value<int>()->default_value(100), "iteration cap (exceeding it is an error)")
    ("solver.restart", po::value<int>()->default_value(30), "fgmres restart length")
    ("export-matrix", po::value<std::string>(),
     "write the assembled system (global node numbering, Dirichlet rows as unit rows, Dirichlet "
     "columns eliminated) as MatrixMarket: the matrix to this file, the right-hand side to "
     "FILE.rhs (rank 0 writes both, before the solve; a relative path set in the configuration "
     "file is relative to its folder)");
  // clang-format on
  declare_scarc_keys(config);
}

PoissonParams read_poisson_params(const Config& config, const Communicator& comm) {
  check_same_configuration(config.file(), config.settings(), comm);
  PoissonParams p;
  p.mesh_file = config.input_file("mesh.file");
  p.level = config.get("mesh.level", Range<int>::closed(0, 12));
  if (config.has("mesh.chart")) p.charts = config.get<std::vector<std::string>>("mesh.chart");
  p.solution = config.get<std::string>("problem.solution");
  if (p.solution != "sin_sin" && p.solution != "exp_sin")
    config.fail("problem.solution", "'" + p.solution + "' is not sin_sin or exp_sin");
  p.solver = config.get<std::string>("solver.type");
  if (p.solver != "cg" && p.solver != "bicgstab" && p.solver != "fgmres" && p.solver != "mg")
    config.fail("solver.type", "'" + p.solver + "' is not cg, bicgstab, fgmres or mg");
  p.krylov.rel_tol = config.get("solver.rel_tol", Range<double>::open(0, 1));
  p.krylov.abs_tol = config.get("solver.abs_tol", Range<double>::at_least(0));
  p.krylov.max_iter = config.get("solver.max_iter", Range<int>::at_least(1));
  p.krylov.restart = config.get("solver.restart", Range<int>::at_least(1));
  if (config.has("export-matrix")) {
    p.export_matrix = config.path("export-matrix");
    try {
      check_global_system_export(p.export_matrix, comm);
    } catch (const IoError& e) {
      config.fail("export-matrix", e.what());
    }
  }
  const ScarcOptions scarc = read_scarc_options(config, comm);
  p.multigrid = scarc.multigrid;
  p.coarse_threshold = scarc.coarse_threshold;
  return p;
}

}  // namespace quilt
