#pragma once
// Galerkin coarse operators for the local multigrid: A_c = P^T A P with the bilinear P of
// grid_transfer.hpp, per macro. For a 9-point A the product is again a 9-point operator on the
// coarse grid, so it fits the same band storage.
//
// Why: a local matrix (design.md §2) truncates the global stencil at the macro boundary, i.e. it
// is the operator of a problem that vanishes one mesh width h outside the macro. The local matrix
// of the next coarser level vanishes 2h outside instead, so the two are not nested (P does not
// map the coarse space into the fine one): the coarse-grid correction overshoots at the free
// boundary, by an amount that compounds over the levels. P^T A P is nested by construction.
// Where the fine and coarse spaces are nested (a Dirichlet boundary, the interior of a uniform
// grid) the product equals the rediscretised matrix.

#include "accel/banded_matrix.hpp"
#include "accel/stencil_zones.hpp"

namespace quilt::accel::cpu {

/// P^T A P on every macro of a fine batch (n_f odd), with n_c = (n_f + 1) / 2. A coarse node that
/// coincides with a fine Dirichlet row (its 8 off-diagonal entries are 0) gets the same unit row,
/// so the coarse level has the Dirichlet rows the local multigrid expects.
BandedMatrix<double> galerkin_coarse(const BandedMatrix<double>& fine);

/// The same into existing storage (coarse: fine.macros macros, n_c nodes per side), which is
/// not reallocated: for coarse levels refreshed per nonlinear step.
void galerkin_coarse(const BandedMatrix<double>& fine, BandedMatrix<double>& coarse);

/// Fine grids from this many nodes have zoned coarse operators from their zones alone.
inline constexpr int kZonedGalerkinMinNodes = 2 * kMinZonedNodes - 1;

/// The zones of galerkin_coarse(A) for a batch A whose every macro is zoned, with
/// fine.n >= kZonedGalerkinMinNodes, from A's zones alone: the product is made on a grid of
/// kZonedGalerkinMinNodes nodes with the same zones. A coarse row there reads fine rows of the
/// same zones as on the n_f grid (the zoned path of galerkin_coarse), so the zones are bitwise
/// those of the full product, at O(1) cost and without the bands.
StencilZones<double> galerkin_coarse_zones(const StencilZones<double>& fine);

}  // namespace quilt::accel::cpu
