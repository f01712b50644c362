#include "solvers/poisson_problem.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <utility>

#include "fem/manufactured_solution.hpp"
#include "fem/scalar_assembly.hpp"
#include "mesh/macro_nodes.hpp"
#include "mesh/msh_reader.hpp"
#include "solvers/global_system.hpp"

namespace quilt {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t hash) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    hash ^= p[i];
    hash *= 1099511628211ULL;
  }
  return hash;
}

}  // namespace

PoissonResult solve_poisson(const PoissonParams& params, const Communicator& comm) {
  const auto t0 = Clock::now();
  PoissonResult result;
  const ManufacturedSolution exact = manufactured_solution(params.solution);
  CoarseMesh coarse = read_msh(params.mesh_file);
  ChartMap charts = bind_charts(coarse, params.charts);
  result.mesh = distribute(std::move(coarse), std::move(charts), comm);
  const DistributedMesh& dm = result.mesh;
  const int L = params.level;

  GlobalMultigridParams mg = params.multigrid;
  mg.coarse_level = choose_coarse_level(dm.mesh, L, params.coarse_threshold);
  if (params.solver == "cg") mg.combination = SchwarzCombination::symmetric;
  // The levels above the coarse grid in zone form where they are zoned: their bands are never
  // made (the export reads the finest level's).
  const ZoneFormLevels zone_form{params.export_matrix.empty() ? mg.coarse_level : L};
  const std::vector<bool> dirichlet(dm.mesh.part_names.size(), true);
  LevelHierarchy hierarchy(
      dm, comm, L, dirichlet,
      [](const MacroGeometry& g, accel::BandedMatrix<double>& A, int m) { add_laplacian(g, A, m); },
      zone_form);
  const GlobalLevel& finest = hierarchy.level(L);
  const std::size_t nn = finest.matrix.rows_per_macro();

  // Right-hand side (type-0 load vectors summed to type-1) and initial guess; both carry the
  // Dirichlet values of the exact solution.
  const auto rhs_start = Clock::now();
  LevelVector b(finest.matrix.rows()), x(finest.matrix.rows(), 0.0);
  const auto geometry = [&hierarchy, L](int m) -> const MacroGeometry& {
    return hierarchy.geometry(L, m);
  };
  for (int m = 0; m < dm.num_local(); ++m) assemble_load(geometry(m), exact.f, b.data() + m * nn);
  finest.shared->sum(b.data());
  for (int m = 0; m < dm.num_local(); ++m)
    for (std::size_t r = 0; r < nn; ++r)
      if (finest.dirichlet[m * nn + r]) {
        const double g = exact.u(geometry(m).x[r], geometry(m).y[r]);
        b[m * nn + r] = g;
        x[m * nn + r] = g;
      }
  const auto rhs_end = Clock::now();

  // The export before the solve (a system the solver fails on can still be studied elsewhere),
  // its time left out of the set-up.
  const auto export_start = Clock::now();
  if (!params.export_matrix.empty())
    write_global_system(params.export_matrix, gather_global_system(hierarchy, L, b), comm);
  const auto export_end = Clock::now();

  GlobalMultigrid multigrid = GlobalMultigrid::for_one_operator(hierarchy, mg);
  // The solve's vectors take the coordinates' pages; the errors make them again per macro.
  hierarchy.release_geometry();
  const auto t1 = Clock::now();

  if (params.solver == "mg") {
    result.solve = multigrid.solve(b, x, params.krylov);
  } else {
    // b is not needed after the solve: CG keeps its residual there.
    result.solve = solve_krylov(parse_krylov_method(params.solver), multigrid.finest_operator(),
                                multigrid, std::move(b), x, params.krylov);
  }
  const auto t2 = Clock::now();

  SquaredErrors err;
  for (int m = 0; m < dm.num_local(); ++m) {
    const SquaredErrors e = q1_squared_errors(refine_macro(dm.mesh, dm.charts, dm.macros[m], L),
                                              x.data() + m * nn, exact.u_with_gradient);
    err.l2 += e.l2;
    err.h1_semi += e.h1_semi;
  }
  const auto total_err = comm.sum(std::vector<double>{err.l2, err.h1_semi});
  result.l2_error = std::sqrt(total_err[0]);
  result.h1_error = std::sqrt(total_err[1]);

  // Checksum: every rank hashes its values, rank 0 hashes the hashes in rank order.
  std::uint64_t local_hash = fnv1a(x.data(), x.size() * sizeof(double), 14695981039346656037ULL);
  std::vector<std::uint64_t> hashes(comm.size());
  check_mpi(
      MPI_Allgather(&local_hash, 1, MPI_UINT64_T, hashes.data(), 1, MPI_UINT64_T, comm.handle()),
      "MPI_Allgather (checksum)");
  result.checksum =
      fnv1a(hashes.data(), hashes.size() * sizeof(std::uint64_t), 14695981039346656037ULL);

  result.dofs = GlobalNumbering(dm.mesh, L).size();
  result.level = L;
  result.coarse_level = mg.coarse_level;
  result.macros = dm.mesh.num_cells();
  result.ranks = comm.size();
  result.description = params.solver == "mg" ? multigrid.description()
                                             : params.solver + " + " + multigrid.description();
  result.timings.setup =
      comm.max(seconds(t0, t1) - seconds(export_start, export_end) - seconds(rhs_start, rhs_end));
  result.timings.rhs = comm.max(seconds(rhs_start, rhs_end));
  result.timings.solve = comm.max(seconds(t1, t2));
  result.timings.local_solve = comm.max(multigrid.timings().local_solve);
  result.timings.coarse_solve = comm.max(multigrid.timings().coarse_solve);
  result.timings.total = comm.max(seconds(t0, Clock::now()));
  result.solution = std::move(x);
  return result;
}

}  // namespace quilt
