#include "solvers/local_levels.hpp"

#include <algorithm>

#include "accel/cpu/galerkin.hpp"

namespace quilt {
namespace {

/// a += b on every entry.
void add(const accel::BandedMatrix<double>& b, accel::BandedMatrix<double>& a) {
  for (int k = 0; k < accel::kBands; ++k)
    std::transform(a.band[k].begin(), a.band[k].end(), b.band[k].begin(), a.band[k].begin(),
                   [](double x, double y) { return x + y; });
}

/// a -= b on every entry.
void subtract(const accel::BandedMatrix<double>& b, accel::BandedMatrix<double>& a) {
  for (int k = 0; k < accel::kBands; ++k)
    std::transform(a.band[k].begin(), a.band[k].end(), b.band[k].begin(), a.band[k].begin(),
                   [](double x, double y) { return x - y; });
}

}  // namespace

LocalCoarseLevels::LocalCoarseLevels(const LevelHierarchy& h, int level, int local_coarse_level,
                                     const accel::BandedMatrix<double>& fine)
    : h_(&h), level_(level), hybrid_(h.level(level).local_rediscretised.macros > 0) {
  const int macros = h.level(level).matrix.macros;
  const int coarsest = std::max(0, std::min(local_coarse_level, level));
  for (int k = coarsest; k < level; ++k) levels_.emplace_back(macros, accel::nodes_per_side(k));
  // The part coarsened by Galerkin products, A - R, when there is a rediscretised part R; else
  // the local matrix itself, read where the caller has it (a copy was 15 % of the peak memory
  // of a Poisson solve).
  if (hybrid_)
    for (int k = level; k > coarsest; --k) galerkin_.emplace_back(macros, accel::nodes_per_side(k));
  update(fine);
}

void LocalCoarseLevels::update(const accel::BandedMatrix<double>& fine) {
  if (!galerkin_.empty()) {  // hybrid, with coarse levels
    galerkin_.front().assign(fine);
    subtract(h_->level(level_).local_rediscretised, galerkin_.front());
  }
  // Level k = level - 1 - i is P^T (level k + 1) P of the Galerkin part, plus R_k if hybrid.
  const int count = static_cast<int>(levels_.size());
  for (int i = 0; i < count; ++i) {
    const int k = level_ - 1 - i;
    accel::BandedMatrix<double>& out = levels_[count - 1 - i];
    if (!hybrid_) {
      accel::cpu::galerkin_coarse(i == 0 ? fine : levels_[count - i], out);
      continue;
    }
    const bool last = i + 1 == count;
    accel::BandedMatrix<double>& coarse_part = last ? out : galerkin_[i + 1];
    accel::cpu::galerkin_coarse(galerkin_[i], coarse_part);
    if (!last) out.assign(coarse_part);
    add(h_->level(k).local_rediscretised, out);
  }
}

std::vector<accel::BandedMatrix<double>> local_coarse_levels(const LevelHierarchy& h, int level,
                                                             int local_coarse_level) {
  return LocalCoarseLevels(h, level, local_coarse_level, h.local_matrix(level)).matrices();
}

}  // namespace quilt
