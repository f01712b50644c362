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

// Large arrays of two sizes: from kMinBytes on, and over 2 MiB, whose blocks span huge pages of
// the pool (Linux; elsewhere and under AddressSanitizer blocks of operator new). A block given
// back from a wrong address would be handed out while in use, and the reads below would see
// another array's values (or fault).
TEST(StaggeredAllocator, SixtyFourLargeArraysInARowTakeEveryCacheLineOfAPageOnce) {
  for (const std::size_t bytes : {staggered::kMinBytes, (std::size_t{2} << 20) + 24}) {
    const std::size_t count = bytes / sizeof(double);
    std::vector<StaggeredVector<double>> arrays;
    double value = 0;
    for (int round = 0; round < 3; ++round) {
      // Every other array freed, the others kept while new ones are made beside them.
      for (std::size_t k = 0; k < arrays.size(); k += 2) arrays[k] = {};
      std::set<std::size_t> offsets;
      for (std::size_t k = 0; k < kPage / kLine; ++k) {
        // Lengths that differ by a few pages, so freed blocks are cut up again.
        arrays.emplace_back(count + (k * 7 % 5) * kPage / sizeof(double), ++value);
        const std::size_t offset = page_offset(arrays.back().data());
        EXPECT_EQ(offset % kLine, 0u) << "array " << k << ", " << bytes << " bytes";
        offsets.insert(offset);
      }
      EXPECT_EQ(offsets.size(), kPage / kLine) << bytes << " bytes";
      for (const auto& a : arrays)  // no two arrays overlap
        for (const double v : a) ASSERT_EQ(v, a.front()) << bytes << " bytes, round " << round;
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
