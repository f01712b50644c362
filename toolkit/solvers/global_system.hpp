#pragma once
// The assembled global system of one level, gathered to rank 0 in the global node numbering
// (mesh/macro_nodes.hpp GlobalNumbering: coarse vertices, then inner edge nodes, then macro
// interiors; every shared node once). The numbering and the numbers depend only on the mesh and
// the level, not on the rank count or the partition: contributions of several macros to one
// entry are added in ascending global macro id. What --export-matrix writes, so that any other
// solver runs the system Quilt solves.

#include <string>
#include <vector>

#include "la/sparse_matrix.hpp"
#include "la/vector_ops.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

/// A x = b as the Krylov solvers see it, with the Dirichlet rows as unit rows (b_i = the
/// Dirichlet value) and the Dirichlet columns eliminated: their couplings times the Dirichlet
/// values moved to the right-hand side of the other rows, so a symmetric operator stays
/// symmetric. Its solution is the solver's; for every x that carries the Dirichlet values (as
/// the solver's iterates do) b - A x is the solver's filtered residual in the global numbering.
struct GlobalSystem {
  SparseMatrix matrix;
  std::vector<double> rhs;
};

/// Collective. The system of `level` with the type-1 right-hand side `b` (which carries the
/// Dirichlet values) on rank 0; empty on the other ranks.
GlobalSystem gather_global_system(const LevelHierarchy& hierarchy, int level, const LevelVector& b);

/// Collective. The type-1 vector `v` of `level` in the global numbering on rank 0 (every shared
/// node from the copy of its lowest macro, all copies being equal); empty on the other ranks.
std::vector<double> gather_global_vector(const DistributedMesh& dm, int level, const LevelVector& v,
                                         const Communicator& comm);

/// --export-matrix FILE: the matrix goes to FILE, the right-hand side to FILE.rhs (this name).
std::string global_system_rhs_path(const std::string& path);

/// Collective, before any work: IoError on every rank naming the file unless rank 0 can write
/// both files (io/output.hpp output_file_problem).
void check_global_system_export(const std::string& path, const Communicator& comm);

/// Collective: rank 0 writes the system as MatrixMarket (io/matrix_market.hpp), the matrix to
/// `path` and the right-hand side to global_system_rhs_path(path), each atomically; IoError on
/// every rank when that failed.
void write_global_system(const std::string& path, const GlobalSystem& system,
                         const Communicator& comm);

}  // namespace quilt
