#pragma once
// The first-order linear recurrence x_i = a_i + m_i x_{i-1} of the smoothers' sweeps along a grid
// line (Gauss-Seidel: x_i <- u_i - v_i x_{i-1}), solved a block of W nodes at a time. Within a
// block the affine maps x -> a_i + m_i x are composed by a prefix scan in log2(W) steps (Kogge &
// Stone 1973, Hillis & Steele 1986): afterwards node i of the block is a'_i + m'_i x_c, x_c the
// last value of the block before. The chain from node to node, one multiply and one add
// per node (6 cycles: with one chain per line the float Gauss-Seidel sweep ran at 570
// Munknowns/s in L2, two thirds of what the memory streams allow on a 40 GB/s host), becomes a
// multiply, an add and a broadcast per block. The scan rounds differently from the node-by-node
// recurrence (it sums the same terms in another order); for the contracting recurrences of the
// smoothers (|m_i| < 1 on diagonally dominant lines) both are accurate to a few ulps.
//
// The block is a GCC / clang generic vector (vector_size) of 8 values in both precisions, whatever
// the target's registers: the sweeps then round alike on every x86 host (SSE2, AVX2, AVX-512),
// as the node-by-node sweeps did. Blocks of a whole AVX-512 register (16 floats) were slower
// where it counts: the float Gauss-Seidel sweep from memory 659-693 against 812-832
// Munknowns/s (n = 1025, 16 macros), though 1.2 times faster in L2 (2026-11-28).

#include <cstddef>
#include <utility>

#include "accel/recurrence_blocks.hpp"

// The registers are passed between inline functions of the including file only, never across an
// ABI boundary: GCC's note that vectors wider than the target's registers are passed differently
// with and without AVX / AVX-512 does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace quilt::accel::cpu {

/// A block of W values of T and the operations of the blocked recurrence on it.
template <class T>
struct SimdBlock {
  /// Nodes per block (W).
  static constexpr int kWidth = kRecurrenceBlock;
  using V [[gnu::vector_size(kWidth * sizeof(T))]] = T;

  static V load(const T* p) {
    V v;
    __builtin_memcpy(&v, p, sizeof(V));
    return v;
  }
  static void store(T* p, const V& v) { __builtin_memcpy(p, &v, sizeof(V)); }
  static V splat(T s) { return V{} + s; }

  /// Lanes moved D places towards the block's end (Forward) or its start, the lanes left free
  /// filled from `fill`.
  template <bool Forward, int D>
  static V shift(const V& v, const V& fill) {
    return shift<Forward, D>(v, fill, std::make_index_sequence<kWidth>{});
  }

  /// The scan: (a, m) of every node become those of the composed map from the block's carry-in
  /// to the node (Forward: the carry enters at lane 0; backward at lane W - 1).
  template <bool Forward>
  static void compose(V& a, V& m) {
    compose<Forward, 1>(a, m);
  }

  /// Lane W - 1 (Forward) or 0 of v in every lane: the carry into the next block.
  template <bool Forward>
  static V carry_out(const V& v) {
    return carry_out(v, std::integral_constant < int, Forward ? kWidth - 1 : 0 > {},
                     std::make_index_sequence<kWidth>{});
  }

 private:
  template <bool Forward, int D, std::size_t... I>
  static V shift(const V& v, const V& fill, std::index_sequence<I...>) {
    // Lane i of the result: lane i - D of v (Forward), i + D backward; else lane i of fill
    // (index W + i of the pair).
    if constexpr (Forward)
      return __builtin_shufflevector(v, fill, (I >= D ? int(I) - D : kWidth + int(I))...);
    else
      return __builtin_shufflevector(v, fill,
                                     (int(I) + D < kWidth ? int(I) + D : kWidth + int(I))...);
  }

  template <bool Forward, int D>
  static void compose(V& a, V& m) {
    if constexpr (D < kWidth) {
      // The map of node i after this step covers nodes i - 2D + 1 .. i (Forward): its own
      // (a_i, m_i) after the one of nodes i - 2D + 1 .. i - D; before the block's first node the
      // identity (0, 1).
      const V a_before = shift<Forward, D>(a, V{});
      const V m_before = shift<Forward, D>(m, splat(T(1)));
      a = a + m * a_before;
      m = m * m_before;
      compose<Forward, 2 * D>(a, m);
    }
  }

  template <int L, std::size_t... I>
  static V carry_out(const V& v, std::integral_constant<int, L>, std::index_sequence<I...>) {
    return __builtin_shufflevector(v, v, (int(I) * 0 + L)...);
  }
};

}  // namespace quilt::accel::cpu
