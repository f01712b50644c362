#include "flow/navier_stokes_solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>

#include "fem/scalar_assembly.hpp"
#include "flow/level_velocity.hpp"
#include "flow/navier_stokes_system.hpp"
#include "flow/newton_control.hpp"
#include "flow/pressure_laplacian.hpp"
#include "flow/schur_complement_preconditioner.hpp"
#include "mesh/macro_nodes.hpp"
#include "mesh/msh_reader.hpp"
#include "solvers/solver_error.hpp"

namespace quilt {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

NavierStokesResult solve_navier_stokes(const NavierStokesParams& params, const Communicator& comm,
                                       const ProgressCallback& progress) {
  const auto t_start = Clock::now();
  NavierStokesResult result;
  CoarseMesh coarse = read_msh(params.mesh_file);
  ChartMap charts = bind_charts(coarse, params.charts);
  const auto conditions = parse_velocity_conditions(coarse, params.conditions);
  result.mesh = distribute(std::move(coarse), std::move(charts), comm);
  const DistributedMesh& dm = result.mesh;
  const int L = params.level;
  const int macros = dm.num_local();
  const int n = accel::nodes_per_side(L);
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const std::size_t N = nn * macros;

  const VelocityBoundary bc = velocity_boundary(dm, L, conditions);
  const std::vector<bool> velocity_dirichlet = dirichlet_parts(dm.mesh, conditions);
  const bool convection = !params.stokes;

  // Lumped pressure mass (type-1) for the Schur complement approximation.
  LevelVector lumped_mass(N);
  for (int m = 0; m < macros; ++m)
    assemble_lumped_mass(refine_macro(dm.mesh, dm.charts, dm.macros[m], L),
                         lumped_mass.data() + m * nn);
  {
    const SharedNodes shared(dm, comm, L);
    shared.sum(lumped_mass.data());
  }

  // v = [u1 | u2 | p], the Dirichlet values in place; h = the right-hand side (no body force:
  // the Dirichlet rows carry the boundary values).
  LevelVector v(3 * N, 0.0), h(3 * N, 0.0);
  auto set_dirichlet_values = [&](LevelVector& x) {
    for (std::size_t i = 0; i < N; ++i)
      if (bc.dirichlet[i]) {
        x[i] = bc.u1[i];
        x[N + i] = bc.u2[i];
      }
  };
  set_dirichlet_values(v);
  set_dirichlet_values(h);
  const bool body_force = static_cast<bool>(params.force_x) || static_cast<bool>(params.force_y);
  const ScalarFunction zero = [](double, double) { return 0.0; };
  const ScalarFunction& force_x = params.force_x ? params.force_x : zero;
  const ScalarFunction& force_y = params.force_y ? params.force_y : zero;

  GlobalMultigridParams mg = params.multigrid;
  mg.coarse_level = choose_coarse_level(dm.mesh, L, params.coarse_threshold);
  result.coarse_level = mg.coarse_level;
  GlobalMultigridParams velocity_mg = mg;
  velocity_mg.local.smoother = params.velocity_smoother.type;
  velocity_mg.local.ordering = params.velocity_smoother.ordering;
  velocity_mg.local.damping = params.velocity_smoother.damping;
  result.level = L;
  result.dofs = 3 * GlobalNumbering(dm.mesh, L).size();

  // The pressure Laplacian A_p of the PCD Schur approximation, set up once.
  std::optional<LevelHierarchy> laplacian;
  std::optional<GlobalMultigrid> pressure_mg;
  if (params.schur == SchurApproximation::pcd) {
    laplacian.emplace(pressure_laplacian(dm, comm, L));
    pressure_mg.emplace(*laplacian, mg);
  }
  // Macro edges on the domain boundary, for the inflow Robin term of F_p.
  std::vector<std::array<bool, 4>> boundary_edges(macros);
  for (int m = 0; m < macros; ++m)
    for (int k = 0; k < 4; ++k)
      boundary_edges[m][k] = dm.mesh.edge_part[dm.mesh.cell_edges[dm.macros[m]][k]] >= 0;

  std::vector<double> viscosities = params.continuation;
  viscosities.push_back(params.nu);
  LevelVector r(3 * N), c(3 * N);
  int step = 0;
  double r0 = 0, stage_r0 = 0;
  const bool may_use_newton = convection && params.nonlinear_method != NonlinearMethod::picard;
  NewtonLineSearch line_search;
  bool newton_blocked = false;  // one Picard step after an exhausted line search
  double eta = params.linear.rel_tol;
  double pressure_local_seen = 0, pressure_coarse_seen = 0;
  for (std::size_t stage = 0; stage < viscosities.size(); ++stage) {
    const double nu = viscosities[stage];
    const bool last_stage = stage + 1 == viscosities.size();
    double dtau_ceiling = params.pseudo_time_step_max;
    line_search.reset();
    // auto: the Oseen preconditioner serves the Jacobian at low Re (DFG 2D-1, cavity Re = 100),
    // not beyond (DFG Re = 100: a reduction of 0.3 in 300 FGMRES iterations; cavity Re = 1000:
    // 0.7 in 100). A Newton solve that misses its forcing term hands the stage back to Picard.
    bool newton_abandoned = false;
    for (int k = 0; k < params.nonlinear_max_iter;) {
      const auto t_step = Clock::now();
      // Switched evolution relaxation, lagged by one step (the defect of v_k needs K(v_k)).
      double dtau = params.pseudo_time_step;
      if (dtau > 0 && k > 0)
        dtau = std::min(dtau_ceiling, dtau * stage_r0 / result.steps.back().residual);
      const double inverse_dtau = dtau > 0 ? 1.0 / dtau : 0.0;
      // Assembly of K(v_k) on every level: A everywhere, the other blocks on the finest level,
      // in the same element pass.
      LevelVector u1(v.begin(), v.begin() + N), u2(v.begin() + N, v.begin() + 2 * N);
      const auto w = inject_velocity(u1, u2, macros, L);
      FlowBlocks blocks(macros, n);
      accel::BandedMatrix<double> Fp(params.schur == SchurApproximation::pcd ? macros : 0, n);
      LevelHierarchy hierarchy(
          dm, comm, L, velocity_dirichlet,
          [&](const MacroGeometry& g, accel::BandedMatrix<double>& A, int m) {
            const std::size_t g_nn = static_cast<std::size_t>(g.n) * g.n;
            const MacroVelocity wm{w[g.level][0].data() + m * g_nn,
                                   w[g.level][1].data() + m * g_nn};
            if (g.level == L) {
              add_navier_stokes_blocks(
                  g, wm, nu, convection, params.stabilisation,
                  {&A, &blocks.B1, &blocks.B2, &blocks.D1, &blocks.D2, &blocks.C}, m);
              if (body_force)
                assemble_navier_stokes_load(g, wm, nu, convection, params.stabilisation, force_x,
                                            force_y, h.data() + m * nn, h.data() + N + m * nn,
                                            h.data() + 2 * N + m * nn);
              if (Fp.macros > 0) {
                add_pressure_convection_diffusion(g, wm, nu, convection, params.stabilisation,
                                                  boundary_edges[m], Fp, m);
                if (inverse_dtau > 0) add_lumped_mass(g, Fp, m, inverse_dtau);
              }
            } else
              add_velocity_operator(g, wm, nu, convection, params.stabilisation, A, m);
            if (inverse_dtau > 0) add_lumped_mass(g, A, m, inverse_dtau);
          },
          // Convection and SUPG rediscretised on the local coarse levels (local_levels.hpp).
          !convection ? MacroAssembler{}
                      : [&](const MacroGeometry& g, accel::BandedMatrix<double>& C, int m) {
                          const std::size_t g_nn = static_cast<std::size_t>(g.n) * g.n;
                          const MacroVelocity wm{w[g.level][0].data() + m * g_nn,
                                                 w[g.level][1].data() + m * g_nn};
                          add_convection_operator(g, wm, nu, params.stabilisation, C, m);
                        });
      if (body_force) {  // the load depends on w through its SUPG/PSPG terms
        const SharedNodes& shared = *hierarchy.level(L).shared;
        for (int b = 0; b < 3; ++b) shared.sum(h.data() + b * N);
        set_dirichlet_values(h);
      }
      GlobalMultigrid multigrid(hierarchy, velocity_mg);
      const NavierStokesSystem system(hierarchy.level(L), blocks, !bc.has_natural_outflow);
      ScaledPressureMass scaled_mass(lumped_mass, nu);
      std::optional<PressureConvectionDiffusion> pcd;
      if (params.schur == SchurApproximation::pcd)
        pcd.emplace(*pressure_mg, Fp, *hierarchy.level(L).shared, lumped_mass, nu);
      PressureSchurApproximation& schur =
          pcd ? static_cast<PressureSchurApproximation&>(*pcd) : scaled_mass;
      SchurComplementPreconditioner preconditioner(system, multigrid, schur);
      const auto t_assembled = Clock::now();
      result.timings.assembly += seconds(t_step, t_assembled);

      // Nonlinear defect h - K(v_k) v_k: the system holds K + M / dtau, so M v / dtau is added
      // back on the momentum rows that are not Dirichlet rows.
      system.apply(v, r);
      for (std::size_t i = 0; i < r.size(); ++i) r[i] = h[i] - r[i];
      if (inverse_dtau > 0)
        for (std::size_t i = 0; i < N; ++i)
          if (!bc.dirichlet[i]) {
            r[i] += inverse_dtau * lumped_mass[i] * v[i];
            r[N + i] += inverse_dtau * lumped_mass[i] * v[N + i];
          }
      system.filter(r);
      NonlinearStep log;
      log.step = step;
      log.nu = nu;
      log.pseudo_time_step = dtau;
      log.residual = std::sqrt(system.dot(r, r));
      if (!std::isfinite(log.residual))
        throw SolverError("Navier-Stokes: nonlinear residual is " + std::to_string(log.residual) +
                          " at step " + std::to_string(step));
      if (step == 0) r0 = log.residual;
      if (k == 0) stage_r0 = log.residual;
      // Continuation stages only prepare a starting guess: three digits are enough there.
      const double target = last_stage
                                ? std::max(params.nonlinear_rel_tol * r0, params.nonlinear_abs_tol)
                                : std::max(1e-3 * stage_r0, params.nonlinear_abs_tol);
      if (log.residual <= target) {
        log.seconds = seconds(t_step, Clock::now());
        result.steps.push_back(log);
        if (progress) progress(log);
        if (last_stage) {
          result.converged = true;
          // Momentum residual for the volume form of the forces (no body force in the
          // benchmarks that ask for forces: h has only Dirichlet rows there).
          result.momentum_residual1.resize(N);
          result.momentum_residual2.resize(N);
          system.momentum_rows(v, result.momentum_residual1.data(),
                               result.momentum_residual2.data());
          for (std::size_t i = 0; i < N; ++i) {  // every row carries M / dtau here
            result.momentum_residual1[i] -= inverse_dtau * lumped_mass[i] * v[i];
            result.momentum_residual2[i] -= inverse_dtau * lumped_mass[i] * v[N + i];
          }
          if (body_force)
            for (std::size_t i = 0; i < N; ++i)
              if (!bc.dirichlet[i]) {
                result.momentum_residual1[i] -= h[i];
                result.momentum_residual2[i] -= h[N + i];
              }
        }
        break;
      }
      // The line search of the previous Newton step: v_k was v_{k-1} + lambda c_{k-1}.
      const auto outcome = line_search.check(log.residual, v);
      if (outcome == NewtonLineSearch::Outcome::shortened) {
        result.timings.assembly += seconds(t_assembled, Clock::now());
        continue;  // the same step again, at the shorter trial point
      }
      if (outcome != NewtonLineSearch::Outcome::none)
        result.steps.back().step_length = line_search.step_length();
      if (outcome == NewtonLineSearch::Outcome::exhausted) newton_blocked = true;
      // auto leaves pseudo-time steps to Picard: with M / dtau in it the Newton correction
      // contracts only linearly (DFG Re = 100, dtau capped at 1: 0.5 per step at 100-250
      // iterations each, against 20 for Picard).
      const bool newton =
          may_use_newton && !newton_blocked &&
          (params.nonlinear_method == NonlinearMethod::newton ||
           (!newton_abandoned && dtau == 0 && log.residual <= params.newton_switch * stage_r0));
      newton_blocked = false;
      KrylovParams linear = params.linear;
      if (newton) {  // inexact Newton: the forcing term from the last two residuals
        if (!result.steps.empty() && result.steps.back().newton)
          eta = forcing_term(eta, log.residual, result.steps.back().residual, params.linear.rel_tol,
                             target);
        else
          eta = params.linear.rel_tol;
        linear.rel_tol = eta;
      }
      // The Jacobian's Newton blocks on the finest level, only for a Newton step.
      const auto t_newton = Clock::now();
      NewtonCoupling newton_blocks(newton ? macros : 0, n);
      for (int m = 0; m < newton_blocks.N11.macros; ++m)
        add_newton_blocks(refine_macro(dm.mesh, dm.charts, dm.macros[m], L),
                          {w[L][0].data() + m * nn, w[L][1].data() + m * nn},
                          v.data() + 2 * N + m * nn, nu, params.stabilisation, params.force_x,
                          params.force_y, newton_blocks.blocks(), m);
      const NavierStokesSystem jacobian(hierarchy.level(L), blocks, !bc.has_natural_outflow,
                                        &newton_blocks);
      result.timings.assembly += seconds(t_newton, Clock::now());
      std::fill(c.begin(), c.end(), 0.0);
      const auto t_linear = Clock::now();
      const KrylovResult lin = solve_krylov(params.linear_method, newton ? jacobian : system,
                                            preconditioner, r, c, linear);
      result.timings.linear += seconds(t_linear, Clock::now());
      result.timings.local_solve += multigrid.timings().local_solve;
      result.timings.coarse_solve += multigrid.timings().coarse_solve;
      if (pressure_mg) {  // its timers accumulate over the steps: take the increments
        result.timings.local_solve += pressure_mg->timings().local_solve - pressure_local_seen;
        result.timings.coarse_solve += pressure_mg->timings().coarse_solve - pressure_coarse_seen;
        pressure_local_seen = pressure_mg->timings().local_solve;
        pressure_coarse_seen = pressure_mg->timings().coarse_solve;
      }
      const bool reduced = lin.relative_residual() < 1.0;
      if (!reduced && dtau == 0 && !newton)
        throw SolverError(
            "Navier-Stokes step " + std::to_string(step) + ": the linear solve (" +
            to_string(params.linear_method) + ", " + std::to_string(lin.iterations) +
            " iterations) did not reduce the defect (|r|/|r_0| = " +
            std::to_string(lin.relative_residual()) +
            "); try solver.type = fgmres, more solver.max_iter, nonlinear.pseudo_time_step or "
            "flow.continuation");
      // A correction solve far off its target means the preconditioner has stopped working at
      // this dtau (the Jacobi-smoothed velocity multigrid diverges as the mass term weakens):
      // cap the later steps at half of it, and drop a correction that did not reduce.
      if (dtau > 0 && !(lin.relative_residual() <= std::max(0.5, params.linear.rel_tol)))
        dtau_ceiling = 0.5 * dtau;
      if (newton && reduced)
        line_search.start(log.residual, v, c);  // v += c, remembering v_k and c for backtracking
      else if (reduced)
        axpy(params.nonlinear_damping, c, v);
      if (newton && params.nonlinear_method == NonlinearMethod::automatic &&
          !(lin.relative_residual() <= linear.rel_tol))
        newton_abandoned = true;
      if (newton && !reduced) newton_blocked = true;
      log.newton = newton;
      log.linear_iterations = lin.iterations;
      log.linear_reduction = lin.relative_residual();
      log.seconds = seconds(t_step, Clock::now());
      result.steps.push_back(log);
      if (progress) progress(log);
      ++k;
      ++step;
    }
  }
  if (!result.converged && result.steps.empty())
    throw SolverError("Navier-Stokes: nonlinear.max_iter = " +
                      std::to_string(params.nonlinear_max_iter) + " allows no step");
  if (!result.converged)
    throw SolverError("Navier-Stokes: no convergence in nonlinear.max_iter = " +
                      std::to_string(params.nonlinear_max_iter) + " steps: residual " +
                      std::to_string(result.steps.back().residual) +
                      " > max(rel_tol |r_0|, abs_tol)");
  result.u1.assign(v.begin(), v.begin() + N);
  result.u2.assign(v.begin() + N, v.begin() + 2 * N);
  result.p.assign(v.begin() + 2 * N, v.end());
  result.timings.total = seconds(t_start, Clock::now());
  result.timings.assembly = comm.max(result.timings.assembly);
  result.timings.linear = comm.max(result.timings.linear);
  result.timings.local_solve = comm.max(result.timings.local_solve);
  result.timings.coarse_solve = comm.max(result.timings.coarse_solve);
  result.timings.total = comm.max(result.timings.total);
  return result;
}

}  // namespace quilt
