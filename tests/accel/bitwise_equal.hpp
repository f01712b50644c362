#pragma once
// Bitwise equality of two vectors as a gtest assertion, naming the first difference: for results
// that must not depend on how they were computed (a fused kernel against the one it replaces).

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace quilt::testing {

/// memcmp per entry: also tells -0 from 0 and NaN patterns apart.
template <class T, class Allocator>
::testing::AssertionResult bitwise_equal(const std::vector<T, Allocator>& a,
                                         const std::vector<T, Allocator>& b) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure()
             << "first difference at " << i << ": " << a[i] << " vs " << b[i];
  return ::testing::AssertionSuccess();
}

}  // namespace quilt::testing
