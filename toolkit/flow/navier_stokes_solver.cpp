#include "flow/navier_stokes_solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include "flow/coarse_corrected_schur.hpp"
#include "flow/least_squares_commutator.hpp"
#include "flow/pressure_laplacian.hpp"
#include "flow/pressure_schur.hpp"
#include "flow/schur_complement_preconditioner.hpp"
#include "flow/two_level_flow_preconditioner.hpp"
#include "mesh/macro_nodes.hpp"
#include "solvers/solver_error.hpp"

namespace quilt {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

GlobalMultigridParams with_coarse_grid(GlobalMultigridParams mg, const FlowProblem& problem,
                                       std::size_t threshold, int root) {
  mg.coarse_level = choose_coarse_level(problem.mesh.mesh, problem.level, threshold);
  mg.coarse_root = root;
  return mg;
}

/// The ranks of the three direct solves: the velocity's and the pressure's coarse grids and K_H.
/// They are needed one after another, but refactorised together at each update, so that on
/// different ranks the factorisations run side by side (factorise_coarse_grids). K_H, the
/// largest, goes to the last rank; the pressure's to the second where there are three.
/// DFG 2D-3, L = 4, t <= 0.5, 2 ranks: 150 factorisations of each, 0.37-0.41 s for the
/// velocity's, 0.41-0.44 s for the pressure's, 0.52-0.56 s for K_H's, all on rank 0 before while
/// rank 1 waited; with K_H on rank 1 the run takes 7.16 s instead of 8.12 s (docs/benchmarks.md).
/// A second copy of the velocity's factors solves the second component of each pair cycle
/// (GlobalMultigrid::apply_pair) beside the first: on the third rank where there are four, else
/// on the last, whose K_H is solved at another point of the preconditioner.
struct CoarseRoots {
  int velocity, velocity_pair, pressure, coarse_system;
};
CoarseRoots coarse_roots(int ranks) {
  return {0, ranks >= 4 ? 2 : ranks - 1, ranks >= 3 ? 1 : 0, ranks - 1};
}

GlobalMultigridParams velocity_multigrid(GlobalMultigridParams mg, const VelocitySmoother& s,
                                         int pair_root) {
  mg.coarse_pair_root = pair_root;
  mg.local.smoother = s.type;
  mg.local.ordering = s.ordering;
  mg.local.damping = s.damping;
  mg.auto_smoother = false;  // the velocity smoother is named by its own keys
  return mg;
}

}  // namespace

/// One continuation stage (one viscosity): its pseudo-time and Newton state, and the Schur
/// approximation and preconditioner for its nu, made at its first correction.
struct NavierStokesSolver::Stage {
  double nu = 0;
  bool last = false;
  double r0 = 0;  ///< |r| at the stage's first step
  double dtau = 0, dtau_ceiling = 0;
  int k = 0;                      ///< steps taken in this stage
  bool newton_abandoned = false;  ///< auto: a Newton solve missed its forcing term
  std::unique_ptr<PressureSchurApproximation> schur;
  std::unique_ptr<SchurComplementPreconditioner> preconditioner;
  std::unique_ptr<TwoLevelFlowPreconditioner> two_level;  ///< with a coarse system
};

NavierStokesSolver::NavierStokesSolver(const NavierStokesParams& params, const Communicator& comm)
    : created_(Clock::now()),
      params_(params),
      comm_(&comm),
      problem_(params_, comm),
      assembly_(problem_, params_, comm),
      velocity_mg_params_(
          velocity_multigrid(with_coarse_grid(params.multigrid, problem_, params.coarse_threshold,
                                              coarse_roots(comm.size()).velocity),
                             params.velocity_smoother, coarse_roots(comm.size()).velocity_pair)),
      system_(assembly_.velocity().level(problem_.level), assembly_.blocks(),
              !problem_.boundary.has_natural_outflow, nullptr, assembly_.matrix_free_terms()),
      v_(problem_.block_size()),
      r_(problem_.block_size()),
      c_(problem_.block_size()),
      refresh_(params.refresh_growth) {
  if (params.schur != SchurApproximation::mass) {  // A_p of PCD and LSC
    laplacian_.emplace(pressure_laplacian(problem_.mesh, comm, problem_.level));
    pressure_mg_.emplace(*laplacian_,
                         with_coarse_grid(params.multigrid, problem_, params.coarse_threshold,
                                          coarse_roots(comm.size()).pressure));
  }
  const int coarse =
      choose_coarse_system_level(problem_.mesh.mesh, problem_.level, params.coarse_system_nodes);
  if (coarse >= 0) {
    coarse_system_.emplace(assembly_.velocity(), coarse, !problem_.boundary.has_natural_outflow,
                           coarse_roots(comm.size()).coarse_system);
    const GlobalLevel& finest = assembly_.velocity().level(problem_.level);
    const LevelVector ones(finest.matrix.rows(), 1.0);
    const double area = finest.shared->dot(assembly_.lumped_mass().data(), ones.data());
    const double cells = problem_.mesh.mesh.num_cells() * std::pow(4.0, coarse);
    coarse_width_ = std::sqrt(area / cells);
  }
  problem_.impose_dirichlet_values(v_);
  timings_.setup = seconds(created_, Clock::now());
}

