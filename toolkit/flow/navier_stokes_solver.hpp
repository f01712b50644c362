#pragma once
// Stationary Navier-Stokes by fixed-point defect correction on the two-layer solver
// (design.md §8, Turek 1999):
//   v_{k+1} = v_k + omega K~^{-1} (h - K(v_k) v_k),
// K(v_k) the Oseen operator linearised at the current velocity, re-assembled on every global
// level in every step (the velocity injected to the coarse levels); K~^{-1}: BiCGStab or FGMRES
// on K(v_k), preconditioned by the Schur-complement preconditioner, gaining a few digits.
// With a pseudo-time step dtau_k the correction is solved with K(v_k) + M / dtau_k instead (M
// the lumped mass): one backward-Euler step of dv/dt + K(v) v = h. The defect stays the steady
// one, so a converged v is the steady solution whatever dtau was (Kelley & Keyes 1998). The mass
// term makes A diagonally dominant for the Jacobi-smoothed local multigrid and moves the
// Schur complement towards the transient regime in which PCD is accurate; the backward-Euler
// step also damps the growing modes of a steady state that is unstable in time (DFG Re = 100).
// dtau_k grows as the defect falls (switched evolution relaxation, Mulder & van Leer 1985):
// dtau_k = min(dtau_max, dtau_0 |r_0| / |r_{k-1}|). A correction solve that misses its target
// (reduction worse than max(0.5, linear.rel_tol)) lowers dtau_max to half of that step's dtau.
// Stokes is the same loop with the convection switched off (a linear problem: the loop is then
// plain defect correction, each step gaining the linear solver's digits).

#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "flow/boundary_conditions.hpp"
#include "flow/navier_stokes_operators.hpp"
#include "parallel/distributed_mesh.hpp"
#include "solvers/global_multigrid.hpp"
#include "solvers/krylov.hpp"

namespace quilt {

/// The smoother keys of the velocity multigrid's local solver (the other local keys are shared).
struct VelocitySmoother {
  accel::SmootherType type = accel::SmootherType::ilu;
  accel::SweepOrder ordering = accel::SweepOrder::lexicographic;
  std::optional<double> damping;  ///< empty: accel::default_damping(type)
};

/// The linearisation of each nonlinear step: the Oseen (Picard) operator K(v_k), the Jacobian
/// (Newton), or Picard until the residual has fallen by newton_switch, then Newton.
enum class NonlinearMethod { picard, newton, automatic };

/// How step (3) of the Schur-complement preconditioner approximates S^{-1}.
enum class SchurApproximation { mass, pcd };

struct NavierStokesParams {
  std::string mesh_file;
  std::vector<std::string> charts;      ///< "PART circle CX CY R"
  std::vector<std::string> conditions;  ///< "PART noslip" ... (flow/boundary_conditions.hpp)
  int level = 4;
  double nu = 1e-2;
  bool stokes = false;  ///< N(u) = 0
  StabilisationParams stabilisation;
  std::vector<double> continuation;  ///< Reynolds-like viscosities to pass through first
  ScalarFunction force_x, force_y;   ///< body force f (empty: none)

  double nonlinear_rel_tol = 1e-8;   ///< |h - K(v)v| <= rel |r_0| ...
  double nonlinear_abs_tol = 1e-12;  ///< ... or <= abs
  int nonlinear_max_iter = 200;
  double nonlinear_damping = 1.0;  ///< omega of the Picard steps
  NonlinearMethod nonlinear_method = NonlinearMethod::automatic;
  double newton_switch = 1e-2;  ///< automatic: Newton once |r_k| <= newton_switch |r_0|
  double pseudo_time_step = 0;  ///< dtau_0; 0: none (plain fixed point)
  double pseudo_time_step_max = std::numeric_limits<double>::infinity();  ///< dtau_max

  /// FGMRES: BiCGStab stagnates once the cavity's Re = 1000 defect is small; an inexact step
  /// (the cap reached) is still a valid defect correction.
  KrylovMethod linear_method = KrylovMethod::fgmres;
  KrylovParams linear{
      .rel_tol = 0.1, .max_iter = 100, .restart = 100, .fail_on_cap = false};  ///< 0.1: a digit
  GlobalMultigridParams multigrid;  ///< for A_p, and for A but for its smoother; coarse_level
                                    ///< from coarse_threshold
  /// The local smoother of the velocity multigrid. ILU(0) is the one smoother that converged on
  /// every velocity operator measured (cavity Re 100 and 1000, DFG 2D-1 and Re 100, L = 5..8:
  /// <= 0.063 per V(2,2) cycle, bench/bench_smoothers.cpp), while the line smoothers that the
  /// Laplacians need on anisotropic macros diverge on the DFG outflow macros at Re 100.
  VelocitySmoother velocity_smoother;
  SchurApproximation schur = SchurApproximation::pcd;
  std::size_t coarse_threshold = kDefaultCoarseThreshold;
};

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

/// Seconds (maximum over the ranks): setup = structure built once (mesh, hierarchy, plans,
/// symbolic factorisation, solver buffers); assembly = the operators' numbers of every step
/// (element loops, local and Galerkin coarse levels, numeric refactorisation); linear = the
/// Krylov solves, of which local_solve and coarse_solve were spent in the local layer and
/// in the coarse-grid solve.
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
  LevelVector u1, u2, p;  ///< this rank's macros, finest level, type-1
  /// The momentum rows of K(v) v - h evaluated without the Dirichlet unit rows (type-1): on a
  /// Dirichlet node it is the weak-form residual whose sum over a boundary part, with the test
  /// function 1 there, is minus the force on that part (flow/flow_postprocessing.hpp).
  LevelVector momentum_residual1, momentum_residual2;
};

using ProgressCallback = std::function<void(const NonlinearStep&)>;

NavierStokesResult solve_navier_stokes(const NavierStokesParams& params, const Communicator& comm,
                                       const ProgressCallback& progress = {});

}  // namespace quilt
