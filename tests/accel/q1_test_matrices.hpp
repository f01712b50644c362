#pragma once
// Test matrices of the accel suites: random bands, and local Q1 Laplacians on a uniform macro
// grid, level by level as the local layer gets them (design.md §2, §4).
//
// On a uniform grid the bilinear stiffness stencil is h-independent: 8/3 at the centre, -1/3 at
// the 8 neighbours. A local matrix is the principal submatrix of the global matrix on the macro's
// nodes: a node on a Dirichlet side has a unit row; every other row keeps the interior stencil,
// truncated at the macro boundary (its couplings to nodes of neighbouring macros are dropped),
// which leaves a nonsingular M-matrix.

#include <array>
#include <cstddef>
#include <random>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/cpu/galerkin.hpp"

namespace quilt::accel::testing {

/// Random nonsymmetric bands (diagonal in [3, 5], the rest in [-1, 1]) with the storage
/// convention: 0 wherever the column leaves the macro grid.
template <class T>
BandedMatrix<T> random_bands(int macros, int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  BandedMatrix<T> A(macros, n);
  for (int m = 0; m < macros; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        for (int k = 0; k < kBands; ++k) {
          const int ii = i + k % 3 - 1;
          const int jj = j + k / 3 - 1;
          const bool inside = ii >= 0 && ii < n && jj >= 0 && jj < n;
          A.at(k, m, i + static_cast<std::size_t>(j) * n) =
              inside ? static_cast<T>(k == kCentre ? 4.0 + u(gen) : u(gen)) : T(0);
        }
  return A;
}

/// Sides of a macro in the order south (j = 0), east (i = n-1), north (j = n-1), west (i = 0).
using DirichletSides = std::array<bool, 4>;
inline constexpr DirichletSides kAllDirichlet{true, true, true, true};
inline constexpr DirichletSides kSouthDirichlet{true, false, false, false};

struct MacroSpec {
  double scale = 1.0;  ///< factor of the stencil (not of the unit rows)
  DirichletSides dirichlet = kAllDirichlet;
};

inline bool on_dirichlet_side(const MacroSpec& s, int i, int j, int n) {
  return (s.dirichlet[0] && j == 0) || (s.dirichlet[1] && i == n - 1) ||
         (s.dirichlet[2] && j == n - 1) || (s.dirichlet[3] && i == 0);
}

/// The local Q1 Laplacian of every macro in specs on one level.
inline BandedMatrix<double> q1_laplacian(int level, const std::vector<MacroSpec>& specs) {
  const int n = nodes_per_side(level);
  BandedMatrix<double> A(static_cast<int>(specs.size()), n);
  for (int m = 0; m < A.macros; ++m) {
    const MacroSpec& s = specs[m];
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::size_t r = static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n;
        if (on_dirichlet_side(s, i, j, n)) {
          A.at(kCentre, m, r) = 1.0;
          continue;
        }
        for (int dj = -1; dj <= 1; ++dj)
          for (int di = -1; di <= 1; ++di) {
            if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n) continue;
            A.at(band_index(di, dj), m, r) =
                (di == 0 && dj == 0 ? 8.0 / 3.0 : -1.0 / 3.0) * s.scale;
          }
      }
  }
  return A;
}

/// The levels coarse..fine of a hierarchy, owned, with the pointer list setup() takes.
struct Hierarchy {
  std::vector<BandedMatrix<double>> matrices;
  std::vector<const BandedMatrix<double>*> levels() const {
    std::vector<const BandedMatrix<double>*> out;
    for (const auto& A : matrices) out.push_back(&A);
    return out;
  }
  const BandedMatrix<double>& finest() const { return matrices.back(); }
};

inline Hierarchy q1_hierarchy(int coarse_level, int fine_level,
                              const std::vector<MacroSpec>& specs) {
  Hierarchy h;
  for (int L = coarse_level; L <= fine_level; ++L) h.matrices.push_back(q1_laplacian(L, specs));
  return h;
}

/// The finest level's local Q1 Laplacians and their Galerkin coarse operators P^T A P below.
inline Hierarchy galerkin_hierarchy(int coarse_level, int fine_level,
                                    const std::vector<MacroSpec>& specs) {
  std::vector<BandedMatrix<double>> down{q1_laplacian(fine_level, specs)};
  for (int L = fine_level; L > coarse_level; --L) down.push_back(cpu::galerkin_coarse(down.back()));
  Hierarchy h;
  h.matrices.assign(down.rbegin(), down.rend());
  return h;
}

/// A random defect, 0 at the Dirichlet rows (a consistent global defect is 0 there).
inline std::vector<double> random_defect(const BandedMatrix<double>& A,
                                         const std::vector<MacroSpec>& specs, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> d(A.rows());
  for (int m = 0; m < A.macros; ++m)
    for (int j = 0; j < A.n; ++j)
      for (int i = 0; i < A.n; ++i) {
        const std::size_t r = m * A.rows_per_macro() + i + static_cast<std::size_t>(j) * A.n;
        d[r] = on_dirichlet_side(specs[m], i, j, A.n) ? 0.0 : u(gen);
      }
  return d;
}

}  // namespace quilt::accel::testing
