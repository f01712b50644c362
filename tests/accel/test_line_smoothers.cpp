// The line smoothers (TRIGS along x or y, ADI-TRIGS; accel/cpu/smoothers/line_smoother.hpp):
// their sweeps against the dense reference of their formulas, exact solves of matrices that have
// only the bands of their lines, singular lines named in errors, and their robustness for
// anisotropic operators; the grid transpose that turns y-lines into x-lines.

#include <gtest/gtest.h>

#include "accel/cpu/smoothers/diagonal_check.hpp"
#include "accel/cpu/smoothers/grid_transpose.hpp"
#include "accel/stencil_zones.hpp"
#include "q1_test_matrices.hpp"
#include "smoother_test_support.hpp"

namespace quilt::accel::smoother_tests {
namespace {

// With omega != 1 too: a separate code path (the line's solution is blended with the old values
// instead of copied).
INSTANTIATE_TEST_SUITE_P(
    LineSmoothers, SmootherSweep,
    ::testing::Values(SmootherParams{SmootherType::trigs_x, SweepOrder::lexicographic, 1.0},
                      SmootherParams{SmootherType::trigs_x, SweepOrder::colour, 0.7},
                      SmootherParams{SmootherType::trigs_y, SweepOrder::lexicographic, 0.7},
                      SmootherParams{SmootherType::trigs_y, SweepOrder::colour, 1.0},
                      SmootherParams{SmootherType::aditrigs, SweepOrder::lexicographic, 1.0},
                      SmootherParams{SmootherType::aditrigs, SweepOrder::lexicographic, 0.8},
                      SmootherParams{SmootherType::aditrigs, SweepOrder::colour, 1.0}),
    sweep_test_name);

// ------------------------------------------------------------------------------------------------
// The y-line sweep moves x and b through strips of 8 cache lines' width: on a grid of several
// strips, the last one short, its sweeps must be bitwise the x-line sweeps of the grid-transposed
// operator (same lines, same arithmetic), in both orders and directions.

template <class T>
void expect_y_sweeps_are_transposed_x_sweeps(SweepOrder order, double omega) {
  const int macros = 2, n = 301;  // strips of 64 doubles or 128 floats: 4 or 2, and 45 lines
  const BandedMatrix<T> A = random_matrix<T>(macros, n, 700);
  const BandedMatrix<T> At = cpu::grid_transposed(A);
  const std::vector<T> b = random_vector<T>(A.rows(), 13);
  const std::vector<T> x0 = random_vector<T>(A.rows(), 14);
  std::vector<T> bt(A.rows()), xt0(A.rows()), expected(A.rows());
  cpu::transpose_grid(macros, n, b.data(), bt.data());
  cpu::transpose_grid(macros, n, x0.data(), xt0.data());
  for (SweepDirection direction : kDirections) {
    std::vector<T> x = x0, xt = xt0;
    cpu::make_smoother(A, {SmootherType::trigs_y, order, omega})
        ->smooth(A, b.data(), x.data(), 2, direction, false);
    cpu::make_smoother(At, {SmootherType::trigs_x, order, omega})
        ->smooth(At, bt.data(), xt.data(), 2, direction, false);
    cpu::transpose_grid(macros, n, xt.data(), expected.data());
    for (std::size_t r = 0; r < x.size(); ++r)
      ASSERT_EQ(x[r], expected[r])
          << describe({SmootherType::trigs_y, order, omega}) << ", "
          << (direction == SweepDirection::forward ? "forward" : "backward") << ", "
          << cpu::describe_row(n, r);
  }
}

TEST(SmootherLines, YLineSweepsAreTheTransposedGridsXLineSweeps) {
  for (SweepOrder order : {SweepOrder::lexicographic, SweepOrder::colour})
    for (double omega : {1.0, 0.8}) {
      expect_y_sweeps_are_transposed_x_sweeps<float>(order, omega);
      expect_y_sweeps_are_transposed_x_sweeps<double>(order, omega);
    }
}

// ------------------------------------------------------------------------------------------------
// ADI-TRIGS must be bitwise the x-line sweep followed by the y-line sweep of the separate
// smoothers (backward: y then x), with a zoned macro in a batch of 5, grids of a few and of many
// strips, the rows of x at every offset in their cache lines (n odd, and x shifted by `offset`
// elements), several steps in both directions, and a zero start.

template <class T>
void expect_adi_is_x_then_y_sweeps(int level, double omega, int offset, bool x_is_zero) {
  const int macros = 5, steps = 3, n = nodes_per_side(level);
  BandedMatrix<T> A = random_matrix<T>(macros, n, 910 + n);
  const std::size_t nn = A.rows_per_macro();
  const BandedMatrix<T> laplacian =
      testing::q1_laplacian(level, {{1.0, testing::kSouthDirichlet}}).template converted<T>();
  for (int k = 0; k < kBands; ++k)
    std::copy(laplacian.band[k].begin(), laplacian.band[k].end(), A.band[k].begin() + 3 * nn);
  ASSERT_TRUE(detect_stencil_zones(A).is_zoned(3));
  const std::vector<T> b = random_vector<T>(A.rows(), 21);
  const std::vector<T> x0 = random_vector<T>(A.rows(), 22);
  const SmootherParams adi{SmootherType::aditrigs, SweepOrder::lexicographic, omega};
  for (SweepDirection direction : kDirections) {
    std::vector<T> storage(A.rows() + offset);
    T* x = storage.data() + offset;
    std::copy(x0.begin(), x0.end(), x);
    cpu::make_smoother(A, adi)->smooth(A, b.data(), x, steps, direction, x_is_zero);
    auto along_x = cpu::make_smoother(A, {SmootherType::trigs_x, SweepOrder::lexicographic, omega});
    auto along_y = cpu::make_smoother(A, {SmootherType::trigs_y, SweepOrder::lexicographic, omega});
    std::vector<T> expected = x0;
    if (x_is_zero) std::fill(expected.begin(), expected.end(), T(0));
    for (int s = 0; s < steps; ++s) {
      auto& first = direction == SweepDirection::forward ? along_x : along_y;
      auto& second = direction == SweepDirection::forward ? along_y : along_x;
      first->smooth(A, b.data(), expected.data(), 1, direction, false);
      second->smooth(A, b.data(), expected.data(), 1, direction, false);
    }
    for (std::size_t r = 0; r < expected.size(); ++r)
      ASSERT_EQ(x[r], expected[r])
          << describe(adi) << ", n " << n << ", offset " << offset
          << (direction == SweepDirection::forward ? ", forward, " : ", backward, ")
          << cpu::describe_row(n, r);
  }
}

TEST(SmootherLines, AlternatingLinesAreTheXThenTheYLineSweepsBitwise) {
  for (int level : {4, 7})  // n = 17 and 129
    for (double omega : {1.0, 0.8})
      for (int offset : {0, 1, 3}) {
        expect_adi_is_x_then_y_sweeps<float>(level, omega, offset, false);
        expect_adi_is_x_then_y_sweeps<double>(level, omega, offset, false);
      }
  expect_adi_is_x_then_y_sweeps<float>(7, 1.0, 0, true);
  expect_adi_is_x_then_y_sweeps<double>(7, 0.8, 5, true);
}

// ------------------------------------------------------------------------------------------------
// Line smoothers solve exactly when the matrix has only the bands of their lines.

/// |b - A x| / |b| after one sweep (omega = 1) of p from a random x, all directions and orders.
template <class T>
double worst_residual_after_one_sweep(const BandedMatrix<T>& A, SmootherType type) {
  double worst = 0;
  for (SweepOrder order : {SweepOrder::lexicographic, SweepOrder::colour})
    for (SweepDirection direction : kDirections) {
      auto smoother = cpu::make_smoother(A, {type, order, 1.0});
      const std::vector<T> b = random_vector<T>(A.rows(), 5);
      std::vector<T> x = random_vector<T>(A.rows(), 6);
      smoother->smooth(A, b.data(), x.data(), 1, direction, false);
      worst = std::max(worst, relative_residual(A, b, x));
    }
  return worst;
}

template <class T>
void expect_exact_line_solves() {
  const double tol = std::is_same_v<T, float> ? 1e-6 : 1e-14;
  for (int n : {5, 6}) {
    const BandedMatrix<T> x_tri = only_bands(random_matrix<T>(2, n, 400 + n), {3, 4, 5});
    const BandedMatrix<T> y_tri = only_bands(random_matrix<T>(2, n, 500 + n), {1, 4, 7});
    EXPECT_LE(worst_residual_after_one_sweep(x_tri, SmootherType::trigs_x), tol) << n;
    EXPECT_LE(worst_residual_after_one_sweep(y_tri, SmootherType::trigs_y), tol) << n;
    EXPECT_LE(worst_residual_after_one_sweep(x_tri, SmootherType::aditrigs), tol) << n;
    EXPECT_LE(worst_residual_after_one_sweep(y_tri, SmootherType::aditrigs), tol) << n;
    // The other direction's lines do not solve it: the lines are the ones named.
    EXPECT_GT(worst_residual_after_one_sweep(y_tri, SmootherType::trigs_x), 1e-2) << n;
    EXPECT_GT(worst_residual_after_one_sweep(x_tri, SmootherType::trigs_y), 1e-2) << n;
  }
}

TEST(SmootherLines, SolveTridiagonalMatricesAlongTheirLinesExactly) {
  expect_exact_line_solves<double>();
  expect_exact_line_solves<float>();
}

// ------------------------------------------------------------------------------------------------
// Errors.

template <class T>
void expect_singular_lines_rejected() {
  // Nodes (2, 3) and (3, 3) of macro 1 form the block [1 1; 1 1] of their x-line (the line
  // elimination reaches it with no fill from the left): the pivot of (3, 3) is exactly 0.
  BandedMatrix<T> x_singular = testing::random_bands<T>(2, 5, 701);
  set_row<T>(x_singular, 1, 2, 3, 0, 1, 1, 0.5, 0.5);
  set_row<T>(x_singular, 1, 3, 3, 1, 1, 0.5, 0.5, 0.5);
  EXPECT_CONTAINS(smoother_rejection(x_singular, lex(SmootherType::trigs_x)),
                  "macro 1, node (3, 3)");
  EXPECT_CONTAINS(smoother_rejection(x_singular, {SmootherType::aditrigs, SweepOrder::colour, 1.0}),
                  "macro 1, node (3, 3)");
  EXPECT_EQ(smoother_rejection(x_singular, lex(SmootherType::trigs_y)), "")
      << "the y-lines of this matrix are regular";
  // The same along the y-line i = 1: nodes (1, 2) and (1, 3).
  BandedMatrix<T> y_singular = testing::random_bands<T>(2, 5, 702);
  set_row<T>(y_singular, 1, 1, 2, 0.5, 1, 0.5, 0, 1);
  set_row<T>(y_singular, 1, 1, 3, 0.5, 1, 0.5, 1, 0.5);
  EXPECT_CONTAINS(smoother_rejection(y_singular, lex(SmootherType::trigs_y)),
                  "macro 1, node (1, 3)");
  EXPECT_CONTAINS(smoother_rejection(y_singular, lex(SmootherType::aditrigs)),
                  "macro 1, node (1, 3)");
  EXPECT_EQ(smoother_rejection(y_singular, lex(SmootherType::trigs_x)), "")
      << "the x-lines of this matrix are regular";
}

TEST(SmootherErrors, SingularLineIsRejectedNamingMacroAndNode) {
  expect_singular_lines_rejected<double>();
  expect_singular_lines_rejected<float>();
}

// ------------------------------------------------------------------------------------------------
// Convergence rates of the local multigrid.

// Aspect = hx / hy of the grid cells: for aspect > 1 the y-couplings (~ aspect) dominate the
// x-couplings (~ 1 / aspect), and the y-lines hold the strong couplings.
class SmootherAnisotropic : public ::testing::TestWithParam<double> {};

TEST_P(SmootherAnisotropic, LineSmoothersAlongTheStrongCouplingAreRobust) {
  const double aspect = GetParam();
  const bool strong_y = aspect > 1;
  const SmootherType along = strong_y ? SmootherType::trigs_y : SmootherType::trigs_x;
  const SmootherType across = strong_y ? SmootherType::trigs_x : SmootherType::trigs_y;
  const std::vector<SmootherParams> robust = {
      {SmootherType::aditrigs, SweepOrder::lexicographic, 1.0},
      {SmootherType::aditrigs, SweepOrder::colour, 1.0},
      {along, SweepOrder::lexicographic, 1.0},
      {along, SweepOrder::colour, 1.0}};
  char label[32];
  std::snprintf(label, sizeof label, "aspect %g", aspect);
  const OperatorSpec op{aspect, 1.0, {}, true};
  const auto rates = rates_by_level(
      label, robust, [&](int L) { return testing::galerkin_hierarchy(1, L, kRateSpecs, op); });
  // Measured: <= 0.045 for every aspect and level. For aspect 10 and 1/10 the rate still grows
  // from L = 5 (0.008) to L = 7 (0.034; L = 8: 0.040) while the grid resolves the anisotropy;
  // from aspect 100 on it is flat (spread <= 1.03).
  for (std::size_t s = 0; s < robust.size(); ++s) {
    EXPECT_LE(max_of(rates[s]), 0.1) << describe(robust[s]);
    if (aspect >= 100 || aspect <= 0.01) {
      EXPECT_LE(spread(rates[s]), 1.5) << describe(robust[s]) << " depends on the level";
    }
  }
  // Point Gauss-Seidel and the lines across the strong coupling are not robust (measured >= 0.81
  // at L = 6): what makes the difference is the line direction.
  const Hierarchy h = testing::galerkin_hierarchy(1, 6, kRateSpecs, op);
  for (SmootherParams weak : {SmootherParams{SmootherType::gs, SweepOrder::lexicographic, 1.0},
                              SmootherParams{across, SweepOrder::lexicographic, 1.0}}) {
    const double rho = rate(h, kRateSpecs, weak);
    std::printf("[ %s ] %-18s L=6: %.4f\n", label, describe(weak).c_str(), rho);
    EXPECT_GT(rho, 0.5) << describe(weak);
  }
}

INSTANTIATE_TEST_SUITE_P(Aspects, SmootherAnisotropic,
                         ::testing::Values(10.0, 100.0, 1000.0, 0.1, 0.01, 0.001),
                         [](const auto& info) {
                           // Formatted, not concatenated: GCC 12 misreads "x" + std::string here
                           // as an overlapping copy (-Wrestrict) once it is inlined.
                           const bool strong_y = info.param > 1;
                           char name[16];
                           std::snprintf(
                               name, sizeof name, "%c%d", strong_y ? 'x' : 'y',
                               static_cast<int>(strong_y ? info.param : 1 / info.param + 0.5));
                           return std::string(name);
                         });

// ------------------------------------------------------------------------------------------------
// The grid transpose moves register blocks and the rim element by element: every grid size
// (blocks only, rim only, both) must move each node of each macro to its mirror node.

template <class T>
void expect_grid_transpose(int macros, int n) {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  std::vector<T> in(macros * nn), out(macros * nn, T(-1)), back(macros * nn);
  for (std::size_t r = 0; r < in.size(); ++r) in[r] = static_cast<T>(r) + T(0.25);
  cpu::transpose_grid(macros, n, in.data(), out.data());
  for (int m = 0; m < macros; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(out[m * nn + j + static_cast<std::size_t>(i) * n],
                  in[m * nn + i + static_cast<std::size_t>(j) * n])
            << "n " << n << ", macro " << m << ", node (" << i << ", " << j << ")";
  cpu::transpose_grid(macros, n, out.data(), back.data());
  EXPECT_EQ(back, in) << "n " << n;
}

TEST(GridTranspose, MovesEveryNodeToItsMirrorForEveryGridSize) {
  for (int n = 1; n <= 41; ++n) {
    expect_grid_transpose<float>(3, n);
    expect_grid_transpose<double>(3, n);
  }
  expect_grid_transpose<float>(2, 129);
  expect_grid_transpose<double>(2, 129);
}

// The y-line sweeps move strips of a grid (n rows, a strip's width of columns) into lines and
// back: tiles of every shape, inside larger arrays with their own row strides.
template <class T>
void expect_tile_transpose(int rows, int cols, std::size_t in_stride) {
  const std::size_t out_stride = rows + 5;
  std::vector<T> in(rows * in_stride), out(cols * out_stride, T(-1));
  for (std::size_t r = 0; r < in.size(); ++r) in[r] = static_cast<T>(r) + T(0.5);
  cpu::transpose_tile(in.data(), in_stride, out.data(), out_stride, rows, cols);
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < static_cast<int>(out_stride); ++r) {
      const T expected = r < rows ? in[r * in_stride + c] : T(-1);  // past the tile: untouched
      ASSERT_EQ(out[c * out_stride + r], expected)
          << rows << " x " << cols << ", row " << r << ", column " << c;
    }
}

TEST(GridTranspose, MovesTilesOfEveryShapeBetweenStrides) {
  for (int rows = 1; rows <= 19; ++rows)
    for (int cols : {1, 3, 8, 16, 17}) {
      expect_tile_transpose<float>(rows, cols, cols + 3);
      expect_tile_transpose<double>(rows, cols, cols + 3);
      expect_tile_transpose<float>(cols, rows, rows + 3);
      expect_tile_transpose<double>(cols, rows, rows + 3);
    }
  // Narrow tiles of rows a page or more apart, which transpose_tile prefetches rows ahead, with
  // and without rows past the prefetch distance.
  for (int rows : {5, 33, 70})
    for (int cols : {8, 16, 17, 64}) {
      expect_tile_transpose<float>(rows, cols, 1030);
      expect_tile_transpose<double>(rows, cols, 515);
    }
}

}  // namespace
}  // namespace quilt::accel::smoother_tests
