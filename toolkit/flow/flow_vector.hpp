#pragma once
// The unknowns of the Navier-Stokes system on one level of this rank's macros (design.md §8):
// the equation-wise vector [u1 | u2 | p], each block macros * n * n values (type-1), which is
// the layout NavierStokesSystem and the Krylov solvers work on, with named views of the fields.

#include <cstddef>
#include <span>

#include "la/vector_ops.hpp"

namespace quilt {

class FlowVector {
 public:
  FlowVector() = default;
  /// block: the values of one field (macros * n * n); all zero.
  explicit FlowVector(std::size_t block) : values_(3 * block, 0.0), block_(block) {}

  std::size_t block_size() const { return block_; }
  std::span<double> u1() { return field(0); }
  std::span<double> u2() { return field(1); }
  std::span<double> p() { return field(2); }
  std::span<const double> u1() const { return field(0); }
  std::span<const double> u2() const { return field(1); }
  std::span<const double> p() const { return field(2); }
  /// The whole vector, for the linear algebra.
  LevelVector& values() { return values_; }
  const LevelVector& values() const { return values_; }

 private:
  std::span<double> field(int k) { return {values_.data() + k * block_, block_}; }
  std::span<const double> field(int k) const { return {values_.data() + k * block_, block_}; }

  LevelVector values_;
  std::size_t block_ = 0;
};

}  // namespace quilt
