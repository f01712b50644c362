#include "accel/cpu/smoothers/inverse_diagonal.hpp"

#include <cmath>

#include "accel/local_solver.hpp"

namespace quilt::accel::cpu {

std::string describe_row(int n, std::size_t row) {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  const std::size_t r = row % nn;
  return "macro " + std::to_string(row / nn) + ", node (" + std::to_string(r % n) + ", " +
         std::to_string(r / n) + ")";
}

template <class T>
void inverse_diagonal(const BandedMatrix<T>& A, std::vector<T>& inv) {
  for (std::size_t r = 0; r < A.rows(); ++r) {
    const double d = A.band[kCentre][r];
    if (d == 0.0 || !std::isfinite(d))
      throw AccelError(describe_row(A.n, r) + " has a zero or non-finite diagonal entry (" +
                       std::to_string(d) + ")");
    inv[r] = static_cast<T>(1.0 / d);
  }
}

template void inverse_diagonal(const BandedMatrix<float>&, std::vector<float>&);
template void inverse_diagonal(const BandedMatrix<double>&, std::vector<double>&);

}  // namespace quilt::accel::cpu
