// The cuda target of the local layer against the cpu target (design.md §7): the same V-cycle, so
// the corrections agree to rounding in the same precision. Every test that needs a device skips
// when none is visible; the no-device behaviour is checked when none is.

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

#include "cuda_test_problems.hpp"

namespace quilt::accel {
namespace {
using namespace test;

// --- without a device ---------------------------------------------------------------------------

TEST(CudaLocalSolver, FailsClearlyWithoutDevice) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is visible";
  LocalSolverParams p = params_for(Target::cuda, Precision::float32);
  try {
    make_local_solver(p);
    FAIL() << "make_local_solver(target=cuda) returned without a device";
  } catch (const AccelError& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("solver.local.target=cuda"), std::string::npos)
        << e.what();
  }
  p.precision = Precision::float64;
  EXPECT_THROW(make_local_solver(p), AccelError);
}

// --- with a device ------------------------------------------------------------------------------

TEST(CudaLocalSolver, DescriptionNamesTargetCycleAndDevice) {
  QUILT_REQUIRE_CUDA_DEVICE();
  auto solver = make_local_solver(params_for(Target::cuda, Precision::float32));
  const std::string d = solver->description();
  EXPECT_NE(d.find("cuda/float"), std::string::npos) << d;
  EXPECT_NE(d.find("V(4,4)"), std::string::npos) << d;
  EXPECT_NE(d.find(" on "), std::string::npos) << d;
  auto dbl = make_local_solver(params_for(Target::cuda, Precision::float64));
  EXPECT_NE(dbl->description().find("cuda/double"), std::string::npos) << dbl->description();
}

TEST(CudaLocalSolver, RejectsDeviceOutOfRange) {
  QUILT_REQUIRE_CUDA_DEVICE();
  LocalSolverParams p = params_for(Target::cuda, Precision::float32);
  p.device = cuda_device_count();
  try {
    make_local_solver(p);
    FAIL() << "device " << p.device << " accepted";
  } catch (const AccelError& e) {
    EXPECT_NE(std::string(e.what()).find("solver.local.device"), std::string::npos) << e.what();
  }
}

TEST(CudaLocalSolver, SolveBeforeSetupThrows) {
  QUILT_REQUIRE_CUDA_DEVICE();
  auto solver = make_local_solver(params_for(Target::cuda, Precision::float32));
  std::vector<double> d(9, 1.0), c(9);
  EXPECT_THROW(solver->solve(d.data(), c.data()), AccelError);
}

/// One V(4,4) cycle on fine levels 2..8 over a level-1 coarse grid, 5 macros of different scaling
/// and boundary conditions.
TEST(CudaLocalSolver, MatchesCpuOnEveryLevel) {
  QUILT_REQUIRE_CUDA_DEVICE();
  for (int fine = 2; fine <= 8; ++fine) {
    SCOPED_TRACE("fine level " + std::to_string(fine));
    const Problem p = make_problem(1, fine, mixed_macros(5), 17u + fine);
    const auto cpu_f = run(params_for(Target::cpu, Precision::float32), p);
    const auto cpu_d = run(params_for(Target::cpu, Precision::float64), p);
    const auto cuda_f = run(params_for(Target::cuda, Precision::float32), p);
    const auto cuda_d = run(params_for(Target::cuda, Precision::float64), p);
    const double ff = worst_relative_difference(cuda_f, cpu_f, 5);
    const double fd = worst_relative_difference(cuda_f, cpu_d, 5);
    const double dd = worst_relative_difference(cuda_d, cpu_d, 5);
    std::printf("[ cuda vs cpu ] L=%d float/float %.2e float/double %.2e double/double %.2e\n",
                fine, ff, fd, dd);
    EXPECT_LE(ff, 1e-5);
    EXPECT_LE(fd, 1e-4);
    EXPECT_LE(dd, 1e-12);
  }
}

struct SmootherCase {
  SmootherType type;
  std::optional<double> omega;
};

/// The colour ordering of a smoother in V(steps, steps), `cycles` cycles.
LocalSolverParams colour_params(Target target, Precision prec, const SmootherCase& k, int steps,
                                int cycles) {
  LocalSolverParams q = params_for(target, prec);
  q.smoother = k.type;
  q.ordering = SweepOrder::colour;
  q.damping = k.omega;
  q.pre_smooth = q.post_smooth = steps;
  q.max_cycles = cycles;
  return q;
}

