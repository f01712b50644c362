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
#include <cmath>
#include <cstddef>
#include <functional>
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

/// Entries uniform in [-1, 1], reproducible from the seed.
template <class T>
std::vector<T> random_vector(std::size_t size, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> v(size);
  for (T& e : v) e = static_cast<T>(u(gen));
  return v;
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

/// A Q1 operator on a uniform grid of rectangles hx = aspect h, hy = h (h = 1 / (n - 1)), i.e. a
/// macro [0, aspect] x [0, 1]:  -nu Laplace(u) + w . grad u, with SUPG streamline diffusion
/// delta_K (w . grad u, w . grad v)_K, delta_K = ((2 |w| / h_K)^2 + (4 nu / h_K^2)^2)^{-1/2},
/// h_K = sqrt(hx hy), |w| at the element centre (the parameter of toolkit/flow).
struct OperatorSpec {
  double aspect = 1.0;
  double nu = 1.0;
  std::function<std::array<double, 2>(double, double)> w;  ///< empty: no convection
  bool supg = true;
};

/// The local matrix of every macro in specs (the principal submatrix of the operator assembled on
/// a grid reaching one element beyond the macro; unit rows on Dirichlet sides), on one level.
inline BandedMatrix<double> q1_operator(int level, const std::vector<MacroSpec>& specs,
                                        const OperatorSpec& op) {
  const int n = nodes_per_side(level);
  const double hy = 1.0 / (n - 1), hx = op.aspect * hy;
  BandedMatrix<double> A(static_cast<int>(specs.size()), n);
  const double g = 0.5 / std::sqrt(3.0);  // 2-point Gauss on [0, 1]: 0.5 -+ g
  for (int m = 0; m < A.macros; ++m)
    for (int ej = -1; ej < n; ++ej)
      for (int ei = -1; ei < n; ++ei) {
        std::array<double, 2> wc{0, 0};
        if (op.w) wc = op.w((ei + 0.5) * hx, (ej + 0.5) * hy);
        const double speed = std::hypot(wc[0], wc[1]), hk = std::sqrt(hx * hy);
        const double delta =
            op.supg && op.w ? 1.0 / std::hypot(2 * speed / hk, 4 * op.nu / (hk * hk)) : 0.0;
        double K[4][4] = {};  // element matrix, local nodes a = (a % 2, a / 2)
        for (double xi : {0.5 - g, 0.5 + g})
          for (double eta : {0.5 - g, 0.5 + g}) {
            double w[2] = {0, 0};
            if (op.w) {
              const auto v = op.w((ei + xi) * hx, (ej + eta) * hy);
              w[0] = v[0], w[1] = v[1];
            }
            double phi[4], dx[4], dy[4];
            for (int a = 0; a < 4; ++a) {
              const double px = a % 2 ? xi : 1 - xi, py = a / 2 ? eta : 1 - eta;
              phi[a] = px * py;
              dx[a] = (a % 2 ? 1 : -1) * py / hx;
              dy[a] = (a / 2 ? 1 : -1) * px / hy;
            }
            for (int a = 0; a < 4; ++a)
              for (int b = 0; b < 4; ++b) {
                const double conv_b = w[0] * dx[b] + w[1] * dy[b];
                const double conv_a = w[0] * dx[a] + w[1] * dy[a];
                K[a][b] += 0.25 * hx * hy *
                           (op.nu * (dx[a] * dx[b] + dy[a] * dy[b]) + conv_b * phi[a] +
                            delta * conv_b * conv_a);
              }
          }
        for (int a = 0; a < 4; ++a)
          for (int b = 0; b < 4; ++b) {
            const int ia = ei + a % 2, ja = ej + a / 2, ib = ei + b % 2, jb = ej + b / 2;
            if (ia < 0 || ia >= n || ja < 0 || ja >= n || ib < 0 || ib >= n || jb < 0 || jb >= n)
              continue;
            A.at(band_index(ib - ia, jb - ja), m, ia + static_cast<std::size_t>(ja) * n) +=
                specs[m].scale * K[a][b];
          }
      }
  for (int m = 0; m < A.macros; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (on_dirichlet_side(specs[m], i, j, n))
          for (int k = 0; k < kBands; ++k)
            A.at(k, m, i + static_cast<std::size_t>(j) * n) = k == kCentre ? 1.0 : 0.0;
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

/// q1_operator on fine_level and its Galerkin coarse operators below.
inline Hierarchy galerkin_hierarchy(int coarse_level, int fine_level,
                                    const std::vector<MacroSpec>& specs, const OperatorSpec& op) {
  std::vector<BandedMatrix<double>> down{q1_operator(fine_level, specs, op)};
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
