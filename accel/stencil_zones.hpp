#pragma once
// Constant-stencil form of a batch of band matrices (design.md §7; FEAST's SBBLAS, Becker 2007,
// Göddeke 2010: a macro that is an affine image of the unit square carrying a constant-
// coefficient operator has the same 9-point stencil at every interior node, so a kernel may read
// 9 numbers instead of 9 bands).
//
// The rows of a macro's matrix are not all equal even then: the first and last grid lines carry
// the macro boundary (Dirichlet unit rows, half stencils of a type-0 matrix, the neighbour's
// share in a local matrix), and a Galerkin coarse level (accel/cpu/galerkin.hpp) differs on the
// second lines too, where P^T A P reaches the boundary rows of the finer level. What is constant
// is the row as a function of its *zone*: along each axis the positions 0, 1, the middle
// [2, n-3], n-2 and n-1. A macro is zoned when every row equals (bitwise) the stencil of its zone
// in x times its zone in y, 5 x 5 zones of 9 entries; such a macro is stored as those 225
// numbers, and a kernel computes bitwise what it computes from the bands (same products, same
// order of summation).
//
// Detection is exact (==), never a tolerance: a macro whose geometry or coefficients vary by one
// ulp keeps its bands. It is made on the final matrix (after the shared-node sums and the
// Dirichlet rows) and is not updated behind the caller's back: whoever changes the bands detects
// again.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "accel/banded_matrix.hpp"

namespace quilt::accel {

/// Zones along one axis: 0, 1, the middle, n-2, n-1.
inline constexpr int kZonesPerAxis = 5;
inline constexpr int kMiddleZone = 2;
/// Grids below this size have no middle worth a kernel of its own: every row is its own zone.
inline constexpr int kMinZonedNodes = 9;

/// Zone of position i on a grid line of n nodes (n >= kMinZonedNodes).
constexpr int zone_of(int i, int n) {
  return i < 2 ? i : i > n - 3 ? kZonesPerAxis - (n - i) : kMiddleZone;
}

template <class T>
struct StencilZones {
  /// One stencil (the 9 band entries of a row) per zone, zone (zx, zy) at zy * 5 + zx.
  using Zones = std::array<std::array<T, kBands>, kZonesPerAxis * kZonesPerAxis>;

  int macros = 0;
  int n = 0;
  std::vector<char> zoned;   ///< per macro: 1 if its rows are the stencils of `zones`
  std::vector<Zones> zones;  ///< per macro (meaningful where zoned)

  bool is_zoned(int m) const { return !zoned.empty() && zoned[m] != 0; }
  /// Any macro zoned (kernels take the band path for the whole batch otherwise).
  bool any() const {
    for (char z : zoned)
      if (z) return true;
    return false;
  }
  bool all() const {
    if (zoned.empty()) return false;
    for (char z : zoned)
      if (!z) return false;
    return true;
  }
  const std::array<T, kBands>& stencil(int m, int zx, int zy) const {
    return zones[m][zy * kZonesPerAxis + zx];
  }

