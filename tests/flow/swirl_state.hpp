#pragma once
// A driven cavity and a velocity state on it whose operators depend on a strength s, shared by
// the flow tests that compare an update in place with a fresh set-up.
#include <cmath>

#include "flow/navier_stokes_assembly.hpp"
#include "mesh_files.hpp"

/// The driven cavity on the 4x2 square at L = 4, nu = 1e-3.
inline quilt::NavierStokesParams cavity() {
  quilt::NavierStokesParams p;
  p.mesh_file = mesh_path("unit_square_4x2.msh");
  p.conditions = {"bottom noslip", "left noslip", "right noslip", "top velocity 1 0"};
  p.level = 4;
  p.nu = 1e-3;
  return p;
}

/// The Dirichlet values with a swirl of strength s inside and a pressure, so that convection,
/// SUPG and the Newton blocks all depend on s.
inline quilt::FlowVector state(const quilt::FlowProblem& problem,
                               const quilt::NavierStokesAssembly& assembly, double s) {
  quilt::FlowVector v(problem.block_size());
  const int L = problem.level;
  const std::size_t nn = assembly.velocity().level(L).matrix.rows_per_macro();
  for (int m = 0; m < problem.mesh.num_local(); ++m) {
    const quilt::MacroGeometry& g = assembly.velocity().geometry(L, m);
    for (std::size_t r = 0; r < nn; ++r) {
      const double x = g.x[r], y = g.y[r];
      v.u1()[m * nn + r] = s * std::sin(3 * x) * std::cos(2 * y);
      v.u2()[m * nn + r] = -s * std::cos(3 * x) * std::sin(2 * y);
      v.p()[m * nn + r] = s * x * y;
    }
  }
  problem.impose_dirichlet_values(v);
  return v;
}
