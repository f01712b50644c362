#pragma once
// Storage for the arrays that the band kernels stream side by side (the 9 bands, the vectors).
//
// A large std::vector comes from malloc's mmap path (glibc: from 128 KiB on, a threshold that
// frees raise to at most 32 MiB): every such array starts at the same offset in its 4 KiB page,
// and so does element i of all of them. A kernel streaming 12 arrays at the same index then maps
// its 12 streams onto one set of the 8-way L1 cache, whose sets repeat every 4 KiB. Measured on the
// Zen 3 of docs/benchmarks.md (2026-11-27): y = a_1 + ... + a_12 streamed 8.7-9.6 GB/s with the
// arrays at one page offset and 17-21 GB/s with their starts 3 cache lines apart (triad 14-18);
// in quilt-bench-local the band SpMV ran 1.4-1.8 and the Jacobi sweep 1.6 times faster staggered
// than with every array at one offset. McCalpin's STREAM has its OFFSET between the arrays for
// the same reason.
//
// StaggeredAllocator gives each large allocation the next of the 64 cache-line slots of a page,
// 9 lines on from the previous one's (9 is coprime to 64: 64 allocations in a row take every slot
// once). Any 6 arrays made in a row, like a level's vectors, lie at least 9 lines (576 bytes)
// apart in their pages in either direction, whatever their sizes; no step keeps 7 so. Why not
// closer: a load whose address agrees in its low 12 bits with a store still in the store queue
// waits for it (4K aliasing). A kernel that reads x and writes y at one index, x's page offset a
// little below y's, has its loads of x wait on the stores of y a few iterations back. With a step
// of 3 lines (x made just before y: 192 bytes below) the band SpMV ran 1.13 times slower than
// with x 9 or more lines below y or above it (n = 1025, float and double; docs/benchmarks.md,
// 2026-11-28, 12:22 UTC). Every array starts on a cache line. Small (cache-resident) arrays are
// only aligned. On Linux the large ones come from a pool of transparent huge pages
// (staggered_allocator.cpp), side by side: one page fault per 2 MiB instead of 512, and the
// pages of a freed array serve the next ones without faulting again.

#include <cstddef>
#include <vector>

namespace quilt::accel {

namespace staggered {
/// Bytes from which an allocation is staggered.
inline constexpr std::size_t kMinBytes = std::size_t{64} << 10;
/// Storage for `bytes`, starting at a cache line; staggered within its page from kMinBytes on.
void* allocate(std::size_t bytes);
/// Frees storage of allocate(bytes).
void deallocate(void* p, std::size_t bytes) noexcept;
}  // namespace staggered

template <class T>
struct StaggeredAllocator {
  using value_type = T;

  StaggeredAllocator() = default;
  template <class U>
  StaggeredAllocator(const StaggeredAllocator<U>&) noexcept {}

  T* allocate(std::size_t count) { return static_cast<T*>(staggered::allocate(count * sizeof(T))); }
  void deallocate(T* p, std::size_t count) noexcept { staggered::deallocate(p, count * sizeof(T)); }

  template <class U>
  bool operator==(const StaggeredAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const StaggeredAllocator<U>&) const noexcept {
    return false;
  }
};

/// A vector that a kernel streams beside others.
template <class T>
using StaggeredVector = std::vector<T, StaggeredAllocator<T>>;

}  // namespace quilt::accel
