#pragma once
// Exact solutions of -Laplace(u) = f for convergence studies, with f and grad u in closed form.

#include <string>

#include "fem/scalar_assembly.hpp"

namespace quilt {

struct ManufacturedSolution {
  std::string name;
  ScalarFunction u, du_dx, du_dy, f;
};

/// "sin_sin": u = sin(pi x) sin(pi y), zero on the boundary of the unit square.
/// "exp_sin": u = exp(x/2) sin(2y + x), non-polynomial and without symmetry, usable on any mesh
/// with Dirichlet data taken from u. Throws std::invalid_argument for other names.
ManufacturedSolution manufactured_solution(const std::string& name);

}  // namespace quilt
