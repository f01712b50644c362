// Set up once, update per step: the operators and the velocity multigrid updated in place after
// the velocity changed are bitwise those of a fresh set-up at the new velocity, on every level
// and at every rank count ctest runs. A stale band, a coarse level or a local solver not
// refreshed, or a coarse-grid refactorisation that kept old values, makes them differ.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>

#include "accel/cpu/band_kernels.hpp"
#include "dfg_problems.hpp"
#include "fem/macro_elements.hpp"
#include "fem/q1_element.hpp"
#include "fem/scalar_assembly.hpp"
#include "flow/level_velocity.hpp"
#include "flow/navier_stokes_assembly.hpp"
#include "mesh_files.hpp"
#include "parallel/communicator.hpp"
#include "solvers/global_multigrid.hpp"
#include "swirl_state.hpp"

using namespace quilt;

namespace {

void expect_bitwise_equal(const accel::BandedMatrix<double>& a,
                          const accel::BandedMatrix<double>& b, const char* what, int level) {
  for (int k = 0; k < accel::kBands; ++k)
    for (std::size_t r = 0; r < a.rows(); ++r)
      if (a.band[k][r] != b.band[k][r]) {
        ADD_FAILURE() << what << " differs on level " << level << ", band " << k << ", row " << r
                      << ": " << a.band[k][r] << " != " << b.band[k][r];
        return;
      }
}

TEST(NavierStokesAssembly, UpdateAfterAChangedVelocityEqualsAFreshSetupBitwise) {
  const Communicator comm(MPI_COMM_WORLD);
  NavierStokesParams params = cavity();
  params.multigrid.coarse_level = 0;
  const FlowProblem problem(params, comm);
  GlobalMultigridParams mg = params.multigrid;
  mg.coarse_level = 2;
  mg.local.smoother = params.velocity_smoother.type;

  NavierStokesAssembly updated(problem, params, comm);
  updated.assemble(state(problem, updated, 0.3), params.nu, 0.0);
  updated.assemble_coarse_levels();
  updated.assemble_newton(state(problem, updated, 0.3), params.nu);
  GlobalMultigrid updated_mg(updated.velocity(), mg);
  const FlowVector v = state(problem, updated, 1.0);
  updated.assemble(v, params.nu, 0.5);  // a residual-only step: the finest level alone
  updated.assemble(v, params.nu, 2.0);
  updated.assemble_coarse_levels();
  updated.assemble_newton(v, params.nu);
  updated_mg.update();

  NavierStokesAssembly fresh(problem, params, comm);
  fresh.assemble(v, params.nu, 2.0);
  fresh.assemble_coarse_levels();
  fresh.assemble_newton(v, params.nu);
  GlobalMultigrid fresh_mg(fresh.velocity(), mg);

  for (int l = 0; l <= problem.level; ++l) {
    const GlobalLevel& a = updated.velocity().level(l);
    const GlobalLevel& b = fresh.velocity().level(l);
    expect_bitwise_equal(a.matrix, b.matrix, "A", l);
    expect_bitwise_equal(updated.velocity().local_matrix(l), fresh.velocity().local_matrix(l),
                         "local A", l);
    expect_bitwise_equal(a.local_rediscretised, b.local_rediscretised, "rediscretised part", l);
  }
  const int L = problem.level;
  expect_bitwise_equal(updated.blocks().B1, fresh.blocks().B1, "B1", L);
  expect_bitwise_equal(updated.blocks().D2, fresh.blocks().D2, "D2", L);
  expect_bitwise_equal(updated.blocks().C, fresh.blocks().C, "C", L);
  expect_bitwise_equal(updated.pressure_convection_diffusion(),
                       fresh.pressure_convection_diffusion(), "F_p", L);
  expect_bitwise_equal(updated.jacobian()->J11, fresh.jacobian()->J11, "J11", L);
  expect_bitwise_equal(updated.jacobian()->N12, fresh.jacobian()->N12, "N12", L);
  expect_bitwise_equal(updated.jacobian()->F1, fresh.jacobian()->F1, "F1", L);

  // One cycle through every local solver and the coarse-grid solve.
  LevelVector d(problem.block_size()), c_updated, c_fresh;
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = std::cos(0.37 * i);
  updated_mg.apply(d, c_updated);
  fresh_mg.apply(d, c_fresh);
  ASSERT_EQ(c_updated.size(), c_fresh.size());
  std::size_t differing = 0;
  for (std::size_t i = 0; i < d.size(); ++i) differing += c_updated[i] != c_fresh[i];
  EXPECT_EQ(differing, 0u) << "of " << d.size() << " values of the multigrid cycle";
  EXPECT_GT(fresh_mg.finest_operator().dot(c_fresh, c_fresh), 0.0);
}

// The assembly takes F_p's convection-diffusion part from A's element pass instead of a pass of
// its own: the result is add_pressure_convection_diffusion's plus the pseudo-time step's lumped
// mass, bitwise, on every macro. A copy taken after A's own mass, or a dropped inflow Robin term,
// makes them differ.
TEST(NavierStokesAssembly, PressureConvectionDiffusionIsItsOwnAssemblyBitwise) {
  const Communicator comm(MPI_COMM_WORLD);
  NavierStokesParams params = cavity();
  params.schur = SchurApproximation::pcd;
  params.conditions = {"bottom noslip", "right noslip", "top noslip", "left velocity 1 0"};
  const FlowProblem problem(params, comm);
  NavierStokesAssembly assembly(problem, params, comm);
  const FlowVector v = state(problem, assembly, 1.0);
  const double inverse_dtau = 0.5;
  assembly.assemble(v, params.nu, inverse_dtau);
  const int L = problem.level;
  const accel::BandedMatrix<double>& Fp = assembly.pressure_convection_diffusion();
  accel::BandedMatrix<double> expected(Fp.macros, Fp.n);
  const std::size_t nn = expected.rows_per_macro();
  accel::BandedMatrix<double> plain(Fp.macros, Fp.n);  // without the inflow Robin term
  for (int m = 0; m < problem.mesh.num_local(); ++m) {
    const MacroGeometry& g = assembly.velocity().geometry(L, m);
    const MacroVelocity w{v.u1().data() + m * nn, v.u2().data() + m * nn};
    add_pressure_convection_diffusion(g, w, params.nu, true, params.stabilisation,
                                      problem.boundary_edges[m], expected, m);
    add_lumped_mass(g, expected, m, inverse_dtau);
    add_velocity_operator(g, w, params.nu, true, params.stabilisation, plain, m);
    add_lumped_mass(g, plain, m, inverse_dtau);
  }
  expect_bitwise_equal(Fp, expected, "F_p", L);
  double robin = 0.0;  // the inflow at the left wall must have added its term
  for (std::size_t r = 0; r < Fp.rows(); ++r)
    robin += Fp.band[accel::kCentre][r] - plain.band[accel::kCentre][r];
  EXPECT_GT(comm.sum(robin), 0.0);
}

// Every level's operator and rediscretised convection part come from one element pass
// (LevelHierarchy's pair assembler): bitwise the hierarchy of the two separate assemblers,
// add_velocity_operator and add_convection_operator, at the injected velocity. A convection part
// with the diffusion left in, or one from another level's velocity, makes them differ.
TEST(NavierStokesAssembly, OneElementPassGivesTheSeparateAssemblersLevelsBitwise) {
  const Communicator comm(MPI_COMM_WORLD);
  const NavierStokesParams params = cavity();
  const FlowProblem problem(params, comm);
  NavierStokesAssembly assembly(problem, params, comm);
  const FlowVector v = state(problem, assembly, 1.0);
  assembly.assemble(v, params.nu, 0.0);
  assembly.assemble_coarse_levels();
  const int L = problem.level;
  const auto w = inject_velocity(v.u1(), v.u2(), problem.mesh.num_local(), L);
  const auto velocity = [&](const MacroGeometry& g, int m) {
    const std::size_t nn = static_cast<std::size_t>(g.n) * g.n;
    return MacroVelocity{w[g.level][0].data() + m * nn, w[g.level][1].data() + m * nn};
  };
  const LevelHierarchy expected(
      problem.mesh, comm, L, problem.dirichlet_parts,
      [&](const MacroGeometry& g, accel::BandedMatrix<double>& A, int m) {
        add_velocity_operator(g, velocity(g, m), params.nu, true, params.stabilisation, A, m);
      },
      [&](const MacroGeometry& g, accel::BandedMatrix<double>& C, int m) {
        add_convection_operator(g, velocity(g, m), params.nu, params.stabilisation, C, m);
      });
  for (int l = 0; l <= L; ++l) {
    expect_bitwise_equal(assembly.velocity().level(l).matrix, expected.level(l).matrix, "A", l);
    expect_bitwise_equal(assembly.velocity().level(l).local_rediscretised,
                         expected.level(l).local_rediscretised, "rediscretised part", l);
  }
}

}  // namespace