/// The 4-colour point smoothers (gs, sor, ssor): one launch per colour against the cpu target's
/// colour sweeps, which visit the colours in the same order; pre-smoothing forward,
/// post-smoothing backward.
TEST(CudaLocalSolver, ColourSmoothersMatchCpuOnEveryLevel) {
  QUILT_REQUIRE_CUDA_DEVICE();
  for (const SmootherCase& k :
       {SmootherCase{SmootherType::gs, {}}, SmootherCase{SmootherType::sor, 1.25},
        SmootherCase{SmootherType::ssor, 0.9}}) {
    for (int fine = 2; fine <= 8; ++fine) {
      SCOPED_TRACE(to_string(k.type) + ", fine level " + std::to_string(fine));
      const Problem p = make_problem(1, fine, mixed_macros(3), 41u + fine);
      double worst[2] = {0.0, 0.0};
      for (Precision prec : {Precision::float32, Precision::float64}) {
        const LocalSolverParams gpu = colour_params(Target::cuda, prec, k, 2, 2);
        const LocalSolverParams cpu = colour_params(Target::cpu, prec, k, 2, 2);
        const std::vector<double> c_gpu = run(gpu, p), c_cpu = run(cpu, p);
        worst[prec == Precision::float64] = worst_relative_difference(c_gpu, c_cpu, 3);
        // The smoother did something: the correction reduces the defect.
        const auto res = residual_norms(p.fine(), p.defect, c_gpu);
        const auto ref = macro_norms(p.defect, 3);
        for (int m = 0; m < 3; ++m) EXPECT_LT(res[m], 0.5 * ref[m]) << "macro " << m;
      }
      std::printf("[ cuda vs cpu ] %s/colour L=%d float %.2e double %.2e\n",
                  to_string(k.type).c_str(), fine, worst[0], worst[1]);
      EXPECT_LE(worst[0], 1e-5);
      EXPECT_LE(worst[1], 1e-12);
    }
  }
  // The lexicographic orderings of the point and line smoothers are refused.
  LocalSolverParams lex = params_for(Target::cuda, Precision::float32);
  lex.smoother = SmootherType::gs;
  EXPECT_THROW(make_local_solver(lex), AccelError);
  lex.smoother = SmootherType::aditrigs;
  EXPECT_THROW(make_local_solver(lex), AccelError);
}

/// The zebra line smoothers (trigs-x, trigs-y, aditrigs), each line solved by cyclic reduction,
/// against the cpu target's zebra sweeps, which solve the same systems by the Thomas algorithm:
/// the two round differently, so they agree to round-off. Measured on the emulation, L = 2..8,
/// all three smoothers: float 9e-8 .. 1.0e-6, of the order of the float cycle's own rounding
/// error (the cpu's float against its double result, printed alongside: 8e-8 .. 1.4e-6); double
/// 2e-16 .. 1.8e-15. The bounds keep a factor ~10 over that for the device, which contracts
/// multiply-adds, and stay well below a broken reduction: one step reading a neighbour at
/// distance 1 instead of 2^s moves the corrections by 9e-5 .. 2.4e-4 in either precision, a
/// missing barrier by 1e-3 (emulation_defects.sh). Fewer macros and cycles on the finest levels
/// keep the emulation (a fiber per thread, two barriers per reduction step) fast: 2 V(2,2)
/// cycles on 3 macros up to L = 6, then 1 V(1,1) on 1.
TEST(CudaLocalSolver, ZebraLineSmoothersMatchCpuOnEveryLevel) {
  QUILT_REQUIRE_CUDA_DEVICE();
  for (const SmootherCase& k :
       {SmootherCase{SmootherType::trigs_x, {}}, SmootherCase{SmootherType::trigs_y, 0.8},
        SmootherCase{SmootherType::aditrigs, {}}}) {
    for (int fine = 2; fine <= 8; ++fine) {
      SCOPED_TRACE(to_string(k.type) + ", fine level " + std::to_string(fine));
      // On L = 7, 8 one macro, the one with free sides (Dirichlet on the south side only).
      const int macros = fine <= 6 ? 3 : 1;
      const std::vector<Macro> shapes =
          fine <= 6 ? mixed_macros(3) : std::vector<Macro>{mixed_macros(2)[1]};
      const Problem p = make_problem(1, fine, shapes, 41u + fine);
      double worst[2] = {0.0, 0.0};
      std::vector<double> cpu_result[2];
      for (Precision prec : {Precision::float32, Precision::float64}) {
        const int steps = fine <= 6 ? 2 : 1, cycles = fine <= 6 ? 2 : 1;
        const LocalSolverParams gpu = colour_params(Target::cuda, prec, k, steps, cycles);
        const LocalSolverParams cpu = colour_params(Target::cpu, prec, k, steps, cycles);
        const bool dbl = prec == Precision::float64;
        const std::vector<double> c_gpu = run(gpu, p);
        cpu_result[dbl] = run(cpu, p);
        worst[dbl] = worst_relative_difference(c_gpu, cpu_result[dbl], macros);
        // The smoother did something: the correction reduces the defect.
        const auto res = residual_norms(p.fine(), p.defect, c_gpu);
        const auto ref = macro_norms(p.defect, macros);
        for (int m = 0; m < macros; ++m) EXPECT_LT(res[m], 0.5 * ref[m]) << "macro " << m;
      }
      const double float_error = worst_relative_difference(cpu_result[0], cpu_result[1], macros);
      std::printf(
          "[ cuda vs cpu ] %s/colour L=%d float %.2e double %.2e (cpu float vs double "
          "%.2e)\n",
          to_string(k.type).c_str(), fine, worst[0], worst[1], float_error);
      EXPECT_LE(worst[0], 1e-5);
      EXPECT_LE(worst[1], 2e-14);
    }
  }
}

