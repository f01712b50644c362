#pragma once
// Matrix-vector kernels on the 9-band batch storage of accel/banded_matrix.hpp, shared by the
// local layer (float and double) and the global layer (double).
//
// Every kernel treats each macro of the batch on its own: only the first and last n+1 rows of a
// macro can reach a column outside [0, n*n) and are guarded; the rows in between run one
// unguarded loop over the 9 bands, which the compiler vectorises. Entries of a band whose column
// leaves the grid are 0 by the storage convention, so the unguarded loop may read x there. The
// kernels work for general bands (nonsymmetric, variable coefficients) and never allocate.

#include "accel/banded_matrix.hpp"
#include "accel/stencil_zones.hpp"

namespace quilt::accel::cpu {

/// y = A x on every macro. x and y hold A.rows() values and must not overlap.
template <class T>
void spmv(const BandedMatrix<T>& A, const T* x, T* y);

/// d = b - A x on every macro. d must not overlap x or b.
template <class T>
void defect(const BandedMatrix<T>& A, const T* b, const T* x, T* d);

/// One damped Jacobi step, x_new = x + omega D^{-1} (b - A x), with inv_diag = 1 / diag(A).
/// Fused into one sweep (the defect is never stored); x_new must not overlap x, b or inv_diag.
template <class T>
void jacobi_sweep(const BandedMatrix<T>& A, const T* inv_diag, T omega, const T* b, const T* x,
                  T* x_new);

/// The same three kernels with the zones of A (detect_stencil_zones(A), or of the matrix A was
/// converted from): zoned macros read their 225 stencil numbers instead of the bands (and inv_diag
/// only on their first and last grid lines), the others their bands. Bitwise the results of the
/// band forms for finite x.
template <class T>
void spmv(const BandedMatrix<T>& A, const StencilZones<T>& zones, const T* x, T* y);
template <class T>
void defect(const BandedMatrix<T>& A, const StencilZones<T>& zones, const T* b, const T* x, T* d);
template <class T>
void jacobi_sweep(const BandedMatrix<T>& A, const StencilZones<T>& zones, const T* inv_diag,
                  T omega, const T* b, const T* x, T* x_new);

}  // namespace quilt::accel::cpu
