#pragma once
// What the smoother suites share (test_smoothers.cpp and one file per smoother family): random
// test matrices with unit rows, dense references of every smoother's defining formula, the
// sweep-against-reference fixture the family files instantiate, convergence rates of the local
// multigrid and the helpers of the error tests.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/smoothers/ilu_smoother.hpp"
#include "accel/cpu/smoothers/smoother.hpp"
#include "accel/local_solver.hpp"
#include "accel/smoother_type.hpp"
#include "q1_test_matrices.hpp"

namespace quilt::accel::smoother_tests {

using cpu::SmootherParams;
using cpu::SweepDirection;
using testing::Hierarchy;
using testing::kAllDirichlet;
using testing::kSouthDirichlet;
using testing::MacroSpec;
using testing::OperatorSpec;
using testing::random_vector;
using Vec = std::vector<double>;

inline constexpr SweepDirection kDirections[] = {SweepDirection::forward, SweepDirection::backward};
inline constexpr SmootherType kAllTypes[] = {
    SmootherType::jacobi,  SmootherType::gs,      SmootherType::sor,      SmootherType::ssor,
    SmootherType::trigs_x, SmootherType::trigs_y, SmootherType::aditrigs, SmootherType::ilu};

/// Every (type, ordering) the smoothers have, with the default damping.
inline std::vector<SmootherParams> all_variants() {
  std::vector<SmootherParams> out;
  for (SmootherType t : kAllTypes)
    for (SweepOrder o : {SweepOrder::lexicographic, SweepOrder::colour})
      if (o == SweepOrder::lexicographic || has_colour_order(t))
        out.push_back({t, o, default_damping(t)});
  return out;
}

inline std::string describe(const SmootherParams& p) {
  char omega[32];
  std::snprintf(omega, sizeof omega, "%g", p.damping);
  return to_string(p.type) + (p.order == SweepOrder::colour ? "/colour" : "") + "(" + omega + ")";
}

// ------------------------------------------------------------------------------------------------
// Test matrices and vectors.

/// Which nodes of the random test matrices have unit rows: macro 0 its south side, macro 1 its
/// west and north sides (so Dirichlet rows start, end and cross lines of both directions).
inline bool is_dirichlet(int macro, int i, int j, int n) {
  return macro == 0 ? j == 0 : (i == 0 || j == n - 1);
}

/// testing::random_bands (nonsymmetric, diagonal in [3, 5]) with the unit rows of is_dirichlet.
template <class T>
BandedMatrix<T> random_matrix(int macros, int n, unsigned seed) {
  BandedMatrix<T> A = testing::random_bands<T>(macros, n, seed);
  for (int m = 0; m < macros; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (is_dirichlet(m, i, j, n))
          for (int k = 0; k < kBands; ++k)
            A.at(k, m, i + std::size_t(j) * n) = k == kCentre ? T(1) : T(0);
  return A;
}

/// The random matrix with only the bands `keep` left (the others zeroed).
template <class T>
BandedMatrix<T> only_bands(BandedMatrix<T> A, std::initializer_list<int> keep) {
  for (int k = 0; k < kBands; ++k)
    if (std::find(keep.begin(), keep.end(), k) == keep.end())
      std::fill(A.band[k].begin(), A.band[k].end(), T(0));
  return A;
}

template <class T>
Vec to_double(const std::vector<T>& v) {
  return Vec(v.begin(), v.end());
}

/// max |a - b| / max |b|, or max |a| when b = 0.
inline double relative_difference(const Vec& a, const Vec& b) {
  double diff = 0, norm = 0;
  for (std::size_t r = 0; r < a.size(); ++r)
    diff = std::max(diff, std::abs(a[r] - b[r])), norm = std::max(norm, std::abs(b[r]));
  return norm > 0 ? diff / norm : diff;
}

/// |b - A x| / |b| of a batch, in double.
template <class T>
double relative_residual(const BandedMatrix<T>& A, const std::vector<T>& b,
                         const std::vector<T>& x) {
  const BandedMatrix<double> Ad = A.template converted<double>();
  const Vec bd = to_double(b), xd = to_double(x);
  Vec d(bd.size());
  cpu::defect(Ad, bd.data(), xd.data(), d.data());
  double num = 0, den = 0;
  for (std::size_t r = 0; r < d.size(); ++r) num += d[r] * d[r], den += bd[r] * bd[r];
  return std::sqrt(num / den);
}

/// Agreement expected between a smoother in precision T and a double reference of its formula.
template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

// ------------------------------------------------------------------------------------------------
// Dense references: one macro as a dense (n*n) x (n*n) matrix, and the smoothers' defining
// formulas written the obvious way on it, in double.

struct Dense {
  int n = 0;     ///< nodes per side
  int size = 0;  ///< n * n
  Vec a;         ///< row-major
  double& operator()(int r, int c) { return a[std::size_t(r) * size + c]; }
  double operator()(int r, int c) const { return a[std::size_t(r) * size + c]; }
};

inline Dense zero_dense(int n) {
  return {n, n * n, Vec(std::size_t(n) * n * n * n, 0.0)};
}

/// Calls f(r, k, c) for every row r of an n x n grid and every band k whose column c = r +
/// offset lies inside the grid: the positions of the 9-point pattern.
template <class F>
void for_each_pattern_entry(int n, F f) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < kBands; ++k) {
        const int ii = i + k % 3 - 1, jj = j + k / 3 - 1;
        if (ii >= 0 && ii < n && jj >= 0 && jj < n) f(i + j * n, k, ii + jj * n);
      }
}

