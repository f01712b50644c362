// The velocity ScaRC multigrid (A c = d alone) on convection-dominated Oseen operators: a
// recirculating flow in the 4x2 cavity at Re = 100 and 1000. The velocity smoother (ILU(0)) on
// hybrid local coarse levels (solvers/local_levels.hpp) must contract at a level-independent
// rate; the damped Jacobi smoother of the past diverges on the same operators.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "accel/bitwise_equal.hpp"
#include "flow/level_velocity.hpp"
#include "flow/navier_stokes_operators.hpp"
#include "flow/navier_stokes_solver.hpp"
#include "mesh/msh_reader.hpp"
#include "mesh_files.hpp"
#include "solvers/global_multigrid.hpp"
#include "solvers/solver_error.hpp"

using namespace quilt;

namespace {

constexpr double pi = std::numbers::pi;

/// A divergence-free vortex filling the unit square, |w| <= 1, zero on the boundary.
std::array<double, 2> vortex(double x, double y) {
  return {std::pow(std::sin(pi * x), 2) * std::sin(2 * pi * y),
          -std::sin(2 * pi * x) * std::pow(std::sin(pi * y), 2)};
}

/// The Oseen velocity operator -nu Laplace + vortex . grad (SUPG) on the 4x2 cavity at `level`,
/// handed to `use` as its level hierarchy (hybrid local levels, or Galerkin ones).
template <class Use>
void with_vortex_operator(double nu, int level, bool hybrid, Use&& use) {
  const Communicator comm;
  const DistributedMesh dm = distribute(read_msh(mesh_path("unit_square_4x2.msh")), {}, comm);
  const int macros = dm.num_local();
  // The vortex at the nodes of the finest level, injected into the coarser ones.
  const std::vector<MacroGeometry> geometry = refine_local_macros(dm, level);
  const std::size_t nn = geometry[0].x.size();
  LevelVector w1(nn * macros), w2(nn * macros);
  for (int m = 0; m < macros; ++m)
    for (std::size_t r = 0; r < nn; ++r) {
      const auto w = vortex(geometry[m].x[r], geometry[m].y[r]);
      w1[m * nn + r] = w[0];
      w2[m * nn + r] = w[1];
    }
  const auto w = inject_velocity(w1, w2, macros, level);
  const StabilisationParams stab;
  const auto velocity = [&](const MacroGeometry& g, int m) {
    const std::size_t g_nn = static_cast<std::size_t>(g.n) * g.n;
    return MacroVelocity{w[g.level][0].data() + m * g_nn, w[g.level][1].data() + m * g_nn};
  };
  const MacroAssembler convection = [&](const MacroGeometry& g, accel::BandedMatrix<double>& C,
                                        int m) {
    add_convection_operator(g, velocity(g, m), nu, stab, C, m);
  };
  const LevelHierarchy h(
      dm, comm, level, std::vector<bool>(dm.mesh.part_names.size(), true),
      [&](const MacroGeometry& g, accel::BandedMatrix<double>& A, int m) {
        add_velocity_operator(g, velocity(g, m), nu, true, stab, A, m);
      },
      hybrid ? convection : MacroAssembler());
  use(h);
}

/// Rate per ScaRC cycle on A c = 0 from a random start, (|r_12| / |r_4|)^(1/8); +inf if the
/// iteration diverges.
double scarc_rate(const LevelHierarchy& h, int level, const accel::LocalSolverParams& local) {
  const Communicator& comm = h.comm();
  GlobalMultigridParams p;
  p.local = local;
  p.coarse_level = choose_coarse_level(h.mesh().mesh, level, 200);
  GlobalMultigrid mg(h, p);
  const GlobalLevel& finest = h.level(level);
  LevelVector b(finest.matrix.rows(), 0.0), x(b.size());
  std::mt19937 gen(3 + comm.rank());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& v : x) v = u(gen);
  finest.shared->average(x.data());
  filter(finest.dirichlet, x);
  KrylovParams kp;
  kp.rel_tol = 0.0;
  kp.max_iter = 12;
  kp.fail_on_cap = false;
  try {
    const KrylovResult r = mg.solve(b, x, kp);
    return std::pow(r.history[12] / r.history[4], 1.0 / 8);
  } catch (const SolverError&) {
    return INFINITY;  // diverged
  }
}

double scarc_rate(double nu, int level, const accel::LocalSolverParams& local, bool hybrid) {
  double rate = 0.0;
  with_vortex_operator(nu, level, hybrid,
                       [&](const LevelHierarchy& h) { rate = scarc_rate(h, level, local); });
  return rate;
}

accel::LocalSolverParams velocity_smoother() {
  accel::LocalSolverParams p;
  const VelocitySmoother v;  // quilt-flow's default for the velocity
  p.smoother = v.type;
  p.ordering = v.ordering;
  p.damping = v.damping;
  return p;
}

}  // namespace

