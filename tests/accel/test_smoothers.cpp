// The local smoothers (accel/cpu/smoothers), what holds for every one of them: sweeps equal the
// dense reference of their formula (the variants are listed per family in test_point_smoothers,
// test_line_smoothers and test_ilu_smoother.cpp), every macro of a batch sweeps as alone,
// untouched Dirichlet rows, a symmetric V-cycle,
// the convergence rates they buy the local multigrid on isotropic and convective Q1 operators,
// and the errors the factories raise.

#include <gtest/gtest.h>

#include <utility>

#include "accel/cpu/prefetch.hpp"
#include "accel/stencil_zones.hpp"
#include "q1_test_matrices.hpp"
#include "smoother_test_support.hpp"

namespace quilt::accel::smoother_tests {
namespace {

// ------------------------------------------------------------------------------------------------
// Every sweep equals the dense reference of its formula.

TEST_P(SmootherSweep, MatchesTheDenseReferenceOfItsFormula) {
  // 19: several strips of y-lines (16 floats, 8 doubles wide) in the line smoothers, the last a
  // short one, and register blocks with a rim in their transposes. 35: lines of several blocks
  // of the recurrences (linear_recurrence.hpp: 8 nodes) and a rest.
  for (int n : {5, 6, 19, 35}) {
    expect_matches_reference<double>(GetParam(), n);
    expect_matches_reference<float>(GetParam(), n);
  }
}

// ------------------------------------------------------------------------------------------------
// The Gauss-Seidel, ILU(0) and line sweeps prefetch their streams where a sweep's arrays reach
// the prefetch threshold (accel/cpu/prefetch.hpp): a batch above it must sweep every macro
// bitwise as the macro alone, below it, does.

template <class T>
void expect_prefetched_sweeps_as_not(const SmootherParams& p) {
  const int n = 257;
  const int macros =
      1 + int(cpu::kPrefetchFromBytes / (std::size_t(n) * n * (kBands + 3) * sizeof(T)));
  const BandedMatrix<T> A = random_matrix<T>(macros, n, 700);
  BandedMatrix<T> one(1, n);
  ASSERT_TRUE(cpu::streams_from_memory(A));
  ASSERT_FALSE(cpu::streams_from_memory(one));
  const std::size_t nn = A.rows_per_macro();
  const std::vector<T> b = random_vector<T>(A.rows(), 13);
  const std::vector<T> x0 = random_vector<T>(A.rows(), 14);
  for (SweepDirection direction : kDirections) {
    std::vector<T> x = x0;
    cpu::make_smoother(A, p)->smooth(A, b.data(), x.data(), 1, direction, false);
    const int m = macros - 1;  // the last macro: the prefetches run past the arrays' ends there
    for (int k = 0; k < kBands; ++k)
      std::copy(A.band[k].begin() + m * nn, A.band[k].begin() + (m + 1) * nn, one.band[k].begin());
    std::vector<T> xm(x0.begin() + m * nn, x0.end());
    cpu::make_smoother(one, p)->smooth(one, b.data() + m * nn, xm.data(), 1, direction, false);
    for (std::size_t r = 0; r < nn; ++r)
      ASSERT_EQ(x[m * nn + r], xm[r]) << describe(p) << ", row " << r;
  }
}

TEST(SmootherBatch, PrefetchingSweepsAsWithout) {
  // ILU(0) undamped substitutes into x, damped into its scratch: both paths.
  for (auto [type, damping] : {std::pair{SmootherType::gs, 1.0},
                               {SmootherType::ssor, 0.8},
                               {SmootherType::trigs_x, 0.8},
                               {SmootherType::trigs_y, 0.8},
                               {SmootherType::aditrigs, 0.8},
                               {SmootherType::ilu, 1.0},
                               {SmootherType::ilu, 0.8}}) {
    const SmootherParams p{type, SweepOrder::lexicographic, damping};
    expect_prefetched_sweeps_as_not<float>(p);
    expect_prefetched_sweeps_as_not<double>(p);
  }
}

// ------------------------------------------------------------------------------------------------
// Every smoother shares its scratch (the line buffer, the y-sweep's strips of x and b) between
// the macros of a batch: each macro of a batch of 5 must come out bitwise as it does when swept
// alone (one of them a zoned macro, whose lines read the bands of their zone's first line in
// the line smoothers).

template <class T>
void expect_macros_sweep_as_alone(const SmootherParams& p) {
  const int macros = 5, n = 17;
  BandedMatrix<T> A = random_matrix<T>(macros, n, 900);
  const BandedMatrix<T> laplacian = testing::q1_laplacian(4, {{1.0, testing::kSouthDirichlet}})
                                        .template converted<T>();  // one affine macro
  ASSERT_EQ(laplacian.n, n);
  const std::size_t nn = A.rows_per_macro();
  for (int k = 0; k < kBands; ++k)
    std::copy(laplacian.band[k].begin(), laplacian.band[k].end(), A.band[k].begin() + 2 * nn);
  ASSERT_TRUE(detect_stencil_zones(A).is_zoned(2));
  const std::vector<T> b = random_vector<T>(A.rows(), 11);
  const std::vector<T> x0 = random_vector<T>(A.rows(), 12);
  for (SweepDirection direction : kDirections)
    for (bool x_is_zero : {false, true}) {
      auto batch = cpu::make_smoother(A, p);
      std::vector<T> x = x0;
      batch->smooth(A, b.data(), x.data(), 2, direction, x_is_zero);
      for (int m = 0; m < macros; ++m) {
        BandedMatrix<T> one(1, n);
        for (int k = 0; k < kBands; ++k)
          std::copy(A.band[k].begin() + m * nn, A.band[k].begin() + (m + 1) * nn,
                    one.band[k].begin());
        auto alone = cpu::make_smoother(one, p);
        std::vector<T> xm(x0.begin() + m * nn, x0.begin() + (m + 1) * nn);
        alone->smooth(one, b.data() + m * nn, xm.data(), 2, direction, x_is_zero);
        for (std::size_t r = 0; r < nn; ++r)
          ASSERT_EQ(x[m * nn + r], xm[r])
              << describe(p) << ", x_is_zero " << x_is_zero << ", macro " << m << ", row " << r;
      }
    }
}

TEST(SmootherBatch, EveryMacroOfABatchSweepsAsAlone) {
  std::vector<SmootherParams> variants = all_variants();
  for (SmootherType type : {SmootherType::trigs_x, SmootherType::trigs_y, SmootherType::aditrigs,
                            SmootherType::sor, SmootherType::ssor, SmootherType::ilu})
    for (SweepOrder order : {SweepOrder::lexicographic, SweepOrder::colour})
      if (order == SweepOrder::lexicographic || has_colour_order(type))
        variants.push_back({type, order, type == SmootherType::sor ? 1.3 : 0.8});
  for (const SmootherParams& p : variants) {
    expect_macros_sweep_as_alone<float>(p);
    expect_macros_sweep_as_alone<double>(p);
  }
}

// ------------------------------------------------------------------------------------------------
// Dirichlet rows stay exactly 0.

template <class T>
void expect_dirichlet_rows_stay_zero(const SmootherParams& p) {
  for (int n : {5, 6}) {
    const BandedMatrix<T> A = random_matrix<T>(2, n, 600 + n);
    auto smoother = cpu::make_smoother(A, p);
    std::vector<T> b = random_vector<T>(A.rows(), 9);
    std::vector<T> x0 = random_vector<T>(A.rows(), 10);
    for (int m = 0; m < 2; ++m)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          if (is_dirichlet(m, i, j, n)) {
            const std::size_t r = m * A.rows_per_macro() + i + std::size_t(j) * n;
            b[r] = x0[r] = T(0);
          }
    for (SweepDirection direction : kDirections)
      for (bool x_is_zero : {false, true}) {
        std::vector<T> x = x0;
        smoother->smooth(A, b.data(), x.data(), 2, direction, x_is_zero);
        for (int m = 0; m < 2; ++m)
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
              if (!is_dirichlet(m, i, j, n)) continue;
              const std::size_t r = m * A.rows_per_macro() + i + std::size_t(j) * n;
              ASSERT_EQ(x[r], T(0)) << describe(p) << " n=" << n << " macro " << m << " node (" << i
                                    << ", " << j << ")";
            }
      }
  }
}

TEST(SmootherDirichlet, UnitRowsWithZeroDataStayExactlyZero) {
  for (SmootherParams p : all_variants()) {
    if (p.type == SmootherType::sor) p.damping = 1.3;
    expect_dirichlet_rows_stay_zero<double>(p);
    expect_dirichlet_rows_stay_zero<float>(p);
  }
}

// ------------------------------------------------------------------------------------------------
// The asymmetry of one V-cycle.

double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (std::size_t r = 0; r < a.size(); ++r) s += a[r] * b[r];
  return s;
}

