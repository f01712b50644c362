#pragma once
// The linearisation velocity of the coarse levels' operators (design.md §8): the finest level's
// velocity injected into every level 0..L, node (i, j) of level l taking the value of node
// (i s, j s) of level L, s = 2^(L-l).

#include <array>
#include <span>
#include <vector>

#include "la/vector_ops.hpp"

namespace quilt {

/// coarse = the nodal field `fine` of level `finest` at the nodes of level `level` (every macro).
void inject(std::span<const double> fine, int macros, int finest, int level,
            std::span<double> coarse);

/// levels[l][c]: component c of the velocity on level l, for the `macros` macros of a rank.
using LevelVelocities = std::vector<std::array<LevelVector, 2>>;

LevelVelocities inject_velocity(std::span<const double> u1, std::span<const double> u2, int macros,
                                int finest);

/// The same into `levels`, whose storage is kept when it already has the right sizes.
void inject_velocity(std::span<const double> u1, std::span<const double> u2, int macros, int finest,
                     LevelVelocities& levels);

}  // namespace quilt
