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
// (j, i), band (di, dj) moved to (dj, di)), which the smoother keeps. A y-line sweep therefore
// relaxes contiguous lines of A' (the strided y-lines were measured 5x slower at n = 513), with x
// and b as columns: the x and b of the transposed grid, each column (a y-line) padded to whole
// cache lines. They come from the grid's rows and go back by non-temporal stores of whole cache
// lines: one core reads pieces of rows a page apart (strided loads) at about half the triad
// bandwidth, but writes whole lines there, non-temporally, at about the bandwidth of a
// contiguous stream (docs/benchmarks.md). Into the columns: blocks of a cache line's worth of
// grid rows, transposed through a tile in L1, each column's piece of a block one line; where an
// x-line sweep comes right before (ADI-TRIGS, lexicographic), it keeps its new lines in a ring
// of such blocks and stores them as columns instead of rows. b is moved once per smooth call, x
// stays in the columns from one y-sweep to the next (its rows are written back, not re-read).
// Back into the rows: after each strip of a cache line's width of columns, per grid row the
// whole cache lines that the strips so far have made final. Same arithmetic in the same order as
// a sweep along the strided y-lines. Against the strips of x and b gathered into buffers in
// cache by strided loads before (n = 1025, variable bands, medians of 3 and 5 alternated runs,
// 2026-11-27): ADI-TRIGS 1.04-1.37 times faster, the y-line sweep 1.1-1.3.

#include <vector>

#include "accel/cpu/smoothers/smoother.hpp"
#include "accel/stencil_zones.hpp"

namespace quilt::accel::cpu {

enum class LineDirections { x, y, alternating };

template <class T>
class LineSmoother final : public Smoother<T> {
 public:
  LineSmoother(const BandedMatrix<T>& A, const StencilZones<T>& zones, double damping,
               SweepOrder order, LineDirections directions);
  void smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps, SweepDirection direction,
              bool x_is_zero) override;

  /// Factorises every x-line of C into inv_pivot and upper (which may alias C's bands 4 and 5,
  /// read before written). transposed: C is the grid transpose (for the node in messages). Public
  /// for the cuda target, which runs it to refuse the singular lines this target refuses (its
  /// device solves the lines by cyclic reduction, without factors; it has no zones).
  static void factorise(const BandedMatrix<T>& C, T* inv_pivot, T* upper, bool transposed) {
    factorise(C, StencilZones<T>{}, inv_pivot, upper, transposed);
  }

 private:
  void refresh(const BandedMatrix<T>& A, const StencilZones<T>& zones) override;

