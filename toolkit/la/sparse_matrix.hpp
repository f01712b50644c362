#pragma once
// A square sparse matrix in compressed-row form (CSR), 0-based: the assembled global system as
// it leaves the band storage (solvers/global_system.hpp) for other programs (io/matrix_market).

#include <cstddef>
#include <vector>

namespace quilt {

struct SparseMatrix {
  std::size_t size = 0;                ///< rows = columns
  std::vector<std::size_t> row_start;  ///< size + 1 offsets into column/value
  std::vector<std::size_t> column;     ///< ascending within each row
  std::vector<double> value;

  std::size_t nonzeros() const { return value.size(); }
  /// y = A x (x and y of length size).
  void multiply(const std::vector<double>& x, std::vector<double>& y) const {
    y.assign(size, 0.0);
    for (std::size_t r = 0; r < size; ++r) {
      double s = 0.0;
      for (std::size_t t = row_start[r]; t < row_start[r + 1]; ++t) s += value[t] * x[column[t]];
      y[r] = s;
    }
  }
};

}  // namespace quilt
