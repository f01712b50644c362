#pragma once
// 1 / diag(A), formed in double: every point smoother divides by the diagonal.

#include <cstddef>
#include <string>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/stencil_zones.hpp"

namespace quilt::accel::cpu {

/// inv = 1 / diag(A), into A.rows() values the caller made. Throws AccelError naming the macro and
/// node of a zero or non-finite diagonal entry.
template <class T>
void inverse_diagonal(const BandedMatrix<T>& A, StaggeredVector<T>& inv);
/// The check of inverse_diagonal without the inverse, for smoothers that divide as they go: a
/// zoned macro's diagonal from its zones' centre entries, so A may be shape_only where every
/// macro is zoned. Throws AccelError naming the macro and node of a zero or non-finite entry (a
/// zone's at the zone's representative row).
template <class T>
void check_diagonal(const BandedMatrix<T>& A, const StencilZones<T>& zones);

/// "macro M, node (i, j)" of row `row` of a batch with n nodes per side, for error messages.
std::string describe_row(int n, std::size_t row);

}  // namespace quilt::accel::cpu
