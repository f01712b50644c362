#include "accel/cpu/smoothers/diagonal_check.hpp"

#include <cmath>

#include "accel/local_solver.hpp"

namespace quilt::accel::cpu {

std::string describe_row(int n, std::size_t row) {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const std::size_t r = row % nn;
  return "macro " + std::to_string(row / nn) + ", node (" + std::to_string(r % n) + ", " +
         std::to_string(r / n) + ")";
}

namespace {

/// 1 / d rounded to T; throws naming `row` when d is zero or not finite.
template <class T>
T checked_inverse(double d, int n, std::size_t row) {
  if (d == 0.0 || !std::isfinite(d))
    throw AccelError(describe_row(n, row) + " has a zero or non-finite diagonal entry (" +
                     std::to_string(d) + ")");
  return static_cast<T>(1.0 / d);
}

}  // namespace

template <class T>
void check_diagonal(const BandedMatrix<T>& A, const StencilZones<T>& zones) {
  const int n = A.n;
  const std::size_t nn = A.rows_per_macro();
  for (int m = 0; m < A.macros; ++m) {
    const std::size_t base = m * nn;
    if (!zones.is_zoned(m)) {
      for (std::size_t r = base; r < base + nn; ++r) checked_inverse<T>(A.band[kCentre][r], n, r);
      continue;
    }
    for (int zy = 0; zy < kZonesPerAxis; ++zy)
      for (int zx = 0; zx < kZonesPerAxis; ++zx)
        checked_inverse<T>(zones.stencil(m, zx, zy)[kCentre], n, base + zone_row(zx, zy, n));
  }
}

template void check_diagonal(const BandedMatrix<float>&, const StencilZones<float>&);
template void check_diagonal(const BandedMatrix<double>&, const StencilZones<double>&);

}  // namespace quilt::accel::cpu
