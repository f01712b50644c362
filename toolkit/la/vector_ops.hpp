#pragma once
// Level vectors: all macros of a rank on one level, macro-major (macros * n * n doubles), in
// storage staggered within its pages like the bands they are streamed with
// (accel/staggered_allocator.hpp). Whether a vector is type-0 or type-1 (design.md §2) is a
// property of how it was produced; the operations here are element-wise and do not care.

#include <cstddef>
#include <vector>

#include "accel/staggered_allocator.hpp"

namespace quilt {

using LevelVector = accel::StaggeredVector<double>;

/// y += a x
inline void axpy(double a, const LevelVector& x, LevelVector& y) {
  const std::size_t n = y.size();
  for (std::size_t i = 0; i < n; ++i) y[i] += a * x[i];
}
/// y = x + b y
inline void xpby(const LevelVector& x, double b, LevelVector& y) {
  const std::size_t n = y.size();
  for (std::size_t i = 0; i < n; ++i) y[i] = x[i] + b * y[i];
}
inline void scale(double a, LevelVector& x) {
  for (double& v : x) v *= a;
}
/// z = x .* y (element-wise)
inline void multiply(const LevelVector& x, const LevelVector& y, LevelVector& z) {
  const std::size_t n = z.size();
  for (std::size_t i = 0; i < n; ++i) z[i] = x[i] * y[i];
}

/// The sum of term(i), i = 0..count-1, in four interleaved partial sums added in a fixed order:
/// reproducible, and not bound by the latency of one running sum (which the compiler may not
/// reassociate). term may also write the vectors it reads, which fuses a sweep with its sum.
template <class Term>
double sum4(std::size_t count, Term&& term) {
  double s[4] = {};
  std::size_t i = 0;
  for (; i + 4 <= count; i += 4)
    for (std::size_t k = 0; k < 4; ++k) s[k] += term(i + k);
  for (; i < count; ++i) s[0] += term(i);
  return (s[0] + s[1]) + (s[2] + s[3]);
}

/// Sets the entries of the Dirichlet nodes (mask 1) to zero: defects and corrections live in
/// the space of functions vanishing there.
inline void filter(const std::vector<char>& dirichlet, LevelVector& v) {
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i)
    if (dirichlet[i]) v[i] = 0.0;
}

}  // namespace quilt
