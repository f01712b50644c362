#pragma once
// Direct solver of the coarsest local level (design.md §7): one dense LU factorisation with
// partial pivoting per macro, P A = L U, computed in double and stored in T, so the solve in the
// cycle runs in the local layer's precision. It is refactorised only when the numbers of the
// matrix change (LocalSolver::update), into the same storage.

#include <array>
#include <cstddef>
#include <vector>

#include "accel/banded_matrix.hpp"

namespace quilt::accel::cpu {

/// In-place right-looking LU with partial pivoting (first largest |a_rk| as pivot) of one
/// row-major size x size matrix, in double; pivot[k] is the row swapped with row k at step k.
/// Shared by both targets so they factorise P A = L U with the same P. Throws AccelError naming
/// the macro and column for a singular or non-finite matrix.
void factorise_dense(int size, double* a, int* pivot, int macro);

/// The dense row-major (n*n) x (n*n) matrix of one macro of a banded batch, into `dense` (every
/// entry written). Shared by both targets so they factorise the same matrix.
void dense_macro(const BandedMatrix<double>& A, int macro, double* dense);

template <class T>
class BatchedDenseLU {
 public:
  BatchedDenseLU() = default;

  /// Factorises every macro of a banded batch (its dense size is n*n). Throws AccelError when a
  /// macro's matrix is singular (a zero pivot column); the factors are then unusable. A batch of
  /// the macros and size factorised before reuses the storage: nothing is allocated.
  void factorise(const BandedMatrix<double>& A);

  /// Factorises macros dense row-major size x size matrices stored one after another, like the
  /// banded factorise().
  void factorise(int macros, int size, const double* dense);

  /// x = A^{-1} b on every macro; b and x hold macros * size values and may be the same array.
  void solve(const T* b, T* x) const;
  /// solve() for two right-hand sides with one pass over the factors; x0 and x1 bitwise what
  /// solve(b0, x0) and solve(b1, x1) give.
  void solve_pair(const T* b0, T* x0, const T* b1, T* x1) const;

  int macros() const { return macros_; }
  int size() const { return size_; }

 private:
  /// Sizes the storage for macros matrices of size x size (no allocation if it has that size).
  void reshape(int macros, int size);
  /// solve() on Lanes right-hand sides side by side, each with the operations of one alone.
  template <int Lanes>
  void solve_lanes(const std::array<const T*, Lanes>& b, const std::array<T*, Lanes>& x) const;
  /// Factorises the dense matrix of one macro held in work_ (destroyed) into its slot.
  void store(int macro);

  int macros_ = 0;
  int size_ = 0;
  std::vector<T> lu_;         ///< per macro: unit lower L below, U on and above the diagonal
  std::vector<int> pivot_;    ///< per macro: row k was swapped with row pivot[k] at step k
  std::vector<double> work_;  ///< one macro's matrix in double while it is factorised
};

}  // namespace quilt::accel::cpu
