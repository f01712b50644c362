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

/// y += A x on every macro, in one sweep: bitwise y + t with t from spmv (a block operator's
/// rows summed without a scratch vector). x and y must not overlap.
template <class T>
void spmv_add(const BandedMatrix<T>& A, const T* x, T* y);

/// d = b - A x on every macro. d must not overlap x or b.
template <class T>
void defect(const BandedMatrix<T>& A, const T* b, const T* x, T* d);

/// One damped Jacobi step, x_new = x + omega D^{-1} (b - A x), D^{-1} as the reciprocals of the
/// diagonal entries (which must be nonzero: JacobiSmoother checks them once). Fused into one
/// sweep (the defect is never stored); x_new must not overlap x or b.
template <class T>
void jacobi_sweep(const BandedMatrix<T>& A, T omega, const T* b, const T* x, T* x_new);

/// The same three kernels with the zones of A (detect_stencil_zones(A), or of the matrix A was
/// converted from): zoned macros read their 225 stencil numbers instead of the bands, the others
/// their bands. Bitwise the results of the band forms for finite x.
template <class T>
void spmv(const BandedMatrix<T>& A, const StencilZones<T>& zones, const T* x, T* y);
template <class T>
void defect(const BandedMatrix<T>& A, const StencilZones<T>& zones, const T* b, const T* x, T* d);
template <class T>
void jacobi_sweep(const BandedMatrix<T>& A, const StencilZones<T>& zones, T omega, const T* b,
                  const T* x, T* x_new);

/// The Jacobi step from x = 0, x_new = omega D^{-1} b: reads b and the diagonal only (the
/// zones' centre entries on zoned macros, so A may be shape_only where every macro is zoned).
/// Bitwise jacobi_sweep with x = 0 but for the sign of zeros.
template <class T>
void jacobi_from_zero(const BandedMatrix<T>& A, const StencilZones<T>& zones, T omega, const T* b,
                      T* x_new);

/// spmv and defect for two vectors with one pass over the bands (the two right-hand sides of
/// the velocity components share A): y0 = A x0 and y1 = A x1, d0 = b0 - A x0 and d1 = b1 - A x1,
/// each bitwise what the one-vector kernel gives. Zoned macros read no bands and run the
/// one-vector form per vector. No output may overlap an input.
template <class T>
void spmv_pair(const BandedMatrix<T>& A, const StencilZones<T>* zones, const T* x0, const T* x1,
               T* y0, T* y1);
template <class T>
void defect_pair(const BandedMatrix<T>& A, const StencilZones<T>* zones, const T* b0, const T* x0,
                 T* d0, const T* b1, const T* x1, T* d1);

}  // namespace quilt::accel::cpu