/// Macro m of A, dense.
template <class T>
Dense dense_macro(const BandedMatrix<T>& A, int m) {
  Dense D = zero_dense(A.n);
  for_each_pattern_entry(A.n, [&](int r, int k, int c) { D(r, c) = A.at(k, m, r); });
  return D;
}

/// b - A x.
inline Vec residual(const Dense& A, const Vec& b, const Vec& x) {
  Vec d(b);
  for (int r = 0; r < A.size; ++r)
    for (int c = 0; c < A.size; ++c) d[r] -= A(r, c) * x[c];
  return d;
}

/// Solves the k x k row-major system M y = rhs by Gaussian elimination with partial pivoting.
inline Vec gauss_solve(Vec M, Vec rhs) {
  const int k = static_cast<int>(rhs.size());
  for (int p = 0; p < k; ++p) {
    int best = p;
    for (int r = p + 1; r < k; ++r)
      if (std::abs(M[r * k + p]) > std::abs(M[best * k + p])) best = r;
    for (int c = 0; c < k; ++c) std::swap(M[p * k + c], M[best * k + c]);
    std::swap(rhs[p], rhs[best]);
    for (int r = p + 1; r < k; ++r) {
      const double f = M[r * k + p] / M[p * k + p];
      for (int c = p; c < k; ++c) M[r * k + c] -= f * M[p * k + c];
      rhs[r] -= f * rhs[p];
    }
  }
  for (int p = k - 1; p >= 0; --p) {
    for (int c = p + 1; c < k; ++c) rhs[p] -= M[p * k + c] * rhs[c];
    rhs[p] /= M[p * k + p];
  }
  return rhs;
}

/// Groups of unknowns relaxed together, in the order a sweep visits them.
using Blocks = std::vector<std::vector<int>>;

/// Block Gauss-Seidel: for each block B in turn, x_B += omega A_BB^{-1} (b - A x)_B with the
/// newest x. Blocks of one row are point SOR; blocks of one grid line are line SOR, and
/// A_BB^{-1} (b - A x)_B = T^{-1} (b - (coupling to other lines) x) - x_B there.
inline void block_sweep(const Dense& A, const Blocks& blocks, double omega, const Vec& b, Vec& x) {
  for (const auto& B : blocks) {
    const int k = static_cast<int>(B.size());
    Vec M(std::size_t(k) * k), t(k);
    for (int p = 0; p < k; ++p) {
      t[p] = b[B[p]];
      for (int c = 0; c < A.size; ++c) t[p] -= A(B[p], c) * x[c];
      for (int q = 0; q < k; ++q) M[p * k + q] = A(B[p], B[q]);
    }
    const Vec delta = gauss_solve(M, t);
    for (int p = 0; p < k; ++p) x[B[p]] += omega * delta[p];
  }
}

