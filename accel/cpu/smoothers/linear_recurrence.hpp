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
// generic vector (vector_size), or register-sized parts where the whole one is wider than a
// register (VectorParts, below). The sweeps then round alike on every x86 host (SSE2, AVX2,
// AVX-512), as the node-by-node sweeps did. Blocks of a whole AVX-512 register (16 floats) were
// slower where it counts: the float Gauss-Seidel sweep from memory 659-693 against 812-832
// Munknowns/s (n = 1025, 16 macros), though 1.2 times faster in L2 (2026-11-28).

#include <algorithm>
#include <cstddef>
#include <utility>

#include "accel/recurrence_blocks.hpp"

// The registers are passed between inline functions of the including file only, never across an
// ABI boundary: GCC's note that vectors wider than the target's registers are passed differently
// with and without AVX / AVX-512 does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace quilt::accel::cpu {

/// The bytes of the target's vector registers: 64 with AVX-512, 32 with AVX, 16 (SSE, NEON)
/// without.
#if defined(__AVX512F__)
inline constexpr int kRegisterBytes = 64;
#elif defined(__AVX__)
inline constexpr int kRegisterBytes = 32;
#else
inline constexpr int kRegisterBytes = 16;
#endif

/// A block too wide for one register, as kParts register-sized parts of kLanes lanes. GCC 12
/// keeps a generic vector wider than the target's registers (8 doubles with AVX2) in memory
/// wherever it is not the result of arithmetic on loaded values: every block's carry was built
/// by 8 scalar stores and reloaded 16 bytes at a time (a failed store forwarding on the
/// recurrence's chain), and the block's store went through the stack. The double TRIGS x-line
/// sweep took 7.7-8.3 ns per node in cache (n = 129, 2 macros), against 2.0-2.4 for float; with
/// the block in two registers 2.6-3.3, the y-line sweep 4.0-4.9 instead of 9.2-10.2,
/// Gauss-Seidel 2.2-2.6 instead of 5.3-5.6 (docs/benchmarks.md, 2026-11-29 12:40 UTC). Lane by
/// lane the same operations: the sweeps' values are bitwise those of the whole vector.
template <class Element, int kParts, int kLanes>
struct VectorParts {
  /// One part. (The vector type is made here: GCC drops a vector_size attribute from a type
  /// passed as a template argument.)
  using Part [[gnu::vector_size(kLanes * sizeof(Element))]] = Element;
  Part part[kParts]{};

  Element operator[](int i) const { return part[i / kLanes][i % kLanes]; }
  friend VectorParts operator+(const VectorParts& a, const VectorParts& b) {
    return each([&](int p) { return a.part[p] + b.part[p]; });
  }
  friend VectorParts operator-(const VectorParts& a, const VectorParts& b) {
    return each([&](int p) { return a.part[p] - b.part[p]; });
  }
  friend VectorParts operator*(const VectorParts& a, const VectorParts& b) {
    return each([&](int p) { return a.part[p] * b.part[p]; });
  }
  friend VectorParts operator-(const VectorParts& a) {
    return each([&](int p) { return -a.part[p]; });
  }
  friend VectorParts operator*(Element s, const VectorParts& a) {
    return each([&](int p) { return s * a.part[p]; });
  }
  friend VectorParts operator/(Element s, const VectorParts& a) {
    return each([&](int p) { return s / a.part[p]; });
  }

  /// {f(0), ..., f(kParts - 1)}, the parts indexed by constants (no loop: the parts stay in
  /// registers).
  template <class F>
  static VectorParts each(F&& f) {
    return each(f, std::make_index_sequence<kParts>{});
  }

 private:
  template <class F, std::size_t... P>
  static VectorParts each(F& f, std::index_sequence<P...>) {
    return {{f(int(P))...}};
  }
};

/// The type of a block of N values of T in `parts` registers: one generic vector, or
/// VectorParts. (Chosen by specialisation, not std::conditional_t: that would drop the
/// vector_size attribute.)
template <class T, int N, int parts>
struct BlockType {
  using type = VectorParts<T, parts, N / parts>;
};
template <class T, int N>
struct BlockType<T, N, 1> {
  using type [[gnu::vector_size(N * sizeof(T))]] = T;
};

