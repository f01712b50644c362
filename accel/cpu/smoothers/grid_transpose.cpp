#include "accel/cpu/smoothers/grid_transpose.hpp"

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "accel/cpu/vector_registers.hpp"

namespace quilt::accel::cpu {

namespace {

// One register of T: GCC/Clang vector extensions, 32 bytes with AVX (and AVX-512: the register
// blocks below go up to 8 lanes), 16 (SSE, NEON) without.
constexpr int kVectorBytes = std::min(kRegisterBytes, 32);
typedef float Floats4 __attribute__((vector_size(16)));
typedef float Floats8 __attribute__((vector_size(32)));
typedef double Doubles2 __attribute__((vector_size(16)));
typedef double Doubles4 __attribute__((vector_size(32)));

/// V with the alignment of its elements (and allowed to alias them, as the intrinsics' __m256_u),
/// to load and store a register at any element: one unaligned vector move. std::memcpy into
/// arrays of V was lowered by GCC 12 (-march=znver3) to 16-byte moves through the stack and
/// 32-byte reloads that missed store forwarding: a y-line strip moved in cache 3.5 times slower
/// (10.4 against 3.0 ns per 8 doubles of a row).
template <class V>
struct Unaligned {
  using Element = std::remove_cvref_t<decltype(V{}[0])>;
  typedef Element type
      __attribute__((vector_size(sizeof(V)), aligned(alignof(Element)), may_alias));
};

/// The side of the register blocks: one register per block row.
template <class T>
constexpr int kBlock = kVectorBytes / static_cast<int>(sizeof(T));

/// dst(c, r) = src(r, c) for one B x B block, B = kBlock<T>, the rows of src `src_stride` apart
/// and those of dst `dst_stride`: the rows loaded into registers, interleaved by log2(B) rounds of
/// shuffles (the unpack / shuffle / permute2f128 transpose of AVX), stored as the block's columns.
template <class V, class T>
[[gnu::always_inline]] inline void transpose_block(const T* src, std::size_t src_stride, T* dst,
                                                   std::size_t dst_stride) {
  constexpr int B = kBlock<T>;
  static_assert(sizeof(V) == B * sizeof(T));
  using U = typename Unaligned<V>::type;
  V r[B], t[B];
  for (int k = 0; k < B; ++k) r[k] = *reinterpret_cast<const U*>(src + k * src_stride);
  if constexpr (B == 2) {
    t[0] = __builtin_shufflevector(r[0], r[1], 0, 2);
    t[1] = __builtin_shufflevector(r[0], r[1], 1, 3);
  } else if constexpr (B == 4) {
    V u[4];
    for (int k = 0; k < 4; k += 2) {
      u[k] = __builtin_shufflevector(r[k], r[k + 1], 0, 4, 1, 5);
      u[k + 1] = __builtin_shufflevector(r[k], r[k + 1], 2, 6, 3, 7);
    }
    for (int h = 0; h < 2; ++h) {
      t[2 * h] = __builtin_shufflevector(u[h], u[h + 2], 0, 1, 4, 5);
      t[2 * h + 1] = __builtin_shufflevector(u[h], u[h + 2], 2, 3, 6, 7);
    }
  } else {
    static_assert(B == 8);
    V u[8], w[8];
    for (int k = 0; k < 8; k += 2) {
      u[k] = __builtin_shufflevector(r[k], r[k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
      u[k + 1] = __builtin_shufflevector(r[k], r[k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
    }
    for (int k = 0; k < 8; k += 4)
      for (int h = 0; h < 2; ++h) {
        w[k + 2 * h] = __builtin_shufflevector(u[k + h], u[k + h + 2], 0, 1, 8, 9, 4, 5, 12, 13);
        w[k + 2 * h + 1] =
            __builtin_shufflevector(u[k + h], u[k + h + 2], 2, 3, 10, 11, 6, 7, 14, 15);
      }
    for (int k = 0; k < 4; ++k) {
      t[k] = __builtin_shufflevector(w[k], w[k + 4], 0, 1, 2, 3, 8, 9, 10, 11);
      t[k + 4] = __builtin_shufflevector(w[k], w[k + 4], 4, 5, 6, 7, 12, 13, 14, 15);
    }
  }
  for (int k = 0; k < B; ++k) *reinterpret_cast<U*>(dst + k * dst_stride) = t[k];
}

/// transpose_block with the register type of T.
template <class T>
[[gnu::always_inline]] inline void transpose_block(const T* src, std::size_t src_stride, T* dst,
                                                   std::size_t dst_stride) {
  constexpr bool wide = kVectorBytes == 32;
  if constexpr (std::is_same_v<T, float>)
    transpose_block<std::conditional_t<wide, Floats8, Floats4>>(src, src_stride, dst, dst_stride);
  else
    transpose_block<std::conditional_t<wide, Doubles4, Doubles2>>(src, src_stride, dst, dst_stride);
}

}  // namespace

template <class T>
void transpose_tile(const T* in, std::size_t in_stride, T* out, std::size_t out_stride, int rows,
                    int cols) {
  // Strips of B rows (one register of T per row and block: with AVX B = 8 floats, 4 doubles),
  // moved as B x B register blocks: B contiguous streams read, B rows written 32 bytes at a time;
  // the rim (the last rows and columns short of a block) element by element. Measured (one core,
  // 4 macros at n = 1025, float): 1.26 ns per element with 64 x 64 tiles of 2 x 2 scalar blocks,
  // 0.92 with the register blocks in those tiles, 0.74 without tiles (the B streams prefetch
  // better; 64 x 64 tiles read 64 pages and write 64 at n = 1025).
  //
  // A narrow tile of far-apart rows (the y-line sweep's strips: a few hundred bytes of each grid
  // row, rows a page or more apart) gives the hardware prefetchers no stream to follow, and the
  // out-of-order window holds only a few rows' loads: its rows are prefetched kPrefetchRows ahead.
  // Measured (16 macros at n = 1025, 8 doubles of every row): 2.0-2.9 GB/s without, 6.2-7.5 GB/s
  // with 24-32 rows ahead, 4.4-5.7 with 8, 5.1-5.9 with 64; with strips of 64 doubles the y-line
  // sweep gained 1.02-1.07 times from it.
  //
  // A tile with more columns than rows (a strip moved back into the grid: a few hundred bytes of
  // each of n rows) is written row piece by row piece, so that each output line is completed while
  // it is in the first-level cache; block row by block row, every line of the tile was written 32
  // bytes at a time, B times over (the y-line sweep with strips of 128 doubles or 256 floats
  // 1.0-1.05 times slower in double, 1.04-1.11 in float).
  constexpr int B = kBlock<T>;
  constexpr int kPrefetchRows = 32;
  constexpr int kLine = 64 / static_cast<int>(sizeof(T));
  const int whole_rows = rows / B * B;
  const int whole_cols = cols / B * B;
  const bool prefetch = cols <= 16 * kLine && in_stride * sizeof(T) >= 4096;
  if (cols > rows) {
    for (int c = 0; c < whole_cols; c += B)
      for (int r = 0; r < whole_rows; r += B)
        transpose_block(in + r * in_stride + c, in_stride, out + c * out_stride + r, out_stride);
    for (int r = 0; r < whole_rows; ++r)
      for (int c = whole_cols; c < cols; ++c) out[c * out_stride + r] = in[r * in_stride + c];
  } else {
    for (int r = 0; r < whole_rows; r += B) {
      if (prefetch)
        for (int p = r + kPrefetchRows; p < r + kPrefetchRows + B && p < rows; ++p) {
          const T* row = in + p * in_stride;
          for (int c = 0; c < cols; c += kLine) __builtin_prefetch(row + c, 0, 3);
          __builtin_prefetch(row + cols - 1, 0, 3);  // the row's piece may straddle one more line
        }
      for (int c = 0; c < whole_cols; c += B)
        transpose_block(in + r * in_stride + c, in_stride, out + c * out_stride + r, out_stride);
      for (int rr = r; rr < r + B; ++rr)
        for (int c = whole_cols; c < cols; ++c) out[c * out_stride + rr] = in[rr * in_stride + c];
    }
  }
  for (int r = whole_rows; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[c * out_stride + r] = in[r * in_stride + c];
}

template <class T>
void transpose_grid(int macros, int n, const T* in, T* out) {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  for (int m = 0; m < macros; ++m) transpose_tile(in + m * nn, n, out + m * nn, n, n, n);
}

template <class T>
void grid_transpose_into(const BandedMatrix<T>& A, BandedMatrix<T>& At) {
  for (int k = 0; k < kBands; ++k) {
    const int swapped = band_index(k / 3 - 1, k % 3 - 1);  // (di, dj) -> (dj, di)
    transpose_grid(A.macros, A.n, A.band[k].data(), At.band[swapped].data());
  }
}

template <class T>
BandedMatrix<T> grid_transposed(const BandedMatrix<T>& A) {
  BandedMatrix<T> At(A.macros, A.n);
  grid_transpose_into(A, At);
  return At;
}

template void transpose_tile(const float*, std::size_t, float*, std::size_t, int, int);
template void transpose_tile(const double*, std::size_t, double*, std::size_t, int, int);
template void transpose_grid(int, int, const float*, float*);
template void transpose_grid(int, int, const double*, double*);
template BandedMatrix<float> grid_transposed(const BandedMatrix<float>&);
template BandedMatrix<double> grid_transposed(const BandedMatrix<double>&);
template void grid_transpose_into(const BandedMatrix<float>&, BandedMatrix<float>&);
template void grid_transpose_into(const BandedMatrix<double>&, BandedMatrix<double>&);

}  // namespace quilt::accel::cpu