  /// The same zones with entries converted to U (exact for the stencils of a converted matrix:
  /// rounding bitwise equal numbers gives bitwise equal numbers).
  template <class U>
  StencilZones<U> converted() const {
    StencilZones<U> out;
    out.assign(*this);
    return out;
  }
  /// The zones of `source` converted to T (exact, as converted()), in this storage: no
  /// allocation when it had the same shape.
  template <class U>
  void assign(const StencilZones<U>& source) {
    macros = source.macros;
    n = source.n;
    zoned = source.zoned;
    zones.resize(source.zones.size());
    for (std::size_t m = 0; m < zones.size(); ++m)
      for (std::size_t z = 0; z < zones[m].size(); ++z)
        for (int k = 0; k < kBands; ++k) zones[m][z][k] = static_cast<T>(source.zones[m][z][k]);
  }
};

/// a and b have the same bits (so -0 differs from 0 and a NaN may equal itself): "bitwise equal
/// rows" taken literally, so that a kernel reading the zone computes exactly what the band gives.
/// (memcmp, not std::bit_cast: nvcc compiles the cuda target, which includes this, as C++17.)
template <class T>
bool same_bits(T a, T b) {
  static_assert(std::is_trivially_copyable_v<T>);
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// The representative row of zone (zx, zy): the zone's first position on each axis, 0, 1, 2,
/// n-2, n-1.
constexpr std::size_t zone_row(int zx, int zy, int n) {
  const auto position = [n](int z) { return z <= kMiddleZone ? z : n - kZonesPerAxis + z; };
  return static_cast<std::size_t>(position(zx)) + static_cast<std::size_t>(position(zy)) * n;
}

/// The bits of a float or double as an unsigned integer of its size.
template <class T>
auto bits_of(T v) {
  using Bits = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  static_assert(sizeof(Bits) == sizeof(T) && std::is_trivially_copyable_v<T>);
  Bits b;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}

/// Whether every row of macro m of A is bitwise its zone's representative row (false for
/// n < kMinZonedNodes). Reads the bands once; allocates nothing. The middle of each grid line is
/// compared as integers without an exit per entry, so the loop vectorises (a set-up reads every
/// band of every level through it, several times).
template <class T>
bool is_zoned_macro(const BandedMatrix<T>& A, int m) {
  const int n = A.n;
  if (n < kMinZonedNodes) return false;
  for (int k = 0; k < kBands; ++k) {
    const T* band = A.band[k].data() + m * A.rows_per_macro();
    for (int j = 0; j < n; ++j) {
      const T* row = band + static_cast<std::size_t>(j) * n;
      const int zy = zone_of(j, n);
      T zone[kZonesPerAxis];
      for (int zx = 0; zx < kZonesPerAxis; ++zx) zone[zx] = band[zone_row(zx, zy, n)];
      for (int i : {0, 1, n - 2, n - 1})
        if (!same_bits(row[i], zone[zone_of(i, n)])) return false;
      using Bits = decltype(bits_of(T{}));
      const Bits middle = bits_of(zone[kMiddleZone]);
      Bits differ = 0;
      for (int i = 2; i < n - 2; ++i) differ |= bits_of(row[i]) ^ middle;
      if (differ != 0) return false;
    }
  }
  return true;
}

/// The zones of every macro of A whose rows are constant per zone (bitwise) into `out`; the
/// others are marked not zoned. A grid with n < kMinZonedNodes has no zoned macro. Allocates only
/// when `out` had another shape (a refresh of the same matrix structure allocates nothing).
template <class T>
void detect_stencil_zones(const BandedMatrix<T>& A, StencilZones<T>& out) {
  out.macros = A.macros;
  out.n = A.n;
  out.zoned.assign(A.macros, 0);
  out.zones.resize(A.macros);
  for (int m = 0; m < A.macros; ++m) {
    if (!is_zoned_macro(A, m)) continue;
    out.zoned[m] = 1;
    for (int zy = 0; zy < kZonesPerAxis; ++zy)
      for (int zx = 0; zx < kZonesPerAxis; ++zx)
        for (int k = 0; k < kBands; ++k)
          out.zones[m][zy * kZonesPerAxis + zx][k] = A.at(k, m, zone_row(zx, zy, A.n));
  }
}

/// The bands of a batch whose every macro is zoned, every row its zone's stencil, into A (z.macros
/// macros of n = z.n, with bands): the inverse of detect_stencil_zones on such a batch.
template <class T>
void expand_zones(const StencilZones<T>& z, BandedMatrix<T>& A) {
  const int n = z.n;
  for (int m = 0; m < z.macros; ++m)
    for (int k = 0; k < kBands; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          A.at(k, m, i + static_cast<std::size_t>(j) * n) =
              z.stencil(m, zone_of(i, n), zone_of(j, n))[k];
}

template <class T>
StencilZones<T> detect_stencil_zones(const BandedMatrix<T>& A) {
  StencilZones<T> out;
  detect_stencil_zones(A, out);
  return out;
}

}  // namespace quilt::accel
