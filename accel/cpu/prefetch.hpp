#pragma once
// Software prefetch for the sweeps that stream many arrays side by side (the band kernels read 10
// to 12). With that many streams the hardware prefetchers fall behind: on an AMD EPYC (AVX-512,
// 40 GB/s triad) the band SpMV, defect and Jacobi sweeps at n = 1025 ran at 62-74 % of the triad
// bandwidth; prefetching every stream's next 256 bytes before each 256-byte block took them to
// 75-94 % (quilt-bench-local --kernels; docs/benchmarks.md, session of 2026-11-28 05:10 UTC).
// Longer blocks gained less (512-byte blocks 73-78 %), and prefetching the output for writing
// nothing. Where the arrays come from the caches the blocks cost more than they save (the Jacobi
// sweep at n = 65 ran 0.8-0.9 times as fast), so a sweep prefetches only from kPrefetchFromBytes
// streamed on.

#include <array>
#include <cstddef>

#include "accel/banded_matrix.hpp"

namespace quilt::accel::cpu {

/// Bytes of each stream per block: 4 cache lines.
inline constexpr std::ptrdiff_t kPrefetchBlockBytes = 256;

/// Bytes a sweep streams (over all its arrays) from which it prefetches: beyond the last-level
/// cache share of one core on the hosts measured (16 macros at n = 129 in double stream 26 MB).
inline constexpr std::size_t kPrefetchFromBytes = std::size_t(16) << 20;

/// How far ahead the line sweeps (Gauss-Seidel, TRIGS, ILU(0)), which walk a grid line a block
/// of nodes at a time, prefetch each stream: 8 cache lines. At n = 1025 (16 macros) 128 and 256
/// bytes were as fast in float and slower in double, 1024 no faster.
inline constexpr int kPrefetchAheadBytes = 512;

/// Whether a sweep over A prefetches: its 12 arrays (9 bands, x, b, out) reach kPrefetchFromBytes.
template <class T>
bool streams_from_memory(const BandedMatrix<T>& A) {
  return A.rows() * (kBands + 3) * sizeof(T) >= kPrefetchFromBytes;
}

/// Elements of T per prefetch block.
template <class T>
inline constexpr std::ptrdiff_t kPrefetchBlock = kPrefetchBlockBytes / std::ptrdiff_t(sizeof(T));

/// Prefetches elements [i, i + kPrefetchBlock<T>) of every stream (for reading, into all cache
/// levels). Addresses past an array's end are harmless: a prefetch never faults.
template <class T, class... Stream>
inline void prefetch_block(std::ptrdiff_t i, const Stream*... streams) {
  constexpr std::ptrdiff_t kLine = 64 / std::ptrdiff_t(sizeof(T));
  for (std::ptrdiff_t k = i; k < i + kPrefetchBlock<T>; k += kLine)
    (__builtin_prefetch(streams + k), ...);
}

/// Prefetches the cache line of element i of every stream (for reading, into all cache levels).
/// The streams come as an array: GCC 12 dropped every prefetch of a variadic call with more than 4
/// streams made from inside a lambda.
template <class T, std::size_t N>
inline void prefetch_each(std::ptrdiff_t i, const std::array<const T*, N>& streams) {
  for (const T* s : streams) __builtin_prefetch(s + i);
}

/// block(first, count) over [0, rows) in blocks of kPrefetchBlock<T> rows (the last one shorter),
/// each called after prefetching the next block of every stream (pointers at row 0).
template <class T, class Block, class... Stream>
inline void in_prefetched_blocks(std::ptrdiff_t rows, Block&& block, const Stream*... streams) {
  constexpr std::ptrdiff_t kBlock = kPrefetchBlock<T>;
  std::ptrdiff_t first = 0;
  for (; first + kBlock <= rows; first += kBlock) {
    prefetch_block<T>(first + kBlock, streams...);
    block(first, kBlock);
  }
  if (first < rows) block(first, rows - first);
}

}  // namespace quilt::accel::cpu
