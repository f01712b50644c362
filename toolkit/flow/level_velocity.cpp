#include "flow/level_velocity.hpp"

#include "accel/banded_matrix.hpp"

namespace quilt {

LevelVelocities inject_velocity(std::span<const double> u1, std::span<const double> u2, int macros,
                                int finest) {
  LevelVelocities levels;
  inject_velocity(u1, u2, macros, finest, levels);
  return levels;
}

void inject_velocity(std::span<const double> u1, std::span<const double> u2, int macros, int finest,
                     LevelVelocities& levels) {
  levels.resize(finest + 1);
  const int nf = accel::nodes_per_side(finest);
  const std::size_t nnf = static_cast<std::size_t>(nf) * nf;
  for (int l = 0; l <= finest; ++l) {
    const int n = accel::nodes_per_side(l);
    const int s = 1 << (finest - l);
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    for (auto& c : levels[l]) c.resize(nn * macros);
    for (int m = 0; m < macros; ++m)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const std::size_t fine =
              m * nnf + static_cast<std::size_t>(i) * s + static_cast<std::size_t>(j) * s * nf;
          levels[l][0][m * nn + i + static_cast<std::size_t>(j) * n] = u1[fine];
          levels[l][1][m * nn + i + static_cast<std::size_t>(j) * n] = u2[fine];
        }
  }
}

}  // namespace quilt