void NavierStokesSolver::assemble(double nu, double inverse_dtau) {
  const auto t_start = Clock::now();
  assembly_.assemble(v_, nu, inverse_dtau, transient_);
  multigrids_current_ = false;
  timings_.assembly += seconds(t_start, Clock::now());
}

void NavierStokesSolver::update_multigrids() {
  // Only before a correction: the last step of a solve (and a line-search trial) assembles for
  // its residual alone, and a time step's solve ends with such a step.
  if (multigrids_current_) return;
  multigrids_current_ = true;
  const auto t_start = Clock::now();
  assembly_.assemble_coarse_levels();
  // PCD's pressure operator A_p + c C of a time step (add_stabilised_pressure_laplacian),
  // refreshed with C; back to A_p for a stationary solve.
  const double c = transient_.history ? transient_.mass_coefficient : 0.0;
  if (params_.schur == SchurApproximation::pcd && (c > 0 || pressure_weight_ > 0)) {
    assembly_.assemble_pressure_laplacian(*laplacian_, c);
    pressure_mg_->update(CoarseFactorisation::deferred);
    pressure_weight_ = c;
  }
  if (velocity_mg_) {
    velocity_mg_->update(CoarseFactorisation::deferred);
    timings_.assembly += seconds(t_start, Clock::now());
    return;
  }
  const auto t_assembled = Clock::now();
  timings_.assembly += seconds(t_start, t_assembled);
  velocity_mg_.emplace(assembly_.velocity(), velocity_mg_params_);
  timings_.setup += seconds(t_assembled, Clock::now());
}

Preconditioner& NavierStokesSolver::preconditioner_for(Stage& stage, const LinearOperator& K) {
  // PCD and the scaled mass depend on nu only; the LSC is built from this step's blocks.
  if (!stage.preconditioner || params_.schur == SchurApproximation::lsc) {
    stage.schur = schur_approximation(stage.nu);
    if (coarse_system_)
      stage.schur = std::make_unique<CoarseCorrectedSchur>(std::move(stage.schur), *coarse_system_,
                                                           two_level_);
    stage.preconditioner = std::make_unique<SchurComplementPreconditioner>(
        system_, *velocity_mg_, *stage.schur, params_.velocity_cycles);
    if (coarse_system_)
      stage.two_level = std::make_unique<TwoLevelFlowPreconditioner>(
          *stage.preconditioner, *coarse_system_, system_.size());
  }
  if (!two_level_) return *stage.preconditioner;
  stage.two_level->set_operator(K);
  return *stage.two_level;
}

void NavierStokesSolver::update_coarse_system(double nu, bool newton) {
  // Decided with the multigrids' update, so that K_H is current whenever either correction uses
  // it.
  two_level_ = coarse_system_sees_this_step(nu);
  const auto t_start = Clock::now();
  CoarseNavierStokesSystem& coarse = *coarse_system_;
  assembly_.assemble_blocks(coarse.level(), coarse.blocks(), coarse.scratch_operator());
  if (newton) assembly_.assemble_newton_blocks(coarse.level(), v_, coarse.newton());
  coarse.gather_numbers(newton);
  timings_.assembly += seconds(t_start, Clock::now());
}

void NavierStokesSolver::factorise_coarse_grids() {
  const auto t_start = Clock::now();
  velocity_mg_->factorise_coarse();
  if (pressure_mg_) pressure_mg_->factorise_coarse();
  if (coarse_system_) coarse_system_->factorise();
  timings_.assembly += seconds(t_start, Clock::now());
}