/// Single rows: lexicographic, or by colour (i mod 2, j mod 2), c = ci + 2 cj in the order
/// 0, 1, 2, 3; all reversed backward.
inline Blocks point_blocks(int n, SweepOrder order, bool reverse) {
  Blocks out;
  if (order == SweepOrder::lexicographic) {
    for (int r = 0; r < n * n; ++r) out.push_back({r});
  } else {
    for (int c = 0; c < 4; ++c)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          if (i % 2 + 2 * (j % 2) == c) out.push_back({i + j * n});
  }
  if (reverse) std::reverse(out.begin(), out.end());
  return out;
}

/// The x-lines (j fixed) or y-lines (i fixed): in order 0..n-1, or zebra (even, then odd); all
/// reversed backward.
inline Blocks line_blocks(int n, bool x_lines, SweepOrder order, bool reverse) {
  std::vector<int> sequence;
  if (order == SweepOrder::lexicographic) {
    for (int l = 0; l < n; ++l) sequence.push_back(l);
  } else {
    for (int parity : {0, 1})
      for (int l = parity; l < n; l += 2) sequence.push_back(l);
  }
  if (reverse) std::reverse(sequence.begin(), sequence.end());
  Blocks out;
  for (int l : sequence) {
    std::vector<int> line;
    for (int e = 0; e < n; ++e) line.push_back(x_lines ? e + l * n : l + e * n);
    out.push_back(line);
  }
  return out;
}

/// The ILU(0) factors of macro m from the band storage of IluSmoother::factors(): L unit lower
/// (bands 0..3), U upper with 1 / U(r, r) in band 4 (bands 4..8).
template <class T>
void dense_ilu_factors(const BandedMatrix<T>& F, int m, Dense& L, Dense& U) {
  L = zero_dense(F.n);
  U = zero_dense(F.n);
  for_each_pattern_entry(F.n, [&](int r, int k, int c) {
    const double v = F.at(k, m, r);
    if (k < kCentre) L(r, c) = v;
    if (k == kCentre) L(r, r) = 1.0, U(r, r) = 1.0 / v;
    if (k > kCentre) U(r, c) = v;
  });
}

/// (L U)^{-1} v by forward and back substitution.
inline Vec lu_solve(const Dense& L, const Dense& U, Vec v) {
  for (int r = 0; r < L.size; ++r)
    for (int c = 0; c < r; ++c) v[r] -= L(r, c) * v[c];
  for (int r = U.size - 1; r >= 0; --r) {
    for (int c = r + 1; c < U.size; ++c) v[r] -= U(r, c) * v[c];
    v[r] /= U(r, r);
  }
  return v;
}

/// The smoother p on one macro, as the contract of accel/cpu/smoothers/smoother.hpp states it.
/// L and U: the ILU factors (only for ilu).
inline void reference_smooth(const SmootherParams& p, const Dense& A, const Dense* L,
                             const Dense* U, const Vec& b, Vec& x, int steps,
                             SweepDirection direction, bool x_is_zero) {
  const int n = A.n;
  const double omega = p.damping;
  const bool reverse = direction == SweepDirection::backward;
  if (x_is_zero) std::fill(x.begin(), x.end(), 0.0);
  for (int s = 0; s < steps; ++s) {
    switch (p.type) {
      case SmootherType::jacobi: {
        const Vec d = residual(A, b, x);
        for (int r = 0; r < A.size; ++r) x[r] += omega * d[r] / A(r, r);
        break;
      }
      case SmootherType::gs:
      case SmootherType::sor:
        block_sweep(A, point_blocks(n, p.order, reverse), omega, b, x);
        break;
      case SmootherType::ssor:
        block_sweep(A, point_blocks(n, p.order, false), omega, b, x);
        block_sweep(A, point_blocks(n, p.order, true), omega, b, x);
        break;
      case SmootherType::trigs_x:
        block_sweep(A, line_blocks(n, true, p.order, reverse), omega, b, x);
        break;
      case SmootherType::trigs_y:
        block_sweep(A, line_blocks(n, false, p.order, reverse), omega, b, x);
        break;
      case SmootherType::aditrigs:
        // Forward: x-lines then y-lines; backward, the adjoint: y-lines then x-lines, reversed.
        block_sweep(A, line_blocks(n, !reverse, p.order, reverse), omega, b, x);
        block_sweep(A, line_blocks(n, reverse, p.order, reverse), omega, b, x);
        break;
      case SmootherType::ilu: {
        const Vec c = lu_solve(*L, *U, residual(A, b, x));
        for (int r = 0; r < A.size; ++r) x[r] += omega * c[r];
        break;
      }
    }
  }
}

