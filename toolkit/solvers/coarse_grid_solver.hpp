#pragma once
// The coarse level Lc of the global multigrid (design.md §6): its matrix is gathered to one rank,
// its root, and factorised there with UMFPACK (Davis 2004); every cycle gathers the type-1
// defect, solves on the root and scatters the correction back to the macros' copies.

#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "la/vector_ops.hpp"
#include "mesh/macro_nodes.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

/// A sparse matrix of fixed pattern factorised by UMFPACK (Davis 2004): the symbolic analysis
/// (ordering) is made once, at the first factorise(); later calls refactorise numerically.
/// Owns both UMFPACK objects (freed on destruction).
class UmfpackFactorisation {
 public:
  /// The n x n pattern in compressed-row form.
  UmfpackFactorisation(int n, std::vector<int> row_start, std::vector<int> column);
  ~UmfpackFactorisation();
  UmfpackFactorisation(const UmfpackFactorisation&) = delete;
  UmfpackFactorisation& operator=(const UmfpackFactorisation&) = delete;
  /// The matrix entries in the order of `column`: written in place, then factorise().
  std::span<double> values() { return value_; }
  /// LU of the matrix with the current values().
  void factorise();
  /// x = A^{-1} b
  void solve(const std::vector<double>& b, std::vector<double>& x) const;

 private:
  int n_;
  std::vector<int> row_start_, column_;
  std::vector<double> value_;
  std::vector<double> control_;          ///< UMFPACK's Control: defaults, no refinement
  mutable std::vector<int> work_index_;  ///< umfpack_di_wsolve's Wi (n)
  mutable std::vector<double> work_;     ///< and W (n: no iterative refinement)
  void* symbolic_ = nullptr;
  void* numeric_ = nullptr;
};

/// The in-grid band entries of this rank's macros on one level (type-0 parts, which the root adds
/// up) in the global numbering, whatever their values, so that the pattern holds for every later
/// update: what a matrix gathered to a root is made of. The Dirichlet nodes' global ids are
/// listed; with skip_dirichlet_rows their rows are left out of the entries.
struct LevelEntries {
  std::vector<std::pair<int, std::size_t>> entries;  ///< (band, type-0 row) of each entry
  std::vector<int> rows, cols;                       ///< their global row and column ids
  std::vector<int> dirichlet_ids;
};
LevelEntries level_entries(const DistributedMesh& dm, const GlobalLevel& level,
                           const GlobalNumbering& numbering, bool skip_dirichlet_rows);

/// The root: the positions of gathered entries sorted by global row, then column (stable: equal
/// entries keep the gathered order, so their sum is deterministic for a given rank count).
std::vector<std::size_t> row_major_order(const std::vector<int>& rows,
                                         const std::vector<int>& cols);

/// The global node id of every value of a level vector gathered to a root rank after rank (each
/// rank's macros ascending, rank r's values from displacements[r]).
std::vector<std::size_t> gathered_node_ids(const DistributedMesh& dm,
                                           const GlobalNumbering& numbering,
                                           const std::vector<int>& displacements);

/// The set-up (gather plan, pattern, symbolic analysis) is made once; update() gathers the
/// level's current numbers and refactorises. The two halves of update() are public so that a
/// solver with several direct solves on different roots gathers all of them before any root
/// factorises: the factorisations then run side by side (NavierStokesSolver).
class CoarseGridSolver {
 public:
  /// `root`: the rank that holds the factors and solves.
  CoarseGridSolver(const LevelHierarchy& hierarchy, int level, int root = 0);
  ~CoarseGridSolver();
  /// Refactorises with the level's current matrix (LevelHierarchy::assemble changed it).
  void update() {
    gather_numbers();
    factorise();
  }
  /// Collective: the level's current matrix to the root; factorise() must follow before solve().
  void gather_numbers();
  /// The LU of the numbers gathered last, on the root (once per gather; not collective).
  void factorise();
  /// x = A_c^{-1} b for a type-1 defect b; x is type-1 and zero on Dirichlet nodes:
  /// gather_defect, solve_on_root, scatter_correction.
  void solve(const LevelVector& b, LevelVector& x) const {
    gather_defect(b);
    solve_on_root();
    scatter_correction(x);
  }
  /// solve() in its three steps, so that two solvers on different roots solve side by side:
  /// both gather, both roots solve, both scatter. Collective: b to the root.
  void gather_defect(const LevelVector& b) const;
  /// The solve of the defect gathered last, on the root (not collective; nothing elsewhere).
  void solve_on_root() const;
  /// Collective: the root's solution to every rank's macros, into x (sized like the defect).
  void scatter_correction(LevelVector& x) const;
  std::size_t global_size() const { return global_size_; }

 private:
  const LevelHierarchy* hierarchy_;
  int level_;
  int root_;
  bool factorised_ = false;  ///< factorise() has seen the numbers gathered last (every rank)
  std::size_t global_size_ = 0;
  /// This rank's entries sent to the root: band k, row r of the level's type-0 matrix.
  std::vector<std::pair<int, std::size_t>> entries_;
  std::vector<int> entry_counts_, entry_displacements_;  ///< per rank (root only)
  /// update()'s buffers, sized once: this rank's entries, and all ranks' (root only).
  std::vector<double> sent_, received_;
  std::vector<int> slot_;                    ///< CSR position of every gathered entry (root only)
  std::vector<double> unit_rows_;            ///< CSR values with the Dirichlet unit rows (root)
  std::vector<int> counts_, displacements_;  ///< per rank: values of its macros
  std::vector<std::size_t> gathered_ids_;    ///< global id of every gathered value (root only)
  std::optional<UmfpackFactorisation> factorisation_;  ///< on the root only
  /// solve()'s buffers (root only), sized once: a flow solve calls it three times per Krylov
  /// iteration.
  mutable std::vector<double> gathered_, rhs_, solution_, scattered_;
};

}  // namespace quilt