bool NavierStokesSolver::coarse_system_sees_this_step(double nu) const {
  // In a time step c M localises the response to a defect; where it stays inside a coarse cell,
  // the coarse correction costs iterations instead of saving them (design.md §8: DFG 2D-3, L = 3,
  // dt = 0.01: 659 -> 1658 FGMRES iterations; the cavity at L = 5 with BDF2 loses at dt = 0.01
  // and 0.03 and gains at dt = 0.1 and 1).
  const double c = transient_.history ? transient_.mass_coefficient : 0.0;
  if (c == 0.0) return true;
  double speed = 0.0;
  const auto u1 = v_.u1(), u2 = v_.u2();
  for (std::size_t i = 0; i < u1.size(); ++i) speed = std::max(speed, std::hypot(u1[i], u2[i]));
  speed = comm_->max(speed);
  return std::sqrt(nu / c) + speed / c >= coarse_width_;
}

double NavierStokesSolver::nonlinear_residual(double inverse_dtau) {
  // The system holds K + M / dtau, so M v / dtau is added back on the momentum rows that are
  // not Dirichlet rows.
  LevelVector& r = r_.values();
  system_.apply(v_.values(), r);
  const LevelVector& h = assembly_.load().values();
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = h[i] - r[i];
  if (transient_.history) {  // the filter below clears its Dirichlet rows
    const LevelVector& g = transient_.history->values();
    const LevelVector& s = assembly_.time_load().values();
    for (std::size_t i = 0; i < r.size(); ++i) r[i] += g[i] + s[i];
  }
  if (inverse_dtau > 0) {
    const LevelVector& mass = assembly_.lumped_mass();
    const auto& dirichlet = problem_.boundary.dirichlet;
    const auto r1 = r_.u1(), r2 = r_.u2();
    const auto v1 = v_.u1(), v2 = v_.u2();
    for (std::size_t i = 0; i < r1.size(); ++i)
      if (!dirichlet[i]) {
        r1[i] += inverse_dtau * mass[i] * v1[i];
        r2[i] += inverse_dtau * mass[i] * v2[i];
      }
  }
  system_.filter(r);
  return std::sqrt(system_.dot(r, r));
}

void NavierStokesSolver::store_momentum_residual(NavierStokesResult& result,
                                                 double inverse_dtau) const {
  const std::size_t N = problem_.block_size();
  result.momentum_residual1.resize(N);
  result.momentum_residual2.resize(N);
  system_.momentum_rows(v_.values(), result.momentum_residual1.data(),
                        result.momentum_residual2.data());
  const LevelVector& mass = assembly_.lumped_mass();
  const auto v1 = v_.u1(), v2 = v_.u2();
  const auto h1 = assembly_.load().u1(), h2 = assembly_.load().u2();
  const bool body_force = static_cast<bool>(params_.force_x) || static_cast<bool>(params_.force_y);
  const FlowVector& f_wall = assembly_.wall_load();
  const FlowVector* g = transient_.history;
  const FlowVector& s = assembly_.time_load();
  // Every row carries (c + 1/dtau) M; c M v - g is the discrete M du/dt and c S v - S M^{-1} g
  // its SUPG part, both part of the residual.
  for (std::size_t i = 0; i < N; ++i) {
    result.momentum_residual1[i] -= inverse_dtau * mass[i] * v1[i];
    result.momentum_residual2[i] -= inverse_dtau * mass[i] * v2[i];
    if (g) {
      result.momentum_residual1[i] -= g->u1()[i] + s.u1()[i];
      result.momentum_residual2[i] -= g->u2()[i] + s.u2()[i];
    }
    if (body_force) {  // (f, phi_i), on Dirichlet rows from the load kept before the values
      const bool wall = problem_.boundary.dirichlet[i];
      result.momentum_residual1[i] -= wall ? f_wall.u1()[i] : h1[i];
      result.momentum_residual2[i] -= wall ? f_wall.u2()[i] : h2[i];
    }
  }
}

void NavierStokesSolver::move_momentum_residuals(NavierStokesResult& r, std::span<const double> dp,
                                                 const FlowVector& derivative_change) const {
  system_.add_pressure_rows(dp.data(), r.momentum_residual1.data(), r.momentum_residual2.data());
  for (std::size_t i = 0; i < r.momentum_residual1.size(); ++i) {
    r.momentum_residual1[i] += derivative_change.u1()[i];
    r.momentum_residual2[i] += derivative_change.u2()[i];
  }
}