// ------------------------------------------------------------------------------------------------
// A smoother's sweeps against the dense reference of its formula.

/// Runs p on a random 2-macro batch with n nodes per side and compares every macro with
/// reference_smooth, over directions, step counts and x_is_zero.
template <class T>
void expect_matches_reference(const SmootherParams& p, int n) {
  const BandedMatrix<T> A = random_matrix<T>(2, n, 100 + n);
  auto smoother = cpu::make_smoother(A, p);
  const std::vector<T> b = random_vector<T>(A.rows(), 7);
  const std::vector<T> x0 = random_vector<T>(A.rows(), 8);
  const std::vector<T> garbage(A.rows(), std::numeric_limits<T>::quiet_NaN());
  const std::size_t nn = A.rows_per_macro();
  for (SweepDirection direction : kDirections)
    for (int steps : {0, 1, 2})
      for (bool x_is_zero : {false, true}) {
        // With x_is_zero, x holds NaN: a smoother that reads it at all shows it.
        std::vector<T> x = x_is_zero ? garbage : x0;
        smoother->smooth(A, b.data(), x.data(), steps, direction, x_is_zero);
        for (int m = 0; m < A.macros; ++m) {
          const Dense D = dense_macro(A, m);
          Dense L, U;
          if (p.type == SmootherType::ilu)
            dense_ilu_factors(dynamic_cast<const cpu::IluSmoother<T>&>(*smoother).factors(), m, L,
                              U);
          const Vec bm(b.begin() + m * nn, b.begin() + (m + 1) * nn);
          Vec expected(x0.begin() + m * nn, x0.begin() + (m + 1) * nn);
          reference_smooth(p, D, &L, &U, bm, expected, steps, direction, x_is_zero);
          const Vec got(x.begin() + m * nn, x.begin() + (m + 1) * nn);
          EXPECT_LE(relative_difference(got, expected), tolerance<T>())
              << describe(p) << " n=" << n << " macro " << m << " steps=" << steps
              << (direction == SweepDirection::forward ? " forward" : " backward")
              << (x_is_zero ? " x_is_zero" : "");
        }
      }
}

/// The sweeps of every variant it is instantiated with (one list per smoother family) against
/// reference_smooth, in both precisions; the test itself is in test_smoothers.cpp.
class SmootherSweep : public ::testing::TestWithParam<SmootherParams> {};

/// "sor/colour(1.3)" -> "sor_colour_w1p3"
inline std::string sweep_test_name(const ::testing::TestParamInfo<SmootherParams>& info) {
  std::string name;
  for (char c : describe(info.param)) {
    if (c == '(') name += "_w";
    if (c == '.') name += 'p';
    if (c == '/' || c == '-') name += '_';
    if (std::isalnum(static_cast<unsigned char>(c))) name += c;
  }
  return name;
}

// ------------------------------------------------------------------------------------------------
// Convergence rates of the local multigrid.

inline std::unique_ptr<LocalSolver> solver_for(const Hierarchy& h, const SmootherParams& s, int pre,
                                               int post) {
  LocalSolverParams p;
  p.precision = Precision::float64;
  p.smoother = s.type;
  p.ordering = s.order;
  p.damping = s.damping;
  p.pre_smooth = pre;
  p.post_smooth = post;
  auto solver = make_local_solver(p);
  solver->setup(h.levels());
  return solver;
}

