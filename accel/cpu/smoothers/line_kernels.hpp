#pragma once
// Building blocks of the Gauss-Seidel, line and ILU(0) smoothers: a macro's grid seen as lines of
// nodes, either the x-lines (j fixed, i = 0..n-1, contiguous) or the y-lines (i fixed, stride n).
// The 9-point stencil couples a line only to itself and to its two neighbouring lines, three bands
// each; what a smoother does per line is then (1) move the neighbouring lines' part of the row sums
// to the right-hand side, one vectorisable pass, and (2) a recurrence along the line over the
// three in-line bands (a point Gauss-Seidel pass, a tridiagonal solve, an ILU substitution).

#include <array>
#include <cstddef>

#include "accel/banded_matrix.hpp"

namespace quilt::accel::cpu {

/// Where the lines of one direction lie in a macro's lexicographic numbering.
struct LineLayout {
  std::ptrdiff_t line_step;  ///< rows between the first nodes of consecutive lines
  std::ptrdiff_t stride;     ///< rows between consecutive nodes of a line
  /// Bands coupling node e of a line to nodes e-1, e, e+1 of the previous line, of the line
  /// itself, and of the next line.
  std::array<int, 3> previous, own, next;

  std::ptrdiff_t row(int line, int e) const { return line * line_step + e * stride; }
};

/// x-lines: node (i, j) is node e = i of line j.
inline LineLayout x_lines(int n) {
  return {n, 1, {0, 1, 2}, {3, 4, 5}, {6, 7, 8}};
}
/// y-lines: node (i, j) is node e = j of line i.
inline LineLayout y_lines(int n) {
  return {1, n, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}};
}

/// t[e] -= w[e] v[e-1] + c[e] v[e] + east[e] v[e+1] for e = 0..n-1, skipping v[-1] and v[n]:
/// the coupling of a line to a neighbouring line v through three bands. Band and vector pointers
/// are at the lines' first nodes, stepping by `stride`; t is contiguous.
template <class T>
inline void subtract_coupling(int n, std::ptrdiff_t stride, const T* w, const T* c, const T* east,
                              const T* v, T* t) {
  const auto body = [&](std::ptrdiff_t s) {
    t[0] -= c[0] * v[0] + east[0] * v[s];
    for (int e = 1; e < n - 1; ++e) {
      const std::ptrdiff_t p = e * s;
      t[e] -= w[p] * v[p - s] + c[p] * v[p] + east[p] * v[p + s];
    }
    const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(n - 1) * s;
    t[n - 1] -= w[last] * v[last - s] + c[last] * v[last];
  };
  if (stride == 1)
    body(1);  // the constant stride lets the compiler vectorise the x-line case
  else
    body(stride);
}

/// t = b - (coupling to the previous and the next line) x, for one line of macro slot `base`.
/// The lines at the macro boundary have one neighbour.
template <class T>
inline void line_rhs(const BandedMatrix<T>& A, std::size_t base, const LineLayout& L, int line,
                     const T* b, const T* x, T* t) {
  const int n = A.n;
  const std::ptrdiff_t first = static_cast<std::ptrdiff_t>(base) + L.row(line, 0);
  for (int e = 0; e < n; ++e) t[e] = b[first + e * L.stride];
  const auto band = [&](int k, std::ptrdiff_t at) { return A.band[k].data() + at; };
  if (line > 0)
    subtract_coupling(n, L.stride, band(L.previous[0], first), band(L.previous[1], first),
                      band(L.previous[2], first), x + first - L.line_step, t);
  if (line < n - 1)
    subtract_coupling(n, L.stride, band(L.next[0], first), band(L.next[1], first),
                      band(L.next[2], first), x + first + L.line_step, t);
}

}  // namespace quilt::accel::cpu
