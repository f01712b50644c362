#pragma once
// Damped Jacobi, x <- x + omega D^{-1} (b - A x): the weakest of the family, but one fused pass
// over the bands per sweep with no recurrence. It converges on an SPD matrix only for
// omega < 2 / lambda_max(D^{-1} A), and on a convection-dominated one only while
// |1 - omega lambda| < 1 for every (complex) eigenvalue lambda of D^{-1} A.

#include <vector>

#include "accel/cpu/smoothers/smoother.hpp"
#include "accel/stencil_zones.hpp"

namespace quilt::accel::cpu {

template <class T>
class JacobiSmoother final : public Smoother<T> {
 public:
  /// A may be shape_only when every macro is zoned: the diagonal comes from the zones. No inverse
  /// diagonal is stored: the sweeps divide as they go (band_kernels.hpp), bitwise the same.
  /// scratch: A.rows() values of the caller's that no one reads or writes during smooth() (the
  /// local multigrid's defect of the level), or null: the smoother makes its own.
  JacobiSmoother(const BandedMatrix<T>& A, const StencilZones<T>& zones, double damping,
                 T* scratch = nullptr);
  void smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps, SweepDirection direction,
              bool x_is_zero) override;

 private:
  void refresh(const BandedMatrix<T>& A, const StencilZones<T>& zones) override;

  T omega_;
  StencilZones<T> zones_;           ///< of A: the constant-stencil macros sweep from 225 numbers
  StaggeredVector<T> own_scratch_;  ///< empty where the caller lends the scratch
  T* scratch_;                      ///< the other iterate: a Jacobi sweep reads x while it writes
};

}  // namespace quilt::accel::cpu
