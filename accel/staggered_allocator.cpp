#include "accel/staggered_allocator.hpp"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>

namespace quilt::accel::staggered {

namespace {
constexpr std::size_t kPage = 4096;
constexpr std::size_t kLine = 64;
constexpr std::size_t kSlots = kPage / kLine;
constexpr std::size_t kSlotStep = 9;  // coprime to kSlots; why 9: the header

std::atomic<std::size_t> next_slot{0};

/// The page offset of the next staggered allocation.
std::size_t next_offset() {
  const std::size_t k = next_slot.fetch_add(1, std::memory_order_relaxed);
  return (k * kSlotStep) % kSlots * kLine;
}
}  // namespace

void* allocate(std::size_t bytes) {
  if (bytes < kMinBytes) return ::operator new (bytes, std::align_val_t{kLine});
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
  std::byte* block;
  std::memcpy(&block, static_cast<std::byte*>(p) - sizeof(block), sizeof(block));
  ::operator delete(block);
}

}  // namespace quilt::accel::staggered
