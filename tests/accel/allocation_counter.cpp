#include "allocation_counter.hpp"

#include <stdlib.h>  // posix_memalign

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

// In a translation unit of their own: inlined next to the test code, GCC pairs their malloc and
// free with the callers' new and delete and warns of a mismatch (-Wmismatched-new-delete).

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

void operator delete(void* p) noexcept {
  std::free(p);
}

void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

// The over-aligned forms, which accel's StaggeredAllocator calls.
void* operator new(std::size_t size, std::align_val_t alignment) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = nullptr;
  const auto align = std::max(static_cast<std::size_t>(alignment), sizeof(void*));
  if (posix_memalign(&p, align, size == 0 ? 1 : size) == 0) return p;
  throw std::bad_alloc();
}

void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}

void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}

namespace quilt::accel::testing {

long allocation_count() {
  return g_allocations.load(std::memory_order_relaxed);
}

}  // namespace quilt::accel::testing
