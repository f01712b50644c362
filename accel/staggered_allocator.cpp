#include "accel/staggered_allocator.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif
// Arrays from 2 MiB on in mappings of their own, on transparent huge pages (map_array).
#if defined(__linux__) && defined(MADV_HUGEPAGE)
#define QUILT_HUGE_PAGE_ARRAYS 1
#endif

namespace quilt::accel::staggered {

namespace {
constexpr std::size_t kPage = 4096;
constexpr std::size_t kLine = 64;
constexpr std::size_t kSlots = kPage / kLine;
constexpr std::size_t kSlotStep = 9;  // coprime to kSlots; why 9: the header

std::atomic<std::size_t> next_slot{0};

#if defined(QUILT_HUGE_PAGE_ARRAYS)
constexpr std::size_t kHugePage = std::size_t{2} << 20;

std::size_t round_up(std::size_t bytes, std::size_t to) {
  return (bytes + to - 1) / to * to;
}

/// The mapping of an array of `bytes` at page offset `offset`: from a 2 MiB boundary (the array
/// starts `offset` bytes after it) to the end of the array's last 4 KiB page.
std::size_t mapped_bytes(std::size_t offset, std::size_t bytes) {
  return round_up(offset + bytes, kPage);
}

/// An array of `bytes` at page offset `offset` in its own anonymous mapping, which starts on a
/// 2 MiB boundary and is marked for transparent huge pages (Linux, THP in "madvise" mode as on
/// Debian): its whole 2 MiB stretches are each one huge page, one fault instead of 512, the tail
/// stays in 4 KiB pages (nothing resident beyond the array's last page). On the VM of
/// docs/benchmarks.md (2026-12-02) a 4 KiB fault took about 10 us, and quilt-poisson's set-up at
/// L = 9 spent most of its time faulting in its arrays.
void* map_array(std::size_t offset, std::size_t bytes) {
  const std::size_t length = mapped_bytes(offset, bytes);
  void* region =
      mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(region);
  const auto base = round_up(start, kHugePage);
  // Unmap what lies before the boundary and after the array's pages.
  if (base > start) munmap(region, base - start);
  if (const std::size_t tail = start + kHugePage - base; tail > 0)
    munmap(reinterpret_cast<void*>(base + length), tail);
  // A hint: where it is refused, the pages stay small.
  madvise(reinterpret_cast<void*>(base), length, MADV_HUGEPAGE);
  return reinterpret_cast<std::byte*>(base) + offset;
}

void unmap_array(void* p, std::size_t bytes) noexcept {
  const auto array = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t base = array / kHugePage * kHugePage;
  munmap(reinterpret_cast<void*>(base), mapped_bytes(array - base, bytes));
}
#endif

/// The page offset of the next staggered allocation.
std::size_t next_offset() {
  const std::size_t k = next_slot.fetch_add(1, std::memory_order_relaxed);
  return (k * kSlotStep) % kSlots * kLine;
}
}  // namespace

void* allocate(std::size_t bytes) {
  if (bytes < kMinBytes) return ::operator new (bytes, std::align_val_t{kLine});
#if defined(QUILT_HUGE_PAGE_ARRAYS)
  if (bytes >= kHugePage) return map_array(next_offset(), bytes);
#endif
  // A plain block, one page and one line longer than the array, which starts at its slot's
  // offset at least one line in; the block's address is kept in the 8 bytes before it. (A
  // page-aligned block from the over-aligned operator new, glibc's memalign, kept 27-30 % more
  // pages resident at the peak of quilt-poisson.)
  auto* block = static_cast<std::byte*>(::operator new(bytes + kPage + kLine));
  const auto first = reinterpret_cast<std::uintptr_t>(block) + kLine;
  std::byte* array = block + kLine + (next_offset() + kPage - first % kPage) % kPage;
  std::memcpy(array - sizeof(block), &block, sizeof(block));
  return array;
}

void deallocate(void* p, std::size_t bytes) noexcept {
  if (bytes < kMinBytes) return ::operator delete (p, std::align_val_t{kLine});
#if defined(QUILT_HUGE_PAGE_ARRAYS)
  if (bytes >= kHugePage) return unmap_array(p, bytes);
#endif
  std::byte* block;
  std::memcpy(&block, static_cast<std::byte*>(p) - sizeof(block), sizeof(block));
  ::operator delete(block);
}

}  // namespace quilt::accel::staggered
