#include "accel/staggered_allocator.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>

// Large arrays from a pool of transparent huge pages (Linux); under AddressSanitizer from
// operator new, whose blocks it guards.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QUILT_ADDRESS_SANITIZER 1
#endif
#endif
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && !defined(QUILT_ADDRESS_SANITIZER)
#define QUILT_HUGE_PAGE_ARRAYS 1
#include "accel/huge_page_pool.hpp"
#endif

namespace quilt::accel::staggered {

namespace {
constexpr std::size_t kPage = 4096;
constexpr std::size_t kLine = 64;
constexpr std::size_t kSlots = kPage / kLine;
constexpr std::size_t kSlotStep = 9;  // coprime to kSlots; why 9: the header

std::atomic<std::size_t> next_slot{0};

#if defined(QUILT_HUGE_PAGE_ARRAYS)
/// Never destroyed: arrays of static storage may be freed after the other statics are gone.
HugePagePool& pool() {
  alignas(HugePagePool) static std::byte storage[sizeof(HugePagePool)];
  static HugePagePool* const instance = ::new (storage) HugePagePool;
  return *instance;
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
  // A block of whole pages; the array at its slot's offset in the first.
  const std::size_t offset = next_offset();
  return static_cast<std::byte*>(pool().take(HugePagePool::whole_pages(offset + bytes))) + offset;
#else
  // A plain block, one page and one line longer than the array, which starts at its slot's
  // offset at least one line in; the block's address is kept in the 8 bytes before it. (A
  // page-aligned block from the over-aligned operator new, glibc's memalign, kept 27-30 % more
  // pages resident at the peak of quilt-poisson.)
  auto* block = static_cast<std::byte*>(::operator new(bytes + kPage + kLine));
  const auto first = reinterpret_cast<std::uintptr_t>(block) + kLine;
  std::byte* array = block + kLine + (next_offset() + kPage - first % kPage) % kPage;
  std::memcpy(array - sizeof(block), &block, sizeof(block));
  return array;
#endif
}

void deallocate(void* p, std::size_t bytes) noexcept {
  if (bytes < kMinBytes) return ::operator delete (p, std::align_val_t{kLine});
#if defined(QUILT_HUGE_PAGE_ARRAYS)
  const std::size_t offset = reinterpret_cast<std::uintptr_t>(p) % kPage;
  pool().give(static_cast<std::byte*>(p) - offset, HugePagePool::whole_pages(offset + bytes));
#else
  std::byte* block;
  std::memcpy(&block, static_cast<std::byte*>(p) - sizeof(block), sizeof(block));
  ::operator delete(block);
#endif
}

}  // namespace quilt::accel::staggered
