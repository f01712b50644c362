#pragma once
// The coarse levels of the local multigrid that smooths global level l (design.md §7): one
// batch of banded matrices per level local_coarse..l-1, all macros of the rank.
//
// Galerkin products P^T A P of the local matrix are the rule: the local matrix truncates the
// global stencil at the macro boundary, a Robin-like term of strength ~1/h that rediscretisation
// on a coarser grid misrepresents, so rediscretised local matrices are not nested and the local
// V-cycle diverges for L >= 5 (accel/cpu/galerkin.hpp). Galerkin coarsening of a convection-
// dominated operator, however, keeps the fine grid's SUPG streamline diffusion on every coarse
// level, where the mesh Peclet number doubles per level: the coarse operators lose diagonal
// dominance and every smoother diverges on them (measured with bench/bench_smoothers.cpp on the
// DFG outflow macros from L = 4). Where the hierarchy has a rediscretised part R (convection and
// SUPG, assembled on every level with that level's h and linearisation velocity), the coarse
// levels are hybrid, as FEAT3 assembles its Burgers operator on every level:
//   A_k = (P^T)^(l-k) (A_l - R_l) P^(l-k) + R_k,
// Galerkin for the diffusion (and mass) part with its boundary coupling, R rediscretised.

#include <vector>

#include "accel/banded_matrix.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

/// The local levels below global level `level` of h, coarsest (local_coarse_level) first: the
/// storage made once, the numbers recomputed by update() after LevelHierarchy::assemble. `fine`
/// is the local matrix of `level` (LevelHierarchy::local_matrix), which the hierarchy does not
/// keep.
///
/// Given the zones of a fine matrix whose every macro is zoned (with at least
/// kZonedGalerkinMinNodes nodes per side, and no rediscretised part), the
/// levels are made in zone form: the zones of each Galerkin level from those of the level above
/// (accel::cpu::galerkin_coarse_zones), the levels with more than kZonedGalerkinMinNodes nodes
/// per side kept BandedMatrix::shape_only, the small ones in bands (the coarsest is factorised
/// from them): bitwise the zones and bands of the band products, without their O(n^2) storage,
/// for a local solver that sweeps from zones alone (LocalSolver::setup_zoned).
class LocalCoarseLevels {
 public:
  LocalCoarseLevels(const LevelHierarchy& h, int level, int local_coarse_level,
                    const accel::BandedMatrix<double>& fine,
                    const accel::StencilZones<double>* fine_zones = nullptr);
  /// In zone form, fine must be zoned on every macro as well (SolverError otherwise).
  void update(const accel::BandedMatrix<double>& fine);
  const std::vector<accel::BandedMatrix<double>>& matrices() const { return levels_; }
  /// In zone form, the zones of every level, coarsest first (else empty).
  const std::vector<accel::StencilZones<double>>& zones() const { return zones_; }

 private:
  /// The zone form's levels from the zones of the fine matrix.
  void coarsen_zones(const accel::StencilZones<double>& fine);

  const LevelHierarchy* h_;
  int level_;
  bool hybrid_;
  std::vector<accel::BandedMatrix<double>> levels_;  ///< coarsest first
  std::vector<accel::StencilZones<double>> zones_;   ///< coarsest first, in zone form
  /// The Galerkin part A - R of the hybrid levels, finest first (empty without R).
  std::vector<accel::BandedMatrix<double>> galerkin_;
};

/// A copy of LocalCoarseLevels(h, level, local_coarse_level).matrices().
std::vector<accel::BandedMatrix<double>> local_coarse_levels(const LevelHierarchy& h, int level,
                                                             int local_coarse_level);

}  // namespace quilt
