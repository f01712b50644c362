// The cpu local multigrid on local Q1 Laplacians, and the factory of the local layer.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/local_multigrid.hpp"
#include "accel/local_solver.hpp"
#include "q1_test_matrices.hpp"

namespace quilt::accel {
namespace {

using testing::DirichletSides;
using testing::Hierarchy;
using testing::kAllDirichlet;
using testing::kSouthDirichlet;
using testing::MacroSpec;

#define EXPECT_THAT_KEY(message, key) \
  EXPECT_NE(std::string(message).find(key), std::string::npos) << "message: " << (message)

LocalSolverParams params(Precision p, int max_cycles = 1, double digits = 0.0) {
  LocalSolverParams q;
  q.precision = p;
  q.max_cycles = max_cycles;
  q.digits = digits;
  return q;
}

std::unique_ptr<LocalSolver> solver_for(const Hierarchy& h, const LocalSolverParams& p) {
  auto s = make_local_solver(p);
  s->setup(h.levels());
  return s;
}

/// Per macro |d - A c| / |d|, in double.
std::vector<double> reductions(const BandedMatrix<double>& A, const std::vector<double>& d,
                               const std::vector<double>& c) {
  std::vector<double> r(A.rows());
  cpu::defect(A, d.data(), c.data(), r.data());
  std::vector<double> out(A.macros);
  const std::size_t nn = A.rows_per_macro();
  for (int m = 0; m < A.macros; ++m) {
    double num = 0, den = 0;
    for (std::size_t i = m * nn; i < (m + 1) * nn; ++i) num += r[i] * r[i], den += d[i] * d[i];
    out[m] = std::sqrt(num / den);
  }
  return out;
}

/// Asymptotic defect reduction per V-cycle: (|d_c2| / |d_c1|)^(1 / (c2 - c1)), worst macro.
double convergence_factor(const Hierarchy& h, const std::vector<MacroSpec>& specs, int c1, int c2) {
  const auto d = testing::random_defect(h.finest(), specs, 17);
  std::vector<double> c(d.size());
  std::vector<double> r1(h.finest().macros, 1.0), r2;
  for (int cycles : {c1, c2}) {
    if (cycles == 0) continue;
    solver_for(h, params(Precision::float64, cycles))->solve(d.data(), c.data());
    (cycles == c1 ? r1 : r2) = reductions(h.finest(), d, c);
  }
  double worst = 0;
  for (std::size_t m = 0; m < r1.size(); ++m)
    worst = std::max(worst, std::pow(r2[m] / r1[m], 1.0 / (c2 - c1)));
  return worst;
}

// The two kinds of local matrix: Dirichlet all round (a macro inside a Dirichlet boundary), and a
// macro with one Dirichlet side whose other boundary rows keep the truncated stencil. The coarse
// levels are Galerkin products (see accel/cpu/galerkin.hpp for why).
struct Case {
  const char* name;
  DirichletSides sides;
};
class Convergence : public ::testing::TestWithParam<Case> {};

TEST_P(Convergence, FactorPerVCycleIsBoundedAndLevelIndependent) {
  const std::vector<MacroSpec> specs = {{1.0, GetParam().sides}, {250.0, GetParam().sides}};
  std::vector<double> factors;
  for (int L = 4; L <= 8; ++L) {
    const Hierarchy h = testing::galerkin_hierarchy(1, L, specs);
    const double first = convergence_factor(h, specs, 0, 1);
    const double rho = convergence_factor(h, specs, 3, 7);
    std::printf("[ %s ] L=%d first cycle %.4f, asymptotic %.4f\n", GetParam().name, L, first, rho);
    EXPECT_LE(first, 0.01) << "L=" << L;
    factors.push_back(rho);
  }
  // Measured with the default V(1,1) ADI-TRIGS: first cycle 0.005..0.0075, asymptotic 0.024
  // (L=4), 0.029, 0.031, 0.0327, 0.0330 (L=8) in both cases; the factor saturates instead of
  // growing with the level.
  for (double rho : factors) EXPECT_LE(rho, 0.05);
  EXPECT_LE(factors.back(), 1.1 * factors[factors.size() - 2]) << "the factor grows with L";
}

INSTANTIATE_TEST_SUITE_P(LocalMatrices, Convergence,
                         ::testing::Values(Case{"dirichlet", kAllDirichlet},
                                           Case{"local", kSouthDirichlet}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(LocalMultigrid, FloatAndDoubleAgreeAfterOneCycle) {
  const std::vector<MacroSpec> specs = {{1.0, kSouthDirichlet}, {1e3, kAllDirichlet}};
  const Hierarchy h = testing::galerkin_hierarchy(2, 7, specs);
  const auto d = testing::random_defect(h.finest(), specs, 5);
  std::vector<double> cd(d.size()), cf(d.size());
  solver_for(h, params(Precision::float64))->solve(d.data(), cd.data());
  solver_for(h, params(Precision::float32))->solve(d.data(), cf.data());
  const std::size_t nn = h.finest().rows_per_macro();
  for (int m = 0; m < 2; ++m) {
    double diff = 0, norm = 0;
    for (std::size_t r = m * nn; r < (m + 1) * nn; ++r)
      diff += (cf[r] - cd[r]) * (cf[r] - cd[r]), norm += cd[r] * cd[r];
    std::printf("[ float-double ] macro %d relative difference %.2e\n", m, std::sqrt(diff / norm));
    EXPECT_LE(std::sqrt(diff / norm), 1e-6) << "macro " << m;
  }
}

TEST(LocalMultigrid, DigitsModeGainsTheDigitsInEveryMacro) {
  const std::vector<MacroSpec> specs = {{1.0, kSouthDirichlet},
                                        {1e-3, kAllDirichlet},
                                        {1e4, DirichletSides{false, true, true, false}}};
  const Hierarchy h = testing::galerkin_hierarchy(1, 7, specs);
  const auto d = testing::random_defect(h.finest(), specs, 9);
  std::vector<double> c(d.size());
  for (auto [precision, digits] : {std::pair{Precision::float64, 8.0}, {Precision::float32, 5.0}}) {
    auto s = solver_for(h, params(precision, 30, digits));
    s->solve(d.data(), c.data());
    const LocalSolveStats st = s->last_stats();
    const double target = std::pow(10.0, -digits);
    EXPECT_LE(st.worst_reduction, target);
    EXPECT_GT(st.worst_reduction, 0.0);
    // ~1.3 digits per cycle: 8 digits in 6, 5 digits in 4.
    EXPECT_GE(st.cycles, 3);
    EXPECT_LE(st.cycles, precision == Precision::float64 ? 8 : 6);
    const auto red = reductions(h.finest(), d, c);
    for (std::size_t m = 0; m < red.size(); ++m) EXPECT_LE(red[m], 2 * target) << "macro " << m;
    // One cycle fewer must not have been enough, or the loop ran too long.
    auto fewer = solver_for(h, params(precision, st.cycles - 1, digits));
    fewer->solve(d.data(), c.data());
    EXPECT_GT(fewer->last_stats().worst_reduction, target);
  }
}

TEST(LocalMultigrid, FixedCyclesModeRunsMaxCycles) {
  const std::vector<MacroSpec> specs = {{1.0, kSouthDirichlet}};
  const Hierarchy h = testing::galerkin_hierarchy(1, 5, specs);
  const auto d = testing::random_defect(h.finest(), specs, 1);
  std::vector<double> c(d.size());
  auto s = solver_for(h, params(Precision::float64, 3));
  s->solve(d.data(), c.data());
  EXPECT_EQ(s->last_stats().cycles, 3);
  EXPECT_EQ(s->last_stats().worst_reduction, 0.0);
}

class Precisions : public ::testing::TestWithParam<Precision> {};

TEST_P(Precisions, CorrectionIsExactlyZeroAtDirichletRows) {
  // Scaled stencils (|-s/3| > 1) make the coarse LU pivot across the unit rows.
  const std::vector<MacroSpec> specs = {{1e3, kAllDirichlet},
                                        {1e3, kSouthDirichlet},
                                        {0.01, DirichletSides{false, true, false, true}}};
  const Hierarchy h = testing::galerkin_hierarchy(2, 6, specs);
  const auto d = testing::random_defect(h.finest(), specs, 4);
  std::vector<double> c(d.size(), 1.0);
  auto s = solver_for(h, params(GetParam(), 3));
  s->solve(d.data(), c.data());
  const BandedMatrix<double>& A = h.finest();
  std::size_t dirichlet = 0;
  for (int m = 0; m < A.macros; ++m)
    for (int j = 0; j < A.n; ++j)
      for (int i = 0; i < A.n; ++i) {
        const std::size_t r = m * A.rows_per_macro() + i + std::size_t(j) * A.n;
        if (testing::on_dirichlet_side(specs[m], i, j, A.n)) {
          ++dirichlet;
          ASSERT_EQ(c[r], 0.0) << "macro " << m << " (" << i << ", " << j << ")";
        } else {
          ASSERT_NE(c[r], 0.0);
        }
      }
  EXPECT_EQ(dirichlet, 4u * 64 + 65 + 2 * 65);
}

TEST_P(Precisions, MacrosOfABatchAreSolvedIndependently) {
  const std::vector<MacroSpec> specs = {{1e-3, kAllDirichlet},
                                        {1.0, kSouthDirichlet},
                                        {1e4, DirichletSides{true, true, false, false}}};
  const Hierarchy h = testing::galerkin_hierarchy(1, 5, specs);
  const auto d = testing::random_defect(h.finest(), specs, 8);
  std::vector<double> batch(d.size());
  solver_for(h, params(GetParam(), 2))->solve(d.data(), batch.data());
  const std::size_t nn = h.finest().rows_per_macro();
  for (int m = 0; m < 3; ++m) {
    const Hierarchy one = testing::galerkin_hierarchy(1, 5, {specs[m]});
    std::vector<double> alone(nn);
    solver_for(one, params(GetParam(), 2))->solve(d.data() + m * nn, alone.data());
    for (std::size_t r = 0; r < nn; ++r) ASSERT_EQ(batch[m * nn + r], alone[r]) << m << " " << r;
  }
  // The same reduction whatever the scale of a macro's matrix.
  const auto red = reductions(h.finest(), d, batch);
  for (double r : red) EXPECT_LE(r, 2e-3);
}

TEST_P(Precisions, RepeatedSolvesGiveTheSameCorrection) {
  // Odd smoothing counts leave the iterate in the other Jacobi buffer; nothing may carry over.
  LocalSolverParams p = params(GetParam(), 2);
  p.pre_smooth = 3;
  p.post_smooth = 1;
  const std::vector<MacroSpec> specs = {{1.0, kSouthDirichlet}};
  const Hierarchy h = testing::galerkin_hierarchy(1, 5, specs);
  const auto d1 = testing::random_defect(h.finest(), specs, 1);
  const auto d2 = testing::random_defect(h.finest(), specs, 2);
  std::vector<double> a(d1.size()), b(d1.size()), c(d1.size());
  auto s = solver_for(h, p);
  s->solve(d1.data(), a.data());
  s->solve(d2.data(), b.data());
  s->solve(d1.data(), c.data());
  EXPECT_EQ(a, c);
  EXPECT_NE(a, b);
}

TEST_P(Precisions, SolvesInPlaceAsIntoAnotherArray) {
  // solves_in_place: the correction may overwrite its defect, alone, in pairs, and in the
  // digits mode (whose pair is two solves).
  const std::vector<MacroSpec> specs = {{1.0, kSouthDirichlet}, {2.0, kAllDirichlet}};
  const Hierarchy h = testing::galerkin_hierarchy(1, 5, specs);
  const auto d0 = testing::random_defect(h.finest(), specs, 3);
  const auto d1 = testing::random_defect(h.finest(), specs, 4);
  for (double digits : {0.0, 4.0}) {
    auto s = solver_for(h, params(GetParam(), digits > 0.0 ? 10 : 2, digits));
    ASSERT_TRUE(s->solves_in_place());
    std::vector<double> c0(d0.size()), c1(d0.size());
    s->solve(d0.data(), c0.data());
    std::vector<double> v0 = d0;
    s->solve(v0.data(), v0.data());
    EXPECT_EQ(v0, c0) << "digits " << digits;
    s->solve_pair(d0.data(), d1.data(), c0.data(), c1.data());
    std::vector<double> w0 = d0, w1 = d1;
    s->solve_pair(w0.data(), w1.data(), w0.data(), w1.data());
    EXPECT_EQ(w0, c0) << "digits " << digits;
    EXPECT_EQ(w1, c1) << "digits " << digits;
    EXPECT_NE(w0, d0);
  }
}

TEST_P(Precisions, SolversSharingTheirWorkSolveAsAlone) {
  // The local solvers of two global levels in one set of vectors (share_work): the finer one on
  // levels 1..5, the coarser on 1..4 with other matrices. Their solves, alternated, alone and in
  // pairs (lane 1 first shaped by the coarser one), are bitwise those of solvers of their own;
  // nothing a solve leaves in the vectors may reach the other's next solve.
  const std::vector<MacroSpec> fine_specs = {{1.0, kSouthDirichlet}, {2.0, kAllDirichlet}};
  const std::vector<MacroSpec> coarse_specs = {{3.0, kAllDirichlet}, {0.5, kSouthDirichlet}};
  const Hierarchy hf = testing::galerkin_hierarchy(1, 5, fine_specs);
  const Hierarchy hc = testing::galerkin_hierarchy(1, 4, coarse_specs);
  const auto df0 = testing::random_defect(hf.finest(), fine_specs, 5);
  const auto df1 = testing::random_defect(hf.finest(), fine_specs, 6);
  const auto dc0 = testing::random_defect(hc.finest(), coarse_specs, 7);
  const auto dc1 = testing::random_defect(hc.finest(), coarse_specs, 8);
  for (SmootherType smoother : {SmootherType::jacobi, SmootherType::aditrigs, SmootherType::gs}) {
    LocalSolverParams p = params(GetParam(), 2);
    p.smoother = smoother;
    p.pre_smooth = 3;  // odd: Jacobi's last sweep reads its second iterate, the lent defect
    p.post_smooth = 1;
    p.damping = smoother == SmootherType::gs ? 1.0 : 0.7;
    auto fine = solver_for(hf, p), alone = solver_for(hc, p);
    auto coarse = make_local_solver(p);
    coarse->share_work(*fine);
    coarse->setup(hc.levels());
    std::vector<double> a0(df0.size()), a1(df0.size()), b1(df0.size());
    std::vector<double> c0(dc0.size()), c1(dc0.size()), e0(dc0.size()), e1(dc0.size());
    const auto name = to_string(smoother);
    coarse->solve_pair(dc0.data(), dc1.data(), c0.data(), c1.data());
    alone->solve_pair(dc0.data(), dc1.data(), e0.data(), e1.data());
    EXPECT_EQ(c0, e0) << name;
    EXPECT_EQ(c1, e1) << name;
    fine->solve_pair(df0.data(), df1.data(), a0.data(), a1.data());
    coarse->solve(dc1.data(), c1.data());
    alone->solve(dc1.data(), e1.data());
    EXPECT_EQ(c1, e1) << name;
    fine->solve(df1.data(), b1.data());
    auto fine_alone = solver_for(hf, p);
    std::vector<double> f0(df0.size()), f1(df0.size());
    fine_alone->solve_pair(df0.data(), df1.data(), f0.data(), f1.data());
    EXPECT_EQ(a0, f0) << name;
    EXPECT_EQ(a1, f1) << name;
    fine_alone->solve(df1.data(), f1.data());
    EXPECT_EQ(b1, f1) << name;
    EXPECT_NE(a1, std::vector<double>(a1.size(), 0.0)) << name;
  }
}

TEST(LocalMultigrid, SharedWorkRefusesOtherSizesAndALateShare) {
  // A solver on other macros cannot take the vectors it shares (which shows that it does share
  // them), and a solver already set up keeps its own.
  const Hierarchy two =
      testing::galerkin_hierarchy(1, 4, {{1.0, kAllDirichlet}, {1.0, kAllDirichlet}});
  const Hierarchy one = testing::galerkin_hierarchy(1, 3, {{1.0, kAllDirichlet}});
  const LocalSolverParams p = params(Precision::float32);
  auto fine = solver_for(two, p);
  auto coarse = make_local_solver(p);
  coarse->share_work(*fine);
  try {
    coarse->setup(one.levels());
    ADD_FAILURE() << "setup on other sizes than the shared vectors' did not throw";
  } catch (const AccelError& e) {
    EXPECT_THAT_KEY(e.what(), "shared");
  }
  auto late = solver_for(one, p);
  EXPECT_THROW(late->share_work(*fine), AccelError);
  // Another precision shares nothing: its set-up makes its own vectors.
  auto other = make_local_solver(params(Precision::float64));
  other->share_work(*fine);
  EXPECT_NO_THROW(other->setup(one.levels()));
}
TEST_P(Precisions, ZeroDefectGivesZeroCorrection) {
  const std::vector<MacroSpec> specs = {{1.0, kSouthDirichlet}, {2.0, kAllDirichlet}};
  const Hierarchy h = testing::galerkin_hierarchy(1, 4, specs);
  const std::vector<double> d(h.finest().rows(), 0.0);
  std::vector<double> c(d.size(), 5.0);
  auto s = solver_for(h, params(GetParam(), 4, 6.0));
  s->solve(d.data(), c.data());
  for (double v : c) ASSERT_EQ(v, 0.0);
  EXPECT_EQ(s->last_stats().cycles, 1);
  EXPECT_EQ(s->last_stats().worst_reduction, 0.0);
}

TEST_P(Precisions, OneLevelIsADirectSolve) {
  const std::vector<MacroSpec> specs = {{1.0, kSouthDirichlet}, {1e3, kAllDirichlet}};
  const Hierarchy h = testing::galerkin_hierarchy(3, 3, specs);
  auto d = testing::random_defect(h.finest(), specs, 3);
  d[0] = 0.5;  // a Dirichlet row with a defect: the solve must not drop it
  std::vector<double> c(d.size());
  solver_for(h, params(GetParam()))->solve(d.data(), c.data());
  for (double r : reductions(h.finest(), d, c))
    EXPECT_LE(r, GetParam() == Precision::float32 ? 1e-4 : 1e-12);
}

TEST_P(Precisions, OtherCycleShapesConverge) {
  const std::vector<MacroSpec> specs = {{1.0, kSouthDirichlet}};
  const Hierarchy h = testing::galerkin_hierarchy(1, 6, specs);
  const auto d = testing::random_defect(h.finest(), specs, 6);
  std::vector<double> c(d.size());
  for (auto [pre, post, bound] : {std::tuple{0, 2, 0.3}, {2, 0, 0.4}, {1, 1, 0.3}, {0, 0, 1.0}}) {
    LocalSolverParams p = params(GetParam(), 3);
    p.pre_smooth = pre;
    p.post_smooth = post;
    p.damping = 0.6;
    solver_for(h, p)->solve(d.data(), c.data());
    // Three cycles: the per-cycle factor is the cube root of the reduction.
    const double rho = std::cbrt(reductions(h.finest(), d, c)[0]);
    std::printf("[ V(%d,%d) ] factor %.3f\n", pre, post, rho);
    if (pre + post > 0) {
      EXPECT_LE(rho, bound) << "V(" << pre << "," << post << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, Precisions, ::testing::Values(Precision::float64, Precision::float32),
                         [](const auto& info) { return to_string(info.param); });

TEST(LocalMultigrid, FindsTheDirichletRowsOfEveryLevel) {
  const std::vector<MacroSpec> specs = {{1.0, kSouthDirichlet}, {3.0, kAllDirichlet}};
  const Hierarchy h = testing::galerkin_hierarchy(1, 4, specs);
  CpuLocalMultigrid<float> s(LocalSolverParams{});
  s.setup(h.levels());
  for (int k = 0; k < 4; ++k) {
    const int n = nodes_per_side(k + 1);
    EXPECT_EQ(s.dirichlet_rows(k).size(), std::size_t(n + 4 * (n - 1))) << "level " << k;
  }
}

TEST(LocalMultigrid, SetupRejectsInconsistentLevels) {
  const std::vector<MacroSpec> one = {{1.0, kAllDirichlet}};
  const std::vector<MacroSpec> two = {{1.0, kAllDirichlet}, {1.0, kAllDirichlet}};
  const auto a2 = testing::q1_laplacian(2, one);
  const auto a4 = testing::q1_laplacian(4, one);
  const auto b3 = testing::q1_laplacian(3, two);
  LocalSolverParams jacobi;  // divides by the diagonal: a zero one is a setup error
  jacobi.smoother = SmootherType::jacobi;
  auto s = make_local_solver(jacobi);
  std::vector<double> d(a2.rows()), c(a2.rows());
  EXPECT_THROW(s->solve(d.data(), c.data()), AccelError);
  EXPECT_THROW(s->setup({}), AccelError);
  EXPECT_THROW(s->setup({&a2, nullptr}), AccelError);
  EXPECT_THROW(s->setup({&a2, &a4}), AccelError);
  EXPECT_THROW(s->setup({&a2, &b3}), AccelError);
  auto zero_diag = testing::q1_laplacian(3, one);
  zero_diag.at(kCentre, 0, 40) = 0.0;
  EXPECT_THROW(s->setup({&a2, &zero_diag}), AccelError);

  // A setup that throws leaves a working solver as it was.
  const auto a3 = testing::q1_laplacian(3, one);
  s->setup({&a2, &a3});
  const auto d3 = testing::random_defect(a3, one, 1);
  std::vector<double> before(d3.size()), after(d3.size());
  s->solve(d3.data(), before.data());
  EXPECT_THROW(s->setup({&a2, &zero_diag}), AccelError);
  s->solve(d3.data(), after.data());
  EXPECT_EQ(before, after);
}

TEST(LocalSolverFactory, ParsesTargetsAndPrecisions) {
  EXPECT_EQ(parse_target("cpu"), Target::cpu);
  EXPECT_EQ(parse_target("cuda"), Target::cuda);
  EXPECT_EQ(parse_precision("double"), Precision::float64);
  EXPECT_EQ(parse_precision("float"), Precision::float32);
  for (Target t : {Target::cpu, Target::cuda}) EXPECT_EQ(parse_target(to_string(t)), t);
  for (Precision p : {Precision::float64, Precision::float32})
    EXPECT_EQ(parse_precision(to_string(p)), p);
  EXPECT_THROW(parse_target("gpu"), AccelError);
  EXPECT_THROW(parse_precision("half"), AccelError);
}

/// The message of the AccelError that make_local_solver throws for p, or "" if none.
std::string rejection(const LocalSolverParams& p) {
  try {
    make_local_solver(p);
  } catch (const AccelError& e) {
    return e.what();
  }
  return "";
}

TEST(LocalSolverFactory, RejectsBadParametersByKey) {
  const auto with = [](auto change) {
    LocalSolverParams p;
    change(p);
    return rejection(p);
  };
  EXPECT_EQ(rejection(LocalSolverParams{}), "");
  EXPECT_THAT_KEY(with([](auto& p) { p.pre_smooth = -1; }), "solver.local.pre_smooth");
  EXPECT_THAT_KEY(with([](auto& p) { p.post_smooth = -1; }), "solver.local.post_smooth");
  EXPECT_THAT_KEY(with([](auto& p) { p.damping = 0.0; }), "solver.local.damping");
  EXPECT_THAT_KEY(with([](auto& p) { p.damping = 2.0; }), "solver.local.damping");
  EXPECT_THAT_KEY(with([](auto& p) { p.damping = std::nan(""); }), "solver.local.damping");
  EXPECT_THAT_KEY(with([](auto& p) { p.max_cycles = 0; }), "solver.local.cycles");
  EXPECT_THAT_KEY(with([](auto& p) { p.digits = -1.0; }), "solver.local.digits");
}

TEST(LocalSolverFactory, DescribesTheCycle) {
  LocalSolverParams p;
  p.precision = Precision::float32;
  EXPECT_EQ(make_local_solver(p)->description(), "cpu/float V(1,1) aditrigs(1)");
  p.precision = Precision::float64;
  p.smoother = SmootherType::jacobi;
  p.pre_smooth = 2;
  p.post_smooth = 3;
  p.damping = 0.6;
  EXPECT_EQ(make_local_solver(p)->description(), "cpu/double V(2,3) jacobi(0.6)");
  p.smoother = SmootherType::gs;
  p.ordering = SweepOrder::colour;
  p.damping.reset();
  EXPECT_EQ(make_local_solver(p)->description(), "cpu/double V(2,3) gs/colour(1)");
}

#ifndef QUILT_HAVE_CUDA
TEST(LocalSolverFactory, CudaTargetWithoutCudaBuildIsAClearError) {
  LocalSolverParams p;
  p.target = Target::cuda;
  EXPECT_NE(rejection(p).find("no CUDA support"), std::string::npos) << rejection(p);
  EXPECT_EQ(cuda_device_count(), 0);
}
#endif

}  // namespace
}  // namespace quilt::accel