/// Random diagonally dominant tridiagonal batches through the cuda target's PCR kernel (the line
/// solve of the zebra smoothers) against the Thomas algorithm in double on the host: every line
/// length the local levels have up to n = 1025 (L = 10) and the short ones that share a block,
/// with a count of systems that leaves the last block partly empty, and identity (Dirichlet)
/// rows among them. The error bound is a small multiple of the precision's epsilon times log2 n
/// (the systems are well conditioned: diagonal dominance by at least 0.5).
TEST(CudaLocalSolver, PcrSolvesTridiagonalBatches) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const auto check = [](auto zero) {
    using T = decltype(zero);
    std::mt19937 gen(29u);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int n : {1, 2, 3, 5, 9, 17, 33, 65, 129, 257, 513, 1025}) {
      const int systems = n >= 513 ? 3 : 7;
      const std::size_t count = static_cast<std::size_t>(n) * systems;
      std::vector<T> a(count), b(count), c(count), d(count), x(count, T(-1));
      for (std::size_t r = 0; r < count; ++r) {
        a[r] = static_cast<T>(u(gen));
        c[r] = static_cast<T>(u(gen));
        d[r] = static_cast<T>(u(gen));
        const double margin = 0.75 + 0.25 * u(gen);
        const double diag =
            std::abs(static_cast<double>(a[r])) + std::abs(static_cast<double>(c[r])) + margin;
        b[r] = static_cast<T>(r % 3 == 0 ? -diag : diag);
        if (r % 11 == 5) {  // a Dirichlet row
          a[r] = c[r] = T(0);
          b[r] = T(1);
        }
      }
      cuda::solve_tridiagonal_batch(n, systems, a.data(), b.data(), c.data(), d.data(), x.data());
      double worst = 0.0;
      for (int s = 0; s < systems; ++s) {
        // Thomas in double on the inputs as stored in T.
        const std::size_t o = static_cast<std::size_t>(s) * n;
        std::vector<double> up(n), y(n), ref(n);
        for (int i = 0; i < n; ++i) {
          const double l = i > 0 ? static_cast<double>(a[o + i]) : 0.0;
          const double piv = static_cast<double>(b[o + i]) - (i > 0 ? l * up[i - 1] : 0.0);
          up[i] = i < n - 1 ? static_cast<double>(c[o + i]) / piv : 0.0;
          y[i] = (static_cast<double>(d[o + i]) - (i > 0 ? l * y[i - 1] : 0.0)) / piv;
        }
        for (int i = n - 1; i >= 0; --i) ref[i] = y[i] - (i < n - 1 ? up[i] * ref[i + 1] : 0.0);
        double err = 0.0, size = 0.0;
        for (int i = 0; i < n; ++i) {
          const double e = std::abs(static_cast<double>(x[o + i]) - ref[i]);
          err = std::isnan(e) || e > err ? e : err;
          size = std::max(size, std::abs(ref[i]));
        }
        const double rel = err / size;
        worst = std::isnan(rel) || rel > worst ? rel : worst;
      }
      const double eps = std::numeric_limits<T>::epsilon();
      const double bound = 8.0 * eps * (1.0 + std::ceil(std::log2(static_cast<double>(n))));
      std::printf("[ pcr vs thomas ] %s n=%d %.2e (bound %.1e)\n",
                  sizeof(T) == 4 ? "float" : "double", n, worst, bound);
      EXPECT_LE(worst, bound) << "n = " << n;
    }
  };
  check(0.0f);
  check(0.0);
}

