#pragma once
// Stationary Navier-Stokes by defect correction on the two-layer solver (design.md §8, Turek
// 1999):
//   v_{k+1} = v_k + lambda_k K~^{-1} (h - K(v_k) v_k),
// K(v_k) the Oseen operator (Picard) or the Jacobian (Newton, with the backtracking lambda_k of
// flow/newton_control.hpp) linearised at the current velocity; K~^{-1}: FGMRES (or BiCGStab)
// preconditioned by the Schur-complement preconditioner, to a fixed relative tolerance (Picard)
// or the Eisenstat-Walker forcing term (Newton). `auto` takes Picard steps until the residual
// fell by newton_switch, then Newton, and hands a stage back to Picard when a Newton solve misses
// its forcing term.
// With a pseudo-time step dtau_k the correction is solved with K(v_k) + M / dtau_k instead (M
// the lumped mass): one backward-Euler step of dv/dt + K(v) v = h. The defect stays the steady
// one, so a converged v is the steady solution whatever dtau was (Kelley & Keyes 1998). The mass
// term makes A diagonally dominant for the local multigrid and moves the Schur complement
// towards the transient regime in which PCD is accurate; the backward-Euler step also damps the
// growing modes of a steady state that is unstable in time (DFG Re = 100). dtau_k grows as the
// defect falls (switched evolution relaxation, Mulder & van Leer 1985):
// dtau_k = min(dtau_max, dtau_0 |r_0| / |r_{k-1}|). A correction solve that misses its target
// (reduction worse than max(0.5, linear.rel_tol)) lowers dtau_max to half of that step's dtau.
// Stokes is the same loop with the convection switched off.
//
// Structure is built once (flow/flow_problem.hpp, flow/navier_stokes_assembly.hpp, the
// multigrids); every step assembles into it and updates the multigrids' numbers in place.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "flow/coarse_navier_stokes_system.hpp"
#include "flow/flow_problem.hpp"
#include "flow/flow_vector.hpp"
#include "flow/navier_stokes_assembly.hpp"
#include "flow/navier_stokes_params.hpp"
#include "flow/navier_stokes_system.hpp"
#include "flow/newton_control.hpp"
#include "flow/preconditioner_refresh.hpp"
#include "flow/pressure_schur.hpp"
#include "solvers/global_multigrid.hpp"
#include "solvers/krylov.hpp"

namespace quilt {

/// One line of the progress log.
struct NonlinearStep {
  int step = 0;
  double nu = 0;
  double residual = 0;          ///< |h - K(v_k) v_k| before the step
  double pseudo_time_step = 0;  ///< dtau_k of the correction (0: none)
  bool newton = false;          ///< the correction solved the Jacobian, not K(v_k)
  double step_length = 1.0;     ///< lambda of the update v_k + lambda c_k (line search)
  int linear_iterations = 0;
  double linear_reduction = 0;
  double seconds = 0;  ///< wall time of the step
};

/// Seconds (maximum over the ranks), summed over every solve() of the solver (the time steps of
/// an instationary run): total = setup + the solves; setup = structure built once (mesh,
/// hierarchy, plans, symbolic factorisation, solver buffers); assembly = the operators' numbers of
/// every step (element loops, local and Galerkin coarse levels, numeric refactorisation); linear =
/// the Krylov solves, of which local_solve and coarse_solve were spent in the local layer and in
/// the coarse-grid solve.
struct FlowTimings {
  double total = 0, setup = 0, assembly = 0, linear = 0, local_solve = 0, coarse_solve = 0;
};

struct NavierStokesResult {
  DistributedMesh mesh;
  int level = 0, coarse_level = 0;
  std::size_t dofs = 0;  ///< 3 x global nodes
  bool converged = false;
  std::vector<NonlinearStep> steps;
  FlowTimings timings;
  /// Corrections that set the preconditioner up (multigrids, direct solves), summed like the
  /// timings: every correction of a stationary solve, few of a time-dependent run's.
  int preconditioner_setups = 0;
  LevelVector u1, u2, p;  ///< this rank's macros, finest level, type-1
  /// The momentum rows of K(v) v - h evaluated without the Dirichlet unit rows (type-1): on a
  /// Dirichlet node it is the weak-form residual whose sum over a boundary part, with the test
  /// function 1 there, is minus the force on that part (flow/flow_postprocessing.hpp).
  LevelVector momentum_residual1, momentum_residual2;
};

using ProgressCallback = std::function<void(const NonlinearStep&)>;

/// Set up once (mesh, hierarchies, shared-node plans, multigrid and coarse-grid structure, the
/// local solvers' buffers), then solve(): every nonlinear step re-assembles into the existing
/// storage and updates the multigrid in place (FEAT3's init_symbolic / init_numeric, MFEM's
/// Setup / Step). The solver keeps pointers into itself: it is neither copied nor moved.
class NavierStokesSolver {
 public:
  NavierStokesSolver(const NavierStokesParams& params, const Communicator& comm);
  NavierStokesSolver(const NavierStokesSolver&) = delete;
  NavierStokesSolver& operator=(const NavierStokesSolver&) = delete;