std::unique_ptr<PressureSchurApproximation> NavierStokesSolver::schur_approximation(double nu) {
  const GlobalLevel& finest = assembly_.velocity().level(problem_.level);
  switch (params_.schur) {
    case SchurApproximation::pcd:
      return std::make_unique<PressureConvectionDiffusion>(
          *pressure_mg_, assembly_.pressure_convection_diffusion(), *finest.shared,
          assembly_.lumped_mass(), nu);
    case SchurApproximation::lsc:
      return std::make_unique<LeastSquaresCommutator>(
          finest, assembly_.blocks(), *pressure_mg_, assembly_.lumped_mass(),
          !problem_.boundary.has_natural_outflow, params_.lsc_scaling);
    case SchurApproximation::mass:
      break;
  }
  return std::make_unique<ScaledPressureMass>(assembly_.lumped_mass(), nu);
}

void NavierStokesSolver::add_multigrid_timings() {
  // The multigrids' timers accumulate over the steps: take the increments.
  auto add = [&](const GlobalMultigrid& mg, MultigridTimings& seen) {
    timings_.local_solve += mg.timings().local_solve - seen.local_solve;
    timings_.coarse_solve += mg.timings().coarse_solve - seen.coarse_solve;
    seen = mg.timings();
  };
  if (velocity_mg_) add(*velocity_mg_, seen_velocity_);
  if (pressure_mg_) add(*pressure_mg_, seen_pressure_);
  if (coarse_system_) {
    timings_.coarse_solve += coarse_system_->solve_seconds() - seen_coarse_system_;
    seen_coarse_system_ = coarse_system_->solve_seconds();
  }
}

NavierStokesResult NavierStokesSolver::solve(const ProgressCallback& progress) {
  transient_ = {};
  refresh_.forget();  // its corrections set up for the stationary operator
  std::vector<double> viscosities = params_.continuation;
  viscosities.push_back(params_.nu);
  return iterate(viscosities, progress);
}

NavierStokesResult NavierStokesSolver::solve(const TimeStepTerms& terms,
                                             const ProgressCallback& progress) {
  transient_ = terms;
  NavierStokesResult result = iterate({params_.nu}, progress);
  transient_ = {};
  return result;
}

void NavierStokesSolver::set_time(double t) {
  problem_.set_time(t);
  problem_.impose_dirichlet_values(v_);
  assembly_.refresh_boundary_values();
}

double NavierStokesSolver::nonlinear_rel_tol() const {
  const double step = transient_.nonlinear_rel_tol;
  return step > 0 ? std::min(params_.nonlinear_rel_tol, step) : params_.nonlinear_rel_tol;
}