namespace {

/// A quadratic velocity and its gradient {du1/dx, du1/dy, du2/dx, du2/dy}.
struct Quadratic {
  double u1(double x, double y) const { return 0.7 * x * x - 1.3 * x * y + 0.4 * y * y + x; }
  double u2(double x, double y) const { return -0.2 * x * x + 0.9 * x * y - 0.5 * y * y - y; }
  std::array<double, 4> grad(double x, double y) const {
    return {1.4 * x - 1.3 * y + 1, -1.3 * x + 0.8 * y, -0.4 * x + 0.9 * y, 0.9 * x - y - 1};
  }
};

/// max over the nodes of every rank of |G_h(u) - grad u| for the Quadratic u.
double recovery_error(const char* mesh, int level, const Communicator& comm) {
  NavierStokesParams params = cavity();
  params.mesh_file = mesh_path(mesh);
  params.level = level;
  params.stabilisation.viscous_residual = ViscousResidual::reconstructed;
  const FlowProblem problem(params, comm);
  NavierStokesAssembly assembly(problem, params, comm);
  const Quadratic q;
  FlowVector v(problem.block_size());
  const std::size_t nn = assembly.velocity().level(level).matrix.rows_per_macro();
  for (int m = 0; m < problem.mesh.num_local(); ++m) {
    const MacroGeometry& g = assembly.velocity().geometry(level, m);
    for (std::size_t r = 0; r < nn; ++r) {
      v.u1()[m * nn + r] = q.u1(g.x[r], g.y[r]);
      v.u2()[m * nn + r] = q.u2(g.x[r], g.y[r]);
    }
  }
  NodalGradient G(problem.block_size());
  assembly.viscous_term()->recovery().recover(v.u1().data(), v.u2().data(), G);
  double error = 0;
  for (int m = 0; m < problem.mesh.num_local(); ++m) {
    const MacroGeometry& g = assembly.velocity().geometry(level, m);
    for (std::size_t r = 0; r < nn; ++r) {
      const auto exact = q.grad(g.x[r], g.y[r]);
      for (int f = 0; f < 4; ++f) error = std::max(error, std::abs(G.d[f][m * nn + r] - exact[f]));
    }
  }
  return comm.max(error);
}

}  // namespace

