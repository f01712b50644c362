#pragma once
// The DFG 2D-3 problem of apps/configs/dfg_2d3.ini (channel, cylinder chart, inflow
// 1.5 sin(pi t / 8), nu = 1e-3) at a given level, shared by the transient flow tests; each sets
// its own solver tolerances.

#include "flow/navier_stokes_params.hpp"
#include "mesh_files.hpp"

inline quilt::NavierStokesParams dfg_2d3_problem(int level) {
  quilt::NavierStokesParams p;
  p.mesh_file = mesh_path("dfg_channel.msh");
  p.charts = {"cylinder circle 0.2 0.2 0.05"};
  p.conditions = {"wall noslip", "cylinder noslip", "inflow parabolic 1.5 0 0.41 sin 8",
                  "outflow donothing"};
  p.level = level;
  p.nu = 1e-3;
  p.nonlinear_abs_tol = 1e-13;
  return p;
}
