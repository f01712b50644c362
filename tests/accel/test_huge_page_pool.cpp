// HugePagePool (accel/huge_page_pool.hpp): page-aligned blocks that never overlap, freed blocks
// merged with their neighbours and served again, regions on 2 MiB boundaries.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "accel/huge_page_pool.hpp"

namespace quilt::accel {
namespace {

constexpr std::size_t kPage = HugePagePool::kPage;

std::uintptr_t address(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

TEST(HugePagePool, BlocksLieSideBySideFromA2MiBBoundaryAndRegionsAdjoin) {
  HugePagePool pool;
  void* first = pool.take(3 * kPage);
  EXPECT_EQ(address(first) % HugePagePool::kHugePage, 0u);  // the start of the first region
  void* second = pool.take(kPage);
  EXPECT_EQ(address(second), address(first) + 3 * kPage);
  // More than the first region has left: a second region, right after the first, so the block
  // starts in the first.
  const std::size_t large_length = HugePagePool::kRegionBytes + kPage;
  void* large = pool.take(large_length);
  EXPECT_EQ(address(large), address(second) + kPage);
  EXPECT_EQ(pool.regions(), 2u);
  std::memset(large, 1, large_length);  // all of it is usable
  pool.give(large, large_length);
  pool.give(first, 3 * kPage);
  EXPECT_EQ(pool.free_blocks(), 2u);
  pool.give(second, kPage);
  EXPECT_EQ(pool.free_blocks(), 1u);  // both regions, one block
}

TEST(HugePagePool, AFreedBlockMergesWithBothNeighboursAndIsServedAgain) {
  HugePagePool pool;
  std::vector<void*> blocks;
  for (int k = 0; k < 4; ++k) blocks.push_back(pool.take(5 * kPage));
  // Free the second and fourth, then the third between them: one hole of 15 pages, up to the
  // rest of the region.
  pool.give(blocks[1], 5 * kPage);
  pool.give(blocks[3], 5 * kPage);
  EXPECT_EQ(pool.free_blocks(), 2u);
  pool.give(blocks[2], 5 * kPage);
  EXPECT_EQ(pool.free_blocks(), 1u);
  // The lowest fit: where the second block was, though it was freed as three pieces.
  EXPECT_EQ(pool.take(12 * kPage), blocks[1]);
  EXPECT_EQ(pool.regions(), 1u);
}

TEST(HugePagePool, RandomBlocksNeverOverlapAndAllComeBack) {
  HugePagePool pool;
  std::mt19937 random(7);
  struct Held {
    unsigned char* data;
    std::size_t length;
    unsigned char mark;
  };
  std::vector<Held> held;
  for (int step = 0; step < 600; ++step) {
    if (held.empty() || random() % 3 != 0) {
      // 1 page to 3 MiB: within a region and across huge pages.
      const std::size_t length = (1 + random() % 768) * kPage;
      auto* data = static_cast<unsigned char*>(pool.take(length));
      const auto mark = static_cast<unsigned char>(step);
      std::memset(data, mark, length);
      held.push_back({data, length, mark});
    } else {
      const std::size_t k = random() % held.size();
      const Held h = held[k];
      // Every byte still the block's own: no other block was carved from it.
      EXPECT_TRUE(
          std::all_of(h.data, h.data + h.length, [&](unsigned char c) { return c == h.mark; }))
          << "step " << step;
      pool.give(h.data, h.length);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  for (const Held& h : held) {
    EXPECT_TRUE(
        std::all_of(h.data, h.data + h.length, [&](unsigned char c) { return c == h.mark; }));
    pool.give(h.data, h.length);
  }
  EXPECT_EQ(pool.free_blocks(), 1u);  // the regions adjoin
}

/// Exits 0 if, with 2 GiB of address space left (ulimit -v), a pool with a block in use and a
/// mapping of 1 GiB beside it both fit; 1 if the mapping fails, 2 if the limit cannot be set.
[[noreturn]] void pool_beside_a_mapping_under_a_limit() {
  std::size_t used = 0;  // the address space in use now, in pages
  if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%zu", &used) != 1) used = 0;
    std::fclose(statm);
  }
  const rlimit limit{used * kPage + (std::size_t{2} << 30), RLIM_INFINITY};
  if (used == 0 || setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(2);
  HugePagePool pool;
  pool.take(kPage);
  void* beside = mmap(nullptr, std::size_t{1} << 30, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  std::_Exit(beside == MAP_FAILED ? 1 : 0);
}

// Under ulimit -v the reservation must leave the rest of the process room (a reservation halved
// until it fits would take 1 GiB of the 2 left). In a child process, where the limit stays.
TEST(HugePagePoolDeathTest, LeavesRoomUnderALimitOnTheAddressSpace) {
  EXPECT_EXIT(pool_beside_a_mapping_under_a_limit(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace quilt::accel
