#pragma once
// How both targets cut a grid line into blocks for the first-order linear recurrences of the
// sweeps (x_i = a_i + m_i x_{i-1}, solved a block at a time by a prefix scan: the cpu target's
// accel/cpu/smoothers/linear_recurrence.hpp). Where the cpu and the cuda target must sum alike
// (the ILU(0) substitutions, design.md §7), both take the blocks from here, so that the device's
// rows see the same composed maps as the cpu's registers.

#if defined(__CUDACC__)
#define QUILT_HOST_DEVICE __host__ __device__
#else
#define QUILT_HOST_DEVICE
#endif

namespace quilt::accel {

/// Nodes per block, in both precisions and on every instruction set (8 = 3 scan steps).
inline constexpr int kRecurrenceBlock = 8;

/// The split of an ILU(0) line of n nodes into segments: the head, nodes 0 and 1; blocks of
/// kRecurrenceBlock nodes from node 2 on while they end before node n - 2; the tail, the nodes
/// left. The blocks are where no term of the line needs a guard: the remainder R reaches two nodes
/// along the line, the factors' couplings one. The head and the tail recur node by node.
struct IluLineSplit {
  int n;

  QUILT_HOST_DEVICE constexpr int head() const { return n < 2 ? n : 2; }
  QUILT_HOST_DEVICE constexpr int blocks() const {
    return n >= 4 + kRecurrenceBlock ? (n - 4) / kRecurrenceBlock : 0;
  }
  /// Segments: the head, the blocks, the tail (k = 0 .. blocks() + 1).
  QUILT_HOST_DEVICE constexpr int segments() const { return blocks() + 2; }
  /// First node of segment k; begin(segments()) is n.
  QUILT_HOST_DEVICE constexpr int begin(int k) const {
    if (k == 0) return 0;
    if (k > blocks() + 1) return n;
    return head() + (k - 1) * kRecurrenceBlock;
  }
  QUILT_HOST_DEVICE constexpr bool is_block(int k) const { return k >= 1 && k <= blocks(); }
};

}  // namespace quilt::accel
