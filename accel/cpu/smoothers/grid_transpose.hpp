#pragma once
// The grid transpose of a macro batch: node (i, j) renamed (j, i) in every macro. It turns the
// y-lines of a grid into contiguous x-lines, so line smoothers sweep both directions with unit
// stride.

#include <cstddef>

#include "accel/banded_matrix.hpp"

namespace quilt::accel::cpu {

/// out[c * out_stride + r] = in[r * in_stride + c] for r < rows, c < cols: a tile of rows `rows`
/// and columns `cols` moved to its mirror; out must not overlap in.
template <class T>
void transpose_tile(const T* in, std::size_t in_stride, T* out, std::size_t out_stride, int rows,
                    int cols);

/// out(j, i) = in(i, j) on every macro of an n x n batch; out must not overlap in.
template <class T>
void transpose_grid(int macros, int n, const T* in, T* out);

/// The same operator on the transposed grid: A'(j + i n, band (dj, di)) = A(i + j n, band (di,
/// dj)).
template <class T>
BandedMatrix<T> grid_transposed(const BandedMatrix<T>& A);

/// grid_transposed(A) into At, which has A's macros and n: no allocation.
template <class T>
void grid_transpose_into(const BandedMatrix<T>& A, BandedMatrix<T>& At);

}  // namespace quilt::accel::cpu
