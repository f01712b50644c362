#pragma once
// The check every point smoother makes of diag(A) once per operator: its sweeps divide by the
// diagonal as they go (a stored inverse would be one stream more).

#include <cstddef>
#include <string>

#include "accel/banded_matrix.hpp"
#include "accel/stencil_zones.hpp"

namespace quilt::accel::cpu {

/// That 1 / diag(A) exists: a zoned macro's diagonal from its zones' centre entries, so A may be
/// shape_only where every macro is zoned. Throws AccelError naming the macro and node of a zero
/// or non-finite entry (a zone's at the zone's representative row).
template <class T>
void check_diagonal(const BandedMatrix<T>& A, const StencilZones<T>& zones);

/// "macro M, node (i, j)" of row `row` of a batch with n nodes per side, for error messages.
std::string describe_row(int n, std::size_t row);

}  // namespace quilt::accel::cpu
