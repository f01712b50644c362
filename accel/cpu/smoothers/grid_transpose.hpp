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

/// y-lines per strip of the y-line sweeps (line_smoother.hpp): 8 cache lines of T in each grid
/// row (n = 1025, 16 macros: 4 were 1.12-1.17 times slower, 16 1.03-1.06).
template <class T>
inline constexpr int kYLineStrip = 8 * 64 / static_cast<int>(sizeof(T));

/// The distance between the lines of a buffer that takes tiles of n rows by transpose_tile (a
/// strip of y-lines): n rounded up to an odd number of cache lines. transpose_tile writes B
/// lines of the buffer at a time; lines n elements apart, about a multiple of 4 KiB at
/// n = 2^L + 1, all fall into one set of the first-level cache, which then held fewer of them
/// than the move touches at once. An odd number of cache lines sends consecutive lines to
/// different sets: the y-line sweep 1.1-1.2 times faster (n = 1025, 16 macros, double and float).
template <class T>
constexpr std::size_t strip_buffer_stride(int n) {
  constexpr int line = 64 / static_cast<int>(sizeof(T));
  int ld = (n + line - 1) / line * line;
  if (ld / line % 2 == 0) ld += line;
  return static_cast<std::size_t>(ld);
}

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