/// ILU(0): the cpu target's factors, substituted by wavefronts on the device against the cpu's
/// blocked lexicographic substitution, in a V(2,2) damped (omega = 0.9 takes the multiply of
/// x += omega (z - x), the cpu's z in its scratch) and undamped (the cpu's z straight into x)
/// from x = 0 and then from the previous cycle's iterate. The emulation runs the kernels' host
/// arithmetic in the cpu's order, so there the two agree bit for bit. Fewer macros on the finest
/// levels keep the emulation (a fiber per thread, a barrier per wavefront) fast.
TEST(CudaLocalSolver, IluMatchesCpuOnEveryLevel) {
  QUILT_REQUIRE_CUDA_DEVICE();
  for (int fine = 2; fine <= 8; ++fine) {
    SCOPED_TRACE("fine level " + std::to_string(fine));
    const int macros = fine <= 6 ? 5 : 2;
    const Problem p = make_problem(1, fine, mixed_macros(macros), 53u + fine);
    const auto ref = macro_norms(p.defect, macros);
    double worst[2] = {0.0, 0.0};
    for (Precision prec : {Precision::float32, Precision::float64})
      for (double damping : {0.9, 1.0}) {
        LocalSolverParams cpu = params_for(Target::cpu, prec);
        LocalSolverParams gpu = params_for(Target::cuda, prec);
        for (LocalSolverParams* q : {&cpu, &gpu}) {
          q->smoother = SmootherType::ilu;
          q->damping = damping;
          q->pre_smooth = q->post_smooth = 2;
          q->max_cycles = 2;
        }
        const std::vector<double> c_gpu = run(gpu, p), c_cpu = run(cpu, p);
        double& w = worst[prec == Precision::float64];
        w = std::max(w, worst_relative_difference(c_gpu, c_cpu, macros));
#ifdef QUILT_CUDA_EMULATION_TEST
        EXPECT_TRUE(bitwise_equal(c_gpu, c_cpu)) << to_string(prec) << ", omega " << damping;
#endif
        const auto res = residual_norms(p.fine(), p.defect, c_gpu);
        for (int m = 0; m < macros; ++m) EXPECT_LT(res[m], 0.1 * ref[m]) << "macro " << m;
      }
    std::printf("[ cuda vs cpu ] ilu L=%d float %.2e double %.2e\n", fine, worst[0], worst[1]);
    EXPECT_LE(worst[0], 1e-5);
    EXPECT_LE(worst[1], 1e-12);
  }
  // ILU has no colour variant on either target.
  LocalSolverParams colour = params_for(Target::cuda, Precision::float32);
  colour.smoother = SmootherType::ilu;
  colour.ordering = SweepOrder::colour;
  EXPECT_THROW(make_local_solver(colour), AccelError);
}

/// A deeper coarse grid (level 3: 81 unknowns per macro in the dense solve) and several cycles.
TEST(CudaLocalSolver, MatchesCpuWithLargerCoarseGridAndSeveralCycles) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const Problem p = make_problem(3, 7, mixed_macros(4), 5u);
  for (Precision prec : {Precision::float32, Precision::float64}) {
    LocalSolverParams cpu = params_for(Target::cpu, prec), gpu = params_for(Target::cuda, prec);
    cpu.max_cycles = gpu.max_cycles = 3;
    const double tol = prec == Precision::float32 ? 1e-5 : 1e-12;
    EXPECT_LE(worst_relative_difference(run(gpu, p), run(cpu, p), 4), tol) << to_string(prec);
  }
}

/// Other cycle shapes, including no pre-smoothing (the coarse correction starts from x = 0) and
/// odd sweep counts (the iterate ends in the other Jacobi buffer).
TEST(CudaLocalSolver, MatchesCpuForOtherCycleShapes) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const Problem p = make_problem(1, 6, mixed_macros(3), 99u);
  const std::array<std::array<int, 2>, 4> shapes{{{0, 2}, {1, 0}, {3, 1}, {2, 2}}};
  for (const auto& [pre, post] : shapes) {
    for (Precision prec : {Precision::float32, Precision::float64}) {
      LocalSolverParams cpu = params_for(Target::cpu, prec), gpu = params_for(Target::cuda, prec);
      cpu.pre_smooth = gpu.pre_smooth = pre;
      cpu.post_smooth = gpu.post_smooth = post;
      cpu.damping = gpu.damping = 0.6;
      cpu.max_cycles = gpu.max_cycles = 2;
      const double tol = prec == Precision::float32 ? 1e-5 : 1e-12;
      EXPECT_LE(worst_relative_difference(run(gpu, p), run(cpu, p), 3), tol)
          << "V(" << pre << "," << post << ") " << to_string(prec);
    }
  }
}

/// Many macros in one batch: every kernel's grid spans macro boundaries.
TEST(CudaLocalSolver, MatchesCpuOnManyMacros) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const Problem p = make_problem(2, 6, mixed_macros(70), 3u);
  EXPECT_LE(worst_relative_difference(run(params_for(Target::cuda, Precision::float32), p),
                                      run(params_for(Target::cpu, Precision::float32), p), 70),
            1e-5);
}

