#pragma once
// The problems and comparisons of the cuda target's test suite (test_cuda_local_solver.cpp on a
// device or the host emulation, test_cuda_emulation.cpp on the emulation alone): banded Q1
// Laplacians on batches of macros, the solver parameters of a target, and the measures that
// compare two corrections.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/cpu/galerkin.hpp"
#include "accel/cuda/pcr_batch.hpp"
#include "accel/local_solver.hpp"
#include "q1_test_matrices.hpp"

namespace quilt::accel::test {

/// QUILT_REQUIRE_CUDA=1: a GPU node (and the emulation) must not pass by skipping.
inline bool cuda_required() {
  const char* v = std::getenv("QUILT_REQUIRE_CUDA");
  return v != nullptr && std::string(v) == "1";
}

#define QUILT_REQUIRE_CUDA_DEVICE()                                                           \
  if (cuda_device_count() == 0) {                                                             \
    if (cuda_required()) FAIL() << "QUILT_REQUIRE_CUDA=1, but " << cuda_unavailable_reason(); \
    GTEST_SKIP() << "no CUDA device visible: " << cuda_unavailable_reason();                  \
  }

/// Dirichlet sides of a macro: south (j = 0), east (i = n-1), north (j = n-1), west (i = 0).
struct Macro {
  double scale = 1.0;
  std::array<bool, 4> dirichlet{true, true, true, true};
};

inline bool is_dirichlet(const Macro& s, int i, int j, int n) {
  return (s.dirichlet[0] && j == 0) || (s.dirichlet[1] && i == n - 1) ||
         (s.dirichlet[2] && j == n - 1) || (s.dirichlet[3] && i == 0);
}

/// Local Q1 Laplacian on a uniform macro (stencil 8/3, -1/3, scaled), unit rows on the Dirichlet
/// sides, couplings across the macro boundary dropped.
inline BandedMatrix<double> laplacian(int level, const std::vector<Macro>& macros) {
  const int n = nodes_per_side(level);
  BandedMatrix<double> A(static_cast<int>(macros.size()), n);
  for (int m = 0; m < A.macros; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::size_t r = static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n;
        if (is_dirichlet(macros[m], i, j, n)) {
          A.at(kCentre, m, r) = 1.0;
          continue;
        }
        for (int dj = -1; dj <= 1; ++dj)
          for (int di = -1; di <= 1; ++di)
            if (i + di >= 0 && i + di < n && j + dj >= 0 && j + dj < n)
              A.at(band_index(di, dj), m, r) =
                  (di == 0 && dj == 0 ? 8.0 / 3.0 : -1.0 / 3.0) * macros[m].scale;
      }
  return A;
}

struct Problem {
  std::vector<Macro> macros;
  std::vector<BandedMatrix<double>> matrices;  ///< coarse .. fine, coarse ones P^T A P
  std::vector<double> defect;                  ///< random, 0 at Dirichlet rows

