#include "accel/cpu/smoothers/line_smoother.hpp"

#include <algorithm>
#include <cmath>

#include "accel/cpu/smoothers/diagonal_check.hpp"
#include "accel/cpu/smoothers/grid_transpose.hpp"
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
      line_(static_cast<std::size_t>(kGroup) * A.n),
      ghost_(A.n + 2, T(0)) {
  if (directions != LineDirections::y) {
    x_inv_pivot_.resize(A.rows());
    x_upper_.resize(A.rows());
  }
  if (directions != LineDirections::x) {
    yt_ = BandedMatrix<T>(A.macros, A.n);
    y_ = {&yt_, yt_.band[kCentre].data(), yt_.band[kCentre + 1].data()};
    x_strip_.resize(static_cast<std::size_t>(2 * kGroup) * (kStrip + 2) * A.n);
    b_panel_.resize(static_cast<std::size_t>(2 * kGroup) * kPanel * kStrip * A.n);
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
void LineSmoother<T>::line_rhs(const LineSystem& sys, const Line& line, T* t) const {
  const BandedMatrix<T>& C = *sys.coupling;
  const auto band = [&](int k) { return C.band[k].data() + line.from; };
  neighbour_lines_rhs(C.n, {band(0), band(1), band(2), band(6), band(7), band(8)}, line.b,
                      line.south, line.north, t);
}

template <class T>
template <int K>
void LineSmoother<T>::relax_lines(const LineSystem& sys, const Line* lines) {
  // Per line: the right-hand side (b minus the coupling to the two neighbouring lines, whose
  // values are final for this line), a vectorised pass; the forward elimination, in place; the
  // back substitution straight into x. The two recurrences carry one multiply-add per node on
  // their critical path (4 cycles), which held a lone line's sweep at two thirds of the triad
  // bandwidth in float (measured at n = 1025), and ADI-TRIGS on zoned macros, whose bands stay
  // in cache, at a quarter: the K lines (of K macros, so independent) go through them side by
  // side. A missing neighbour line (the macro's first or last) reads the zero ghost line; its
  // bands are 0 there by the storage convention.
  const int n = sys.coupling->n, l = n - 1;
  const T* lower[K];
  const T* inv_pivot[K];
  const T* upper[K];
  T* y[K];
  T* x[K];
  for (int q = 0; q < K; ++q) {
    lower[q] = sys.coupling->band[kCentre - 1].data() + lines[q].from;
    inv_pivot[q] = sys.inv_pivot + lines[q].from;
    upper[q] = sys.upper + lines[q].from;
    y[q] = line_.data() + static_cast<std::size_t>(q) * n;
    x[q] = lines[q].x;
    line_rhs(sys, lines[q], y[q]);
  }
  // Both recurrences carry their last value in a register (z). Read back from y, it put a
  // store-to-load forwarding on the forward elimination's critical path: the x-line sweep was
  // 1.15 times slower with float bands, 1.3 with float zones, 1.07 with double bands (n = 1025).
  T z[K];
  for (int q = 0; q < K; ++q) y[q][0] = z[q] = y[q][0] * inv_pivot[q][0];
  for (int e = 1; e < l; ++e)
    for (int q = 0; q < K; ++q)
      y[q][e] = z[q] = y[q][e] * inv_pivot[q][e] - (lower[q][e] * inv_pivot[q][e]) * z[q];
  for (int q = 0; q < K; ++q) z[q] = (y[q][l] - lower[q][l] * z[q]) * inv_pivot[q][l];
  if (omega_ == T(1)) {
    for (int q = 0; q < K; ++q) x[q][l] = z[q];
    for (int e = l - 1; e >= 0; --e)
      for (int q = 0; q < K; ++q) x[q][e] = z[q] = y[q][e] - upper[q][e] * z[q];
  } else {
    const T omega = omega_;
    for (int q = 0; q < K; ++q) x[q][l] += omega * (z[q] - x[q][l]);
    for (int e = l - 1; e >= 0; --e)
      for (int q = 0; q < K; ++q) {
        z[q] = y[q][e] - upper[q][e] * z[q];
        x[q][e] += omega * (z[q] - x[q][e]);
      }
  }
}

template <class T>
void LineSmoother<T>::relax_group(const LineSystem& sys, const Line* lines, int count) {
  with_lane_count(count, [&](auto k) { relax_lines<decltype(k)::value>(sys, lines); });
}

template <class T>
void LineSmoother<T>::sweep_x(const BandedMatrix<T>& A, const T* b, T* x, bool reverse) {
  const LineSystem sys{&A, x_inv_pivot_.data(), x_upper_.data()};
  const int n = A.n;
  const T* ghost = ghost_.data() + 1;
  for (int m0 = 0; m0 < A.macros; m0 += kGroup) {
    const int count = std::min(kGroup, A.macros - m0);
    const auto relax = [&](int line) {
      Line lines[kGroup];
      for (int q = 0; q < count; ++q) {
        const std::size_t base = static_cast<std::size_t>(m0 + q) * A.rows_per_macro();
        const std::size_t first = base + static_cast<std::size_t>(line) * n;
        lines[q] = {base + static_cast<std::size_t>(source_line(m0 + q, line, n)) * n, b + first,
                    line > 0 ? x + first - n : ghost, x + first,
                    line < n - 1 ? x + first + n : ghost};
      }
      relax_group(sys, lines, count);
    };
    if (order_ == SweepOrder::lexicographic) {
      for (int l = 0; l < n; ++l) relax(reverse ? n - 1 - l : l);
      continue;
    }
    // Zebra: even lines, then odd lines; reversed backward.
    for (int c = 0; c < 2; ++c)
      for (int l = reverse ? 1 - c : c; l < n; l += 2) relax(l);
  }
}

template <class T>
T* LineSmoother<T>::x_strip(int set, int q) {
  return x_strip_.data() + static_cast<std::size_t>(set * kGroup + q) * (kStrip + 2) * yt_.n;
}

template <class T>
T* LineSmoother<T>::b_panel(int panel, int q) {
  return b_panel_.data() +
         static_cast<std::size_t>((panel % 2) * kGroup + q) * kPanel * kStrip * yt_.n;
}

template <class T>
const T* LineSmoother<T>::b_line(int q, int line) {
  constexpr int panel_lines = kPanel * kStrip;
  return b_panel(line / panel_lines, q) + static_cast<std::size_t>(line % panel_lines) * yt_.n;
}

template <class T>
void LineSmoother<T>::gather_strips(const StripGroup& g, int s, int set, int south_set,
                                    int north_set, const T* b, const T* x) {
  const int n = yt_.n;
  const std::size_t stride = n;
  const int i0 = s * kStrip, width = std::min(kStrip, n - i0);
  const int panel = s / kPanel, p0 = panel * kPanel * kStrip;
  const bool new_panel = panel_in_set_[panel % 2] != panel;
  panel_in_set_[panel % 2] = panel;
  // The neighbour lines that no buffer holds come with the strip's own lines in one tile: their
  // values share the rows' cache lines, which the tile prefetches.
  const bool south_from_x = i0 > 0 && south_set < 0, north_from_x = i0 + width < n && north_set < 0;
  const int c0 = south_from_x ? i0 - 1 : i0, c1 = north_from_x ? i0 + width : i0 + width - 1;
  for (int q = 0; q < g.count; ++q) {
    T* xs = x_strip(set, q);
    const std::size_t base = (g.m0 + q) * yt_.rows_per_macro();
    transpose_tile(x + base + c0, stride, xs + (c0 - i0 + 1) * stride, stride, n, c1 - c0 + 1);
    if (new_panel)
      transpose_tile(b + base + p0, stride, b_panel(panel, q), stride, n,
                     std::min(kPanel * kStrip, n - p0));
    if (i0 > 0 && !south_from_x)  // the previous strip's last line, as that strip holds it now
      std::copy_n(x_strip(south_set, q) + kStrip * stride, n, xs);
    if (i0 + width < n && !north_from_x)  // the next strip's first line, likewise
      std::copy_n(x_strip(north_set, q) + stride, n, xs + (width + 1) * stride);
  }
}

template <class T>
void LineSmoother<T>::relax_strip_lines(const StripGroup& g, int s, int set, int parity,
                                        bool reverse) {
  const int n = yt_.n;
  const std::size_t stride = n;
  const int i0 = s * kStrip, width = std::min(kStrip, n - i0);
  // Line i0 - 1 + k of macro m0 + q's y-lines is line k of its x strip (k = 0 .. width + 1),
  // line i0 + k line k of its b strip.
  const T* ghost = ghost_.data() + 1;
  for (int k = 0; k < width; ++k) {
    const int line = i0 + (reverse ? width - 1 - k : k);
    if (parity >= 0 && line % 2 != parity) continue;
    Line lines[kGroup];
    for (int q = 0; q < g.count; ++q) {
      T* xl = x_strip(set, q) + (line - i0 + 1) * stride;
      const std::size_t base = (g.m0 + q) * yt_.rows_per_macro();
      lines[q] = {base + static_cast<std::size_t>(source_line(g.m0 + q, line, n)) * n,
                  b_line(q, line), line > 0 ? xl - n : ghost, xl, line < n - 1 ? xl + n : ghost};
    }
    relax_group(y_, lines, g.count);
  }
}

template <class T>
void LineSmoother<T>::scatter_strips(const StripGroup& g, int s, int set, T* x) {
  const int n = yt_.n;
  const std::size_t stride = n;
  const int i0 = s * kStrip, width = std::min(kStrip, n - i0);
  for (int q = 0; q < g.count; ++q)
    transpose_tile(x_strip(set, q) + n, stride, x + (g.m0 + q) * yt_.rows_per_macro() + i0, stride,
                   width, n);
}

template <class T>
void LineSmoother<T>::sweep_y(const T* b, T* x, bool reverse) {
  const int n = yt_.n;
  const int strips = (n + kStrip - 1) / kStrip;
  // Groups of kGroup macros: with the register-block transposes of the strip moves
  // (grid_transpose.cpp), 4 macros were as fast as 1 with variable bands in double and 1.2-1.4
  // times faster with float bands or zones (n = 1025, 16 macros, 2026-11-27); before, when the
  // moves were 3.5 times slower in cache, groups were cut to what half the L2 cache held.
  for (int m0 = 0; m0 < yt_.macros; m0 += kGroup) {
    const int count = std::min(kGroup, yt_.macros - m0);
    const StripGroup g{m0, count};
    panel_in_set_[0] = panel_in_set_[1] = -1;
    if (order_ == SweepOrder::lexicographic) {
      // The buffer sets alternate, so that the neighbour line on the side already relaxed is
      // copied from the previous strip's buffer rather than read back from x, one value per row.
      for (int k = 0; k < strips; ++k) {
        const int s = reverse ? strips - 1 - k : k;
        const int set = k % 2, previous = k > 0 ? 1 - set : -1;
        gather_strips(g, s, set, reverse ? -1 : previous, reverse ? previous : -1, b, x);
        relax_strip_lines(g, s, set, -1, reverse);
        scatter_strips(g, s, set, x);
      }
      continue;
    }
    // Zebra: the first colour's lines, then the second's (swapped backward); lines of one colour
    // are not coupled, so their order is free. One pass over the strips, the second colour one
    // strip behind the first: a strip is moved in and out once, not once per colour. Its two
    // sets of buffers alternate; what a strip reads of its neighbours comes from their buffers
    // where they are newer than x.
    const int first = reverse ? 1 : 0;
    for (int s = 0; s <= strips; ++s) {
      if (s < strips) {
        gather_strips(g, s, s % 2, s > 0 ? (s - 1) % 2 : -1, -1, b, x);
        relax_strip_lines(g, s, s % 2, first, false);
      }
      if (s == 0) continue;
      const int behind = (s - 1) % 2;
      if (s < strips)  // strip s's first line, relaxed just now, is strip s - 1's north neighbour
        for (int q = 0; q < count; ++q)
          std::copy_n(x_strip(s % 2, q) + n, n, x_strip(behind, q) + (kStrip + 1) * n);
      relax_strip_lines(g, s - 1, behind, 1 - first, false);
      scatter_strips(g, s - 1, behind, x);
    }
  }
}

template <class T>
void LineSmoother<T>::smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps,
                             SweepDirection direction, bool x_is_zero) {
  if (x_is_zero) std::fill(x, x + A.rows(), T(0));
  const bool reverse = direction == SweepDirection::backward;
  for (int s = 0; s < steps; ++s) {
    switch (directions_) {
      case LineDirections::x:
        sweep_x(A, b, x, reverse);
        break;
      case LineDirections::y:
        sweep_y(b, x, reverse);
        break;
      case LineDirections::alternating:
        // Forward: x-lines, then y-lines; backward is its adjoint: y-lines, then x-lines, each
        // reversed.
        if (!reverse) {
          sweep_x(A, b, x, false);
          sweep_y(b, x, false);
        } else {
          sweep_y(b, x, true);
          sweep_x(A, b, x, true);
        }
        break;
    }
  }
}

template class LineSmoother<float>;
template class LineSmoother<double>;

}  // namespace quilt::accel::cpu
