#include "solvers/local_levels.hpp"

#include <algorithm>

#include "accel/cpu/galerkin.hpp"
#include "solvers/solver_error.hpp"

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
                                     const accel::BandedMatrix<double>& fine,
                                     const accel::StencilZones<double>* fine_zones)
    : h_(&h), level_(level), hybrid_(h.level(level).local_rediscretised.macros > 0) {
  const int macros = h.level(level).matrix.macros;
  const int coarsest = std::max(0, std::min(local_coarse_level, level));
  if (fine_zones != nullptr && fine_zones->all() && !hybrid_ &&
      fine.n >= accel::cpu::kZonedGalerkinMinNodes) {
    for (int k = coarsest; k < level; ++k) {
      const int n = accel::nodes_per_side(k);
      levels_.push_back(n > accel::cpu::kZonedGalerkinMinNodes
                            ? accel::BandedMatrix<double>::shape_only(macros, n)
                            : accel::BandedMatrix<double>(macros, n));
    }
    zones_.resize(levels_.size());
    coarsen_zones(*fine_zones);
    return;
  }
  for (int k = coarsest; k < level; ++k) levels_.emplace_back(macros, accel::nodes_per_side(k));
  // The part coarsened by Galerkin products, A - R, when there is a rediscretised part R; else
  // the local matrix itself, read where the caller has it (a copy was 15 % of the peak memory
  // of a Poisson solve).
  if (hybrid_)
    for (int k = level; k > coarsest; --k) galerkin_.emplace_back(macros, accel::nodes_per_side(k));
  update(fine);
}

void LocalCoarseLevels::coarsen_zones(const accel::StencilZones<double>& fine) {
  // Level c + 1 (the fine matrix above the last) in zone form while its grid is large enough,
  // else in bands.
  const accel::StencilZones<double>* above = &fine;
  for (int c = static_cast<int>(levels_.size()) - 1; c >= 0; --c) {
    accel::BandedMatrix<double>& out = levels_[c];
    if (above != nullptr && above->n >= accel::cpu::kZonedGalerkinMinNodes) {
      zones_[c] = accel::cpu::galerkin_coarse_zones(*above);
      if (out.has_bands()) accel::expand_zones(zones_[c], out);
      above = &zones_[c];
      continue;
    }
    accel::cpu::galerkin_coarse(levels_[c + 1], out);
    accel::detect_stencil_zones(out, zones_[c]);
    above = nullptr;
  }
}

void LocalCoarseLevels::update(const accel::BandedMatrix<double>& fine) {
  if (!zones_.empty()) {
    const accel::StencilZones<double> fine_zones = accel::detect_stencil_zones(fine);
    if (!fine_zones.all())
      throw SolverError(
          "LocalCoarseLevels::update: levels made in zone form need a fine matrix "
          "that is zoned on every macro");
    coarsen_zones(fine_zones);
    return;
  }
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
