#include "accel/cpu/galerkin.hpp"

#include <string>

#include "accel/local_solver.hpp"
#include "accel/stencil_zones.hpp"

namespace quilt::accel::cpu {

namespace {

// 1D weights of the bilinear P: fine node 2i + a takes w[a + 1] of coarse node i.
constexpr double w[3] = {0.5, 1.0, 0.5};

/// Column J = (ci, cj) of P^T A P on macro m: its entries in the rows of J's coarse neighbours.
/// Interior: ci, cj in [2, n_c - 3], where the 5 x 5 fine patch and the columns it reaches lie
/// inside the grid, so that no bound is tested. With the loops over the patch unrolled, every
/// test of a term's position and every weight is then a constant: a product at n = 257 with
/// variable bands took 21 instead of 78 ms (39 unrolled by the compiler's own choice). The same
/// terms are summed in the same order either way, so the result is bitwise the same.
template <bool Interior>
void galerkin_column(const BandedMatrix<double>& fine, int m, int ci, int cj,
                     BandedMatrix<double>& coarse) {
  const int nf = fine.n;
  const int nc = coarse.n;
  const std::size_t centre = m * fine.rows_per_macro() + 2 * ci + std::size_t(2 * cj) * nf;
  const auto inside = [](int i, int n) { return Interior || (i >= 0 && i < n); };
  // v = P e_J on the 3x3 fine patch around (2ci, 2cj), then u = A v on the 5x5 patch.
  double u[5][5] = {};
#pragma GCC unroll 5
  for (int b = -2; b <= 2; ++b)
#pragma GCC unroll 5
    for (int a5 = -2; a5 <= 2; ++a5) {
      const int fi = 2 * ci + a5;
      const int fj = 2 * cj + b;
      if (!inside(fi, nf) || !inside(fj, nf)) continue;
      const std::ptrdiff_t row = a5 + std::ptrdiff_t(b) * nf;
      double s = 0.0;
#pragma GCC unroll 9
      for (int k = 0; k < kBands; ++k) {
        const int qa = a5 + k % 3 - 1;  // column offset from (2ci, 2cj)
        const int qb = b + k / 3 - 1;
        if (qa < -1 || qa > 1 || qb < -1 || qb > 1) continue;
        if (!inside(fi + k % 3 - 1, nf) || !inside(fj + k / 3 - 1, nf)) continue;
        s += fine.band[k][centre + row] * w[qa + 1] * w[qb + 1];
      }
      u[b + 2][a5 + 2] = s;
    }
  // A_c(I, J) = sum_p P(p, I) u(p) for the coarse neighbours I of J.
  for (int dj = -1; dj <= 1; ++dj)
    for (int di = -1; di <= 1; ++di) {
      const int ii = ci + di;
      const int ij = cj + dj;
      if (!inside(ii, nc) || !inside(ij, nc)) continue;
      double s = 0.0;
      for (int b = -1; b <= 1; ++b)
        for (int a3 = -1; a3 <= 1; ++a3) {
          const int pa = 2 * di + a3;  // fine offset from (2ci, 2cj)
          const int pb = 2 * dj + b;
          if (pa < -2 || pa > 2 || pb < -2 || pb > 2) continue;
          s += w[a3 + 1] * w[b + 1] * u[pb + 2][pa + 2];
        }
      coarse.at(band_index(-di, -dj), m, ii + std::size_t(ij) * nc) = s;
    }
}

/// galerkin_column on any column: the interior form where it applies.
void any_column(const BandedMatrix<double>& fine, int m, int ci, int cj,
                BandedMatrix<double>& coarse) {
  const int nc = coarse.n;
  if (ci >= 2 && ci <= nc - 3 && cj >= 2 && cj <= nc - 3)
    galerkin_column<true>(fine, m, ci, cj, coarse);
  else
    galerkin_column<false>(fine, m, ci, cj, coarse);
}

/// A coarse node on a fine Dirichlet row keeps the unit row.
void keep_unit_row(const BandedMatrix<double>& fine, int m, int ci, int cj,
                   BandedMatrix<double>& coarse) {
  const int nf = fine.n;
  const std::size_t fine_row = 2 * ci + std::size_t(2 * cj) * nf;
  for (int k = 0; k < kBands; ++k)
    if (k != kCentre && fine.at(k, m, fine_row) != 0.0) return;
  const std::size_t r = ci + std::size_t(cj) * coarse.n;
  for (int k = 0; k < kBands; ++k)
    coarse.at(k, m, r) = k == kCentre ? fine.at(k, m, fine_row) : 0.0;
}

/// A zoned fine macro (accel/stencil_zones.hpp) has a zoned coarse operator: a coarse row in
/// the middle zone, (ci, cj) in [2, n_c - 3]^2, reaches the fine rows [2 ci - 2, 2 ci + 2] in
/// [2, n_f - 3], the fine middle zone, and the same arithmetic on the same numbers gives the same
/// bits. So only the 25 representative rows are computed (from the 7 x 7 columns around them)
/// and copied over their zones: bitwise what the row-by-row product gives, at O(1) cost.
void zoned_macro(const BandedMatrix<double>& fine, int m, BandedMatrix<double>& coarse) {
  const int nc = coarse.n;
  const int columns[7] = {0, 1, 2, 3, nc - 3, nc - 2, nc - 1};
  for (int cj : columns)
    for (int ci : columns) any_column(fine, m, ci, cj, coarse);
  const int rows[kZonesPerAxis] = {0, 1, 2, nc - 2, nc - 1};
  for (int cj : rows)
    for (int ci : rows) keep_unit_row(fine, m, ci, cj, coarse);
  for (int k = 0; k < kBands; ++k) {
    double* band = coarse.band[k].data() + m * coarse.rows_per_macro();
    for (int cj = 0; cj < nc; ++cj) {
      const int zy = zone_of(cj, nc);
      double zone[kZonesPerAxis];
      for (int zx = 0; zx < kZonesPerAxis; ++zx) zone[zx] = band[zone_row(zx, zy, nc)];
      for (int ci = 0; ci < nc; ++ci) band[ci + std::size_t(cj) * nc] = zone[zone_of(ci, nc)];
    }
  }
}

}  // namespace

StencilZones<double> galerkin_coarse_zones(const StencilZones<double>& fine) {
  if (fine.n < kZonedGalerkinMinNodes || fine.n % 2 == 0 || !fine.all())
    throw AccelError("galerkin_coarse_zones: needs every macro zoned on an odd grid of at least " +
                     std::to_string(kZonedGalerkinMinNodes) +
                     " nodes, got n = " + std::to_string(fine.n));
  StencilZones<double> model_zones = fine;
  model_zones.n = kZonedGalerkinMinNodes;
  BandedMatrix<double> model(fine.macros, kZonedGalerkinMinNodes);
  expand_zones(model_zones, model);
  StencilZones<double> coarse = detect_stencil_zones(galerkin_coarse(model));
  if (!coarse.all())
    throw AccelError("galerkin_coarse_zones: the coarse operator of a zoned macro is not zoned");
  coarse.n = (fine.n + 1) / 2;
  return coarse;
}

BandedMatrix<double> galerkin_coarse(const BandedMatrix<double>& fine) {
  BandedMatrix<double> coarse(fine.macros, fine.n < 3 ? 0 : (fine.n + 1) / 2);
  galerkin_coarse(fine, coarse);
  return coarse;
}

void galerkin_coarse(const BandedMatrix<double>& fine, BandedMatrix<double>& coarse) {
  const int nf = fine.n;
  if (nf < 3 || nf % 2 == 0)
    throw AccelError("galerkin_coarse: the fine grid needs an odd n >= 3, got " +
                     std::to_string(nf));
  const int nc = (nf + 1) / 2;
  if (coarse.macros != fine.macros || coarse.n != nc)
    throw AccelError("galerkin_coarse: the coarse storage has " + std::to_string(coarse.macros) +
                     " macros of n = " + std::to_string(coarse.n) + ", expected " +
                     std::to_string(fine.macros) + " of n = " + std::to_string(nc));
  for (int m = 0; m < fine.macros; ++m) {
    if (nc >= kMinZonedNodes && is_zoned_macro(fine, m)) {
      zoned_macro(fine, m, coarse);
      continue;
    }
    for (int cj = 0; cj < nc; ++cj)
      for (int ci = 0; ci < nc; ++ci) any_column(fine, m, ci, cj, coarse);
    for (int cj = 0; cj < nc; ++cj)
      for (int ci = 0; ci < nc; ++ci) keep_unit_row(fine, m, ci, cj, coarse);
  }
}

}  // namespace quilt::accel::cpu