TEST(VelocityMultigrid, ContractsOnRecirculatingFlowAtRe1000) {
  // Measured (coarse grid below 200 unknowns; 1, 2, 4 ranks): nu = 1e-2: 0.155..0.158,
  // 0.151..0.157, 0.149..0.150 at L = 5, 6, 7; nu = 1e-3: 0.375..0.419, 0.311..0.318,
  // 0.203..0.237 (the mesh Peclet number halves per level).
  for (double nu : {1e-2, 1e-3}) {
    std::vector<double> rates;
    for (int level = 5; level <= 7; ++level) {
      const double rho = scarc_rate(nu, level, velocity_smoother(), true);
      if (Communicator().rank() == 0)
        std::printf("[ nu %g ] L=%d rate per ScaRC cycle %.3f\n", nu, level, rho);
      EXPECT_LE(rho, nu > 5e-3 ? 0.2 : 0.5) << "nu " << nu << " level " << level;
      if (!rates.empty()) {
        EXPECT_LE(rho, 1.05 * rates.back()) << "grows with L, nu " << nu;
      }
      rates.push_back(rho);
    }
    EXPECT_LE(rates.back(), 0.3) << "nu " << nu << " at L = 7";
  }
}

TEST(VelocityMultigrid, DampedJacobiOnGalerkinLevelsDoesNot) {
  accel::LocalSolverParams jacobi;
  jacobi.smoother = accel::SmootherType::jacobi;
  jacobi.pre_smooth = jacobi.post_smooth = 4;
  const double rho = scarc_rate(1e-3, 7, jacobi, false);
  if (Communicator().rank() == 0)
    std::printf("[ jacobi V(4,4), Galerkin ] L=7 rate per ScaRC cycle %.3f\n", rho);
  EXPECT_GT(rho, 0.6);
}

namespace {

/// A random type-1 vector of a level: averaged over shared nodes, 0 on Dirichlet nodes.
LevelVector random_type1(const GlobalLevel& level, unsigned seed) {
  std::mt19937 gen(seed + 100 * level.shared->comm().rank());
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  LevelVector v(level.matrix.rows());
  for (double& e : v) e = u(gen);
  level.shared->average(v.data());
  filter(level.dirichlet, v);
  return v;
}

using quilt::testing::bitwise_equal;

}  // namespace

TEST(VelocityMultigrid, PairCycleIsBitwiseTwoCycles) {
  // The Schur-complement preconditioner cycles both velocity components at once
  // (GlobalMultigrid::apply_pair): each must get bitwise the correction of a cycle of its own, at
  // every rank count, for float and double local solves, the fused ILU(0) and a smoother that
  // sweeps one vector after the other, averaged and symmetric Schwarz steps, and with the second
  // component's coarse grid solved on a second root (coarse_pair_root; the same rank at 1).
  const int level = 5;
  with_vortex_operator(1e-2, level, true, [&](const LevelHierarchy& h) {
    const GlobalLevel& finest = h.level(level);
    const LevelVector d0 = random_type1(finest, 1), d1 = random_type1(finest, 2);
    for (accel::Precision precision : {accel::Precision::float32, accel::Precision::float64})
      for (accel::SmootherType smoother : {accel::SmootherType::ilu, accel::SmootherType::aditrigs})
        for (SchwarzCombination combination :
             {SchwarzCombination::average, SchwarzCombination::symmetric})
          for (int pair_root : {-1, h.comm().size() - 1}) {
            GlobalMultigridParams p;
            p.coarse_pair_root = pair_root;
            p.local.precision = precision;
            p.local.smoother = smoother;
            p.coarse_level = choose_coarse_level(h.mesh().mesh, level, 200);
            p.combination = combination;
            p.pre_smooth = combination == SchwarzCombination::symmetric ? 2 : 1;
            GlobalMultigrid mg(h, p);
            LevelVector c0, c1, e0, e1;
            mg.apply(d0, c0);
            mg.apply(d1, c1);
            const std::string what =
                accel::to_string(precision) + " " + accel::to_string(smoother) +
                (combination == SchwarzCombination::symmetric ? " symmetric" : " average") +
                ", pair root " + std::to_string(pair_root);
            for (int order = 0; order < 2; ++order) {  // again, with the vectors swapped
              if (order == 0)
                mg.apply_pair(d0, d1, e0, e1);
              else
                mg.apply_pair(d1, d0, e1, e0);
              EXPECT_TRUE(bitwise_equal(e0, c0)) << what << ", first component, order " << order;
              EXPECT_TRUE(bitwise_equal(e1, c1)) << what << ", second component, order " << order;
            }
          }
  });
}