// The recovered gradient of flow/viscous_residual.hpp (lumped L2 projection, summed over the
// macros of every rank, and linear extrapolation to the boundary, diagonally at the domain
// corners) reproduces the gradient of a quadratic velocity exactly on uniform rectangles: at
// interior nodes, macro edges and corners, and on the boundary, at every rank count. Without the
// extrapolation the boundary nodes are off by h/3 |D^2 u| (measured 0.098 at L = 1), without the
// diagonal at the corners by O(h) too. On the unstructured macros it converges at first order
// (measured 3.5e-2, 1.7e-2, 9.1e-3, 4.7e-3, 2.4e-3 at L = 2..6): at macro edges where the
// element size jumps the lumped projection weighs the two sides' difference quotients unevenly.
TEST(GradientRecovery, ExactForQuadraticsOnUniformRectangles) {
  const Communicator comm(MPI_COMM_WORLD);
  for (int level : {1, 3}) EXPECT_LT(recovery_error("unit_square_4x2.msh", level, comm), 1e-12);
  const double coarse = recovery_error("unit_square_unstructured.msh", 3, comm);
  const double fine = recovery_error("unit_square_unstructured.msh", 5, comm);
  EXPECT_LT(fine, 0.3 * coarse);
  EXPECT_LT(fine, 5e-3);
}