double norm(const Vec& a) {
  return std::sqrt(dot(a, a));
}

/// max over macros of |<V d1, d2> - <d1, V d2>| / (|V d1| |d2|) for one V(pre, post) cycle V
/// (per macro: the macros are independent problems of different scales). Also checks that V
/// keeps the Dirichlet rows at 0.
double asymmetry(const Hierarchy& h, const std::vector<MacroSpec>& specs, const SmootherParams& s,
                 int pre, int post) {
  const auto d1 = testing::random_defect(h.finest(), specs, 21);
  const auto d2 = testing::random_defect(h.finest(), specs, 22);
  Vec v1(d1.size()), v2(d2.size());
  auto solver = solver_for(h, s, pre, post);
  solver->solve(d1.data(), v1.data());
  solver->solve(d2.data(), v2.data());
  for (std::size_t r = 0; r < d1.size(); ++r) {
    if (d1[r] == 0.0) {
      EXPECT_EQ(v1[r], 0.0) << describe(s) << " Dirichlet row " << r;
    }
  }
  const std::size_t nn = h.finest().rows_per_macro();
  const auto block = [nn](const Vec& v, int m) {
    return Vec(v.begin() + m * nn, v.begin() + (m + 1) * nn);
  };
  double worst = 0;
  for (int m = 0; m < h.finest().macros; ++m) {
    const Vec a1 = block(v1, m), b1 = block(d1, m), a2 = block(v2, m), b2 = block(d2, m);
    worst = std::max(worst, std::abs(dot(a1, b2) - dot(b1, a2)) / (norm(a1) * norm(b2)));
  }
  return worst;
}

