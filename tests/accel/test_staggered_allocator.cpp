// StaggeredAllocator: large arrays start on cache lines at different offsets in their pages
// (accel/staggered_allocator.hpp), and give their storage back.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/staggered_allocator.hpp"

namespace quilt::accel {
namespace {

constexpr std::size_t kPage = 4096, kLine = 64;

std::size_t page_offset(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % kPage;
}

/// Circular distance of two page offsets.
std::size_t distance(std::size_t a, std::size_t b) {
  const std::size_t d = a > b ? a - b : b - a;
  return std::min(d, kPage - d);
}

// Both kinds of large array: from kMinBytes on in a block of the heap, from 2 MiB on (Linux) in
// a mapping of their own, which a wrong unmapping would cut out of a neighbour (the reads below
// would fault).
TEST(StaggeredAllocator, SixtyFourLargeArraysInARowTakeEveryCacheLineOfAPageOnce) {
  for (const std::size_t bytes : {staggered::kMinBytes, (std::size_t{2} << 20) + 24})
    // Freed and made again: glibc aborts on a wrong block.
    for (int round = 0; round < 3; ++round) {
      const std::size_t count = bytes / sizeof(double);
      std::vector<StaggeredVector<double>> arrays;
      std::set<std::size_t> offsets;
      for (std::size_t k = 0; k < kPage / kLine; ++k) {
        arrays.emplace_back(count, static_cast<double>(k));
        const std::size_t offset = page_offset(arrays.back().data());
        EXPECT_EQ(offset % kLine, 0u) << "array " << k << ", " << bytes << " bytes";
        offsets.insert(offset);
      }
      EXPECT_EQ(offsets.size(), kPage / kLine) << bytes << " bytes";
      for (std::size_t k = 0; k < arrays.size(); ++k) {  // no two arrays overlap
        EXPECT_EQ(arrays[k].front(), static_cast<double>(k)) << bytes << " bytes";
        EXPECT_EQ(arrays[k].back(), static_cast<double>(k)) << bytes << " bytes";
      }
    }
}

TEST(StaggeredAllocator, TheBandsOfOneMatrixStartInDifferentCacheLinesOfTheirPages) {
  for (int n : {129, 257}) {
    const BandedMatrix<float> A(2, n);
    for (int j = 0; j < kBands; ++j)
      for (int k = 0; k < j; ++k)
        EXPECT_GE(distance(page_offset(A.band[j].data()), page_offset(A.band[k].data())), kLine)
            << "bands " << k << " and " << j << ", n = " << n;
  }
}

// A kernel that reads one array and writes another made just before or after it must not have
// the two within a few cache lines of one page offset (4K aliasing: the loads wait on the stores).
TEST(StaggeredAllocator, SixArraysMadeInARowLieAtLeastNineCacheLinesApartInTheirPages) {
  const std::size_t count = staggered::kMinBytes / sizeof(float);
  for (int round = 0; round < 2; ++round) {
    std::vector<StaggeredVector<float>> arrays;
    for (int k = 0; k < 6; ++k) arrays.emplace_back(count, 1.0f);
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < j; ++k)
        EXPECT_GE(distance(page_offset(arrays[j].data()), page_offset(arrays[k].data())), 9 * kLine)
            << "arrays " << k << " and " << j;
  }
}

TEST(StaggeredAllocator, SmallArraysStartOnACacheLine) {
  for (std::size_t count : {1, 3, 100, 5000}) {
    const StaggeredVector<float> v(count, 1.0f);
    EXPECT_EQ(page_offset(v.data()) % kLine, 0u) << count << " floats";
  }
}

}  // namespace
}  // namespace quilt::accel