/// Asymptotic defect reduction per V(2,2) cycle, worst macro: the defect propagator I - A V is
/// applied `cycles` times to a random defect, renormalised per macro after each cycle (so that
/// fast rates do not run into round-off), and the mean reduction of the cycles after `warmup`
/// is the rate. This is convergence_factor of test_local_multigrid.cpp without its round-off
/// floor.
inline double rate(const Hierarchy& h, const std::vector<MacroSpec>& specs, const SmootherParams& s,
                   int cycles = 9, int warmup = 4) {
  auto solver = solver_for(h, s, 2, 2);
  const BandedMatrix<double>& A = h.finest();
  const std::size_t nn = A.rows_per_macro();
  Vec d = testing::random_defect(A, specs, 17), c(d.size()), Ac(d.size());
  std::vector<double> log_reduction(A.macros, 0.0);
  const auto normalise = [&](int k) {
    for (int m = 0; m < A.macros; ++m) {
      double s2 = 0;
      for (std::size_t r = m * nn; r < (m + 1) * nn; ++r) s2 += d[r] * d[r];
      const double size = std::sqrt(s2);
      if (k >= warmup) log_reduction[m] += std::log(size);
      for (std::size_t r = m * nn; r < (m + 1) * nn; ++r) d[r] /= size;
    }
  };
  normalise(-1);
  for (int k = 0; k < cycles; ++k) {
    solver->solve(d.data(), c.data());
    cpu::spmv(A, c.data(), Ac.data());
    for (std::size_t r = 0; r < d.size(); ++r) d[r] -= Ac[r];
    normalise(k);
  }
  double worst = 0;
  for (double l : log_reduction) worst = std::max(worst, std::exp(l / (cycles - warmup)));
  return worst;
}

// The two kinds of local matrix: Dirichlet all round, and the 'local' macro with one Dirichlet side
// whose other boundary rows keep the truncated stencil. A rate is the worse of the two.
inline const std::vector<MacroSpec> kRateSpecs = {{1.0, kAllDirichlet}, {1.0, kSouthDirichlet}};
inline constexpr int kLevels[] = {5, 6, 7};

/// rates[s][l]: the rate of smoothers[s] on level kLevels[l] (Galerkin levels 1..L of make(L)),
/// each row printed with its label.
template <class MakeHierarchy>
std::vector<std::vector<double>> rates_by_level(const std::string& label,
                                                const std::vector<SmootherParams>& smoothers,
                                                MakeHierarchy make) {
  std::vector<std::vector<double>> rates(smoothers.size());
  for (int L : kLevels) {
    const Hierarchy h = make(L);
    for (std::size_t s = 0; s < smoothers.size(); ++s)
      rates[s].push_back(rate(h, kRateSpecs, smoothers[s]));
  }
  for (std::size_t s = 0; s < smoothers.size(); ++s)
    std::printf("[ %s ] %-18s L=5..7: %.4f %.4f %.4f\n", label.c_str(),
                describe(smoothers[s]).c_str(), rates[s][0], rates[s][1], rates[s][2]);
  return rates;
}

inline double max_of(const std::vector<double>& v) {
  return *std::max_element(v.begin(), v.end());
}

/// max / min over the levels: 1 for a perfectly level-independent rate.
inline double spread(const std::vector<double>& v) {
  return max_of(v) / *std::min_element(v.begin(), v.end());
}
// ------------------------------------------------------------------------------------------------
// Errors.

#define EXPECT_CONTAINS(message, part) \
  EXPECT_NE(std::string(message).find(part), std::string::npos) << "message: " << (message)

/// The message of the AccelError make_smoother throws for A and p, or "" if none.
template <class T>
std::string smoother_rejection(const BandedMatrix<T>& A, const SmootherParams& p) {
  try {
    cpu::make_smoother(A, p);
  } catch (const AccelError& e) {
    return e.what();
  }
  return "";
}

/// Row (i, j) of macro m set to the given entries of the bands west (3), centre (4), east (5),
/// south (1), north (7), the other bands 0.
template <class T>
void set_row(BandedMatrix<T>& A, int m, int i, int j, T west, T centre, T east, T south, T north) {
  const std::size_t r = i + std::size_t(j) * A.n;
  for (int k = 0; k < kBands; ++k) A.at(k, m, r) = T(0);
  A.at(3, m, r) = west, A.at(4, m, r) = centre, A.at(5, m, r) = east;
  A.at(1, m, r) = south, A.at(7, m, r) = north;
}

inline SmootherParams lex(SmootherType t) {
  return {t, SweepOrder::lexicographic, 1.0};
}
}  // namespace quilt::accel::smoother_tests

namespace quilt::accel::cpu {
// Found by argument-dependent lookup: GoogleTest prints parameters with it instead of their bytes.
inline void PrintTo(const SmootherParams& p, std::ostream* os) {
  *os << quilt::accel::smoother_tests::describe(p);
}
}  // namespace quilt::accel::cpu