// ------------------------------------------------------------------------------------------------
// V(nu, nu) is symmetric for symmetric A: forward pre- and backward post-smoothing are adjoint.

TEST(SmootherVCycle, IsSymmetricForSymmetricMatricesWithEverySmoother) {
  // A Laplacian and an anisotropic diffusion (no convection), each on a macro with Dirichlet rows
  // all round and on one with a Dirichlet side only, so the line smoothers see different
  // couplings along x and y, and lines with and without Dirichlet ends.
  const std::vector<MacroSpec> specs = {{1.0, kAllDirichlet}, {1e3, kSouthDirichlet}};
  const Hierarchy laplace = testing::galerkin_hierarchy(1, 5, specs);
  const Hierarchy aniso = testing::galerkin_hierarchy(1, 5, specs, {4.0, 1.0, {}, true});
  std::vector<SmootherParams> variants = all_variants();
  variants.push_back({SmootherType::sor, SweepOrder::lexicographic, 1.3});
  variants.push_back({SmootherType::aditrigs, SweepOrder::colour, 0.8});
  double worst = 0;
  for (const SmootherParams& s : variants)
    for (int nu : {1, 2})
      for (const Hierarchy* h : {&laplace, &aniso}) {
        const double a = asymmetry(*h, specs, s, nu, nu);
        worst = std::max(worst, a);
        EXPECT_LE(a, 1e-12) << describe(s) << " V(" << nu << "," << nu << ") "
                            << (h == &laplace ? "Laplacian" : "anisotropic");
      }
  // The check can fail: pre-smoothing alone is not symmetric.
  const SmootherParams gs{SmootherType::gs, SweepOrder::lexicographic, 1.0};
  const double pre_only = asymmetry(laplace, specs, gs, 2, 0);
  std::printf("[ symmetry ] worst V(nu,nu) relative asymmetry %.2e; gs V(2,0) %.2e\n", worst,
              pre_only);
  EXPECT_GT(pre_only, 1e-6);
}

// ------------------------------------------------------------------------------------------------
// Convergence rates of the local multigrid.

TEST(SmootherConvergence, IsotropicLaplacianEverySmootherButJacobi) {
  std::vector<SmootherParams> smoothers;
  for (const SmootherParams& s : all_variants())
    if (s.type != SmootherType::jacobi && s.type != SmootherType::sor) smoothers.push_back(s);
  smoothers.push_back({SmootherType::sor, SweepOrder::lexicographic, 1.2});
  smoothers.push_back({SmootherType::sor, SweepOrder::colour, 1.2});
  const auto rates = rates_by_level(
      "laplace", smoothers, [](int L) { return testing::galerkin_hierarchy(1, L, kRateSpecs); });
  // Measured (L = 5..7): 0.006 (ilu) .. 0.080 (ssor/colour at L = 7).
  for (std::size_t s = 0; s < smoothers.size(); ++s)
    EXPECT_LE(max_of(rates[s]), 0.1) << describe(smoothers[s]);
}

