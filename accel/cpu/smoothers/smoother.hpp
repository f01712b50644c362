#pragma once
// One interface for the local multigrid's smoothers (accel/smoother_type.hpp) on the 9-band batch
// storage. A smoother is built once per matrix structure: whatever it precomputes from A (inverse
// diagonals, line factorisations, ILU factors) and its scratch space are made in the constructor,
// so a sweep allocates nothing, and update() recomputes it for new numbers in that storage (the
// nonlinear steps of a flow solve change the numbers, never the structure). Like AMGCL's
// smoothers it is handed the matrix on every call; it must be the matrix (same numbers) it was
// built from or last updated with.
//
// Every smoother runs `steps` sweeps of a stationary iteration x <- x + M^{-1} (b - A x), in
// place, on all macros of the batch, macro by macro. The pre-smoothing of a V-cycle sweeps
// forward, the post-smoothing backward: the backward sweep visits unknowns, lines and colours in
// the reverse order, so its error propagator I - M^{-T} A is the A-adjoint of the forward one
// (for symmetric A) and a V(nu, nu) cycle stays symmetric, as CG on the global layer needs
// (Hackbusch 1985, sec. 2.7). Symmetric smoothers (Jacobi, SSOR, ILU(0) of a symmetric matrix)
// sweep the same way in both directions.
//
// Rows whose 8 off-diagonal entries are 0 (Dirichlet unit rows) are updated to b there; with
// b = 0 and x = 0 at such a row, every smoother leaves x exactly 0 there.
//
// A smoother is given A's stencil zones (accel/stencil_zones.hpp) with A, or detects them: the
// point and line smoothers sweep a zoned macro from its 225 numbers. Jacobi needs no more than
// the zones, so it also takes a BandedMatrix::shape_only batch whose every macro is zoned; the
// others factorise or sweep from the bands and refuse one.

#include <memory>

#include "accel/banded_matrix.hpp"
#include "accel/smoother_type.hpp"
#include "accel/stencil_zones.hpp"

namespace quilt::accel::cpu {

enum class SweepDirection { forward, backward };

struct SmootherParams {
  SmootherType type = SmootherType::jacobi;
  SweepOrder order = SweepOrder::lexicographic;
  double damping = 0.7;  ///< omega
};

template <class T>
class Smoother {
 public:
  virtual ~Smoother() = default;

  /// `steps` sweeps on A x = b. x_is_zero: x is to be taken as 0 whatever it holds (the first
  /// smoothing of a cycle), which lets a smoother skip the product with A in its first sweep.
  virtual void smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps,
                      SweepDirection direction, bool x_is_zero) = 0;

  /// smooth() on A x0 = b0 and on A x1 = b1 (the two right-hand sides of the velocity
  /// components), each bitwise as smooth() leaves it. A smoother that can read its matrix and
  /// factors once for both overrides this; the default sweeps one vector after the other.
  virtual void smooth_pair(const BandedMatrix<T>& A, const T* b0, T* x0, const T* b1, T* x1,
                           int steps, SweepDirection direction, bool x_is_zero) {
    smooth(A, b0, x0, steps, direction, x_is_zero);
    smooth(A, b1, x1, steps, direction, x_is_zero);
  }

  /// Recomputes what the smoother precomputed for new numbers of A in the storage the constructor
  /// made: nothing is allocated, and the smoother then sweeps bitwise as one built from A would.
  /// Throws AccelError when A has other macros or n than the smoother was built for, and for the
  /// numbers make_smoother rejects (the smoother is then unusable until an update succeeds).
  void update(const BandedMatrix<T>& A);
  /// update() with A's zones as detect_stencil_zones(A) finds them (or a subset of them: a macro
  /// left unzoned takes the band path, which computes the same).
  void update(const BandedMatrix<T>& A, const StencilZones<T>& zones);

 protected:
  /// zones_suffice: the smoother sweeps a batch of zoned macros without their bands.
  Smoother(const BandedMatrix<T>& A, bool zones_suffice = false);
  /// update() after the shape check. The constructors call it as well, so that a smoother built
  /// from A and one updated with A compute the same.
  virtual void refresh(const BandedMatrix<T>& A, const StencilZones<T>& zones) = 0;

 private:
  /// Throws AccelError (naming `who`) unless A has the smoother's shape and, where the smoother
  /// reads them, its bands.
  void check_matrix(const BandedMatrix<T>& A, const char* who) const;

  int macros_;
  int n_;
  bool zones_suffice_;
  StencilZones<T> detected_;  ///< update(A)'s zones of A, in storage kept between updates
};

/// The smoother of params.type for A. Throws AccelError, naming the macro and node, when A does
/// not admit it: a zero or non-finite diagonal for the point smoothers (they divide by it), a
/// zero or non-finite pivot of a line factorisation or of ILU(0) (they divide only by those), or
/// an ordering the type does not have.
template <class T>
std::unique_ptr<Smoother<T>> make_smoother(const BandedMatrix<T>& A, const SmootherParams& params);
/// make_smoother with A's zones given (see Smoother::update): no detection. A may be shape_only
/// for Jacobi when every macro is zoned. scratch: A.rows() values of the caller's that no one
/// else reads or writes while the smoother sweeps, which a smoother that needs a whole vector of
/// scratch (Jacobi's second iterate) takes instead of its own; null: none lent.
template <class T>
std::unique_ptr<Smoother<T>> make_smoother(const BandedMatrix<T>& A, const StencilZones<T>& zones,
                                           const SmootherParams& params, T* scratch = nullptr);

/// Whether the smoother of `type` sweeps a batch of zoned macros from the zones alone (Jacobi).
constexpr bool sweeps_from_zones(SmootherType type) {
  return type == SmootherType::jacobi;
}

}  // namespace quilt::accel::cpu
