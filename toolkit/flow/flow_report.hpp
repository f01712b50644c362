#pragma once
// What a quilt-flow run reports about its converged flow: the benchmark quantities asked for
// (FlowPostprocessing), evaluated on a NavierStokesResult, and the results JSON (design.md §9)
// that holds them with the run's parameters, iteration counts and timings.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "flow/navier_stokes_solver.hpp"
#include "io/json.hpp"
#include "mesh/coarse_mesh.hpp"
#include "parallel/communicator.hpp"

namespace quilt {

/// Re = U L / nu of a flow with the reference velocity U and the reference length L.
struct ReynoldsScale {
  double velocity = 1.0;  ///< U
  double length = 1.0;    ///< L
  double reynolds(double nu) const { return velocity * length / nu; }
  double viscosity(double re) const { return velocity * length / re; }
};

/// The line y = y0 behind a body along which the recirculation zone is measured: from x0,
/// searched up to x1.
struct RecirculationLine {
  double x0 = 0, x1 = 0, y0 = 0;
};

/// The quantities to evaluate on a converged flow besides the kinetic energy and |div u|, which
/// are always reported.
struct FlowPostprocessing {
  bool centerlines = false;          ///< u(0.5, y) and v(x, 0.5) (driven cavity)
  std::vector<double> centerline_y;  ///< the y of the u profile
  std::vector<double> centerline_x;  ///< the x of the v profile
  std::string force_part;            ///< boundary part whose drag and lift to report; "": none
  double force_scale = 1.0;          ///< coefficient = force_scale * force
  std::optional<std::array<Point2, 2>> pressure_points;  ///< report p(a) - p(b)
  std::optional<RecirculationLine> recirculation;
};

/// The points at which `post` evaluates a flow, by the quantity that needs them (each empty
/// where `post` does not ask for it).
struct PostprocessingPoints {
  std::vector<Point2> pressure;       ///< p(a), p(b)
  std::vector<Point2> recirculation;  ///< the ends of the line searched
  std::vector<Point2> centerline_u;   ///< (0.5, y) for the y of the u profile
  std::vector<Point2> centerline_v;   ///< (x, 0.5) for the x of the v profile
};
PostprocessingPoints postprocessing_points(const FlowPostprocessing& post);

/// Why `post` cannot be evaluated on a flow over `mesh` ("" when it can): a force part the mesh
/// does not have. Checked before the solve so that a typo costs no solve.
std::string postprocessing_problem(const FlowPostprocessing& post, const CoarseMesh& mesh);

/// Drag and lift on a boundary part, times FlowPostprocessing::force_scale.
struct FlowForces {
  std::string part;
  double drag = 0, lift = 0;                  ///< residual (volume) form, the accurate one
  double drag_surface = 0, lift_surface = 0;  ///< surface integral of the traction
};

/// (s, f(s)) pairs along a line.
using Profile = std::vector<std::array<double, 2>>;

struct CenterlineProfiles {
  Profile u;  ///< (y, u(0.5, y))
  Profile v;  ///< (x, v(x, 0.5))
};

/// The evaluated quantities (the same on every rank).
struct FlowQuantities {
  double kinetic_energy = 0, divergence_l2 = 0;
  std::optional<CenterlineProfiles> centerlines;
  std::optional<FlowForces> forces;
  std::optional<double> pressure_difference, recirculation_length;
  /// p(a) and p(b) of the pressure difference (FlowPostprocessing::pressure_points): on the
  /// force part, a no-slip body, from the wall traction (wall_pressure), second order; elsewhere
  /// the Q1 pressure at the point.
  std::optional<std::array<double, 2>> point_pressures;
  /// p_h(a) - p_h(b) of the Q1 pressure itself, first order on walls (design.md §8).
  std::optional<double> pressure_difference_nodal;
};

/// Collective: evaluates `post` on the flow `r` of viscosity `nu`; std::invalid_argument when
/// postprocessing_problem() has one.
FlowQuantities evaluate_flow_quantities(const FlowPostprocessing& post, const NavierStokesResult& r,
                                        double nu, const Communicator& comm);

/// Collective: only what a time series records of `post` (TimeSeries: the forces, the pressure
/// difference and its point pressures); the kinetic energy and |div u| are left 0.
FlowQuantities evaluate_series_quantities(const FlowPostprocessing& post,
                                          const NavierStokesResult& r, double nu,
                                          const Communicator& comm);

/// Linear iterations summed over the nonlinear steps.
int total_linear_iterations(const NavierStokesResult& r);

/// The run as it stands in a report: its parameters, how its Reynolds numbers are formed and
/// how many ranks ran it.
struct FlowRun {
  const NavierStokesParams& params;
  ReynoldsScale scale;
  int ranks = 1;
};

/// The results document: the run, `converged`, the project `version`, iteration counts, the
/// residual history, the quantities and the timings with the FEAST ratios r_ass, r_lin, r_acc,
/// s_max (ResultsReport adds "status" before them and "config" after them).
Json flow_results_json(const FlowRun& run, const NavierStokesResult& r, const FlowQuantities& q);

/// Collective: the velocity (a vector), pressure and vorticity of `r` as VTU/PVTU files
/// NAME_RANK.vtu and NAME.pvtu in `directory` (write_vtu, with the cell data rank and macro).
void write_flow_vtu(const std::string& directory, const std::string& name,
                    const NavierStokesResult& r, const Communicator& comm);

}  // namespace quilt
