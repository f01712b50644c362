// The blocked first-order linear recurrence (accel/cpu/smoothers/linear_recurrence.hpp): a block
// of W nodes composed by the prefix scan, then applied to the carry, against the node-by-node
// recurrence, in both directions.

#include <gtest/gtest.h>

#include <algorithm>
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
/// with x_{-1} = x_c; backward x_i = a_i + m_i x_{i+1} with x_W = x_c. Simd: the block's form.
template <class T, bool Forward, class Simd = SimdBlock<T>>
typename Simd::V scanned(typename Simd::V a, typename Simd::V m, T carry) {
  Simd::template compose<Forward>(a, m);
  return a + m * Simd::splat(carry);
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

/// The scan, the carry and the store of one block in the given form.
template <class T, bool Halved, bool Forward>
void scan_block(const T* a_lanes, const T* m_lanes, T carry, T* out, T* carried) {
  using Simd = SimdBlock<T, Halved>;
  const auto x = scanned<T, Forward, Simd>(Simd::load(a_lanes), Simd::load(m_lanes), carry);
  Simd::store(out, x);
  Simd::store(carried, Simd::template carry_out<Forward>(x));
}

/// The scan's arithmetic lane by lane in scalars, in its order: log2(W) steps that compose each
/// lane's map with the one D lanes before it (Forward; after it backward), the identity (0, 1)
/// beyond the block; then x = a + m carry.
template <class T, bool Forward>
void scan_lane_by_lane(const T* a_lanes, const T* m_lanes, T carry, T* x) {
  constexpr int W = SimdBlock<T>::kWidth;
  T a[W], m[W];
  std::copy_n(a_lanes, W, a);
  std::copy_n(m_lanes, W, m);
  for (int d = 1; d < W; d *= 2) {
    T a_before[W], m_before[W];
    for (int i = 0; i < W; ++i) {
      const int from = Forward ? i - d : i + d;
      const bool in = from >= 0 && from < W;
      a_before[i] = in ? a[from] : T(0);
      m_before[i] = in ? m[from] : T(1);
    }
    for (int i = 0; i < W; ++i) {
      a[i] = a[i] + m[i] * a_before[i];
      m[i] = m[i] * m_before[i];
    }
  }
  for (int i = 0; i < W; ++i) x[i] = a[i] + m[i] * carry;
}

/// One block in the given form against the scan lane by lane, forward and backward: the same
/// values and carries, bit for bit.
template <class T, bool Halved>
void expect_form_matches_lanes(std::mt19937& gen) {
  constexpr int W = SimdBlock<T>::kWidth;
  std::uniform_real_distribution<double> terms(-1.0, 1.0), factors(-0.9, 0.9);
  T a[W], m[W];
  for (int i = 0; i < W; ++i) {
    a[i] = T(terms(gen));
    m[i] = T(factors(gen));
  }
  const T carry = T(terms(gen));
  T lanes[W], block[W], block_carry[W];
  scan_lane_by_lane<T, true>(a, m, carry, lanes);
  scan_block<T, Halved, true>(a, m, carry, block, block_carry);
  for (int i = 0; i < W; ++i) {
    EXPECT_EQ(block[i], lanes[i]) << (Halved ? "halves" : "one vector") << ", forward, lane " << i;
    EXPECT_EQ(block_carry[i], lanes[W - 1])
        << (Halved ? "halves" : "one vector") << ", forward carry, lane " << i;
  }
  scan_lane_by_lane<T, false>(a, m, carry, lanes);
  scan_block<T, Halved, false>(a, m, carry, block, block_carry);
  for (int i = 0; i < W; ++i) {
    EXPECT_EQ(block[i], lanes[i]) << (Halved ? "halves" : "one vector") << ", backward, lane " << i;
    EXPECT_EQ(block_carry[i], lanes[0])
        << (Halved ? "halves" : "one vector") << ", backward carry, lane " << i;
  }
}

/// Whether this target can hold a block in the given form besides its own (kHalvedBlock): the
/// whole block or its halves in one register each.
template <class T>
constexpr bool can_hold(bool halved) {
  const int bytes = SimdBlock<T>::kWidth * int(sizeof(T)) / (halved ? 2 : 1);
  return bytes <= kRegisterBytes;
}

// The target's form of a block and every other one it can hold (one vector, two halves) compute
// the scan's arithmetic lane by lane, bit for bit: the sweeps' values do not depend on the form,
// so hosts with other registers agree.
TYPED_TEST(LinearRecurrence, EveryFormIsTheScanLaneByLane) {
  using T = TypeParam;
  std::mt19937 gen(42);
  for (int trial = 0; trial < 50; ++trial) {
    expect_form_matches_lanes<T, kHalvedBlock<T>>(gen);
    if constexpr (can_hold<T>(false)) expect_form_matches_lanes<T, false>(gen);
    if constexpr (can_hold<T>(true)) expect_form_matches_lanes<T, true>(gen);
  }
}

}  // namespace
}  // namespace quilt::accel::cpu
