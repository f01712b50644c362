#pragma once
// The line kernels (line_kernels.hpp) a block of nodes at a time, for the sweeps that
// solve their recurrences by linear_recurrence.hpp. Kept apart from line_kernels.hpp, which the
// cuda target's host code includes: nvcc's front end does not take the pack expansions of
// SimdBlock's shuffles.

#include <array>

#include "accel/cpu/smoothers/line_kernels.hpp"
#include "accel/cpu/smoothers/linear_recurrence.hpp"

namespace quilt::accel::cpu {

/// neighbour_lines_rhs's s_e of the W inner nodes e = i .. i + W - 1 (0 < i, i + W < n) as one
/// block (W = SimdBlock<T>::kWidth), summed in the same order.
template <class T>
inline typename SimdBlock<T>::V neighbour_lines_block(int i, const std::array<const T*, 6>& bands,
                                                      const T* b, const T* xs, const T* xn) {
  using Simd = SimdBlock<T>;
  const auto at = [i](const T* p, int offset) { return Simd::load(p + i + offset); };
  return at(b, 0) -
         (at(bands[0], 0) * at(xs, -1) + at(bands[1], 0) * at(xs, 0) +
          at(bands[2], 0) * at(xs, 1)) -
         (at(bands[3], 0) * at(xn, -1) + at(bands[4], 0) * at(xn, 0) + at(bands[5], 0) * at(xn, 1));
}

}  // namespace quilt::accel::cpu
