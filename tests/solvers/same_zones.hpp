#pragma once
// Bitwise comparison of stencil zones for the solver tests (accel/stencil_zones.hpp).
#include <cstring>

#include "accel/stencil_zones.hpp"

/// Same shape, same zoned macros, and the zones of every zoned macro with the same bits.
inline bool same_zones(const quilt::accel::StencilZones<double>& a,
                       const quilt::accel::StencilZones<double>& b) {
  if (a.macros != b.macros || a.n != b.n || a.zoned != b.zoned) return false;
  for (int m = 0; m < a.macros; ++m)
    if (a.is_zoned(m) && std::memcmp(&a.zones[m], &b.zones[m], sizeof(a.zones[m])) != 0)
      return false;
  return true;
}
