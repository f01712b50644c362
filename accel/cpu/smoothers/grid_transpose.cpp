#include "accel/cpu/smoothers/grid_transpose.hpp"

#include <algorithm>
#include <cstddef>

namespace quilt::accel::cpu {

template <class T>
void transpose_grid(int macros, int n, const T* in, T* out) {
  // Tiles small enough that the rows of a tile being read and written stay in L1.
  constexpr int kTile = 32;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  for (int m = 0; m < macros; ++m) {
    const T* src = in + m * nn;
    T* dst = out + m * nn;
    for (int j0 = 0; j0 < n; j0 += kTile)
      for (int i0 = 0; i0 < n; i0 += kTile)
        for (int j = j0; j < std::min(n, j0 + kTile); ++j)
          for (int i = i0; i < std::min(n, i0 + kTile); ++i)
            dst[j + static_cast<std::size_t>(i) * n] = src[i + static_cast<std::size_t>(j) * n];
  }
}

template <class T>
BandedMatrix<T> grid_transposed(const BandedMatrix<T>& A) {
  BandedMatrix<T> At(A.macros, A.n);
  for (int k = 0; k < kBands; ++k) {
    const int swapped = band_index(k / 3 - 1, k % 3 - 1);  // (di, dj) -> (dj, di)
    transpose_grid(A.macros, A.n, A.band[k].data(), At.band[swapped].data());
  }
  return At;
}

template void transpose_grid(int, int, const float*, float*);
template void transpose_grid(int, int, const double*, double*);
template BandedMatrix<float> grid_transposed(const BandedMatrix<float>&);
template BandedMatrix<double> grid_transposed(const BandedMatrix<double>&);

}  // namespace quilt::accel::cpu
