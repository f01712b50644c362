#include "accel/huge_page_pool.hpp"

#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <new>

namespace quilt::accel {

HugePagePool::HugePagePool() {
  // Room for every free block a solver's set-up leaves: give() must not allocate.
  free_.reserve(4096);
}

HugePagePool::~HugePagePool() {
  for (const Block& r : reservations_) munmap(reinterpret_cast<void*>(r.start), r.length);
}

void* HugePagePool::take(std::size_t length) {
  const std::lock_guard lock(mutex_);
  auto fit =
      std::find_if(free_.begin(), free_.end(), [&](const Block& b) { return b.length >= length; });
  if (fit == free_.end()) fit = add_region(length);
  const std::uintptr_t start = fit->start;
  fit->start += length;
  fit->length -= length;
  if (fit->length == 0) free_.erase(fit);
  return reinterpret_cast<void*>(start);
}

void HugePagePool::give(void* block, std::size_t length) noexcept {
  const std::lock_guard lock(mutex_);
  insert({reinterpret_cast<std::uintptr_t>(block), length});
}

std::size_t HugePagePool::free_blocks() const {
  const std::lock_guard lock(mutex_);
  return free_.size();
}

std::size_t HugePagePool::regions() const {
  const std::lock_guard lock(mutex_);
  return regions_.size();
}

auto HugePagePool::add_region(std::size_t length) -> std::vector<Block>::iterator {
  const std::size_t bytes = std::max(kRegionBytes, round_up(length, kHugePage));
  if (reserved_.end - reserved_.next < bytes) reserve(bytes);
  void* const base = reinterpret_cast<void*>(reserved_.next);
  if (mprotect(base, bytes, PROT_READ | PROT_WRITE) != 0) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
  // A hint: where it is refused (THP "never"), the pages stay small.
  madvise(base, bytes, MADV_HUGEPAGE);
#endif
  regions_.push_back({reserved_.next, bytes});
  reserved_.next += bytes;
  return insert(regions_.back());
}

void HugePagePool::reserve(std::size_t bytes) {
  // Under a limit on the address space (ulimit -v, as batch systems set it) a reservation counts
  // against it although it holds no memory: at most a quarter of the limit, so the rest of the
  // process keeps room. Halved where even that is refused, down to what the region needs; one
  // huge page more, to start the regions on a 2 MiB boundary.
  std::size_t first = kReserveBytes;
  if (rlimit limit{}; getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    first = std::min<std::size_t>(first, limit.rlim_cur / 4);
  for (std::size_t size = std::max(first, bytes + kHugePage); size >= bytes + kHugePage;
       size /= 2) {
    void* span = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (span == MAP_FAILED) continue;
    reservations_.push_back({reinterpret_cast<std::uintptr_t>(span), size});
    reserved_ = {round_up(reservations_.back().start, kHugePage),
                 reservations_.back().start + size};
    return;
  }
  throw std::bad_alloc();
}

auto HugePagePool::insert(Block b) -> std::vector<Block>::iterator {
  auto next = std::lower_bound(free_.begin(), free_.end(), b.start,
                               [](const Block& f, std::uintptr_t at) { return f.start < at; });
  const bool joins_next = next != free_.end() && b.start + b.length == next->start;
  if (next != free_.begin()) {
    const auto previous = next - 1;
    if (previous->start + previous->length == b.start) {
      previous->length += b.length;
      if (joins_next) {
        previous->length += next->length;
        free_.erase(next);
      }
      return previous;
    }
  }
  if (joins_next) {
    next->start = b.start;
    next->length += b.length;
    return next;
  }
  return free_.insert(next, b);
}

}  // namespace quilt::accel
