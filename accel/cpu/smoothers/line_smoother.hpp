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
// relaxes contiguous lines of A' (the strided y-lines were measured 5x slower at n = 513), with
// x and b moved in strips of kStrip y-lines: a strip's piece of every grid row is transposed into
// buffers that stay in cache, relaxed there, and x moved back. The strips are 8 cache lines wide:
// pieces of 512 bytes are a stream the prefetchers follow, where strips one cache line wide (and
// b in panels of 4 strips, to spare the TLB) moved x and b at 13 GB/s; a set of the wide strips'
// buffers is 1 MiB at n = 1025 in double, about one core's L2 on the host where this was
// measured (docs/benchmarks.md, 2026-11-28, 12:22 UTC). x and b are read, and x written, once
// per sweep, as in an x-line sweep; transposing the whole grids instead streamed them three more
// times. Same arithmetic in the same order as a sweep along the strided y-lines. Moving the next
// strip in (prefetched) and the last one out in parts between the lines of the current strip, so
// that the moves' misses overlap the relaxation, measured no faster (n = 1025, 16 macros,
// 2026-11-27), and 0.72 times as fast with the wide strips (2026-11-28): not kept. Nor x and b held
// as columns of the transposed grid, moved by non-temporal whole-line stores: faster where the
// vectors stream from memory, slower where the multigrid reuses them from the last-level cache
// (docs/benchmarks.md). Where the time goes (n = 1025, 4 macros, 2026-11-28 14:52 UTC): the
// relaxation alone runs 1.1 times as fast as an x-line sweep, the moves take 29 % of the sweep;
// prefetching or loading the next line's bands during the back substitution, huge pages, and one
// pass for the move out of a strip and into the next were no faster. Nor would the macros
// interleaved node by node (lanes = macros) be: their y-lines read one cache line per row and
// array, 64 KiB apart, and reached 32-42 % of the triad in a prototype (2026-11-29). Those
// double figures date from before the double recurrences ran in registers (linear_recurrence.hpp,
// 2026-11-29 13:00 UTC); since then the moves take about half of a double y-sweep (perf, n = 1025,
// 4 macros): strip gathers and scatters of 512-byte pieces run at 4.5-6.6 GB/s where a copy runs
// at 10-14. Strips of 4 cache lines in double made the y-line sweep alone faster in 4 of 5
// kernel tables on a host with a 512 KiB L2 (up to 1.5 times), ADI-TRIGS no faster; on a host
// with a 1 MiB L2 they were 1.12-1.17 times slower: kept at 8 (docs/benchmarks.md, 2026-11-29).
// On an AVX-512 host with a 1 MiB L2, 8 lines beat 4, 16, 32 and 64, and prefetching the next
// strip's pieces during the relaxation made the sweep slower (2026-12-02). There (n = 1025, 10
// macros, double) the sweep is the sum of its relaxation alone and its moves alone: 3.65 =
// 2.61 + 1.04 ns per node; the relaxation alone costs 1.65 ns per node in L2, as an x-line sweep
// does: its recurrences' arithmetic, not the moves, is most of what stands between the sweep and
// the triad (docs/benchmarks.md, 2026-12-02 10:20 UTC).

#include <vector>

#include "accel/cpu/smoothers/grid_transpose.hpp"
#include "accel/cpu/smoothers/line_kernels.hpp"
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
  /// y_p = t_p/u_p - (l_p/u_p) y_{p-1}, the back substitution x_p = y_p - (c_p/u_p) x_{p+1}: two
  /// first-order linear recurrences, which relax_line solves a block at a time.
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
  /// One sweep over all x-lines of macro m of A.
  void sweep_x(const BandedMatrix<T>& A, int m, const T* b, T* x, bool reverse);
  /// One sweep over all y-lines of macro m of A (x-lines of A'), x and b moved through the strip
  /// buffers.
  void sweep_y(int m, const T* b, T* x, bool reverse);
  /// Strip s of macro m's y-lines (lines s kStrip .. s kStrip + kStrip - 1, fewer in the last)
  /// into strip buffer set `set`: x with the neighbouring line on either side; the south
  /// neighbour from buffer set south_set, the north one from buffer set north_set, where that
  /// holds it (>= 0), else from x. b of the strip's lines into b_strip(set).
  void gather_strip(int m, int s, int set, int south_set, int north_set, const T* b, const T* x);
  /// Relaxes strip s's lines in buffer set `set` (of parity `parity` only, if it is 0 or 1),
  /// reversed if `reverse`.
  void relax_strip_lines(int m, int s, int set, int parity, bool reverse);
  /// Strip s's x from buffer set `set` back into x.
  void scatter_strip(int m, int s, int set, T* x);
  /// The x strip buffer of set `set` (0 or 1).
  T* x_strip(int set);
  /// The b strip buffer of set `set` (0 or 1).
  T* b_strip(int set);
  /// One line as relax_line reads it: the offset of its bands and factors in the line system
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
  /// Relaxes one line: its right-hand side, the Thomas solve, x relaxed towards the solution.
  /// Prefetch: prefetches the streams of the bands and factors (for lines from memory).
  template <bool Prefetch>
  void relax_line(const LineSystem& s, const Line& line);
  void relax_line(const LineSystem& s, const Line& line, bool prefetch);
  /// The line whose bands and factors line `line` of macro m reads (Line::from).
  int source_line(int m, int line, int n) const;

  /// y-lines per strip (grid_transpose.hpp).
  static constexpr int kStrip = kYLineStrip<T>;

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
  std::vector<T> line_;   ///< of one line: its right-hand side, forward-eliminated
  std::vector<T> ghost_;  ///< zeros: the missing neighbour line of the first and the last line
  /// Two sets of one strip of y-lines, as contiguous lines: x of the strip's lines with the
  /// neighbouring line on either side (kStrip + 2 lines), and b of its lines (kStrip lines): the
  /// zebra order relaxes strips s and s - 1 together (empty for LineDirections::x). Their lines
  /// are ld_ apart (strip_buffer_stride, grid_transpose.hpp).
  std::vector<T> x_strip_, b_strip_;
  std::size_t ld_ = 0;
};

}  // namespace quilt::accel::cpu
