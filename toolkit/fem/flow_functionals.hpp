#pragma once
// Integral functionals of a Q1 velocity field on one refined macro (design.md §9). Each is this
// macro's share: the caller sums over macros and ranks (a vorticity load is type-0).

#include "mesh/macro_geometry.hpp"

namespace quilt {

/// 1/2 int |u_h|^2 over the macro (3x3 Gauss; u1, u2: n*n nodal values in grid order).
double kinetic_energy(const MacroGeometry& g, const double* u1, const double* u2);

/// out_i = int (d u2/dx - d u1/dy) phi_i over the macro (n*n values, overwritten, type-0): the
/// right-hand side of the lumped L2 projection of the vorticity onto Q1 (divide the summed load
/// by the summed lumped mass).
void vorticity_load(const MacroGeometry& g, const double* u1, const double* u2, double* out);

/// int (div u_h)^2 over the macro (3x3 Gauss): the squared L2 norm of the discrete divergence,
/// which the PSPG-stabilised Q1/Q1 scheme does not drive to zero.
double divergence_l2_squared(const MacroGeometry& g, const double* u1, const double* u2);

}  // namespace quilt
