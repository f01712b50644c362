// The blocked first-order linear recurrence (accel/cpu/smoothers/linear_recurrence.hpp): a block
// of W nodes composed by the prefix scan, then applied to the carry, against the node-by-node
// recurrence, in both directions.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "accel/cpu/smoothers/linear_recurrence.hpp"

namespace quilt::accel::cpu {
namespace {

template <class T>
class LinearRecurrence : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LinearRecurrence, Precisions);

/// x of the block from (a, m) and the carry x_c, by the scan: forward x_i = a_i + m_i x_{i-1}
/// with x_{-1} = x_c; backward x_i = a_i + m_i x_{i+1} with x_W = x_c.
template <class T, bool Forward>
typename SimdBlock<T>::V scanned(typename SimdBlock<T>::V a, typename SimdBlock<T>::V m, T carry) {
  SimdBlock<T>::template compose<Forward>(a, m);
  return a + m * SimdBlock<T>::splat(carry);
}

template <class T, bool Forward>
void expect_matches_node_by_node(unsigned seed) {
  using Simd = SimdBlock<T>;
  constexpr int W = Simd::kWidth;
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> terms(-1.0, 1.0), factors(-0.9, 0.9);
  T a_lanes[W], m_lanes[W];
  for (int i = 0; i < W; ++i) {
    a_lanes[i] = T(terms(gen));
    m_lanes[i] = T(factors(gen));
  }
  const typename Simd::V a = Simd::load(a_lanes), m = Simd::load(m_lanes);
  const T carry = T(terms(gen));
  const auto x = scanned<T, Forward>(a, m, carry);
  long double previous = carry;
  for (int k = 0; k < W; ++k) {
    const int i = Forward ? k : W - 1 - k;
    const long double exact = (long double)a[i] + (long double)m[i] * previous;
    // Each node's value sums at most W products of factors below 1 in magnitude.
    EXPECT_NEAR(x[i], exact, 4.0 * W * std::numeric_limits<T>::epsilon()) << "node " << i;
    previous = exact;
  }
  const auto out = Simd::template carry_out<Forward>(x);
  for (int i = 0; i < W; ++i) EXPECT_EQ(out[i], x[Forward ? W - 1 : 0]);
}

TYPED_TEST(LinearRecurrence, ScanMatchesTheNodeByNodeRecurrence) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    expect_matches_node_by_node<TypeParam, true>(seed);
    expect_matches_node_by_node<TypeParam, false>(seed);
  }
}

// Exact cases that single out the scan's shifts: with m = 0 every node is its own a (nothing may
// leak between nodes); with a = 0 and m = 1 every node is the carry (the identity must fill the
// lanes before the block's start).
TYPED_TEST(LinearRecurrence, DecoupledAndIdentityMapsAreExact) {
  using T = TypeParam;
  using Simd = SimdBlock<T>;
  T lanes[Simd::kWidth];
  for (int i = 0; i < Simd::kWidth; ++i) lanes[i] = T(i + 1) / T(3);
  const typename Simd::V a = Simd::load(lanes);
  const auto forward = scanned<T, true>(a, typename Simd::V{}, T(7));
  const auto backward = scanned<T, false>(a, typename Simd::V{}, T(7));
  const auto carried = scanned<T, true>(typename Simd::V{}, Simd::splat(T(1)), T(7));
  const auto carried_back = scanned<T, false>(typename Simd::V{}, Simd::splat(T(1)), T(7));
  for (int i = 0; i < Simd::kWidth; ++i) {
    EXPECT_EQ(forward[i], a[i]);
    EXPECT_EQ(backward[i], a[i]);
    EXPECT_EQ(carried[i], T(7));
    EXPECT_EQ(carried_back[i], T(7));
  }
}

/// The scan, the carry and the store of one block in the given form of SimdBlock.
template <class T, bool Halved, bool Forward>
void scan_block(const T* a_lanes, const T* m_lanes, T carry, T* out, T* carried) {
  using Simd = SimdBlock<T, Halved>;
  typename Simd::V a = Simd::load(a_lanes), m = Simd::load(m_lanes);
  Simd::template compose<Forward>(a, m);
  const typename Simd::V x = a + m * Simd::splat(carry);
  Simd::store(out, x);
  Simd::store(carried, Simd::template carry_out<Forward>(x));
}

// A block as two register halves (where the target's registers hold half a block) gives the
// whole vector's values bit for bit: the sweeps' results do not depend on the form the target
// picks.
TYPED_TEST(LinearRecurrence, HalvedBlockIsBitwiseTheWholeVector) {
  using T = TypeParam;
  constexpr int W = SimdBlock<T>::kWidth;
  std::mt19937 gen(42);
  std::uniform_real_distribution<double> terms(-1.0, 1.0), factors(-0.9, 0.9);
  for (int trial = 0; trial < 50; ++trial) {
    T a[W], m[W];
    for (int i = 0; i < W; ++i) {
      a[i] = T(terms(gen));
      m[i] = T(factors(gen));
    }
    const T carry = T(terms(gen));
    T whole[W], halved[W], whole_carry[W], halved_carry[W];
    scan_block<T, false, true>(a, m, carry, whole, whole_carry);
    scan_block<T, true, true>(a, m, carry, halved, halved_carry);
    for (int i = 0; i < W; ++i) {
      EXPECT_EQ(halved[i], whole[i]) << "forward, lane " << i;
      EXPECT_EQ(halved_carry[i], whole[W - 1]) << "forward carry, lane " << i;
    }
    scan_block<T, false, false>(a, m, carry, whole, whole_carry);
    scan_block<T, true, false>(a, m, carry, halved, halved_carry);
    for (int i = 0; i < W; ++i) {
      EXPECT_EQ(halved[i], whole[i]) << "backward, lane " << i;
      EXPECT_EQ(halved_carry[i], whole[0]) << "backward carry, lane " << i;
    }
  }
}

}  // namespace
}  // namespace quilt::accel::cpu
