#pragma once
// Page-aligned blocks for the large arrays (StaggeredAllocator), carved from regions of
// transparent huge pages (Linux, THP in "madvise" mode as on Debian).
//
// Why: on the VM of docs/benchmarks.md (2026-12-02) a 4 KiB page fault took about 10 us and a
// 2 MiB one about 60-130 us per MiB, and quilt-poisson's set-up at L = 9 spent half its time
// faulting in the arrays that malloc gave it page by page. The pool puts the arrays side by side
// in 2 MiB-aligned regions marked MADV_HUGEPAGE: one fault per 2 MiB, and nothing resident beyond
// the last huge page in use. A freed block is merged with its free neighbours and serves the next
// arrays without faulting again; regions are kept until the process ends (a solver sets up once,
// and what its set-up frees, the arrays made after it reuse). First fit in address order keeps
// the arrays packed towards the start of the regions.

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace quilt::accel {

class HugePagePool {
 public:
  /// Bytes the pool makes usable at least at once (only touched pages are resident).
  static constexpr std::size_t kRegionBytes = std::size_t{64} << 20;
  /// Address space reserved at once (PROT_NONE: no memory, no commit charge). The regions are
  /// cut from it in order, so they adjoin and grow upwards: their free ends merge, and first fit
  /// in address order fills the older regions' holes first. (Mapped one by one, Linux puts each
  /// below the last, and the arrays spread over 19 % more huge pages at L = 9.)
  static constexpr std::size_t kReserveBytes = std::size_t{256} << 30;  ///< or 1/4 of ulimit -v
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kPage = 4096;
  /// `bytes` rounded up to a multiple of `to`.
  static constexpr std::size_t round_up(std::size_t bytes, std::size_t to) {
    return (bytes + to - 1) / to * to;
  }
  /// The length of the whole pages that hold `bytes`.
  static constexpr std::size_t whole_pages(std::size_t bytes) { return round_up(bytes, kPage); }

  HugePagePool();
  HugePagePool(const HugePagePool&) = delete;
  HugePagePool& operator=(const HugePagePool&) = delete;
  /// Unmaps its reservations (the pool of StaggeredAllocator is never destroyed).
  ~HugePagePool();

  /// A block of `length` bytes (a multiple of kPage), page-aligned; std::bad_alloc if no region
  /// can be mapped.
  void* take(std::size_t length);
  /// Returns a block of take(length).
  void give(void* block, std::size_t length) noexcept;

  /// Free blocks (no two adjoin): one when every block is back (the regions adjoin, unless the
  /// pool needed a second reservation).
  std::size_t free_blocks() const;
  std::size_t regions() const;

 private:
  struct Block {
    std::uintptr_t start;
    std::size_t length;
  };
  /// Makes a region of at least `length` bytes usable; its free block.
  std::vector<Block>::iterator add_region(std::size_t length);
  /// Reserves address space for at least `bytes` more.
  void reserve(std::size_t bytes);
  /// Inserts a free block in address order, merged with the free blocks it adjoins.
  std::vector<Block>::iterator insert(Block b);

  mutable std::mutex mutex_;
  std::vector<Block> free_;          ///< in address order, no two adjoining
  std::vector<Block> regions_;       ///< usable, in reservations_
  std::vector<Block> reservations_;  ///< the mappings
  struct {
    std::uintptr_t next = 0, end = 0;
  } reserved_;  ///< the rest of the last reservation, from a 2 MiB boundary
};

}  // namespace quilt::accel