namespace {

/// max |S(u) - S_element(u)| and max |S_element(u)| over every rank: S as ViscousResidualTerm
/// applies it (band matrices on the recovered gradient) and the element loop of its formula, on
/// the cavity's uniform rectangles (L = 2) at a constant w, where delta_K and tau_K are one
/// closed form on every element: ((2 |w| / h)^2 + (4 nu / h^2)^2)^{-1/2}, h^2 = |K|, |w| = 0 for
/// Stokes (delta_K = 0 then), the PSPG weight 0 with local projection.
std::array<double, 2> viscous_band_form_error(bool stokes, PressureStabilisation pressure,
                                              const Communicator& comm) {
  NavierStokesParams params = cavity();
  params.level = 2;
  params.stokes = stokes;
  params.stabilisation.pressure = pressure;
  params.stabilisation.viscous_residual = ViscousResidual::reconstructed;
  const FlowProblem problem(params, comm);
  NavierStokesAssembly assembly(problem, params, comm);
  const int L = problem.level;
  const std::size_t nn = assembly.velocity().level(L).matrix.rows_per_macro(),
                    N = problem.block_size();
  const double w1 = 0.7, w2 = -0.4;
  FlowVector v(N);
  std::fill(v.u1().begin(), v.u1().end(), w1);
  std::fill(v.u2().begin(), v.u2().end(), w2);
  assembly.assemble(v, params.nu, 0.0);
  LevelVector u1(N), u2(N);
  for (int m = 0; m < problem.mesh.num_local(); ++m) {
    const MacroGeometry& g = assembly.velocity().geometry(L, m);
    for (std::size_t r = 0; r < nn; ++r) {
      u1[m * nn + r] = std::sin(3 * g.x[r]) * std::cos(2 * g.y[r]);
      u2[m * nn + r] = g.x[r] * g.x[r] * g.y[r] - 0.5 * g.y[r];
    }
  }
  LevelVector y1(N, 0.0), y2(N, 0.0), yp(N, 0.0);
  assembly.viscous_term()->add(u1.data(), u2.data(), y1.data(), y2.data(), yp.data());
  NodalGradient G(N);
  assembly.viscous_term()->recovery().recover(u1.data(), u2.data(), G);
  const double speed = stokes ? 0.0 : std::hypot(w1, w2);
  const auto rule = gauss2x2();
  double largest = 0, error = 0;
  for (int m = 0; m < problem.mesh.num_local(); ++m) {
    const MacroGeometry& g = assembly.velocity().geometry(L, m);
    std::vector<double> e1(nn, 0.0), e2(nn, 0.0), ep(nn, 0.0);
    for (int j = 0; j + 1 < g.n; ++j)
      for (int i = 0; i + 1 < g.n; ++i) {
        const MacroElement e = macro_element(g, i, j);
        const double area =
            0.5 * ((e.x[2] - e.x[0]) * (e.y[3] - e.y[1]) - (e.x[3] - e.x[1]) * (e.y[2] - e.y[0]));
        const double advective = 2 * speed / std::sqrt(area), diffusive = 4 * params.nu / area;
        const double tau = 1 / std::sqrt(advective * advective + diffusive * diffusive);
        const double delta = stokes ? 0.0 : tau;
        const double pspg = pressure == PressureStabilisation::pspg ? tau : 0.0;
        for (const auto& gp : rule) {
          const Q1Point q = evaluate_q1(e.x, e.y, gp);
          const double weight = gp.weight * q.det_j;
          std::array<double, 2> visc{};  // -nu div G_c at the point
          for (int c = 0; c < 2; ++c)
            for (int a = 0; a < 4; ++a)
              visc[c] -= params.nu * (G.d[2 * c][m * nn + e.node[a]] * q.dphi_dx[a] +
                                      G.d[2 * c + 1][m * nn + e.node[a]] * q.dphi_dy[a]);
          for (int r = 0; r < 4; ++r) {
            const double conv = w1 * q.dphi_dx[r] + w2 * q.dphi_dy[r];
            e1[e.node[r]] += weight * delta * visc[0] * conv;
            e2[e.node[r]] += weight * delta * visc[1] * conv;
            ep[e.node[r]] += weight * pspg * (visc[0] * q.dphi_dx[r] + visc[1] * q.dphi_dy[r]);
          }
        }
      }
    for (std::size_t r = 0; r < nn; ++r) {
      const std::size_t k = m * nn + r;
      largest = std::max({largest, std::abs(e1[r]), std::abs(e2[r]), std::abs(ep[r])});
      error = std::max(
          {error, std::abs(y1[k] - e1[r]), std::abs(y2[k] - e2[r]), std::abs(yp[k] - ep[r])});
    }
  }
  return {comm.max(error), comm.max(largest)};
}

}  // namespace

// S(u) of flow/navier_stokes_operators.hpp as ViscousResidualTerm applies it equals the element
// loop of its formula: with convection and PSPG, for Stokes (no SUPG rows), and with local
// projection (no PSPG rows). A swapped, transposed or mis-signed block, or rows left out or
// applied where they are zero, fails; the Newton tests cannot see such errors, since the
// residual and the operator share S.
TEST(ViscousResidual, BandFormIsTheElementFormula) {
  const Communicator comm(MPI_COMM_WORLD);
  for (const auto& [stokes, pressure] :
       {std::pair{false, PressureStabilisation::pspg}, std::pair{true, PressureStabilisation::pspg},
        std::pair{false, PressureStabilisation::local_projection}}) {
    SCOPED_TRACE(std::string(stokes ? "Stokes" : "Navier-Stokes") +
                 (pressure == PressureStabilisation::pspg ? ", PSPG" : ", local projection"));
    const auto [error, largest] = viscous_band_form_error(stokes, pressure, comm);
    EXPECT_GT(largest, 0.0);
    EXPECT_LT(error, 1e-12 * largest);
  }
}

