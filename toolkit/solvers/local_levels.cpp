#include "solvers/local_levels.hpp"

#include <algorithm>
#include <iterator>

#include "accel/cpu/galerkin.hpp"

namespace quilt {
namespace {

/// a += b on every entry.
void add(const accel::BandedMatrix<double>& b, accel::BandedMatrix<double>& a) {
  for (int k = 0; k < accel::kBands; ++k)
    std::transform(a.band[k].begin(), a.band[k].end(), b.band[k].begin(), a.band[k].begin(),
                   [](double x, double y) { return x + y; });
}

}  // namespace

std::vector<accel::BandedMatrix<double>> local_coarse_levels(const LevelHierarchy& h, int level,
                                                             int local_coarse_level) {
  const GlobalLevel& fine = h.level(level);
  const bool hybrid = fine.local_rediscretised.macros > 0;
  // The part coarsened by Galerkin products: the whole local matrix, or A - R.
  accel::BandedMatrix<double> galerkin = fine.local_matrix;
  if (hybrid)
    for (int k = 0; k < accel::kBands; ++k)
      for (std::size_t r = 0; r < galerkin.rows(); ++r)
        galerkin.band[k][r] -= fine.local_rediscretised.band[k][r];
  std::vector<accel::BandedMatrix<double>> down;  // finest-but-one first
  for (int k = level - 1; k >= std::max(0, std::min(local_coarse_level, level)); --k) {
    galerkin = accel::cpu::galerkin_coarse(galerkin);
    down.push_back(galerkin);
    if (hybrid) add(h.level(k).local_rediscretised, down.back());
  }
  return {std::make_move_iterator(down.rbegin()), std::make_move_iterator(down.rend())};
}

}  // namespace quilt