  /// The tridiagonal systems of every x-line of one matrix, factorised by the Thomas algorithm,
  /// and where the sweep reads them: the couplings to the neighbouring lines (bands 0, 1, 2 and
  /// 6, 7, 8) and the lower entries l_p (band 3) of `coupling`, and per row p the reciprocal
  /// pivot 1/u_p and the eliminated upper entry c_p/u_p. The forward elimination is
  /// y_p = t_p/u_p - (l_p/u_p) y_{p-1}, the back substitution x_p = y_p - (c_p/u_p) x_{p+1}: one
  /// multiply-add each on the critical path (l_p/u_p is formed off it).
  struct LineSystem {
    const BandedMatrix<T>* coupling = nullptr;
    const T* inv_pivot = nullptr;
    const T* upper = nullptr;
  };
  /// Factorises the x-lines of C into inv_pivot and upper (which may alias C's bands 4 and 5,
  /// read before written). transposed: C is the grid transpose (for the node in messages).
  /// Lines that a zoned macro's sweeps do not read (its middle zone's but the first) are skipped.
  static void factorise(const BandedMatrix<T>& C, const StencilZones<T>& zones, T* inv_pivot,
                        T* upper, bool transposed);
  /// One sweep over all x-lines of A.
  void sweep_x(const BandedMatrix<T>& A, const T* b, T* x, bool reverse);
  /// sweep_x (lexicographic) with the new lines stored as columns instead of rows (x's rows are
  /// stale until sweep_y writes them back), and b too if `with_b`.
  void sweep_x_into_columns(const BandedMatrix<T>& A, const T* b, const T* x, bool reverse,
                            bool with_b);
  /// Grid rows block kLine .. of macros m0 .. m0 + count - 1 from the ring into the columns.
  void store_ring_block(int m0, int count, int block, const T* b, bool with_b);
  /// x (if `with_x`) and b (if `with_b`) from the grid's rows into the columns.
  void rows_into_columns(const T* b, const T* x, bool with_b, bool with_x);
  /// One sweep over all y-lines of A (x-lines of A') on the columns, x written back in its rows.
  void sweep_y(T* x, bool reverse);
  /// Relaxes lines i0 .. i0 + width - 1 (those of parity `parity` only, if it is 0 or 1) of the
  /// macros m0 .. m0 + count - 1 in the columns, reversed if `reverse`.
  void relax_columns(int m0, int count, int i0, int width, int parity, bool reverse);
  /// After strip s of the y-sweep (and those before it in the sweep's order: ascending, or
  /// descending if `reverse`): per grid row of the macros m0 .. m0 + count - 1, the values of x
  /// that are final now and not yet written back, whole cache lines non-temporally.
  void store_final_columns(int m0, int count, int s, bool reverse, T* x);
  /// Column `line` of macro m in x_columns_ (b_columns_).
  T* x_column(int m, int line);
  T* b_column(int m, int line);
  /// One line as relax_lines reads it: the offset of its bands and factors in the line system
  /// (those of the line itself, or in a zoned macro those of the first line of its zone, whose
  /// rows and so factors are bitwise the same), its right-hand side, its values (in and out), and
  /// the values of its two neighbouring lines (the zero ghost line where there is none).
  struct Line {
    std::size_t from;
    const T* b;
    const T* south;
    T* x;
    const T* north;
  };
  /// t = the right-hand side of one line: b minus the coupling to the neighbouring lines.
  void line_rhs(const LineSystem& s, const Line& line, T* t) const;
  /// Relaxes K lines of K different macros with the bands and factors of s, side by side.
  template <int K>
  void relax_lines(const LineSystem& s, const Line* lines);
  /// relax_lines<count>, count = 1 .. kGroup.
  void relax_group(const LineSystem& s, const Line* lines, int count);
  /// The line whose bands and factors line `line` of macro m reads (Line::from).
  int source_line(int m, int line, int n) const;

  /// Elements of T per cache line: the columns' pieces of a grid-row block, the y-sweep's strips.
  static constexpr int kLine = 64 / static_cast<int>(sizeof(T));
  /// Macros whose lines are relaxed side by side.
  static constexpr int kGroup = 4;
  /// Grid rows per pass of store_final_columns (its tile stays in L1).
  static constexpr int kRowBlock = 64;

  T omega_;
  SweepOrder order_;
  LineDirections directions_;
  StaggeredVector<T> x_inv_pivot_, x_upper_;  ///< of A's x-lines (empty for LineDirections::y)
  /// A' with the factors of its x-lines (A's y-lines) in the slots of its diagonal and upper
  /// band: 9 arrays for everything the y-sweep reads (empty for LineDirections::x).
  BandedMatrix<T> yt_;
  LineSystem y_;
  /// Of A (and so of A': the zones are symmetric in x and y). A zoned macro's lines of one zone
  /// have the same rows and factors: the sweep reads those of the zone's first line, which stay
  /// in cache, and streams only b and x (FEAST's constant-stencil TRIGS).
  StencilZones<T> zones_;
  std::vector<T> line_;   ///< per line of a group: its right-hand side, then forward-eliminated
  std::vector<T> ghost_;  ///< zeros: the missing neighbour line of the first and the last line
  /// x and b of the transposed grid (A's y-lines), each column column_stride_ >= n apart, a whole
  /// number of cache lines (empty for LineDirections::x).
  StaggeredVector<T> x_columns_, b_columns_;
  std::size_t column_stride_ = 0;
  /// Per macro of a group two blocks of kLine grid rows: the new lines of sweep_x_into_columns
  /// until stored as columns (empty unless alternating and lexicographic).
  std::vector<T> row_ring_;
  /// kRowBlock grid rows of two strips' columns, transposed back for store_final_columns.
  std::vector<T> row_window_;
};

}  // namespace quilt::accel::cpu