/// levels.front() == levels.back(): the solve is the batched dense LU alone.
TEST(CudaLocalSolver, CoarseDirectSolveMatchesCpu) {
  QUILT_REQUIRE_CUDA_DEVICE();
  for (int level : {0, 1, 2, 3, 4}) {
    SCOPED_TRACE("level " + std::to_string(level));
    const Problem p = make_problem(level, level, mixed_macros(6), 11u + level);
    const auto cpu_f = run(params_for(Target::cpu, Precision::float32), p);
    const auto cpu_d = run(params_for(Target::cpu, Precision::float64), p);
    const auto cuda_f = run(params_for(Target::cuda, Precision::float32), p);
    const auto cuda_d = run(params_for(Target::cuda, Precision::float64), p);
    EXPECT_LE(worst_relative_difference(cuda_f, cpu_f, 6), 1e-5);
    EXPECT_LE(worst_relative_difference(cuda_d, cpu_d, 6), 1e-12);
#ifdef QUILT_CUDA_EMULATION_TEST
    // The emulation runs the kernel's arithmetic on the host, and both targets substitute in the
    // same order (forward by ascending, backward by descending column): equal to the last bit.
    EXPECT_EQ(cuda_f, cpu_f);
    EXPECT_EQ(cuda_d, cpu_d);
#endif
    // A direct solve in double leaves a residual at round-off.
    const auto res = residual_norms(p.fine(), p.defect, cuda_d);
    const auto ref = macro_norms(p.defect, 6);
    for (int m = 0; m < 6; ++m) EXPECT_LE(res[m], 1e-12 * ref[m]) << "macro " << m;
  }
}

TEST(CudaLocalSolver, CorrectionIsExactlyZeroAtDirichletRows) {
  QUILT_REQUIRE_CUDA_DEVICE();
  for (int coarse : {1, 2}) {
    const Problem p = make_problem(coarse, 6, mixed_macros(4), 23u);
    for (Precision prec : {Precision::float32, Precision::float64}) {
      LocalSolverParams params = params_for(Target::cuda, prec);
      params.max_cycles = 2;
      const auto c = run(params, p);
      const BandedMatrix<double>& A = p.fine();
      std::size_t dirichlet = 0;
      for (int m = 0; m < A.macros; ++m)
        for (int j = 0; j < A.n; ++j)
          for (int i = 0; i < A.n; ++i)
            if (is_dirichlet(p.macros[m], i, j, A.n)) {
              ++dirichlet;
              ASSERT_EQ(c[m * A.rows_per_macro() + i + static_cast<std::size_t>(j) * A.n], 0.0)
                  << "macro " << m << " node (" << i << "," << j << ") " << to_string(prec);
            }
      EXPECT_GT(dirichlet, 0u);
    }
  }
}

TEST(CudaLocalSolver, DigitsModeReachesTheDigits) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const Problem p = make_problem(1, 7, mixed_macros(4), 31u);
  const auto ref = macro_norms(p.defect, 4);
  for (Precision prec : {Precision::float32, Precision::float64}) {
    SCOPED_TRACE(to_string(prec));
    LocalSolverParams gpu = params_for(Target::cuda, prec), cpu = params_for(Target::cpu, prec);
    gpu.digits = cpu.digits = prec == Precision::float32 ? 4.0 : 8.0;
    gpu.max_cycles = cpu.max_cycles = 60;
    LocalSolveStats gs, cs;
    const auto c = run(gpu, p, &gs);
    run(cpu, p, &cs);
    EXPECT_GT(gs.cycles, 1);
    EXPECT_LT(gs.cycles, gpu.max_cycles);
    EXPECT_LE(gs.worst_reduction, std::pow(10.0, -gpu.digits));
    EXPECT_GT(gs.worst_reduction, 0.0);
    // Same algorithm: the same number of cycles, unless a defect lands within rounding of the
    // threshold (float).
    EXPECT_LE(std::abs(gs.cycles - cs.cycles), prec == Precision::float32 ? 1 : 0);
    // After as many cycles, the device's per-macro norms give the cpu's reduction to rounding:
    // the defect's own (float: ~1e-7 of the initial defect, 10^-digits of it at the end) and the
    // order of the sums.
    if (gs.cycles == cs.cycles) {
      EXPECT_NEAR(gs.worst_reduction, cs.worst_reduction,
                  (prec == Precision::float32 ? 1e-2 : 1e-8) * cs.worst_reduction);
    }
    // The reduction measured on the device holds for the returned double correction too (the
    // float correction carries its own rounding, ~1e-7 relative).
    const auto res = residual_norms(p.fine(), p.defect, c);
    for (int m = 0; m < 4; ++m)
      EXPECT_LE(res[m], 2.0 * std::pow(10.0, -gpu.digits) * ref[m]) << "macro " << m;
  }
}

