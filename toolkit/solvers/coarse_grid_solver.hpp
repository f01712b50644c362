#pragma once
// The coarse level Lc of the global multigrid (design.md §6): its matrix is gathered to rank 0
// and factorised once with UMFPACK (Davis 2004); every cycle gathers the type-1 defect,
// solves on rank 0 and scatters the correction back to the macros' copies.

#include <cstddef>
#include <optional>
#include <vector>

#include "la/vector_ops.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

/// Owns UMFPACK's numeric factorisation (umfpack_di_free_numeric on destruction).
class UmfpackFactorisation {
 public:
  /// Factorises the n x n matrix given in compressed-row form.
  UmfpackFactorisation(int n, std::vector<int> row_start, std::vector<int> column,
                       std::vector<double> value);
  ~UmfpackFactorisation();
  UmfpackFactorisation(const UmfpackFactorisation&) = delete;
  UmfpackFactorisation& operator=(const UmfpackFactorisation&) = delete;
  /// x = A^{-1} b
  void solve(const std::vector<double>& b, std::vector<double>& x) const;

 private:
  int n_;
  std::vector<int> row_start_, column_;
  std::vector<double> value_;
  void* numeric_ = nullptr;
};

class CoarseGridSolver {
 public:
  explicit CoarseGridSolver(const LevelHierarchy& hierarchy, int level);
  ~CoarseGridSolver();
  /// x = A_c^{-1} b for a type-1 defect b; x is type-1 and zero on Dirichlet nodes.
  void solve(const LevelVector& b, LevelVector& x) const;
  std::size_t global_size() const { return global_size_; }

 private:
  const LevelHierarchy* hierarchy_;
  int level_;
  std::size_t global_size_ = 0;
  std::vector<int> counts_, displacements_;  ///< per rank: values of its macros (rank 0 only)
  std::vector<int> gathered_ids_;            ///< global id of every gathered value (rank 0 only)
  std::optional<UmfpackFactorisation> factorisation_;  ///< on rank 0 only
};

}  // namespace quilt