/// The parts a block of T is held in on this target: register-sized parts with AVX (and one
/// vector where a register holds the block); one vector without AVX, where the shuffles between
/// parts have no instructions: GCC 12 moved them through memory, and a piece through an MMX
/// register, which leaves the x87 unit unusable (no EMMS).
template <class T>
inline constexpr int kBlockParts = kRegisterBytes >= 32
                                       ? std::max(1,
                                                  kRecurrenceBlock* int(sizeof(T)) / kRegisterBytes)
                                       : 1;

/// A block of W values of T and the operations of the blocked recurrence on it: one generic
/// vector, or VectorParts (Parts: their number, a parameter for the tests that compare the
/// forms).
template <class T, int Parts = kBlockParts<T>>
struct SimdBlock {
  /// Nodes per block (W).
  static constexpr int kWidth = kRecurrenceBlock;
  static constexpr int kParts = Parts;
  /// Lanes per part.
  static constexpr int kLanes = kWidth / kParts;
  static_assert(kLanes * kParts == kWidth);
  static_assert(kLanes * sizeof(T) >= 16 || kParts == 1, "parts narrower than 16 bytes");
  using V = typename BlockType<T, kWidth, kParts>::type;

  static V load(const T* p) {
    V v;
    if constexpr (kParts > 1)
      for (int k = 0; k < kParts; ++k) __builtin_memcpy(&v.part[k], p + k * kLanes, sizeof(Part));
    else
      __builtin_memcpy(&v, p, sizeof(V));
    return v;
  }
  static void store(T* p, const V& v) {
    if constexpr (kParts > 1)
      for (int k = 0; k < kParts; ++k) __builtin_memcpy(p + k * kLanes, &v.part[k], sizeof(Part));
    else
      __builtin_memcpy(p, &v, sizeof(V));
  }
  static V splat(T s) {
    if constexpr (kParts > 1)
      return V::each([s](int) { return Part{} + s; });
    else
      return V{} + s;
  }

  /// Lanes moved D places towards the block's end (Forward) or its start, the lanes left free
  /// filled from `fill`.
  template <bool Forward, int D>
  static V shift(const V& v, const V& fill) {
    if constexpr (kParts > 1)
      return shift_parts<Forward, D>(v, fill, std::make_index_sequence<kParts>{});
    else
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
    constexpr int last = Forward ? kWidth - 1 : 0;
    if constexpr (kParts > 1) {
      const Part lane =
          lane_of<last % kLanes>(v.part[last / kLanes], std::make_index_sequence<kLanes>{});
      return V::each([&](int) { return lane; });
    } else {
      return lane_of<last>(v, std::make_index_sequence<kWidth>{});
    }
  }

 private:
  using Part = typename VectorParts<T, kParts, kLanes>::Part;

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

  template <bool Forward, int D, std::size_t... P>
  static V shift_parts(const V& v, const V& fill, std::index_sequence<P...>) {
    return {{shifted_part<Forward, D, int(P)>(v, fill, std::make_index_sequence<kLanes>{})...}};
  }

  /// Part p of shift<Forward, D>(v, fill). Its lane j is lane s + j of v, s = p L - D (Forward)
  /// or p L + D, where that lies in the block (L lanes per part), else lane j of fill's part p:
  /// a part of v, two neighbouring parts of v, or a part of fill and the first (Forward) or last
  /// part of v, by one shuffle of two registers.
  template <bool Forward, int D, int p, std::size_t... J>
  static Part shifted_part(const V& v, const V& fill, std::index_sequence<J...>) {
    constexpr int L = kLanes, s = Forward ? p * L - D : p * L + D;
    if constexpr (Forward ? s + L <= 0 : s >= kWidth)
      return fill.part[p];
    else if constexpr (Forward && s < 0)  // lanes j < -s from fill
      return __builtin_shufflevector(fill.part[p], v.part[0],
                                     (int(J) < -s ? int(J) : L + s + int(J))...);
    else if constexpr (!Forward && s + L > kWidth)  // lanes j >= W - s from fill
      return __builtin_shufflevector(
          v.part[kParts - 1], fill.part[p],
          (int(J) < kWidth - s ? s - (kParts - 1) * L + int(J) : L + int(J))...);
    else if constexpr (s % L == 0)
      return v.part[s / L];
    else
      return __builtin_shufflevector(v.part[s / L], v.part[s / L + 1], (s % L + int(J))...);
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