TEST(CudaLocalSolver, ZeroDefectGivesZeroCorrection) {
  QUILT_REQUIRE_CUDA_DEVICE();
  Problem p = make_problem(1, 5, mixed_macros(3), 1u);
  std::fill(p.defect.begin(), p.defect.end(), 0.0);
  LocalSolverParams params = params_for(Target::cuda, Precision::float32);
  params.digits = 3.0;
  params.max_cycles = 5;
  LocalSolveStats stats;
  const auto c = run(params, p, &stats);
  EXPECT_EQ(stats.cycles, 1);
  EXPECT_EQ(stats.worst_reduction, 0.0);
  for (double v : c) ASSERT_EQ(v, 0.0);
}

/// A solver is set up once and solves many defects; a second setup replaces the hierarchy.
TEST(CudaLocalSolver, RepeatedSolvesAndSetups) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const Problem a = make_problem(1, 5, mixed_macros(3), 41u);
  const Problem b = make_problem(2, 6, mixed_macros(5), 42u);
  auto gpu = make_local_solver(params_for(Target::cuda, Precision::float32));
  auto cpu = make_local_solver(params_for(Target::cpu, Precision::float32));
  for (const Problem* p : {&a, &b, &a}) {
    gpu->setup(p->levels());
    cpu->setup(p->levels());
    for (int rep = 0; rep < 2; ++rep) {
      std::vector<double> cg(p->fine().rows()), cc(p->fine().rows());
      gpu->solve(p->defect.data(), cg.data());
      cpu->solve(p->defect.data(), cc.data());
      EXPECT_LE(worst_relative_difference(cg, cc, p->fine().macros), 1e-5);
    }
  }
}

TEST(CudaLocalSolver, RejectsInconsistentLevels) {
  QUILT_REQUIRE_CUDA_DEVICE();
  auto solver = make_local_solver(params_for(Target::cuda, Precision::float32));
  const auto macros = mixed_macros(2);
  const BandedMatrix<double> c = laplacian(1, macros), f = laplacian(3, macros);
  EXPECT_THROW(solver->setup({&c, &f}), AccelError);
  EXPECT_THROW(solver->setup({}), AccelError);
  BandedMatrix<double> zero_diag = laplacian(2, macros);
  zero_diag.at(kCentre, 0, 12) = 0.0;
  EXPECT_THROW(solver->setup({&c, &zero_diag}), AccelError);
}

// --- update: the numbers of a nonlinear step refreshed in place ---------------------------------

// Dirichlet sides all round, on one side and on two.
const std::vector<testing::MacroSpec> kStepMacros = {
    {1.0, testing::kAllDirichlet},
    {4.0, testing::kSouthDirichlet},
    {0.25, {false, true, true, false}},
};

/// The levels of one nonlinear step: -nu Laplace + w . grad with a sheared w, its Galerkin
/// coarse operators below. Steps differ in nu and w, not in structure.
testing::Hierarchy flow_step(double nu, double wx, double wy, int coarse = 1, int fine = 5) {
  testing::OperatorSpec op;
  op.nu = nu;
  op.w = [wx, wy](double x, double y) { return std::array<double, 2>{wx * (1.0 - y), wy * x}; };
  return testing::galerkin_hierarchy(coarse, fine, kStepMacros, op);
}

std::vector<double> solve_with(LocalSolver& solver, const std::vector<double>& defect) {
  std::vector<double> c(defect.size(), -1.0);
  solver.solve(defect.data(), c.data());
  return c;
}

