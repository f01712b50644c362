#pragma once
// Line Gauss-Seidel (TRIGS) and its alternating-direction form (ADI-TRIGS), FEAST's robust local
// smoothers: each line of nodes is relaxed at once by solving the tridiagonal system of its three
// in-line bands exactly (Thomas algorithm, the factors computed once per operator), with the
// neighbouring lines' newest values on the right-hand side:
//   x_line <- x_line + omega (T_line^{-1} (b - (coupling to other lines) x) - x_line).
// A line smoother is robust for anisotropy along its lines (the strong couplings are solved
// exactly, what is left is smoothed by standard coarsening); alternating x- and y-lines covers
// either direction and convection in any direction (Wesseling 1992, sec. 7.4). `lexicographic`
// takes the lines in order (reversed backward); `colour` (zebra) takes the even lines, then the
// odd ones (reversed backward): lines of one colour are not coupled, so they are solved at once.
//
// The y-lines of A are the x-lines of the grid-transposed operator A' (node (i, j) renamed
// (j, i), band (di, dj) moved to (dj, di)). A y-line sweep is therefore an x-line sweep on A' with
// x and b transposed: contiguous lines instead of stride-n ones (measured 5x faster at n = 513),
// and the same arithmetic in the same order as a sweep along the strided y-lines.

#include <vector>

#include "accel/cpu/smoothers/line_kernels.hpp"
#include "accel/cpu/smoothers/smoother.hpp"

namespace quilt::accel::cpu {

enum class LineDirections { x, y, alternating };

template <class T>
class LineSmoother final : public Smoother<T> {
 public:
  LineSmoother(const BandedMatrix<T>& A, double damping, SweepOrder order,
               LineDirections directions);
  void smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps, SweepDirection direction,
              bool x_is_zero) override;

 private:
  /// LU factors of the tridiagonal matrix of every x-line of a matrix (Thomas), stored at the
  /// row p: the reciprocal pivot 1/u_p, the lower entry scaled by it, l_p/u_p, and the upper one,
  /// c_p/u_p. With both scaled, each step of the two recurrences is one multiply-add on the
  /// critical path: y_p = t_p/u_p - (l_p/u_p) y_{p-1}, x_p = y_p - (c_p/u_p) x_{p+1}.
  struct LineFactors {
    std::vector<T> inv_pivot, lower, upper;
  };
  /// transposed: A is the grid transpose of the operator (for the messages' node numbers).
  static LineFactors factorise(const BandedMatrix<T>& A, bool transposed);
  /// One sweep over all x-lines of A.
  void sweep(const BandedMatrix<T>& A, const LineFactors& f, const T* b, T* x, bool reverse);
  void relax_line(const BandedMatrix<T>& A, const LineFactors& f, std::size_t base, int line,
                  const T* b, T* x);
  /// One sweep over all y-lines of A (x-lines of A'), x transposed in and out.
  void sweep_y(const T* b, T* x, bool reverse, bool b_transposed);

  T omega_;
  SweepOrder order_;
  LineDirections directions_;
  LineFactors x_;           ///< of A (unused for LineDirections::y)
  BandedMatrix<T> at_;      ///< A' (empty for LineDirections::x)
  LineFactors y_;           ///< of A'
  std::vector<T> line_;     ///< right-hand side, then solution, of one line
  std::vector<T> bt_, xt_;  ///< b and x transposed
};

}  // namespace quilt::accel::cpu
