#pragma once
// Point Gauss-Seidel / SOR / SSOR: row by row, x_r <- x_r + omega (b_r - (A x)_r) / a_rr with the
// newest values of x. `lexicographic` visits the rows in grid order (backward sweeps in reverse);
// `colour` visits the 4 colours (i mod 2, j mod 2) one after another, rows of one colour in any
// order (they are not coupled), the colours reversed in backward sweeps. SSOR is a forward and a
// backward sweep per step: symmetric (for symmetric A) in either direction.

#include <vector>

#include "accel/cpu/smoothers/line_kernels.hpp"
#include "accel/cpu/smoothers/smoother.hpp"

namespace quilt::accel::cpu {

template <class T>
class GaussSeidelSmoother final : public Smoother<T> {
 public:
  /// symmetric: SSOR.
  GaussSeidelSmoother(const BandedMatrix<T>& A, double damping, SweepOrder order, bool symmetric);
  void smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps, SweepDirection direction,
              bool x_is_zero) override;

 private:
  void refresh(const BandedMatrix<T>& A, const StencilZones<T>& zones) override;
  void sweep(const BandedMatrix<T>& A, const T* b, T* x, SweepDirection direction);
  /// Relaxes x-line j (first row row0; x at the line) in order, reversed unless Forward.
  template <bool Forward, bool Prefetch>
  void relax_line(const BandedMatrix<T>& A, std::size_t row0, int j, const T* b, T* x) const;
  /// Updates the nodes first, first + 2, ... of x-line j of macro slot `base` (a colour of the
  /// line: none of them coupled to another).
  void update_colour(const BandedMatrix<T>& A, std::size_t base, int j, int first, const T* b,
                     T* x);

  T omega_;
  SweepOrder order_;
  bool symmetric_;
  /// The colour sweep's right-hand side of one line.
  std::vector<T> line_;
  std::vector<T> ghost_;  ///< zeros: the missing neighbour line of the first and the last line
};

}  // namespace quilt::accel::cpu
