#include "accel/cpu/smoothers/line_smoother.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "accel/cpu/smoothers/grid_transpose.hpp"
#include "accel/cpu/smoothers/inverse_diagonal.hpp"
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
    column_stride_ = (static_cast<std::size_t>(A.n) + kLine - 1) / kLine * kLine;
    x_columns_.resize(static_cast<std::size_t>(A.macros) * A.n * column_stride_);
    b_columns_.resize(x_columns_.size());
    row_window_.resize(static_cast<std::size_t>(kRowBlock) * 2 * kLine);
  }
  if (directions == LineDirections::alternating && order == SweepOrder::lexicographic)
    row_ring_.resize(static_cast<std::size_t>(2 * kGroup) * kLine * A.n);
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
void LineSmoother<T>::line_rhs(const LineSystem& sys, const Line& line, T* __restrict t) const {
  const BandedMatrix<T>& C = *sys.coupling;
  const int l = C.n - 1;
  const auto band = [&](int k) { return C.band[k].data() + line.from; };
  const T* __restrict s0 = band(0), * __restrict s1 = band(1), * __restrict s2 = band(2);
  const T* __restrict n0 = band(6), * __restrict n1 = band(7), * __restrict n2 = band(8);
  const T* __restrict bl = line.b, * __restrict xs = line.south, * __restrict xn = line.north;
  // Node 0 and node n-1 have no neighbour at e-1 / e+1 in the other lines (and read no x there).
  t[0] = bl[0] - (s1[0] * xs[0] + s2[0] * xs[1]) - (n1[0] * xn[0] + n2[0] * xn[1]);
  for (int e = 1; e < l; ++e)
    t[e] = bl[e] - (s0[e] * xs[e - 1] + s1[e] * xs[e] + s2[e] * xs[e + 1]) -
           (n0[e] * xn[e - 1] + n1[e] * xn[e] + n2[e] * xn[e + 1]);
  t[l] = bl[l] - (s0[l] * xs[l - 1] + s1[l] * xs[l]) - (n0[l] * xn[l - 1] + n1[l] * xn[l]);
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
  static_assert(kGroup == 4);
  switch (count) {
    case 1:
      return relax_lines<1>(sys, lines);
    case 2:
      return relax_lines<2>(sys, lines);
    case 3:
      return relax_lines<3>(sys, lines);
    default:
      return relax_lines<4>(sys, lines);
  }
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
T* LineSmoother<T>::x_column(int m, int line) {
  return x_columns_.data() + (static_cast<std::size_t>(m) * yt_.n + line) * column_stride_;
}

template <class T>
T* LineSmoother<T>::b_column(int m, int line) {
  return b_columns_.data() + (static_cast<std::size_t>(m) * yt_.n + line) * column_stride_;
}

template <class T>
void LineSmoother<T>::sweep_x_into_columns(const BandedMatrix<T>& A, const T* b, const T* x,
                                           bool reverse, bool with_b) {
  const LineSystem sys{&A, x_inv_pivot_.data(), x_upper_.data()};
  const int n = A.n;
  const T* ghost = ghost_.data() + 1;
  // Line `line` of group macro q in the ring: row line % kLine of slot (line / kLine) % 2.
  const auto ring_row = [&](int q, int line) {
    return row_ring_.data() +
           (static_cast<std::size_t>(q * 2 + (line / kLine) % 2) * kLine + line % kLine) * n;
  };
  for (int m0 = 0; m0 < A.macros; m0 += kGroup) {
    const int count = std::min(kGroup, A.macros - m0);
    for (int k = 0; k < n; ++k) {
      const int line = reverse ? n - 1 - k : k;
      Line lines[kGroup];
      for (int q = 0; q < count; ++q) {
        const std::size_t base = static_cast<std::size_t>(m0 + q) * A.rows_per_macro();
        const std::size_t first = base + static_cast<std::size_t>(line) * n;
        T* out = ring_row(q, line);
        if (omega_ != T(1)) std::copy_n(x + first, n, out);  // the old values, blended
        // The neighbour relaxed just before is in the ring, the other one still in x.
        const T* south = line == 0 ? ghost : reverse ? x + first - n : ring_row(q, line - 1);
        const T* north = line == n - 1 ? ghost : reverse ? ring_row(q, line + 1) : x + first + n;
        lines[q] = {base + static_cast<std::size_t>(source_line(m0 + q, line, n)) * n, b + first,
                    south, out, north};
      }
      relax_group(sys, lines, count);
      const int block = line / kLine;
      if (line == (reverse ? block * kLine : std::min(n, (block + 1) * kLine) - 1))
        store_ring_block(m0, count, block, b, with_b);
    }
  }
  streaming_fence();
}

template <class T>
void LineSmoother<T>::store_ring_block(int m0, int count, int block, const T* b, bool with_b) {
  const int n = yt_.n;
  const int r0 = block * kLine, rows = std::min(kLine, n - r0);
  for (int q = 0; q < count; ++q) {
    const int m = m0 + q;
    const T* ring = row_ring_.data() + static_cast<std::size_t>(q * 2 + block % 2) * kLine * n;
    transpose_tile_streaming(ring, n, x_column(m, 0) + r0, column_stride_, rows, n);
    if (with_b)
      transpose_tile_streaming(b + m * yt_.rows_per_macro() + static_cast<std::size_t>(r0) * n, n,
                               b_column(m, 0) + r0, column_stride_, rows, n);
  }
}

template <class T>
void LineSmoother<T>::rows_into_columns(const T* b, const T* x, bool with_b, bool with_x) {
  const int n = yt_.n;
  for (int m = 0; m < yt_.macros; ++m)
    for (int r0 = 0; r0 < n; r0 += kLine) {
      const std::size_t from = m * yt_.rows_per_macro() + static_cast<std::size_t>(r0) * n;
      const int rows = std::min(kLine, n - r0);
      if (with_x)
        transpose_tile_streaming(x + from, n, x_column(m, 0) + r0, column_stride_, rows, n);
      if (with_b)
        transpose_tile_streaming(b + from, n, b_column(m, 0) + r0, column_stride_, rows, n);
    }
  streaming_fence();
}

template <class T>
void LineSmoother<T>::relax_columns(int m0, int count, int i0, int width, int parity,
                                    bool reverse) {
  const int n = yt_.n;
  const T* ghost = ghost_.data() + 1;
  for (int k = 0; k < width; ++k) {
    const int line = i0 + (reverse ? width - 1 - k : k);
    if (parity >= 0 && line % 2 != parity) continue;
    Line lines[kGroup];
    for (int q = 0; q < count; ++q) {
      const int m = m0 + q;
      const std::size_t base = static_cast<std::size_t>(m) * yt_.rows_per_macro();
      lines[q] = {base + static_cast<std::size_t>(source_line(m, line, n)) * n, b_column(m, line),
                  line > 0 ? x_column(m, line - 1) : ghost, x_column(m, line),
                  line < n - 1 ? x_column(m, line + 1) : ghost};
    }
    relax_group(y_, lines, count);
  }
}

template <class T>
void LineSmoother<T>::sweep_y(T* x, bool reverse) {
  const int n = yt_.n;
  const int strips = (n + kLine - 1) / kLine;
  for (int m0 = 0; m0 < yt_.macros; m0 += kGroup) {
    const int count = std::min(kGroup, yt_.macros - m0);
    if (order_ == SweepOrder::lexicographic) {
      for (int k = 0; k < strips; ++k) {
        const int s = reverse ? strips - 1 - k : k;
        relax_columns(m0, count, s * kLine, std::min(kLine, n - s * kLine), -1, reverse);
        store_final_columns(m0, count, s, reverse, x);
      }
      continue;
    }
    // Zebra: the first colour's lines (even; odd backward), then the second's; lines of one
    // colour are not coupled, so their order is free. A strip is final once the second colour
    // has passed it.
    const int first = reverse ? 1 : 0;
    relax_columns(m0, count, 0, n, first, false);
    for (int s = 0; s < strips; ++s) {
      relax_columns(m0, count, s * kLine, std::min(kLine, n - s * kLine), 1 - first, false);
      store_final_columns(m0, count, s, false, x);
    }
  }
  streaming_fence();
}

template <class T>
void LineSmoother<T>::store_final_columns(int m0, int count, int s, bool reverse, T* x) {
  // Row j's cache lines start at column a and every kLine columns on. After strip s, row j is
  // written up to the line boundary at or below (ascending strips) or from the one at or above
  // (descending) column s kLine, and likewise (s + 1) kLine: the columns [lo, hi), which lie in
  // strips s - 1 and s (ascending) or s and s + 1 (descending). Each column is written once.
  const int n = yt_.n;
  const int strips = (n + kLine - 1) / kLine;
  const int w0 = reverse ? s * kLine : std::max(0, (s - 1) * kLine);
  const int w1 = std::min(n, w0 + 2 * kLine);
  const std::size_t window_stride = 2 * kLine;
  for (int q = 0; q < count; ++q) {
    const int m = m0 + q;
    T* xm = x + static_cast<std::size_t>(m) * yt_.rows_per_macro();
    for (int j0 = 0; j0 < n; j0 += kRowBlock) {
      const int rows = std::min(kRowBlock, n - j0);
      transpose_tile(x_column(m, w0) + j0, column_stride_, row_window_.data(), window_stride,
                     w1 - w0, rows);
      for (int r = 0; r < rows; ++r) {
        T* row = xm + static_cast<std::size_t>(j0 + r) * n;
        const T* values = row_window_.data() + r * window_stride - w0;  // values[c]: column c
        const int a =
            static_cast<int>((64 - reinterpret_cast<std::uintptr_t>(row) % 64) % 64 / sizeof(T));
        const auto boundary = [&](int c) {
          if (c <= 0) return 0;
          if (reverse) return std::min(n, c <= a ? a : a + (c - a + kLine - 1) / kLine * kLine);
          return c < a ? 0 : a + (c - a) / kLine * kLine;
        };
        const int lo = boundary(s * kLine);
        const int hi = s == strips - 1 ? n : boundary((s + 1) * kLine);
        if (hi - lo == kLine && lo >= a) {  // one whole line: every row of an inner strip
          store_line_streaming(values + lo, row + lo);
          continue;
        }
        for (int c = lo; c < hi;) {
          if (c >= a && (c - a) % kLine == 0 && c + kLine <= hi) {
            store_line_streaming(values + c, row + c);
            c += kLine;
          } else {
            row[c] = values[c];
            ++c;
          }
        }
      }
    }
  }
}

template <class T>
void LineSmoother<T>::smooth(const BandedMatrix<T>& A, const T* b, T* x, int steps,
                             SweepDirection direction, bool x_is_zero) {
  if (x_is_zero) std::fill(x, x + A.rows(), T(0));
  const bool reverse = direction == SweepDirection::backward;
  // What the columns hold: this call's b; x as its rows hold it (a y-sweep leaves them equal)
  // or newer (sweep_x_into_columns).
  bool b_in_columns = false, x_in_columns = false;
  const auto along_y = [&] {
    if (!b_in_columns || !x_in_columns) rows_into_columns(b, x, !b_in_columns, !x_in_columns);
    b_in_columns = x_in_columns = true;
    sweep_y(x, reverse);
  };
  // An x-sweep that a y-sweep follows hands its lines over as columns where it can.
  const auto along_x = [&](bool y_follows) {
    if (y_follows && !row_ring_.empty()) {
      sweep_x_into_columns(A, b, x, reverse, !b_in_columns);
      b_in_columns = x_in_columns = true;
    } else {
      sweep_x(A, b, x, reverse);
      x_in_columns = false;
    }
  };
  for (int s = 0; s < steps; ++s) {
    switch (directions_) {
      case LineDirections::x:
        sweep_x(A, b, x, reverse);
        break;
      case LineDirections::y:
        along_y();
        break;
      case LineDirections::alternating:
        // Forward: x-lines, then y-lines; backward is its adjoint: y-lines, then x-lines, each
        // reversed.
        if (!reverse) {
          along_x(true);
          along_y();
        } else {
          along_y();
          along_x(s + 1 < steps);
        }
        break;
    }
  }
}

template class LineSmoother<float>;
template class LineSmoother<double>;

}  // namespace quilt::accel::cpu