  /// The nonlinear iteration from v = the Dirichlet values, through params.continuation to
  /// params.nu. Throws SolverError when it does not converge.
  NavierStokesResult solve(const ProgressCallback& progress = {});

  /// One implicit time step: the same iteration (no continuation) from the current state for
  /// K(v) v + c M v = h + g. Throws SolverError when it does not converge.
  NavierStokesResult solve(const TimeStepTerms& terms, const ProgressCallback& progress = {});

  /// The boundary values at time t, imposed on the state and the load.
  void set_time(double t);
  /// The next time step's solve sets the preconditioner up afresh
  /// (flow/preconditioner_refresh.hpp).
  void set_up_preconditioner_at_next_solve() { refresh_.request(); }
  /// The current iterate (u1, u2, p); an initial condition may be written into it.
  FlowVector& state() { return v_; }
  const FlowVector& state() const { return v_; }

  /// Whether the last correction used the two-level step (design.md §8): false without a coarse
  /// system and in time steps whose response to a defect stays inside a coarse cell.
  bool used_two_level_step() const { return two_level_; }

  const FlowProblem& problem() const { return problem_; }
  const NavierStokesAssembly& assembly() const { return assembly_; }

  /// The momentum residuals of r, this solver's last result of a time step, moved to the flow
  /// with the pressure r.p + dp and the time derivative d + e: they are affine in both,
  /// B p + (M + S) d with S the derivative's SUPG part (flow/time_stepping.hpp), so they move by
  /// B dp + derivative_change, derivative_change = (M + S) e (u1, u2; S e by
  /// NavierStokesAssembly::apply_time_derivative_terms), with B and S as assembled for r.
  void move_momentum_residuals(NavierStokesResult& r, std::span<const double> dp,
                               const FlowVector& derivative_change) const;

 private:
  struct Stage;  // the state of one continuation stage (navier_stokes_solver.cpp)

