#pragma once
// Q1 scalar operators on one refined macro, assembled into 9-band storage (design.md §4).
//
// Everything here is a *type-0* quantity: only the elements of this macro contribute, so a
// shared node's row holds this macro's part of the global row. The global matrix is the sum
// over macros (parallel/shared_nodes.hpp); the local matrix of design.md §2 is built from it.

#include <functional>

#include "accel/banded_matrix.hpp"
#include "fem/batch_function.hpp"
#include "mesh/macro_geometry.hpp"

namespace quilt {

using ScalarFunction = std::function<double(double x, double y)>;
using accel::BandedMatrix;

/// Adds a(phi_j, phi_i) = int grad phi_j . grad phi_i (2x2 Gauss) into macro `m` of A.
void add_laplacian(const MacroGeometry& g, BandedMatrix<double>& A, int m, double scale = 1.0);

/// Adds the consistent mass matrix int phi_j phi_i (2x2 Gauss, exact) into macro `m` of A.
void add_mass(const MacroGeometry& g, BandedMatrix<double>& A, int m, double scale = 1.0);

/// Adds the weak derivative int (d phi_j / d x_k) phi_i, k = 0 (x) or 1 (y), into macro `m` of
/// A (2x2 Gauss, exact: det J grad phi_j is bilinear in the reference variables).
void add_derivative(const MacroGeometry& g, int k, BandedMatrix<double>& A, int m);

/// Lumped mass: the row sums of the consistent mass, i.e. int phi_i (n*n values).
void assemble_lumped_mass(const MacroGeometry& g, double* diagonal);

/// Adds the lumped mass, scale * int phi_i, to the diagonal of macro `m` of A.
void add_lumped_mass(const MacroGeometry& g, BandedMatrix<double>& A, int m, double scale = 1.0);

/// Load vector b_i = int f phi_i with 2x2 Gauss per element (n*n values, overwritten).
void assemble_load(const MacroGeometry& g, const BatchFunction& f, double* b);

/// Errors of a Q1 function u_h (nodal values on this macro) against an exact solution, as
/// squared integrals over the macro (3x3 Gauss: grad u_h superconverges at the 2x2 Gauss points,
/// which would understate the H1 error): |u - u_h|_L2^2 and |grad(u - u_h)|_L2^2.
struct SquaredErrors {
  double l2 = 0.0;
  double h1_semi = 0.0;
};
SquaredErrors q1_squared_errors(const MacroGeometry& g, const double* uh,
                                const BatchFunctionWithGradient& u);

/// Area of the refined macro (sum of its element areas).
double macro_area(const MacroGeometry& g);

}  // namespace quilt