TEST(SmootherConvergence, RecirculatingConvectionDiffusion) {
  // The "double glazing" field on the unit square, nu = 1e-2, SUPG (mesh Peclet number up to 1.6
  // on L = 5, far more on the coarse Galerkin levels, which keep no streamline diffusion of their
  // own: there point and lexicographic line Gauss-Seidel diverge, measured rates >> 1).
  const auto w = [](double x, double y) {
    return std::array<double, 2>{(2 * y - 1) * (1 - (2 * x - 1) * (2 * x - 1)),
                                 -(2 * x - 1) * (1 - (2 * y - 1) * (2 * y - 1))};
  };
  const OperatorSpec op{1.0, 1e-2, w, true};
  const std::vector<SmootherParams> smoothers = {
      {SmootherType::ilu, SweepOrder::lexicographic, 1.0},
      {SmootherType::aditrigs, SweepOrder::colour, 1.0}};
  const auto rates = rates_by_level("double glazing", smoothers, [&](int L) {
    return testing::galerkin_hierarchy(1, L, kRateSpecs, op);
  });
  // Measured: ilu 0.0072 .. 0.0078, aditrigs/colour 0.050 .. 0.060.
  EXPECT_LE(max_of(rates[0]), 0.05);
  EXPECT_LE(spread(rates[0]), 1.5) << "ilu depends on the level";
  EXPECT_LE(max_of(rates[1]), 0.1);
}

// ------------------------------------------------------------------------------------------------
// Errors.

template <class T>
void expect_zero_diagonal_rejected() {
  const BandedMatrix<T> good = testing::random_bands<T>(2, 5, 700);
  const auto with_zero_diagonal = [&](int i, int j) {
    BandedMatrix<T> A = good;
    A.at(kCentre, 1, i + std::size_t(j) * 5) = T(0);
    return A;
  };
  // The point smoothers divide by every diagonal entry.
  const BandedMatrix<T> inner = with_zero_diagonal(2, 3);
  for (SmootherType t : {SmootherType::jacobi, SmootherType::gs, SmootherType::ssor})
    EXPECT_CONTAINS(smoother_rejection(inner, lex(t)), "macro 1, node (2, 3)");
  EXPECT_CONTAINS(smoother_rejection(inner, {SmootherType::sor, SweepOrder::colour, 1.3}),
                  "macro 1, node (2, 3)");
  // The line and ILU factorisations divide by pivots; at the first node of a line (of the
  // matrix) the pivot is the diagonal entry.
  const BandedMatrix<T> west = with_zero_diagonal(0, 3), south = with_zero_diagonal(3, 0);
  const BandedMatrix<T> corner = with_zero_diagonal(0, 0);
  EXPECT_CONTAINS(smoother_rejection(west, lex(SmootherType::trigs_x)), "macro 1, node (0, 3)");
  EXPECT_CONTAINS(smoother_rejection(west, lex(SmootherType::aditrigs)), "macro 1, node (0, 3)");
  EXPECT_CONTAINS(smoother_rejection(south, lex(SmootherType::trigs_y)), "macro 1, node (3, 0)");
  EXPECT_CONTAINS(smoother_rejection(south, lex(SmootherType::aditrigs)), "macro 1, node (3, 0)");
  EXPECT_CONTAINS(smoother_rejection(corner, lex(SmootherType::ilu)), "macro 1, node (0, 0)");
  // A non-finite diagonal entry is no better.
  BandedMatrix<T> nan = good;
  nan.at(kCentre, 0, 7) = std::numeric_limits<T>::quiet_NaN();
  for (const SmootherParams& p : all_variants())
    EXPECT_CONTAINS(smoother_rejection(nan, p), "macro 0, node (2, 1)") << describe(p);
}

TEST(SmootherErrors, ZeroDiagonalIsRejectedNamingMacroAndNode) {
  expect_zero_diagonal_rejected<double>();
  expect_zero_diagonal_rejected<float>();
}

TEST(SmootherErrors, MakeSmootherRejectsColourForJacobiAndIlu) {
  const BandedMatrix<double> A = random_matrix<double>(1, 5, 704);
  for (SmootherType t : {SmootherType::jacobi, SmootherType::ilu})
    EXPECT_CONTAINS(smoother_rejection(A, {t, SweepOrder::colour, default_damping(t)}), "colour");
  for (const SmootherParams& p : all_variants())
    EXPECT_EQ(smoother_rejection(A, p), "") << describe(p);
}

/// The message of the AccelError make_local_solver throws for p, or "" if none.
std::string solver_rejection(const LocalSolverParams& p) {
  try {
    make_local_solver(p);
  } catch (const AccelError& e) {
    return e.what();
  }
  return "";
}

LocalSolverParams local_params(SmootherType t, SweepOrder o = SweepOrder::lexicographic) {
  LocalSolverParams p;
  p.smoother = t;
  p.ordering = o;
  return p;
}