  /// K(v) at the current v (its multigrids follow in update_multigrids()).
  void assemble(double nu, double inverse_dtau);
  /// The multigrids' numbers from the last assemble() (built at the first call); their coarse
  /// grids' factorisations wait for factorise_coarse_grids().
  void update_multigrids();
  /// r = h + g - K(v) v - c M v, filtered; returns |r|. The operator holds (c + 1/dtau) M.
  double nonlinear_residual(double inverse_dtau);
  /// The relative nonlinear tolerance of this solve: nonlinear.rel_tol, or the time step's
  /// tighter one (TimeStepTerms::nonlinear_rel_tol).
  double nonlinear_rel_tol() const;
  /// The iteration over the continuation stages `viscosities`.
  NavierStokesResult iterate(const std::vector<double>& viscosities,
                             const ProgressCallback& progress);
  /// Whether this step solves the Jacobian (Newton) rather than K(v) (Picard).
  bool use_newton(const Stage& stage, double residual) const;
  /// Solves for the correction of one step (Picard or Newton), updates v and fills the log.
  void correct(Stage& stage, NonlinearStep& log, double target);
  /// The converged state, with the timings (maximum over the ranks) of set-up and solve.
  NavierStokesResult result(double solve_seconds);
  /// The last stage converged: the momentum residual for the volume form of the forces.
  void store_momentum_residual(NavierStokesResult& result, double inverse_dtau) const;
  void add_multigrid_timings();
  /// K_H of the two-level preconditioner at the current linearisation, with the Newton blocks
  /// in a Newton step, and which of its two corrections the next solves use; its factorisation
  /// waits for factorise_coarse_grids().
  void update_coarse_system(double nu, bool newton);
  /// The direct solves' factorisations of the numbers the updates gathered, each on its root
  /// (coarse_roots in the .cpp), after all gathers: the roots factorise side by side.
  void factorise_coarse_grids();
  /// The stage's block preconditioner (made at its first correction; at every one for the LSC),
  /// behind the two-level step where that pays, for the operator K of this correction.
  Preconditioner& preconditioner_for(Stage& stage, const LinearOperator& K);
  /// Whether the two-level step pays in this solve: always when stationary; in a time step when
  /// the distance a defect's response reaches, sqrt(nu / c) + |u|_max / c (diffusion and
  /// transport over the step's time scale 1/c), is at least the coarse mesh width.
  bool coarse_system_sees_this_step(double nu) const;
  /// Step (3) of the block preconditioner for viscosity nu, from the current operators.
  std::unique_ptr<PressureSchurApproximation> schur_approximation(double nu);

  std::chrono::steady_clock::time_point created_;  ///< first member: set-up time from here
  NavierStokesParams params_;
  const Communicator* comm_;
  FlowProblem problem_;
  NavierStokesAssembly assembly_;
  GlobalMultigridParams velocity_mg_params_;
  std::optional<LevelHierarchy> laplacian_;  ///< A_p of the PCD approximation
  std::optional<GlobalMultigrid> pressure_mg_;
  std::optional<GlobalMultigrid> velocity_mg_;
  std::optional<CoarseNavierStokesSystem> coarse_system_;  ///< K_H, refreshed with the multigrids
  double coarse_width_ = 0;  ///< sqrt(|domain| / cells of level H): K_H's mesh width
  bool two_level_ = false;   ///< the two-level step, else S_H of K_H in the Schur approximation
  NavierStokesSystem system_;
  std::optional<NavierStokesSystem> jacobian_;
  FlowVector v_, r_, c_;
  KrylovWorkspace krylov_;  ///< FGMRES's bases, kept between the corrections
  FlowTimings timings_;
  TimeStepTerms transient_;  ///< of the time step being solved (none: stationary)
  std::vector<NonlinearStep> steps_;
  std::size_t dofs_ = 0;  ///< 3 x global nodes, counted at the first result()
  int corrections_ = 0;   ///< nonlinear steps that solved for a correction
  double r0_ = 0;         ///< |r| of the first step
  NewtonLineSearch line_search_;
  bool newton_blocked_ = false;      ///< one Picard step after an exhausted line search
  double eta_ = 0;                   ///< the forcing term of the last Newton step
  double pressure_weight_ = 0;       ///< c of the PCD pressure operator A_p + c C last assembled
  bool multigrids_current_ = false;  ///< the multigrids hold the last assemble()'s operators
  bool refresh_multigrids_ = false;  ///< the last correction missed its linear tolerance
  PreconditionerRefresh refresh_;    ///< when a time step's solve sets up again
  int preconditioner_setups_ = 0;
  MultigridTimings seen_velocity_, seen_pressure_;  ///< timer values already counted
  double seen_coarse_system_ = 0;
};

/// NavierStokesSolver(params, comm).solve(progress).
NavierStokesResult solve_navier_stokes(const NavierStokesParams& params, const Communicator& comm,
                                       const ProgressCallback& progress = {});

}  // namespace quilt
