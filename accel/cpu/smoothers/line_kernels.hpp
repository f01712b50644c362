#pragma once
// Building blocks of the Gauss-Seidel, line and ILU(0) smoothers on the x-lines of a macro's grid
// (j fixed, i = 0..n-1, contiguous). The 9-point stencil couples a line only to itself and to its
// two neighbouring lines, three bands each; what a smoother does per line is then (1) move the
// neighbouring lines' part of the row sums to the right-hand side, one vectorisable pass, and (2)
// a recurrence along the line over the three in-line bands (a point Gauss-Seidel pass, a
// tridiagonal solve, an ILU substitution).

#include <array>
#include <type_traits>

namespace quilt::accel::cpu {

/// w[e] v[e-1] + c[e] v[e] + east[e] v[e+1], skipping v[-1] and v[n]: the coupling of node e of
/// a line to a neighbouring line v through three bands (pointers at the lines' first nodes). The
/// sweeps write this sum out in their vectorised loops for the inner nodes, in this order.
template <class T>
inline T coupling_at(int e, int n, const T* w, const T* c, const T* east, const T* v) {
  if (e == 0) return c[0] * v[0] + east[0] * v[1];
  if (e == n - 1) return w[e] * v[e - 1] + c[e] * v[e];
  return w[e] * v[e - 1] + c[e] * v[e] + east[e] * v[e + 1];
}

/// Where a node lies on its line: the first has no west neighbour on it, the last no east one.
enum class LinePosition { first, interior, last };
template <LinePosition P>
using AtNode = std::integral_constant<LinePosition, P>;

/// finish(e, s_e, AtNode<position of e>{}) for e = 0..n-1, with
///   s_e = b[e] - (s0 xs[e-1] + s1 xs[e] + s2 xs[e+1]) - (n0 xn[e-1] + n1 xn[e] + n2 xn[e+1]),
/// skipping xs/xn[-1] and [n]: a line's right-hand side, b minus its coupling to the line below
/// (bands 0, 1, 2: s0, s1, s2) and the line above (bands 6, 7, 8: n0, n1, n2), handed to `finish`
/// in one pass, so that the streams of b, the bands, the lines and what finish reads advance
/// together. `bands` = {s0, s1, s2, n0, n1, n2} at the line's first node. A missing neighbour
/// line is the zero ghost line, its bands 0 by the storage convention: the values of skipping
/// its term.
template <class T, class Finish>
inline void neighbour_lines_rhs(int n, const std::array<const T*, 6>& bands, const T* b,
                                const T* xs, const T* xn, Finish&& finish) {
  const T* __restrict s0 = bands[0];
  const T* __restrict s1 = bands[1];
  const T* __restrict s2 = bands[2];
  const T* __restrict n0 = bands[3];
  const T* __restrict n1 = bands[4];
  const T* __restrict n2 = bands[5];
  const T* __restrict bl = b;
  const T* __restrict ys = xs;
  const T* __restrict yn = xn;
  const int l = n - 1;
  finish(0, bl[0] - (s1[0] * ys[0] + s2[0] * ys[1]) - (n1[0] * yn[0] + n2[0] * yn[1]),
         AtNode<LinePosition::first>{});
  for (int e = 1; e < l; ++e)
    finish(e,
           bl[e] - (s0[e] * ys[e - 1] + s1[e] * ys[e] + s2[e] * ys[e + 1]) -
               (n0[e] * yn[e - 1] + n1[e] * yn[e] + n2[e] * yn[e + 1]),
           AtNode<LinePosition::interior>{});
  finish(l, bl[l] - (s0[l] * ys[l - 1] + s1[l] * ys[l]) - (n0[l] * yn[l - 1] + n1[l] * yn[l]),
         AtNode<LinePosition::last>{});
}

/// neighbour_lines_rhs into t: t[e] = s_e.
template <class T>
inline void neighbour_lines_rhs(int n, const std::array<const T*, 6>& bands, const T* b,
                                const T* xs, const T* xn, T* t) {
  T* __restrict out = t;
  neighbour_lines_rhs(n, bands, b, xs, xn, [out](int e, T s, auto) { out[e] = s; });
}

/// neighbour_lines_rhs's s_e of one node e.
template <class T>
inline T neighbour_lines_at(int e, int n, const std::array<const T*, 6>& bands, const T* b,
                            const T* xs, const T* xn) {
  return b[e] - coupling_at(e, n, bands[0], bands[1], bands[2], xs) -
         coupling_at(e, n, bands[3], bands[4], bands[5], xn);
}

}  // namespace quilt::accel::cpu
