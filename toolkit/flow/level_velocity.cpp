#include "flow/level_velocity.hpp"

#include "accel/banded_matrix.hpp"

namespace quilt {

LevelVelocities inject_velocity(std::span<const double> u1, std::span<const double> u2, int macros,
                                int finest) {
  LevelVelocities levels;
  inject_velocity(u1, u2, macros, finest, levels);
  return levels;
}

void inject(std::span<const double> fine, int macros, int finest, int level,
            std::span<double> coarse) {
  const int nf = accel::nodes_per_side(finest), n = accel::nodes_per_side(level);
  const int s = 1 << (finest - level);
  const std::size_t nnf = static_cast<std::size_t>(nf) * nf, nn = static_cast<std::size_t>(n) * n;
  for (int m = 0; m < macros; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        coarse[m * nn + i + static_cast<std::size_t>(j) * n] =
            fine[m * nnf + static_cast<std::size_t>(i) * s + static_cast<std::size_t>(j) * s * nf];
}

void inject_velocity(std::span<const double> u1, std::span<const double> u2, int macros, int finest,
                     LevelVelocities& levels) {
  levels.resize(finest + 1);
  for (int l = 0; l <= finest; ++l) {
    const int n = accel::nodes_per_side(l);
    for (auto& c : levels[l]) c.resize(static_cast<std::size_t>(n) * n * macros);
    inject(u1, macros, finest, l, levels[l][0]);
    inject(u2, macros, finest, l, levels[l][1]);
  }
}

}  // namespace quilt
