#include "accel/cpu/smoothers/line_smoother.hpp"

#include <algorithm>
#include <cmath>

#include "accel/cpu/prefetch.hpp"
#include "accel/cpu/smoothers/diagonal_check.hpp"
#include "accel/cpu/smoothers/grid_transpose.hpp"
#include "accel/cpu/smoothers/line_blocks.hpp"
#include "accel/cpu/smoothers/line_kernels.hpp"
#include "accel/local_solver.hpp"

namespace quilt::accel::cpu {

template <class T>
LineSmoother<T>::LineSmoother(const BandedMatrix<T>& A, const StencilZones<T>& zones,
                              double damping, SweepOrder order, LineDirections directions)
    : Smoother<T>(A),
      omega_(static_cast<T>(damping)),
      order_(order),
      directions_(directions),
      line_(A.n),
      ghost_(A.n + 2, T(0)) {
  if (directions != LineDirections::y) {
    x_inv_pivot_.resize(A.rows());
    x_upper_.resize(A.rows());
  }
  if (directions != LineDirections::x) {
    yt_ = BandedMatrix<T>(A.macros, A.n);
    y_ = {&yt_, yt_.band[kCentre].data(), yt_.band[kCentre + 1].data()};
    ld_ = strip_buffer_stride<T>(A.n);
    x_strip_.resize(static_cast<std::size_t>(2) * (kStrip + 2) * ld_);
    b_strip_.resize(static_cast<std::size_t>(2) * kStrip * ld_);
  }
  refresh(A, zones);
}

template <class T>
void LineSmoother<T>::refresh(const BandedMatrix<T>& A, const StencilZones<T>& zones) {
  zones_ = zones;
  // The factors are rounded to T once, from double.
  if (directions_ != LineDirections::y)
    factorise(A, zones_, x_inv_pivot_.data(), x_upper_.data(), false);
  if (directions_ != LineDirections::x) {
    // Every band of A' is rewritten, the factor slots (bands 4 and 5) included.
    grid_transpose_into(A, yt_);
    factorise(yt_, zones_, yt_.band[kCentre].data(), yt_.band[kCentre + 1].data(), true);
  }
}

template <class T>
void LineSmoother<T>::factorise(const BandedMatrix<T>& C, const StencilZones<T>& zones,
                                T* inv_pivot, T* upper, bool transposed) {
  const auto& lower_band = C.band[kCentre - 1];
  const auto& diag_band = C.band[kCentre];
  const auto& upper_band = C.band[kCentre + 1];
  for (int m = 0; m < C.macros; ++m)
    for (int line = 0; line < C.n; ++line) {
      // A zoned macro's sweeps read the factors of its middle zone's first line only.
      if (zones.is_zoned(m) && line > kMiddleZone && zone_of(line, C.n) == kMiddleZone) continue;
      double previous_upper = 0.0;  // in double: the factors are rounded to T once, at the end
      for (int e = 0; e < C.n; ++e) {
        const std::size_t p = m * C.rows_per_macro() + static_cast<std::size_t>(line) * C.n + e;
        const double l = e > 0 ? static_cast<double>(lower_band[p]) : 0.0;
        const double c = upper_band[p];  // read before upper[p] may overwrite it
        const double pivot = diag_band[p] - l * previous_upper;
        // Without pivoting the Thomas algorithm is stable for diagonally dominant lines; a pivot
        // that cancels to round-off means the line's matrix is (nearly) singular.
        const double scale =
            std::abs(static_cast<double>(diag_band[p])) + std::abs(l) + std::abs(c);
        if (!std::isfinite(pivot) || std::abs(pivot) <= 1e-12 * scale) {
          // Node (e, line) of the transposed grid is node (line, e) of the operator's.
          const std::size_t node =
              transposed ? m * C.rows_per_macro() + line + static_cast<std::size_t>(e) * C.n : p;
          throw AccelError(describe_row(C.n, node) +
                           ": the tridiagonal line solve has a zero pivot (" +
                           std::to_string(pivot) + "); the line's matrix is singular");
        }
        previous_upper = e < C.n - 1 ? c / pivot : 0.0;
        inv_pivot[p] = static_cast<T>(1.0 / pivot);
        upper[p] = static_cast<T>(previous_upper);
      }
    }
}

template <class T>
int LineSmoother<T>::source_line(int m, int line, int n) const {
  // The first line of a line's zone: 0, 1, 2, n-2, n-1.
  return zones_.is_zoned(m) && zone_of(line, n) == kMiddleZone ? kMiddleZone : line;
}

template <class T>
template <bool Prefetch>
void LineSmoother<T>::relax_line(const LineSystem& sys, const Line& line) {
  // The Thomas algorithm with the factors of the line: the forward elimination
  // y_e = t_e / u_e - (l_e / u_e) y_{e-1}, t the right-hand side (b minus the coupling to the two
  // neighbouring lines, whose values are final for this line), in the pass that forms t; then
  // the back substitution x_e = y_e - (c_e / u_e) x_{e+1} straight into x. Both recurrences are
  // solved a block at a time (linear_recurrence.hpp): node by node, their chains (4-6 cycles
  // per node) held a lone line at two thirds of the triad bandwidth in float, and the lines of 4
  // macros relaxed side by side at 52 % (n = 1025). A missing neighbour line (the macro's first
  // or last) reads the zero ghost line; its bands are 0 there by the storage convention.
  using Simd = SimdBlock<T>;
  using V = typename Simd::V;
  constexpr int W = Simd::kWidth;
  constexpr int ahead = kPrefetchAheadBytes / int(sizeof(T));
  const BandedMatrix<T>& C = *sys.coupling;
  const int n = C.n, l = n - 1;
  const auto band = [&](int k) { return C.band[k].data() + line.from; };
  const std::array<const T*, 6> lines{band(0), band(1), band(2), band(6), band(7), band(8)};
  const T* __restrict lower = band(kCentre - 1);
  const T* __restrict inv_pivot = sys.inv_pivot + line.from;
  const T* __restrict upper = sys.upper + line.from;
  T* __restrict y = line_.data();
  T* __restrict x = line.x;
  const auto eliminate_node = [&](int e, T previous) {
    const T t = neighbour_lines_at(e, n, lines, line.b, line.south, line.north);
    return y[e] = t * inv_pivot[e] - (lower[e] * inv_pivot[e]) * previous;
  };
  // What the line streams from memory (for the x-lines of variable bands), prefetched in the
  // forward pass; upper too, so that the back substitution runs from cache: prefetched in its own
  // pass, the x-line sweep ran at 0.8-0.85 times the speed (n = 1025, 16 macros).
  const std::array<const T*, 11> streams{lines[0], lines[1],   lines[2], lines[3],
                                         lines[4], lines[5],   lower,    inv_pivot,
                                         line.b,   line.north, upper};
  V carry = Simd::splat(eliminate_node(0, T(0)));
  int e = 1;
  for (; e + W <= l; e += W) {
    if constexpr (Prefetch) prefetch_each(e + ahead, streams);
    const V ip = Simd::load(inv_pivot + e);
    V a = neighbour_lines_block(e, lines, line.b, line.south, line.north) * ip;
    V m = -(Simd::load(lower + e) * ip);
    Simd::template compose<true>(a, m);
    const V ye = a + m * carry;
    Simd::store(y + e, ye);
    carry = Simd::template carry_out<true>(ye);
  }
  for (T last = carry[0]; e < n; ++e) last = eliminate_node(e, last);
  // Back substitution, x_l = y_l (c_l / u_l = 0): z = x of the Thomas solve, x relaxed towards it.
  const T omega = omega_;
  const auto substitute_node = [&](int e, T next) {
    const T z = y[e] - upper[e] * next;
    x[e] = omega == T(1) ? z : x[e] + omega * (z - x[e]);
    return z;
  };
  carry = Simd::splat(substitute_node(l, T(0)));
  e = l;  // nodes e .. l are done
  for (; e - W >= 0; e -= W) {
    V a = Simd::load(y + e - W), m = -Simd::load(upper + e - W);
    Simd::template compose<false>(a, m);
    const V z = a + m * carry;
    Simd::store(x + e - W,
                omega == T(1) ? z : Simd::load(x + e - W) + omega * (z - Simd::load(x + e - W)));
    carry = Simd::template carry_out<false>(z);
  }
  for (T next = carry[0]; --e >= 0;) next = substitute_node(e, next);
}

template <class T>
void LineSmoother<T>::relax_line(const LineSystem& sys, const Line& line, bool prefetch) {
  if (prefetch)
    relax_line<true>(sys, line);
  else
    relax_line<false>(sys, line);
}

template <class T>
void LineSmoother<T>::sweep_x(const BandedMatrix<T>& A, int m, const T* b, T* x, bool reverse) {
  const LineSystem sys{&A, x_inv_pivot_.data(), x_upper_.data()};
  const int n = A.n;
  const T* ghost = ghost_.data() + 1;
  const bool prefetch = streams_from_memory(A);
  const std::size_t base = static_cast<std::size_t>(m) * A.rows_per_macro();
  const auto relax = [&](int line) {
    const std::size_t first = base + static_cast<std::size_t>(line) * n;
    relax_line(sys,
               {base + static_cast<std::size_t>(source_line(m, line, n)) * n, b + first,
                line > 0 ? x + first - n : ghost, x + first, line < n - 1 ? x + first + n : ghost},
               prefetch);
  };
  if (order_ == SweepOrder::lexicographic) {
    for (int l = 0; l < n; ++l) relax(reverse ? n - 1 - l : l);
    return;
  }
  // Zebra: even lines, then odd lines; reversed backward.
  for (int c = 0; c < 2; ++c)
    for (int l = reverse ? 1 - c : c; l < n; l += 2) relax(l);
}

template <class T>
T* LineSmoother<T>::x_strip(int set) {
  return x_strip_.data() + static_cast<std::size_t>(set) * (kStrip + 2) * ld_;
}

template <class T>
T* LineSmoother<T>::b_strip(int set) {
  return b_strip_.data() + static_cast<std::size_t>(set) * kStrip * ld_;
}

template <class T>
void LineSmoother<T>::gather_strip(int m, int s, int set, int south_set, int north_set, const T* b,
                                   const T* x) {
  const int n = yt_.n;
  const std::size_t stride = n;
  const int i0 = s * kStrip, width = std::min(kStrip, n - i0);
  // The neighbour lines that no buffer holds come with the strip's own lines in one tile: their
  // values share the rows' cache lines, which the tile prefetches.
  const bool south_from_x = i0 > 0 && south_set < 0, north_from_x = i0 + width < n && north_set < 0;
  const int c0 = south_from_x ? i0 - 1 : i0, c1 = north_from_x ? i0 + width : i0 + width - 1;
  T* xs = x_strip(set);
  const std::size_t base = m * yt_.rows_per_macro();
  transpose_tile(x + base + c0, stride, xs + (c0 - i0 + 1) * ld_, ld_, n, c1 - c0 + 1);
  transpose_tile(b + base + i0, stride, b_strip(set), ld_, n, width);
  if (i0 > 0 && !south_from_x)  // the previous strip's last line, as that strip holds it now
    std::copy_n(x_strip(south_set) + kStrip * ld_, n, xs);
  if (i0 + width < n && !north_from_x)  // the next strip's first line, likewise
    std::copy_n(x_strip(north_set) + ld_, n, xs + (width + 1) * ld_);
}

template <class T>
void LineSmoother<T>::relax_strip_lines(int m, int s, int set, int parity, bool reverse) {
  const int n = yt_.n;
  const int i0 = s * kStrip, width = std::min(kStrip, n - i0);
  // Line i0 - 1 + k of macro m's y-lines is line k of the x strip (k = 0 .. width + 1), line
  // i0 + k line k of the b strip.
  const T* ghost = ghost_.data() + 1;
  const bool prefetch = streams_from_memory(yt_);
  for (int k = 0; k < width; ++k) {
    const int line = i0 + (reverse ? width - 1 - k : k);
    if (parity >= 0 && line % 2 != parity) continue;
    T* xl = x_strip(set) + (line - i0 + 1) * ld_;
    relax_line(y_,
               {m * yt_.rows_per_macro() + static_cast<std::size_t>(source_line(m, line, n)) * n,
                b_strip(set) + (line - i0) * ld_, line > 0 ? xl - ld_ : ghost, xl,
                line < n - 1 ? xl + ld_ : ghost},
               prefetch);
  }
}

template <class T>
void LineSmoother<T>::scatter_strip(int m, int s, int set, T* x) {
  const int n = yt_.n;
  const std::size_t stride = n;
  const int i0 = s * kStrip, width = std::min(kStrip, n - i0);
  transpose_tile(x_strip(set) + ld_, ld_, x + m * yt_.rows_per_macro() + i0, stride, width, n);
}

template <class T>
void LineSmoother<T>::sweep_y(int m, const T* b, T* x, bool reverse) {
  const int n = yt_.n;
  const int strips = (n + kStrip - 1) / kStrip;
  // Macro by macro. Groups of 4 macros' strips moved and relaxed together were 1.2-1.4 times
  // faster with float bands or zones while the lines' recurrences ran node by node, their
  // chains overlapping (n = 1025, 16 macros, 2026-11-27); with the recurrences solved a block at
  // a time one macro is 1.03-1.07 times faster than 4, bands and zones alike (2026-11-28).
  if (order_ == SweepOrder::lexicographic) {
    // The buffer sets alternate, so that the neighbour line on the side already relaxed is
    // copied from the previous strip's buffer rather than read back from x, one value per row.
    for (int k = 0; k < strips; ++k) {
      const int s = reverse ? strips - 1 - k : k;
      const int set = k % 2, previous = k > 0 ? 1 - set : -1;
      gather_strip(m, s, set, reverse ? -1 : previous, reverse ? previous : -1, b, x);
      relax_strip_lines(m, s, set, -1, reverse);
      scatter_strip(m, s, set, x);
    }
    return;
  }
  // Zebra: the first colour's lines, then the second's (swapped backward); lines of one colour
  // are not coupled, so their order is free. One pass over the strips, the second colour one
  // strip behind the first: a strip is moved in and out once, not once per colour. Its two
  // sets of buffers alternate; what a strip reads of its neighbours comes from their buffers
  // where they are newer than x. Solving a colour's lines side by side down the grid rows
  // instead (a vector lane per line, no moves) was 1.05-1.2 times slower: each group of lines reads
  // 2-3 cache lines of every grid row, 8 KiB apart (docs/benchmarks.md, 2026-12-02 17:39 UTC).
  const int first = reverse ? 1 : 0;
  for (int s = 0; s <= strips; ++s) {
    if (s < strips) {
      gather_strip(m, s, s % 2, s > 0 ? (s - 1) % 2 : -1, -1, b, x);
      relax_strip_lines(m, s, s % 2, first, false);
    }
    if (s == 0) continue;
    const int behind = (s - 1) % 2;
    if (s < strips)  // strip s's first line, relaxed just now, is strip s - 1's north neighbour
      std::copy_n(x_strip(s % 2) + ld_, n, x_strip(behind) + (kStrip + 1) * ld_);
    relax_strip_lines(m, s - 1, behind, 1 - first, false);
    scatter_strip(m, s - 1, behind, x);
  }
}

template <class T>
void LineSmoother<T>::smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps,
                             SweepDirection direction, bool x_is_zero) {
  if (x_is_zero) std::fill(x, x + A.rows(), T(0));
  const bool reverse = direction == SweepDirection::backward;
  // Macro by macro, all sweeps of one macro before the next: the macros of a batch are not
  // coupled, so this computes what sweeping every macro per step does, and a macro's x and b
  // are still in the last-level cache when its y-lines gather them after its x-lines. ADI-TRIGS,
  // against every step over all macros: one sweep 1.06 / 1.11 times faster at n = 257 (double /
  // float), 1.0 / 1.05 at n = 513, no faster at n = 1025, whose macro does not fit; a local
  // V(2,2) cycle 1.11-1.23 times faster at levels 7-9 (docs/benchmarks.md, 2026-12-02 10:20 UTC).
  for (int m = 0; m < A.macros; ++m)
    for (int s = 0; s < steps; ++s) {
      switch (directions_) {
        case LineDirections::x:
          sweep_x(A, m, b, x, reverse);
          break;
        case LineDirections::y:
          sweep_y(m, b, x, reverse);
          break;
        case LineDirections::alternating:
          // Forward: x-lines, then y-lines; backward is its adjoint: y-lines, then x-lines, each
          // reversed.
          if (!reverse) {
            sweep_x(A, m, b, x, false);
            sweep_y(m, b, x, false);
          } else {
            sweep_y(m, b, x, true);
            sweep_x(A, m, b, x, true);
          }
          break;
      }
    }
}

template class LineSmoother<float>;
template class LineSmoother<double>;

}  // namespace quilt::accel::cpu
