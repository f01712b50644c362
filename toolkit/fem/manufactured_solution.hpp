#pragma once
// Exact solutions of -Laplace(u) = f for convergence studies, with f and grad u in closed form.

#include <string>

#include "fem/batch_function.hpp"
#include "fem/scalar_assembly.hpp"

namespace quilt {

/// u point by point (Dirichlet values, nodal errors); f, and u with its gradient, in batches for
/// the quadrature loops (the load vector, the error norms), whose 4 and 9 points per element
/// evaluated one call at a time took nearly half of a Poisson run at L = 10.
struct ManufacturedSolution {
  std::string name;
  ScalarFunction u;
  BatchFunction f;
  BatchFunctionWithGradient u_with_gradient;
};

/// "sin_sin": u = sin(pi x) sin(pi y), zero on the boundary of the unit square.
/// "exp_sin": u = exp(x/2) sin(2y + x), non-polynomial and without symmetry, usable on any mesh
/// with Dirichlet data taken from u. Throws std::invalid_argument for other names.
ManufacturedSolution manufactured_solution(const std::string& name);

}  // namespace quilt
