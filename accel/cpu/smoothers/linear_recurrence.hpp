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
// The block is 8 values in both precisions, whatever the target's registers: one GCC / clang
// generic vector (vector_size), or two half-vectors where each half fills one register
// (VectorPair, below). The sweeps then round alike on every x86 host (SSE2, AVX2, AVX-512), as
// the node-by-node sweeps did. Blocks of a whole AVX-512 register (16 floats) were slower
// where it counts: the float Gauss-Seidel sweep from memory 659-693 against 812-832
// Munknowns/s (n = 1025, 16 macros), though 1.2 times faster in L2 (2026-11-28).

#include <cstddef>
#include <type_traits>
#include <utility>

#include "accel/cpu/vector_registers.hpp"
#include "accel/recurrence_blocks.hpp"

// The registers are passed between inline functions of the including file only, never across an
// ABI boundary: GCC's note that vectors wider than the target's registers are passed differently
// with and without AVX / AVX-512 does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace quilt::accel::cpu {

/// A block too wide for one register, as its two halves. GCC 12 keeps a generic vector wider than
/// the target's registers (8 doubles with AVX2) in memory wherever it is not the result of
/// arithmetic on loaded values: every block's carry was built by 8 scalar stores and reloaded
/// 16 bytes at a time (a failed store forwarding on the recurrence's chain), and the block's
/// store went through the stack. The double TRIGS x-line sweep took 7.7-8.3 ns per node in cache
/// (n = 129, 2 macros), against 2.0-2.4 for float; with the halves in two registers 2.6-3.3, the
/// y-line sweep 4.0-4.9 instead of 9.2-10.2, Gauss-Seidel 2.2-2.6 instead of 5.3-5.6
/// (docs/benchmarks.md, 2026-11-29 12:40 UTC). Lane by lane the same operations: the sweeps'
/// values are bitwise those of the whole vector.
template <class Element, int kHalf>
struct VectorPair {
  /// One half: kHalf lanes. (The vector type is made here: GCC drops a vector_size attribute
  /// from a type passed as a template argument.)
  using H [[gnu::vector_size(kHalf * sizeof(Element))]] = Element;
  H lo{}, hi{};

  Element operator[](int i) const { return i < kHalf ? lo[i] : hi[i - kHalf]; }
  friend VectorPair operator+(const VectorPair& a, const VectorPair& b) {
    return {a.lo + b.lo, a.hi + b.hi};
  }
  friend VectorPair operator-(const VectorPair& a, const VectorPair& b) {
    return {a.lo - b.lo, a.hi - b.hi};
  }
  friend VectorPair operator*(const VectorPair& a, const VectorPair& b) {
    return {a.lo * b.lo, a.hi * b.hi};
  }
  friend VectorPair operator-(const VectorPair& a) { return {-a.lo, -a.hi}; }
  friend VectorPair operator*(Element s, const VectorPair& a) { return {s * a.lo, s * a.hi}; }
  friend VectorPair operator/(Element s, const VectorPair& a) { return {s / a.lo, s / a.hi}; }
};

/// The type of a block of N values of T: one generic vector, or a VectorPair where `halved`.
/// (Chosen by specialisation, not std::conditional_t: that would drop the vector_size attribute.)
template <class T, int N, bool halved>
struct BlockType {
  using type [[gnu::vector_size(N * sizeof(T))]] = T;
};
template <class T, int N>
struct BlockType<T, N, true> {
  using type = VectorPair<T, N / 2>;
};

/// Whether a block of T is held as two halves on this target: where each half fills one register
/// (8 doubles with AVX2, 8 floats with SSE2 only). A block that fits one register stays one
/// vector. So does a block of four registers (8 doubles with SSE2): with halves of two registers
/// each, GCC 12 lowered the shuffles between them through memory. The float halves with SSE2 made
/// the float line sweeps 2.5-2.7 times faster in cache (n = 129, 2 macros, 2026-12-02).
template <class T>
inline constexpr bool kHalvedBlock = int(sizeof(T)) * kRecurrenceBlock == 2 * kRegisterBytes;