/// Jacobi; ILU(0), whose factors update() recomputes on the host into setup()'s storage; and the
/// zebra ADI-TRIGS, whose grid transpose (and the check of its lines) update() redoes there.
TEST(CudaLocalSolver, UpdateGivesBitwiseTheCorrectionOfAFreshSetup) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const testing::Hierarchy first = flow_step(1.0, 10.0, 4.0), second = flow_step(0.05, -3.0, 15.0);
  const std::vector<double> defect = testing::random_defect(first.finest(), kStepMacros, 23u);
  for (const auto& [smoother, precision] :
       {std::pair{SmootherType::jacobi, Precision::float32},
        std::pair{SmootherType::jacobi, Precision::float64},
        std::pair{SmootherType::ilu, Precision::float32},
        std::pair{SmootherType::ilu, Precision::float64},
        std::pair{SmootherType::aditrigs, Precision::float32},
        std::pair{SmootherType::aditrigs, Precision::float64}}) {
    SCOPED_TRACE(to_string(smoother) + " " + to_string(precision));
    LocalSolverParams params = params_for(Target::cuda, precision);
    params.smoother = smoother;
    if (smoother == SmootherType::aditrigs) {
      params.ordering = SweepOrder::colour;
      params.pre_smooth = params.post_smooth = 1;  // the emulation's fibers are slow
    }
    params.max_cycles = 3;
    params.digits = 12.0;
    auto solver = make_local_solver(params);
    solver->setup(first.levels());
    const std::vector<double> before = solve_with(*solver, defect);
    solver->update(second.levels());
    const std::vector<double> updated = solve_with(*solver, defect);
    auto fresh = make_local_solver(params);
    fresh->setup(second.levels());
    EXPECT_TRUE(bitwise_equal(updated, solve_with(*fresh, defect)));
    EXPECT_EQ(solver->last_stats().cycles, fresh->last_stats().cycles);
    EXPECT_EQ(solver->last_stats().worst_reduction, fresh->last_stats().worst_reduction);
    EXPECT_FALSE(bitwise_equal(updated, before)) << "the second step's numbers changed nothing";
    // Another n on every level (as many levels) is refused; the second step's numbers stay.
    EXPECT_THROW(solver->update(flow_step(0.05, -3.0, 15.0, 2, 6).levels()), AccelError);
    EXPECT_TRUE(bitwise_equal(solve_with(*solver, defect), updated));
    solver->update(first.levels());
    EXPECT_TRUE(bitwise_equal(solve_with(*solver, defect), before));
  }
}

/// The V-cycle's CUDA graphs replayed: one solver solving the same defect again gives bitwise the
/// same correction, for cycle shapes whose Jacobi sweeps leave the iterate in either buffer
/// (odd and even sweep counts, first and later cycles), and for a smoother without buffers.
TEST(CudaLocalSolver, RepeatedSolvesReplayTheCycleGraphs) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const Problem p = make_problem(1, 5, mixed_macros(2), 61u);
  const std::array<std::array<int, 2>, 4> shapes{{{1, 2}, {2, 1}, {1, 1}, {0, 1}}};
  for (const auto& [pre, post] : shapes) {
    for (SmootherType smoother : {SmootherType::jacobi, SmootherType::ilu}) {
      SCOPED_TRACE("V(" + std::to_string(pre) + "," + std::to_string(post) + ") " +
                   to_string(smoother));
      LocalSolverParams params = params_for(Target::cuda, Precision::float32);
      params.smoother = smoother;
      params.pre_smooth = pre;
      params.post_smooth = post;
      params.max_cycles = 3;
      auto solver = make_local_solver(params);
      solver->setup(p.levels());
      const std::vector<double> first = solve_with(*solver, p.defect);
      for (int rep = 0; rep < 3; ++rep)
        EXPECT_TRUE(bitwise_equal(solve_with(*solver, p.defect), first)) << "solve " << rep + 2;
      LocalSolverParams cpu = params;
      cpu.target = Target::cpu;
      EXPECT_LE(worst_relative_difference(first, run(cpu, p), 2), 1e-5);
    }
  }
}

/// The local solvers of two global levels in one set of device vectors (share_work): the finer
/// on levels 1..5, the coarser on 1..4 with other matrices. Their solves, alternated, are bitwise
/// those of solvers of their own: nothing one leaves in the vectors reaches the other's next
/// solve, and the graphs each captured still name the right vectors; their updates load their
/// numbers through one host scratch. Jacobi with an odd sweep count (the iterate ends in the
/// second buffer), ILU(0) (the spare iterate as its scratch) and the zebra ADI-TRIGS (b and x
/// grid-transposed), in both precisions.
TEST(CudaLocalSolver, SolversSharingTheirWorkSolveAsAlone) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const Problem fine = make_problem(1, 5, mixed_macros(2), 91u);
  const Problem coarse = make_problem(
      1, 4, {Macro{7.5, {false, true, true, false}}, Macro{0.3, {true, false, false, false}}}, 92u);
  for (SmootherType smoother : {SmootherType::jacobi, SmootherType::ilu, SmootherType::aditrigs})
    for (Precision precision : {Precision::float32, Precision::float64}) {
      SCOPED_TRACE(to_string(smoother) + " " + to_string(precision));
      LocalSolverParams p = params_for(Target::cuda, precision);
      p.smoother = smoother;
      p.pre_smooth = 3;
      p.post_smooth = 1;
      if (smoother == SmootherType::aditrigs) {
        p.ordering = SweepOrder::colour;
        p.pre_smooth = 1;  // the emulation's fibers are slow
      }
      p.max_cycles = 2;
      auto shared_fine = make_local_solver(p), shared_coarse = make_local_solver(p);
      shared_coarse->share_work(*shared_fine);
      // The coarser one first: it makes levels 0..4 and captures its graphs in them before the
      // finer one's set-up, which must leave them where they are.
      shared_coarse->setup(coarse.levels());
      const std::vector<double> c1 = solve_with(*shared_coarse, coarse.defect);
      shared_fine->setup(fine.levels());
      const std::vector<double> f1 = solve_with(*shared_fine, fine.defect);
      const std::vector<double> c2 = solve_with(*shared_coarse, coarse.defect);
      const std::vector<double> f2 = solve_with(*shared_fine, fine.defect);
      auto fine_alone = make_local_solver(p), coarse_alone = make_local_solver(p);
      fine_alone->setup(fine.levels());
      coarse_alone->setup(coarse.levels());
      EXPECT_TRUE(bitwise_equal(c1, solve_with(*coarse_alone, coarse.defect)));
      EXPECT_TRUE(bitwise_equal(f1, solve_with(*fine_alone, fine.defect)));
      EXPECT_TRUE(bitwise_equal(c2, c1));
      EXPECT_TRUE(bitwise_equal(f2, f1));
      // Their updates derive the smoothers' numbers in the host scratch that both share.
      shared_coarse->update(coarse.levels());
      shared_fine->update(fine.levels());
      EXPECT_TRUE(bitwise_equal(solve_with(*shared_coarse, coarse.defect), c1));
      EXPECT_TRUE(bitwise_equal(solve_with(*shared_fine, fine.defect), f1));
    }
}

