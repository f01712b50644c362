#pragma once
// -Laplace(u) = f with Dirichlet data from a manufactured solution, solved by the two-layer
// ScaRC solver: the first client of the global layer (design.md §6) and the body of the
// quilt-poisson application.

#include <cstdint>
#include <string>
#include <vector>

#include "parallel/distributed_mesh.hpp"
#include "solvers/global_multigrid.hpp"
#include "solvers/krylov.hpp"

namespace quilt {

struct PoissonParams {
  std::string mesh_file;
  std::vector<std::string> charts;  ///< "part circle cx cy r" bindings
  int level = 4;
  std::string solution = "sin_sin";
  std::string solver = "cg";  ///< cg | bicgstab | fgmres | mg
  KrylovParams krylov;
  GlobalMultigridParams multigrid;  ///< coarse_level is chosen from coarse_threshold
  std::size_t coarse_threshold = kDefaultCoarseThreshold;
  /// --export-matrix FILE: the assembled finest-level system (solvers/global_system.hpp) as
  /// MatrixMarket, the matrix to FILE and the right-hand side to FILE.rhs, written before the
  /// solve and outside the timings; empty: no export.
  std::string export_matrix;
};

/// Seconds, the slowest rank's. `setup`: mesh, level hierarchy (assembly included) and solver
/// set-up; `rhs`: the load vector and the boundary values, problem data like the right-hand side
/// a peer solver reads from a file (bench/peer_comparison.sh counts neither for the peers).
struct PoissonTimings {
  double total = 0, setup = 0, rhs = 0, solve = 0, local_solve = 0, coarse_solve = 0;
};

struct PoissonResult {
  std::size_t dofs = 0;
  int level = 0, coarse_level = 0, macros = 0, ranks = 0;
  KrylovResult solve;
  double l2_error = 0, h1_error = 0;
  std::uint64_t checksum = 0;  ///< FNV-1a over the solution bytes, rank by rank
  std::string description;
  PoissonTimings timings;
  DistributedMesh mesh;
  LevelVector solution;  ///< this rank's macros, finest level
};

PoissonResult solve_poisson(const PoissonParams& params, const Communicator& comm);

}  // namespace quilt