NavierStokesResult NavierStokesSolver::iterate(const std::vector<double>& viscosities,
                                               const ProgressCallback& progress) {
  const auto t_start = Clock::now();
  steps_.clear();
  corrections_ = 0;
  eta_ = params_.linear.rel_tol;
  newton_blocked_ = false;
  bool converged = false;
  for (std::size_t s = 0; s < viscosities.size(); ++s) {
    Stage stage;
    stage.nu = viscosities[s];
    stage.last = s + 1 == viscosities.size();
    stage.dtau_ceiling = params_.pseudo_time_step_max;
    line_search_.reset();
    while (stage.k < params_.nonlinear_max_iter) {
      const auto t_step = Clock::now();
      // Switched evolution relaxation, lagged by one step (the defect of v_k needs K(v_k)).
      stage.dtau = params_.pseudo_time_step;
      if (stage.dtau > 0 && stage.k > 0)
        stage.dtau = std::min(stage.dtau_ceiling, stage.dtau * stage.r0 / steps_.back().residual);
      const double inverse_dtau = stage.dtau > 0 ? 1.0 / stage.dtau : 0.0;
      assemble(stage.nu, inverse_dtau);

      NonlinearStep log{.step = corrections_, .nu = stage.nu, .pseudo_time_step = stage.dtau};
      log.residual = nonlinear_residual(inverse_dtau);
      if (!std::isfinite(log.residual))
        throw SolverError("Navier-Stokes: nonlinear residual is " + std::to_string(log.residual) +
                          " at step " + std::to_string(corrections_));
      if (corrections_ == 0) r0_ = log.residual;
      if (stage.k == 0) stage.r0 = log.residual;
      // Continuation stages only prepare a starting guess: three digits are enough there.
      const double target = std::max(stage.last ? nonlinear_rel_tol() * r0_ : 1e-3 * stage.r0,
                                     params_.nonlinear_abs_tol);
      if (log.residual <= target) {
        log.seconds = seconds(t_step, Clock::now());
        steps_.push_back(log);
        if (progress) progress(log);
        converged = stage.last;
        break;
      }
      // The line search of the previous Newton step: v_k was v_{k-1} + lambda c_{k-1}.
      const auto outcome = line_search_.check(log.residual, v_.values());
      if (outcome == NewtonLineSearch::Outcome::shortened)
        continue;  // the same step again, at the shorter trial point
      if (outcome != NewtonLineSearch::Outcome::none)
        steps_.back().step_length = line_search_.step_length();
      if (outcome == NewtonLineSearch::Outcome::exhausted) newton_blocked_ = true;
      correct(stage, log, target);
      log.seconds = seconds(t_step, Clock::now());
      steps_.push_back(log);
      if (progress) progress(log);
      ++stage.k;
      ++corrections_;
    }
    if (converged) break;
  }
  if (transient_.history) {
    int linear_iterations = 0;
    for (const NonlinearStep& s : steps_) linear_iterations += s.linear_iterations;
    refresh_.solved(corrections_, linear_iterations);
  }
  if (steps_.empty())
    throw SolverError("Navier-Stokes: nonlinear.max_iter = " +
                      std::to_string(params_.nonlinear_max_iter) + " allows no step");
  if (!converged)
    throw SolverError("Navier-Stokes: no convergence in nonlinear.max_iter = " +
                      std::to_string(params_.nonlinear_max_iter) + " steps: residual " +
                      std::to_string(steps_.back().residual) + " > max(rel_tol |r_0|, abs_tol)");
  return result(seconds(t_start, Clock::now()));
}

bool NavierStokesSolver::use_newton(const Stage& stage, double residual) const {
  // auto leaves pseudo-time steps to Picard: with M / dtau in it the Newton correction
  // contracts only linearly (DFG Re = 100, dtau capped at 1: 0.5 per step at 100-250
  // iterations each, against 20 for Picard).
  if (params_.stokes || params_.nonlinear_method == NonlinearMethod::picard || newton_blocked_)
    return false;
  return params_.nonlinear_method == NonlinearMethod::newton ||
         (!stage.newton_abandoned && stage.dtau == 0 &&
          residual <= params_.newton_switch * stage.r0);
}