/// A solver on other macros cannot take the vectors it shares (which shows that it does share
/// them), a solver already set up keeps its own, and one of another precision shares nothing.
TEST(CudaLocalSolver, SharedWorkRefusesOtherSizesAndALateShare) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const Problem two = make_problem(1, 4, mixed_macros(2), 93u);
  const Problem one = make_problem(1, 3, mixed_macros(1), 94u);
  const LocalSolverParams p = params_for(Target::cuda, Precision::float32);
  auto fine = make_local_solver(p);
  fine->setup(two.levels());
  auto coarse = make_local_solver(p);
  coarse->share_work(*fine);
  try {
    coarse->setup(one.levels());
    ADD_FAILURE() << "setup on other sizes than the shared vectors' did not throw";
  } catch (const AccelError& e) {
    EXPECT_NE(std::string(e.what()).find("shared"), std::string::npos) << e.what();
  }
  auto late = make_local_solver(p);
  late->setup(one.levels());
  EXPECT_THROW(late->share_work(*fine), AccelError);
  auto other = make_local_solver(params_for(Target::cuda, Precision::float64));
  other->share_work(*fine);
  EXPECT_NO_THROW(other->setup(one.levels()));
}

/// pin_io(): solves on the named vectors copy straight from and to them (no staging), others
/// are staged; both give the same correction, bitwise, in each precision and with several cycles
/// (digits > 0: the norms are read back in between).
TEST(CudaLocalSolver, PinnedVectorsSkipStagingAndGiveTheSameCorrection) {
  QUILT_REQUIRE_CUDA_DEVICE();
  const Problem p = make_problem(1, 6, mixed_macros(3), 77u);
  const std::size_t rows = p.fine().rows();
  for (Precision precision : {Precision::float32, Precision::float64}) {
    SCOPED_TRACE(to_string(precision));
    LocalSolverParams params = params_for(Target::cuda, precision);
    params.max_cycles = 3;
    params.digits = 10.0;
    auto staged = make_local_solver(params);
    staged->setup(p.levels());
    std::vector<double> reference(rows, -1.0);
    staged->solve(p.defect.data(), reference.data());
    EXPECT_TRUE(staged->last_stats().staged);

    auto pinned = make_local_solver(params);
    std::vector<double> defect = p.defect, correction(rows, -1.0);
    EXPECT_THROW(pinned->pin_io(defect.data(), correction.data(), rows), AccelError);  // no setup
    pinned->setup(p.levels());
    EXPECT_THROW(pinned->pin_io(defect.data(), correction.data(), rows - 1), AccelError);
    pinned->pin_io(defect.data(), correction.data(), rows);
    for (int rep = 0; rep < 2; ++rep) {
      std::fill(correction.begin(), correction.end(), -1.0);
      pinned->solve(defect.data(), correction.data());
      EXPECT_FALSE(pinned->last_stats().staged);
      EXPECT_TRUE(bitwise_equal(correction, reference));
    }
    // Another output vector: the defect still goes direct, the correction is staged.
    std::vector<double> other(rows, -1.0);
    pinned->solve(defect.data(), other.data());
    EXPECT_TRUE(pinned->last_stats().staged);
    EXPECT_TRUE(bitwise_equal(other, reference));
  }
}

}  // namespace
}  // namespace quilt::accel