/// A block of W values of T and the operations of the blocked recurrence on it: one generic
/// vector, or a VectorPair of two (Halved: the form, for the tests that compare both).
template <class T, bool Halved = kHalvedBlock<T>>
struct SimdBlock {
  /// Nodes per block (W).
  static constexpr int kWidth = kRecurrenceBlock;
  static constexpr int kHalf = kWidth / 2;
  static constexpr bool kHalved = Halved;
  using V = typename BlockType<T, kWidth, kHalved>::type;
  using Half = typename VectorPair<T, kHalf>::H;

  static V load(const T* p) {
    V v;
    if constexpr (kHalved) {
      __builtin_memcpy(&v.lo, p, sizeof(Half));
      __builtin_memcpy(&v.hi, p + kHalf, sizeof(Half));
    } else {
      __builtin_memcpy(&v, p, sizeof(V));
    }
    return v;
  }
  static void store(T* p, const V& v) {
    if constexpr (kHalved) {
      __builtin_memcpy(p, &v.lo, sizeof(Half));
      __builtin_memcpy(p + kHalf, &v.hi, sizeof(Half));
    } else {
      __builtin_memcpy(p, &v, sizeof(V));
    }
  }
  static V splat(T s) {
    if constexpr (kHalved)
      return {Half{} + s, Half{} + s};
    else
      return V{} + s;
  }

  /// Lanes moved D places towards the block's end (Forward) or its start, the lanes left free
  /// filled from `fill`.
  template <bool Forward, int D>
  static V shift(const V& v, const V& fill) {
    if constexpr (!kHalved) {
      return shift<Forward, D>(v, fill, std::make_index_sequence<kWidth>{});
    } else if constexpr (D == kHalf) {
      // One half moved whole into the other.
      return Forward ? V{fill.lo, v.lo} : V{v.hi, fill.hi};
    } else {
      // The half the lanes move into takes them from both halves (lanes numbered as in the
      // whole block); the other one from itself and `fill`.
      constexpr auto seq = std::make_index_sequence<kHalf>{};
      if constexpr (Forward)
        return {shift<true, D>(v.lo, fill.lo, seq), across<kHalf - D>(v.lo, v.hi, seq)};
      else
        return {across<D>(v.lo, v.hi, seq), shift<false, D>(v.hi, fill.hi, seq)};
    }
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
    if constexpr (kHalved) {
      constexpr auto seq = std::make_index_sequence<kHalf>{};
      const Half lane = Forward ? lane_of<kHalf - 1>(v.hi, seq) : lane_of<0>(v.lo, seq);
      return {lane, lane};
    } else {
      constexpr int last = Forward ? kWidth - 1 : 0;
      return lane_of<last>(v, std::make_index_sequence<kWidth>{});
    }
  }

 private:
  template <bool Forward, int D, class U, std::size_t... I>
  static U shift(const U& v, const U& fill, std::index_sequence<I...>) {
    // Lane i of the result: lane i - D of v (Forward), i + D backward; else lane i of fill
    // (index N + i of the pair).
    constexpr int N = sizeof...(I);
    if constexpr (Forward)
      return __builtin_shufflevector(v, fill, (I >= D ? int(I) - D : N + int(I))...);
    else
      return __builtin_shufflevector(v, fill, (int(I) + D < N ? int(I) + D : N + int(I))...);
  }

  /// Lanes K .. K + kHalf - 1 of the halves lo, hi taken together.
  template <int K, std::size_t... I>
  static Half across(const Half& lo, const Half& hi, std::index_sequence<I...>) {
    return __builtin_shufflevector(lo, hi, (K + int(I))...);
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

  template <int L, class U, std::size_t... I>
  static U lane_of(const U& v, std::index_sequence<I...>) {
    return __builtin_shufflevector(v, v, (int(I) * 0 + L)...);
  }
};

}  // namespace quilt::accel::cpu
