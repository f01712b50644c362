#pragma once
// The parameters of the stationary Navier-Stokes solver (flow/navier_stokes_solver.hpp); the
// keys that set them: apps/common/flow_options.cpp.

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "accel/smoother_type.hpp"
#include "flow/least_squares_commutator.hpp"
#include "flow/navier_stokes_operators.hpp"
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

/// How step (3) of the Schur-complement preconditioner approximates S^{-1}: nu M_p^{-1},
/// pressure convection-diffusion (flow/pressure_schur.hpp) or the least-squares commutator
/// (flow/least_squares_commutator.hpp).
enum class SchurApproximation { mass, pcd, lsc };

struct NavierStokesParams {
  std::string mesh_file;
  std::vector<std::string> charts;      ///< "PART circle CX CY R"
  std::vector<std::string> conditions;  ///< "PART noslip" ... (flow/boundary_conditions.hpp)
  int level = 5;
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
  /// Velocity multigrid cycles per component in each preconditioner application. 1 is the
  /// preconditioner of design.md §8; more make step (1) a nearly exact velocity solve, which
  /// measures the Schur complement approximation on its own.
  int velocity_cycles = 1;
  /// Time steps: the preconditioner set up for an earlier solve is kept until a solve needs
  /// this fraction more linear iterations per correction than the fewest since its set-up
  /// (flow/preconditioner_refresh.hpp); 0: set up at every solve.
  double refresh_growth = 0.25;
  SchurApproximation schur = SchurApproximation::pcd;
  LscScaling lsc_scaling = LscScaling::diagonal;  ///< Q of the LSC (measurements: LscScaling)
  /// The coarse level of the two-level preconditioner (flow/two_level_flow_preconditioner.hpp):
  /// the finest level H with at most this many global nodes, at most L - 2 unless it is small
  /// (choose_coarse_system_level); 0: none.
  std::size_t coarse_system_nodes = 3000;
  std::size_t coarse_threshold = kDefaultCoarseThreshold;
};

}  // namespace quilt
