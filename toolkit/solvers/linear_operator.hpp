#pragma once
// What a Krylov method needs of a global problem: y = A x, the global inner product, and the
// filter that keeps defects and corrections zero on Dirichlet nodes. All vectors are type-1.

#include <cstddef>

#include "la/vector_ops.hpp"

namespace quilt {

class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  virtual std::size_t size() const = 0;
  virtual void apply(const LevelVector& x, LevelVector& y) const = 0;
  virtual double dot(const LevelVector& x, const LevelVector& y) const = 0;
  virtual void filter(LevelVector& v) const = 0;

  // The vector work of CG in three sweeps instead of six (an operator may fuse each into one
  // pass; these defaults are the unfused sequence).
  /// y = A x, filtered; returns x . y.
  virtual double apply_dot(const LevelVector& x, LevelVector& y) const {
    apply(x, y);
    filter(y);
    return dot(x, y);
  }
  /// x += alpha p, r -= alpha q; returns r . r.
  virtual double update_dot(double alpha, const LevelVector& p, const LevelVector& q,
                            LevelVector& x, LevelVector& r) const {
    axpy(alpha, p, x);
    axpy(-alpha, q, r);
    return dot(r, r);
  }
  /// z filtered; returns r . z.
  virtual double filter_dot(LevelVector& z, const LevelVector& r) const {
    filter(z);
    return dot(r, z);
  }
};

/// c ~ A^{-1} d for a type-1 defect d (Dirichlet entries zero); c is overwritten.
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  virtual void apply(const LevelVector& d, LevelVector& c) = 0;
};

class IdentityPreconditioner final : public Preconditioner {
 public:
  void apply(const LevelVector& d, LevelVector& c) override { c = d; }
};

}  // namespace quilt
