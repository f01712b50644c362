#pragma once
// The DFG flow around a cylinder (meshes/dfg_channel.msh, the cylinder chart, no-slip walls,
// do-nothing outflow, nu = 1e-3) for the flow tests, which set their own solver tolerances.

#include <string>

#include "flow/flow_report.hpp"
#include "flow/navier_stokes_params.hpp"
#include "mesh_files.hpp"

/// The channel at `level` with the inflow condition `inflow` (e.g. "inflow parabolic 0.3 0 0.41").
inline quilt::NavierStokesParams dfg_channel(int level, const std::string& inflow) {
  quilt::NavierStokesParams p;
  p.mesh_file = mesh_path("dfg_channel.msh");
  p.charts = {"cylinder circle 0.2 0.2 0.05"};
  p.conditions = {"wall noslip", "cylinder noslip", inflow, "outflow donothing"};
  p.level = level;
  p.nu = 1e-3;
  return p;
}

/// DFG 2D-3 of apps/configs/dfg_2d3.ini: inflow 1.5 sin(pi t / 8).
inline quilt::NavierStokesParams dfg_2d3_problem(int level) {
  quilt::NavierStokesParams p = dfg_channel(level, "inflow parabolic 1.5 0 0.41 sin 8");
  p.nonlinear_abs_tol = 1e-13;
  return p;
}

/// DFG 2D-2 of apps/configs/dfg_2d2.ini: inflow 1.5 ramped up from rest over the first second.
inline quilt::NavierStokesParams dfg_2d2_problem(int level) {
  quilt::NavierStokesParams p = dfg_channel(level, "inflow parabolic 1.5 0 0.41 ramp 1");
  p.nonlinear_abs_tol = 1e-13;
  return p;
}

/// p with the time steps' solver of the DFG configs: FGMRES to a relative residual of 0.1 in at
/// most 300 iterations, the nonlinear iteration to `nonlinear_rel_tol`.
inline quilt::NavierStokesParams with_step_solver(quilt::NavierStokesParams p,
                                                  double nonlinear_rel_tol) {
  p.nonlinear_rel_tol = nonlinear_rel_tol;
  p.linear.rel_tol = 0.1;
  p.linear.max_iter = 300;
  return p;
}

/// Drag and lift coefficients on the cylinder: 2 / (U_mean^2 D) = 20.
inline quilt::FlowPostprocessing cylinder_forces() {
  quilt::FlowPostprocessing post;
  post.force_part = "cylinder";
  post.force_scale = 20;
  return post;
}
