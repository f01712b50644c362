#pragma once
// Q1 9-point band storage for a batch of macros on one level (design.md §4, §7).
//
// A macro at level L is a tensor-product grid of n x n nodes, n = 2^L + 1, numbered
// lexicographically: node (i, j) has index i + j*n, i along the macro's local x direction
// (vertex 0 -> vertex 1), j along local y (vertex 0 -> vertex 3). The bilinear element couples a
// node to its 8 neighbours, so every row has at most 9 entries, at the offsets
//     dj*n + di,  di, dj in {-1, 0, 1}.
// Band k = (dj + 1)*3 + (di + 1) holds, for every row r, the entry A(r, r + dj*n + di). Entries
// whose column would leave the grid (a neighbour across the macro boundary) are stored as 0, so
// kernels may read the band everywhere and only guard the vector access at the first and last
// n+1 rows.
//
// All macros of a batch have the same level and are stored one after another inside every band
// (struct of arrays): band[k][m*n*n + r]. One contiguous array per band is what lets a single
// kernel launch (or one vectorised loop) run over every macro of a rank.

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "accel/staggered_allocator.hpp"

namespace quilt::accel {

inline constexpr int kBands = 9;
inline constexpr int kCentre = 4;

/// Band index of the stencil position (di, dj), di, dj in {-1, 0, 1}.
constexpr int band_index(int di, int dj) {
  return (dj + 1) * 3 + (di + 1);
}
/// Row offset of band k on a grid with n nodes per side.
constexpr std::ptrdiff_t band_offset(int k, int n) {
  return static_cast<std::ptrdiff_t>(k / 3 - 1) * n + (k % 3 - 1);
}
/// Nodes per macro side on level L.
constexpr int nodes_per_side(int level) {
  return (1 << level) + 1;
}

template <class T>
struct BandedMatrix {
  int macros = 0;  ///< macros in the batch
  int n = 0;       ///< nodes per macro side
  /// In storage staggered within its pages: the kernels stream the bands side by side.
  std::array<StaggeredVector<T>, kBands> band;

  BandedMatrix() = default;
  BandedMatrix(int macros_, int n_) : macros(macros_), n(n_) {
    for (auto& b : band) b.assign(rows(), T(0));
  }
  /// The shape of a batch without band storage, for a batch whose every macro is zoned
  /// (accel/stencil_zones.hpp): its kernels, given the zones, read no band.
  static BandedMatrix shape_only(int macros_, int n_) {
    BandedMatrix A;
    A.macros = macros_;
    A.n = n_;
    return A;
  }
  /// False for a shape_only batch.
  bool has_bands() const { return band[0].size() == rows(); }
  /// This storage as a batch of `macros_` macros of side n_, its entries unspecified. The bands
  /// keep their capacity: a scratch batch shaped once for the largest batch then serves every
  /// smaller one (and the largest again) without allocating.
  void reshape(int macros_, int n_) {
    macros = macros_;
    n = n_;
    for (auto& b : band) b.resize(rows());
  }
  std::size_t rows_per_macro() const { return static_cast<std::size_t>(n) * n; }
  std::size_t rows() const { return rows_per_macro() * macros; }

  T& at(int k, int macro, std::size_t row) { return band[k][macro * rows_per_macro() + row]; }
  const T& at(int k, int macro, std::size_t row) const {
    return band[k][macro * rows_per_macro() + row];
  }

  void fill(T value) {
    for (auto& b : band) std::fill(b.begin(), b.end(), value);
  }
  /// The entries of `source` (same macros and n; converted to T) into this storage, which is
  /// not reallocated: the in-place form of converted(), for numbers refreshed per step.
  template <class U>
  void assign(const BandedMatrix<U>& source) {
    if (source.macros != macros || source.n != n)
      throw std::invalid_argument("BandedMatrix::assign: a batch of another shape");
    for (int k = 0; k < kBands; ++k)
      std::transform(source.band[k].begin(), source.band[k].end(), band[k].begin(),
                     [](U v) { return static_cast<T>(v); });
  }

  /// Macro m's rows of `source` (same n) into macro m's rows here; the other macros untouched.
  void assign_macro(const BandedMatrix& source, int m) {
    if (source.n != n || m >= source.macros || m >= macros)
      throw std::invalid_argument("BandedMatrix::assign_macro: a macro of another shape");
    const std::size_t first = m * rows_per_macro();
    for (int k = 0; k < kBands; ++k)
      std::copy_n(source.band[k].begin() + first, rows_per_macro(), band[k].begin() + first);
  }

  /// The same matrix with entries converted to U (e.g. double -> float for the local layer).
  template <class U>
  BandedMatrix<U> converted() const {
    BandedMatrix<U> out(macros, n);
    out.assign(*this);
    return out;
  }
};

}  // namespace quilt::accel
