#pragma once
// The first-order linear recurrence x_i = a_i + m_i x_{i-1} of the smoothers' sweeps along a grid
// line (Gauss-Seidel: x_i <- u_i - v_i x_{i-1}), solved one SIMD register of W nodes at a time.
// Within a block the affine maps x -> a_i + m_i x are composed by a prefix scan in log2(W) steps
// (Kogge & Stone 1973, Hillis & Steele 1986): afterwards node i of the block is a'_i + m'_i x_c,
// x_c the last value of the block before. The chain from node to node, one multiply and one add
// per node (6 cycles: the sweep in cache ran at a quarter of the memory streams' rate with one
// chain per line), becomes a multiply, an add and a broadcast per block. The scan rounds
// differently from the node-by-node recurrence (it sums the same terms in another order); for the
// contracting recurrences of the smoothers (|m_i| < 1 on diagonally dominant lines) both are
// accurate to a few ulps.
//
// The register type is GCC's / clang's generic vector (vector_size), as wide as the target's
// widest registers: 64 bytes with AVX-512, 32 with AVX, else 16 (SSE2, the x86-64 baseline).

#include <cstddef>
#include <utility>

namespace quilt::accel::cpu {

/// Bytes of one SIMD register of the target.
#if defined(__AVX512F__)
inline constexpr int kSimdBytes = 64;
#elif defined(__AVX__)
inline constexpr int kSimdBytes = 32;
#else
inline constexpr int kSimdBytes = 16;
#endif

/// A SIMD register of T and the operations of the blocked recurrence on it.
template <class T>
struct SimdBlock {
  using V [[gnu::vector_size(kSimdBytes)]] = T;
  /// Nodes per block (W).
  static constexpr int kWidth = kSimdBytes / static_cast<int>(sizeof(T));

  static V load(const T* p) {
    V v;
    __builtin_memcpy(&v, p, sizeof(V));
    return v;
  }
  static void store(T* p, V v) { __builtin_memcpy(p, &v, sizeof(V)); }
  static V splat(T s) { return V{} + s; }

  /// Lanes moved D places towards the block's end (Forward) or its start, the lanes left free
  /// filled from `fill`.
  template <bool Forward, int D>
  static V shift(V v, V fill) {
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
  static V carry_out(V v) {
    return carry_out(v, std::integral_constant < int, Forward ? kWidth - 1 : 0 > {},
                     std::make_index_sequence<kWidth>{});
  }

 private:
  template <bool Forward, int D, std::size_t... I>
  static V shift(V v, V fill, std::index_sequence<I...>) {
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
  static V carry_out(V v, std::integral_constant<int, L>, std::index_sequence<I...>) {
    return __builtin_shufflevector(v, v, (int(I) * 0 + L)...);
  }
};

}  // namespace quilt::accel::cpu