void NavierStokesSolver::correct(Stage& stage, NonlinearStep& log, double target) {
  // A time step starts close to its solution, and its operator changes little from one
  // nonlinear step to the next: the multigrids of the solve's first correction precondition its
  // later ones (DFG 2D-3, L = 4, t in [0, 0.2]: 1037 FGMRES iterations against 1036 with an
  // update at every correction, and a third less assembly time), and those of an earlier solve
  // the later solves while they work as well (flow/preconditioner_refresh.hpp), unless a
  // correction missed its target. A stationary solve updates them at every correction, but for
  // Stokes without pseudo-time: its operator is the same at every correction of a stage.
  const bool same_operator = transient_.history || (params_.stokes && stage.dtau == 0);
  const double mass_coefficient = transient_.history ? transient_.mass_coefficient : 0.0;
  const bool first =
      transient_.history ? corrections_ == 0 && refresh_.due(mass_coefficient) : stage.k == 0;
  const bool refreshed = !same_operator || first || refresh_multigrids_;
  if (refreshed) {
    update_multigrids();
    if (transient_.history) refresh_.set_up(mass_coefficient);
    ++preconditioner_setups_;
  }
  const bool newton = use_newton(stage, log.residual);
  newton_blocked_ = false;
  KrylovParams linear = params_.linear;
  if (newton) {  // inexact Newton: the forcing term from the last two residuals
    eta_ = steps_.empty() || !steps_.back().newton
               ? params_.linear.rel_tol
               : forcing_term(eta_, log.residual, steps_.back().residual, params_.linear.rel_tol,
                              target);
    linear.rel_tol = eta_;
    const auto t_newton = Clock::now();
    assembly_.assemble_newton(v_, stage.nu);
    if (!jacobian_)
      jacobian_.emplace(assembly_.velocity().level(problem_.level), assembly_.blocks(),
                        !problem_.boundary.has_natural_outflow, assembly_.jacobian(),
                        assembly_.matrix_free_terms());
    timings_.assembly += seconds(t_newton, Clock::now());
  }
  if (coarse_system_ && refreshed) update_coarse_system(stage.nu, newton);
  if (refreshed) factorise_coarse_grids();
  const LinearOperator& K = newton ? static_cast<const LinearOperator&>(*jacobian_) : system_;
  Preconditioner& preconditioner = preconditioner_for(stage, K);
  LevelVector& c = c_.values();
  std::fill(c.begin(), c.end(), 0.0);
  const auto t_linear = Clock::now();
  const KrylovResult lin =
      solve_krylov(params_.linear_method, K, preconditioner, r_.values(), c, linear, krylov_);
  timings_.linear += seconds(t_linear, Clock::now());
  add_multigrid_timings();
  const bool reduced = lin.relative_residual() < 1.0;
  if (!reduced && stage.dtau == 0 && !newton)
    throw SolverError(
        "Navier-Stokes step " + std::to_string(corrections_) + ": the linear solve (" +
        to_string(params_.linear_method) + ", " + std::to_string(lin.iterations) +
        " iterations) did not reduce the defect (|r|/|r_0| = " +
        std::to_string(lin.relative_residual()) +
        "); try solver.type = fgmres, more solver.max_iter, nonlinear.pseudo_time_step or "
        "flow.continuation");
  // A correction solve far off its target means the preconditioner has stopped working at this
  // dtau: cap the later steps at half of it, and drop a correction that did not reduce.
  if (stage.dtau > 0 && !(lin.relative_residual() <= std::max(0.5, params_.linear.rel_tol)))
    stage.dtau_ceiling = 0.5 * stage.dtau;
  if (newton && reduced)
    line_search_.start(log.residual, v_.values(), c);  // v += c, keeping v_k, c to backtrack
  else if (reduced)
    axpy(params_.nonlinear_damping, c, v_.values());
  if (newton && params_.nonlinear_method == NonlinearMethod::automatic &&
      !(lin.relative_residual() <= linear.rel_tol))
    stage.newton_abandoned = true;
  if (newton && !reduced) newton_blocked_ = true;
  refresh_multigrids_ = !(lin.relative_residual() <= linear.rel_tol);
  log.newton = newton;
  log.linear_iterations = lin.iterations;
  log.linear_reduction = lin.relative_residual();
}

NavierStokesResult NavierStokesSolver::result(double solve_seconds) {
  NavierStokesResult result;
  result.mesh = problem_.mesh;
  result.level = problem_.level;
  result.coarse_level = velocity_mg_params_.coarse_level;
  if (dofs_ == 0) dofs_ = 3 * GlobalNumbering(problem_.mesh.mesh, problem_.level).size();
  result.dofs = dofs_;
  result.converged = true;
  result.steps = steps_;
  result.preconditioner_setups = preconditioner_setups_;
  const auto v1 = v_.u1(), v2 = v_.u2(), p = v_.p();
  result.u1.assign(v1.begin(), v1.end());
  result.u2.assign(v2.begin(), v2.end());
  result.p.assign(p.begin(), p.end());
  const double inverse_dtau =
      steps_.back().pseudo_time_step > 0 ? 1.0 / steps_.back().pseudo_time_step : 0.0;
  store_momentum_residual(result, inverse_dtau);
  const Communicator& comm = *comm_;
  FlowTimings& t = result.timings;
  t.setup = comm.max(timings_.setup);
  timings_.total += solve_seconds;  // here: the solves so far; the result's total adds setup
  t.total = comm.max(timings_.setup + timings_.total);
  t.assembly = comm.max(timings_.assembly);
  t.linear = comm.max(timings_.linear);
  t.local_solve = comm.max(timings_.local_solve);
  t.coarse_solve = comm.max(timings_.coarse_solve);
  return result;
}

NavierStokesResult solve_navier_stokes(const NavierStokesParams& params, const Communicator& comm,
                                       const ProgressCallback& progress) {
  NavierStokesSolver solver(params, comm);
  return solver.solve(progress);
}

}  // namespace quilt