namespace {

/// s(p) = C p less the local projection's patch means (type-1) at the Stokes stabilisation of
/// `params` (tau_K then depends on the element alone).
struct LocalProjectionOperator {
  FlowProblem problem;
  NavierStokesAssembly assembly;
  LocalProjectionOperator(const NavierStokesParams& params, const Communicator& comm)
      : problem(params, comm), assembly(problem, params, comm) {
    assembly.assemble(FlowVector(problem.block_size()), params.nu, 0.0);
  }
  LevelVector c(const LevelVector& p, bool projection) const {
    LevelVector y(p.size());
    accel::cpu::spmv(assembly.blocks().C, p.data(), y.data());
    if (projection)
      assembly.matrix_free_terms().projection->subtract_patch_means(p.data(), y.data());
    assembly.velocity().level(problem.level).shared->sum(y.data());
    return y;
  }
  template <class F>
  LevelVector nodal(F f) const {
    LevelVector v(problem.block_size());
    const int L = problem.level;
    const std::size_t nn = assembly.velocity().level(L).matrix.rows_per_macro();
    const int n = assembly.velocity().geometry(L, 0).n;
    for (int m = 0; m < problem.mesh.num_local(); ++m) {
      const MacroGeometry& g = assembly.velocity().geometry(L, m);
      for (std::size_t r = 0; r < nn; ++r) v[m * nn + r] = f(g.x[r], g.y[r], r % n, r / n);
    }
    return v;
  }
};

double max_abs(const LevelVector& v, const Communicator& comm) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return comm.max(m);
}

}  // namespace

// The local projection stabilisation (flow/local_projection_term.hpp) on the DFG channel
// (curved, non-affine macros): s(p, .) = 0 for every linear p (Q1 holds it exactly on any
// quadrilateral, and its gradient is its patch mean), where the PSPG term C p is not (its flux
// tau dp/dn on the boundary); s is symmetric and positive semi-definite; and on the unit
// square s equals C on the checkerboard, the mode the stabilisation is for. A wrong patch
// numbering, sign or weight breaks the first.
TEST(LocalProjection, VanishesOnLinearPressuresAndKeepsTheCheckerboard) {
  const Communicator comm(MPI_COMM_WORLD);
  NavierStokesParams params = dfg_channel(2, "inflow parabolic 0.3 0 0.41");
  params.stokes = true;
  params.stabilisation.pressure = PressureStabilisation::local_projection;
  const LocalProjectionOperator s(params, comm);
  const LevelVector linear =
      s.nodal([](double x, double y, int, int) { return 2 * x - 3 * y + 1; });
  const double pspg = max_abs(s.c(linear, false), comm);
  EXPECT_GT(pspg, 1e-6);
  EXPECT_LT(max_abs(s.c(linear, true), comm), 1e-12 * pspg);

  const auto& shared = *s.assembly.velocity().level(params.level).shared;
  const LevelVector p =
      s.nodal([](double x, double y, int, int) { return std::sin(7 * x + 3 * y * y); });
  const LevelVector q =
      s.nodal([](double x, double y, int, int) { return std::cos(5 * x * y - 2 * y); });
  const LevelVector sp = s.c(p, true), sq = s.c(q, true);
  const double pq = shared.dot(q.data(), sp.data()), qp = shared.dot(p.data(), sq.data());
  EXPECT_NEAR(pq, qp, 1e-12 * std::abs(pq));
  EXPECT_GT(shared.dot(p.data(), sp.data()), 0.0);

  NavierStokesParams square = cavity();
  square.level = 3;
  square.stokes = true;
  square.stabilisation.pressure = PressureStabilisation::local_projection;
  const LocalProjectionOperator t(square, comm);
  // Every macro side has 2^L elements, so the local parity of i + j is the global one.
  const LevelVector checker =
      t.nodal([](double, double, int i, int j) { return (i + j) % 2 ? -1.0 : 1.0; });
  const LevelVector c = t.c(checker, false), sc = t.c(checker, true);
  double difference = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    difference = std::max(difference, std::abs(c[i] - sc[i]));
  EXPECT_LT(comm.max(difference), 1e-12 * max_abs(c, comm));
}