TEST(SmootherErrors, MakeLocalSolverRejectsBadSmootherSettingsByKey) {
  // Every existing variant is accepted with its default damping (and gs with omega = 1 given).
  for (const SmootherParams& s : all_variants())
    EXPECT_EQ(solver_rejection(local_params(s.type, s.order)), "") << describe(s);
  LocalSolverParams gs = local_params(SmootherType::gs);
  gs.damping = 1.0;
  EXPECT_EQ(solver_rejection(gs), "");

  for (SmootherType t : kAllTypes)
    for (double omega : {0.0, 2.0, -0.5, std::nan("")}) {
      LocalSolverParams p = local_params(t);
      p.damping = omega;
      EXPECT_CONTAINS(solver_rejection(p), "solver.local.damping") << to_string(t) << omega;
    }
  gs.damping = 0.8;
  EXPECT_CONTAINS(solver_rejection(gs), "solver.local.damping");
  EXPECT_CONTAINS(solver_rejection(gs), "gs");
  for (SmootherType t : {SmootherType::jacobi, SmootherType::ilu})
    EXPECT_CONTAINS(solver_rejection(local_params(t, SweepOrder::colour)), "solver.local.ordering");
  // A smoother the cuda target lacks (here: in the lexicographic order) is named whether or not
  // CUDA is built; jacobi and ilu it has in that order (what may stop them is the build or the
  // device, not the smoother).
  for (SmootherType t : kAllTypes) {
    LocalSolverParams p = local_params(t);
    p.target = Target::cuda;
    const bool has = t == SmootherType::jacobi || t == SmootherType::ilu;
    EXPECT_EQ(cuda_has_smoother(t, SweepOrder::lexicographic), has) << to_string(t);
    EXPECT_EQ(solver_rejection(p).find("solver.local.smoother") == std::string::npos, has)
        << to_string(t) << ": " << solver_rejection(p);
  }
  EXPECT_FALSE(cuda_has_smoother(SmootherType::ilu, SweepOrder::colour));
}

// The ordering a user who names none gets: on cuda one the cuda target has, for every smoother,
// and the colour form wherever there is one; on cpu the lexicographic sweeps.
TEST(SmootherErrors, TheNaturalOrderIsOneTheTargetHas) {
  for (SmootherType t : kAllTypes) {
    EXPECT_TRUE(cuda_has_smoother(t, natural_order(t, Target::cuda))) << to_string(t);
    EXPECT_EQ(natural_order(t, Target::cuda) == SweepOrder::colour, has_colour_order(t))
        << to_string(t);
    EXPECT_EQ(natural_order(t, Target::cpu), SweepOrder::lexicographic) << to_string(t);
  }
}

TEST(SmootherErrors, LocalSolverSetupNamesTheLevelAndNode) {
  const std::vector<MacroSpec> specs = {{1.0, kAllDirichlet}, {1.0, kSouthDirichlet}};
  Hierarchy h = testing::galerkin_hierarchy(1, 3, specs);
  h.matrices.back().at(kCentre, 1, 3 + 4 * 9) = 0.0;
  auto solver = make_local_solver(local_params(SmootherType::gs));
  try {
    solver->setup(h.levels());
    ADD_FAILURE() << "setup accepted a zero diagonal";
  } catch (const AccelError& e) {
    EXPECT_CONTAINS(e.what(), "level 2");
    EXPECT_CONTAINS(e.what(), "macro 1, node (3, 4)");
  }
}

TEST(SmootherTypes, ParseAndPrintRoundTrip) {
  for (SmootherType t : kAllTypes) EXPECT_EQ(parse_smoother(to_string(t)), t);
  for (SweepOrder o : {SweepOrder::lexicographic, SweepOrder::colour})
    EXPECT_EQ(parse_sweep_order(to_string(o)), o);
  EXPECT_EQ(to_string(SmootherType::trigs_x), "trigs-x");
  EXPECT_EQ(to_string(SmootherType::aditrigs), "aditrigs");
  EXPECT_THROW(parse_smoother("trigs_x"), AccelError);
  EXPECT_THROW(parse_smoother("ILU"), AccelError);
  EXPECT_THROW(parse_sweep_order("red-black"), AccelError);
  for (SmootherType t : kAllTypes) {
    EXPECT_EQ(default_damping(t), t == SmootherType::jacobi ? 0.7 : 1.0) << to_string(t);
    EXPECT_EQ(has_colour_order(t), t != SmootherType::jacobi && t != SmootherType::ilu);
  }
}

}  // namespace
}  // namespace quilt::accel::smoother_tests