  std::vector<const BandedMatrix<double>*> levels() const {
    std::vector<const BandedMatrix<double>*> out;
    for (const auto& A : matrices) out.push_back(&A);
    return out;
  }
  const BandedMatrix<double>& fine() const { return matrices.back(); }
};

inline std::vector<Macro> mixed_macros(int count) {
  const std::array<double, 5> scales{1.0, 1e3, 1e-2, 7.5, 0.3};
  std::vector<Macro> out(count);
  for (int m = 0; m < count; ++m) {
    out[m].scale = scales[m % scales.size()];
    if (m % 2 == 1) out[m].dirichlet = {true, false, false, false};
  }
  return out;
}

/// The local matrices of a level hierarchy. The coarse levels are Galerkin products, as the
/// toolkit forms them: a rediscretised local matrix with a free (truncated) side is not nested in
/// the finer one, and the V-cycle diverges slowly on it (accel/cpu/galerkin.hpp).
inline Problem make_problem(int coarse, int fine, std::vector<Macro> macros, unsigned seed) {
  Problem p;
  p.macros = std::move(macros);
  std::vector<BandedMatrix<double>> down{laplacian(fine, p.macros)};
  for (int L = fine; L > coarse; --L) down.push_back(cpu::galerkin_coarse(down.back()));
  p.matrices.assign(down.rbegin(), down.rend());
  const BandedMatrix<double>& A = p.fine();
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  p.defect.assign(A.rows(), 0.0);
  for (int m = 0; m < A.macros; ++m)
    for (int j = 0; j < A.n; ++j)
      for (int i = 0; i < A.n; ++i)
        if (!is_dirichlet(p.macros[m], i, j, A.n))
          p.defect[m * A.rows_per_macro() + i + static_cast<std::size_t>(j) * A.n] =
              u(gen) * (1.0 + m);
  return p;
}

/// Damped Jacobi V(4, 4), the cycle the cuda target has (the cpu target runs the same one).
inline LocalSolverParams params_for(Target target, Precision precision) {
  LocalSolverParams p;
  p.target = target;
  p.precision = precision;
  p.smoother = SmootherType::jacobi;
  p.pre_smooth = p.post_smooth = 4;
  return p;
}

inline std::vector<double> run(const LocalSolverParams& params, const Problem& p,
                               LocalSolveStats* stats = nullptr) {
  std::unique_ptr<LocalSolver> solver = make_local_solver(params);
  solver->setup(p.levels());
  std::vector<double> c(p.fine().rows(), -1.0);
  solver->solve(p.defect.data(), c.data());
  if (stats) *stats = solver->last_stats();
  return c;
}

/// Largest per-macro relative 2-norm difference |a_m - b_m| / |b_m|; NaN if any macro's is (a
/// later macro's finite difference must not hide it).
inline double worst_relative_difference(const std::vector<double>& a, const std::vector<double>& b,
                                        int macros) {
  const std::size_t per = a.size() / macros;
  double worst = 0.0;
  for (int m = 0; m < macros; ++m) {
    double diff = 0.0, ref = 0.0;
    for (std::size_t r = m * per; r < (m + 1) * per; ++r) {
      diff += (a[r] - b[r]) * (a[r] - b[r]);
      ref += b[r] * b[r];
    }
    const double rel = ref > 0.0 ? std::sqrt(diff / ref) : std::sqrt(diff);
    if (std::isnan(rel) || rel > worst) worst = rel;
  }
  return worst;
}

/// Per-macro 2-norm of d - A c, in double.
inline std::vector<double> residual_norms(const BandedMatrix<double>& A,
                                          const std::vector<double>& d,
                                          const std::vector<double>& c) {
  const std::ptrdiff_t nn = static_cast<std::ptrdiff_t>(A.rows_per_macro());
  std::vector<double> out(A.macros);
  for (int m = 0; m < A.macros; ++m) {
    double s = 0.0;
    for (std::ptrdiff_t r = 0; r < nn; ++r) {
      const std::size_t g = m * nn + r;
      double ax = 0.0;
      for (int k = 0; k < kBands; ++k) {
        const std::ptrdiff_t col = r + band_offset(k, A.n);
        if (col >= 0 && col < nn) ax += A.band[k][g] * c[m * nn + col];
      }
      s += (d[g] - ax) * (d[g] - ax);
    }
    out[m] = std::sqrt(s);
  }
  return out;
}

/// Bit for bit: -0 differs from 0.
inline bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

inline std::vector<double> macro_norms(const std::vector<double>& v, int macros) {
  const std::size_t per = v.size() / macros;
  std::vector<double> out(macros);
  for (int m = 0; m < macros; ++m) {
    double s = 0.0;
    for (std::size_t r = m * per; r < (m + 1) * per; ++r) s += v[r] * v[r];
    out[m] = std::sqrt(s);
  }
  return out;
}

}  // namespace quilt::accel::test
