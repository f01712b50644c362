#pragma once
// ILU(0) on the 9-band pattern: A = L U - R with L unit lower and U upper triangular, both with
// the sparsity of A (no fill), computed once per operator in lexicographic order; a sweep is
//   x <- x + omega U^{-1} L^{-1} (b - A x).
// For a 9-point operator the dropped fill R is small in both grid directions, which makes ILU(0)
// a robust smoother for anisotropic and convection-dominated problems alike (Wesseling 1992,
// sec. 7.5; Wittum 1989). For symmetric A the factors satisfy U = D L^T, so M = L U is symmetric
// and the sweep is the same in both directions.
//
// The sweep runs in the remainder form: with b - A x = b + R x - L U x it is
//   z = U^{-1} L^{-1} (b + R x),  x <- x + omega (z - x)   (omega = 1: x <- z),
// and R has 4 bands where A has 9 (the fill of L U at the offsets kFill; Wesseling 1992,
// sec. 7.5, writes ILU as the splitting A = L U - R the same way). A sweep streams 19 arrays
// instead of 24 (18 with omega = 1, x then only written downwards): 1.2-1.3 (double) and
// 1.3-1.4 (float) times faster at n = 1025 (docs/benchmarks.md). R holds the fill of the
// stored factors' product, so the sweep's fixed point solves (L U - R) x = b: A x = b up to the
// rounding of the factors to T, the same order as the rounding of a defect b - A x formed in T.
//
// Each line's substitution is a first-order linear recurrence along the line, solved in the pass
// that forms its right-hand side a block of 8 nodes at a time (linear_recurrence.hpp; the blocks
// as IluLineSplit cuts a line, so that the cuda target's wavefront computes the same), one macro
// at a time, the streams prefetched where they come from memory: at n = 1025 1.28 (double) and
// 1.53 (float) times faster than four macros' node-by-node recurrences side by side
// (docs/benchmarks.md, 2026-11-28, 10:06 UTC).

#include <array>
#include <vector>

#include "accel/cpu/smoothers/line_kernels.hpp"
#include "accel/cpu/smoothers/smoother.hpp"

namespace quilt::accel::cpu {

template <class T>
class IluSmoother final : public Smoother<T> {
 public:
  IluSmoother(const BandedMatrix<T>& A, double damping);
  void smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps, SweepDirection direction,
              bool x_is_zero) override;
  /// Both vectors line by line: the second finds each line of the factors in cache.
  void smooth_pair(const BandedMatrix<T>& A, const T* b0, T* x0, const T* b1, T* x1, int steps,
                   SweepDirection direction, bool x_is_zero) override;

  /// The factorisation's double copy of two x-lines of rows (all that the elimination of a row
  /// reads): 2 n of them.
  using Window = std::vector<std::array<double, kBands>>;

  /// The offsets (di, dj) of the fill that ILU(0) drops on the 9-point pattern, R's bands in
  /// this order: L's entry at (-1, -1) times U's at (-1, 1), L (-1, 0) U (-1, 1), L (1, -1)
  /// U (1, 0), L (1, -1) U (1, 1); no other product of the factors leaves the pattern.
  static constexpr std::array<std::array<int, 2>, 4> kFill = {{{-2, 0}, {-2, 1}, {2, -1}, {2, 0}}};
  /// R = L U - A on the fill offsets, one array per offset of kFill, each in band storage (0
  /// where the offset leaves the macro).
  using Remainder = std::array<StaggeredVector<T>, 4>;

  /// The factors in band storage: L in bands 0..3 (its unit diagonal implied), 1 / U(r, r) in
  /// band 4, U in bands 5..8. For the tests.
  const BandedMatrix<T>& factors() const { return factors_; }

  /// ILU(0) of every macro of A into `factors` (A's macros and n), in double in `window` (2 A.n
  /// rows), in lexicographic order. Throws AccelError naming the macro and node of a zero or
  /// non-finite pivot. Allocates nothing. Public for the cuda target, which substitutes with the
  /// same factors on the device.
  static void factorise(const BandedMatrix<T>& A, BandedMatrix<T>& factors, Window& window);

  /// R of `factors` (from factorise) into R, each array sized to the factors' rows: the products
  /// of the stored factors in double, rounded to T once. Public for the cuda target.
  static void remainder(const BandedMatrix<T>& factors, Remainder& R);

  /// R of the current factors. For the tests.
  const Remainder& remainder() const { return remainder_; }

 private:
  void refresh(const BandedMatrix<T>& A, const StencilZones<T>& zones) override;
  /// One vector of a sweep: b, x and the scratch for y = L^{-1} (b + R x), which with
  /// omega != 1 also takes z (with omega = 1 z goes into x).
  struct Operand {
    const T* b;
    T* x;
    T* work;
  };
  /// One sweep z = U^{-1} L^{-1} (b + R x), x <- x + omega (z - x) of macro m for each of the
  /// `count` operands, line by line (the operands' lines in turn). from_zero: x = 0, b + R x is b.
  void sweep_macro(int m, const Operand* operands, int count, bool from_zero);
  /// Line j (first row row0) of L y = b + R x: its right-hand side and its recurrence over
  /// band -1 in one pass, blocked as IluLineSplit cuts the line. kRemainder false: x = 0.
  template <bool kRemainder, bool kPrefetch>
  void lower_line(std::size_t row0, int j, const Operand& o) const;
  /// Line j of U z = y and the update of x, in one pass, the line's nodes in reverse order.
  /// kInPlace (omega = 1): z into x; else into work, and x <- x + omega (z - x).
  template <bool kInPlace, bool kPrefetch>
  void upper_line(std::size_t row0, int j, const Operand& o) const;

  T omega_;
  BandedMatrix<T> factors_;
  Remainder remainder_;
  StaggeredVector<T> work_;   ///< y = L^{-1} (b + R x), then z where omega != 1
  StaggeredVector<T> work1_;  ///< the same for the second vector of smooth_pair
  std::vector<T> ghost_;      ///< zeros: the missing neighbour line of the first and the last line
  /// The factorisation runs in double on two x-lines of rows at a time, so its double copy stays
  /// small.
  Window window_;
};

}  // namespace quilt::accel::cpu
