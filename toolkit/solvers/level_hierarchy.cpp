#include "solvers/level_hierarchy.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "accel/cpu/band_kernels.hpp"
#include "mesh/macro_nodes.hpp"

namespace quilt {

LevelHierarchy::LevelHierarchy(const DistributedMesh& dm, const Communicator& comm, int finest,
                               const std::vector<bool>& dirichlet_parts, LocalCoarsening coarsening,
                               std::optional<ZoneFormLevels> zone_form)
    : dm_(&dm),
      comm_(&comm),
      dirichlet_parts_(dirichlet_parts),
      rediscretised_part_(coarsening == LocalCoarsening::hybrid),
      zone_form_above_(zone_form ? std::max(zone_form->above, 0) : finest) {
  if (zone_form && rediscretised_part_)
    throw std::invalid_argument(
        "LevelHierarchy: zone form (ZoneFormLevels) with a rediscretised part, whose local "
        "matrices need bands");
  levels_.resize(finest + 1);
  geometry_.resize(finest + 1);
  still_zero_.assign(finest + 1, 1);
  const int macros = dm.num_local();
  for (int l = 0; l <= finest; ++l) {
    GlobalLevel& level = levels_[l];
    level.level = l;
    level.n = accel::nodes_per_side(l);
    level.shared = std::make_unique<SharedNodes>(dm, comm, l);
    level.matrix = l > zone_form_above_ ? accel::BandedMatrix<double>::shape_only(macros, level.n)
                                        : accel::BandedMatrix<double>(macros, level.n);
    if (rediscretised_part_)
      level.local_rediscretised = accel::BandedMatrix<double>(macros, level.n);
    level.dirichlet = dirichlet_mask(level.n);
    for (int m = 0; m < macros; ++m)
      geometry_[l].push_back(refine_macro(dm.mesh, dm.charts, dm.macros[m], l));
  }
}

std::vector<char> LevelHierarchy::dirichlet_mask(int n) const {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  std::vector<char> dirichlet(nn * dm_->num_local(), 0);
  for (int m = 0; m < dm_->num_local(); ++m) {
    const auto mask = boundary_node_mask(dm_->mesh, dm_->macros[m], n, dirichlet_parts_);
    std::copy(mask.begin(), mask.end(), dirichlet.begin() + m * nn);
  }
  return dirichlet;
}

LevelHierarchy::LevelHierarchy(const DistributedMesh& dm, const Communicator& comm, int finest,
                               const std::vector<bool>& dirichlet_parts,
                               const MacroAssembler& assemble, const MacroAssembler& rediscretised)
    : LevelHierarchy(dm, comm, finest, dirichlet_parts,
                     rediscretised ? LocalCoarsening::hybrid : LocalCoarsening::galerkin) {
  this->assemble(assemble, rediscretised);
}

LevelHierarchy::LevelHierarchy(const DistributedMesh& dm, const Communicator& comm, int finest,
                               const std::vector<bool>& dirichlet_parts,
                               const MacroAssembler& assemble, ZoneFormLevels zone_form)
    : LevelHierarchy(dm, comm, finest, dirichlet_parts, LocalCoarsening::galerkin, zone_form) {
  this->assemble(assemble);
}

void LevelHierarchy::assemble_levels(int first, int last, const MacroAssembler& assemble,
                                     const MacroAssembler& rediscretised) {
  if (static_cast<bool>(rediscretised) != rediscretised_part_)
    throw std::invalid_argument(
        rediscretised_part_
            ? "LevelHierarchy::assemble: the hierarchy has a rediscretised part; none was given"
            : "LevelHierarchy::assemble: a rediscretised part was given to a hierarchy without "
              "one");
  assemble_levels(first, last,
                  [&](const MacroGeometry& g, accel::BandedMatrix<double>& A,
                      accel::BandedMatrix<double>* part, int m) {
                    assemble(g, A, m);
                    if (part) rediscretised(g, *part, m);
                  });
}

void LevelHierarchy::assemble_levels(int first, int last, const MacroPairAssembler& assemble) {
  if (geometry_.empty()) geometry_released("assemble_levels");
  if (first < 0 || last > finest() || first > last)
    throw std::invalid_argument("LevelHierarchy::assemble_levels: levels " + std::to_string(first) +
                                ".." + std::to_string(last) + " are not within 0.." +
                                std::to_string(finest()));
  for (int l = first; l <= last; ++l) {
    if (l > zone_form_above_) {
      assemble_zone_form(l, assemble);
      continue;
    }
    assemble_bands(l, assemble);
    if (!rediscretised_part_) continue;
    GlobalLevel& level = levels_[l];
    level.shared->make_local_matrices(level.local_rediscretised);
    for (std::size_t r = 0; r < level.dirichlet.size(); ++r)
      if (level.dirichlet[r])
        for (int k = 0; k < accel::kBands; ++k) level.local_rediscretised.band[k][r] = 0.0;
  }
}

void LevelHierarchy::assemble_bands(int l, const MacroPairAssembler& assemble) {
  GlobalLevel& level = levels_[l];
  if (!level.matrix.has_bands()) {  // released or in zone form: zeros again
    level.matrix = accel::BandedMatrix<double>(level.matrix.macros, level.n);
    still_zero_[l] = 1;
  }
  if (!still_zero_[l]) {
    level.matrix.fill(0.0);
    if (rediscretised_part_) level.local_rediscretised.fill(0.0);
  }
  still_zero_[l] = 0;
  accel::BandedMatrix<double>* part = rediscretised_part_ ? &level.local_rediscretised : nullptr;
  for (int m = 0; m < level.matrix.macros; ++m) assemble(geometry_[l][m], level.matrix, part, m);
  // The affine, constant-coefficient macros' products read 225 numbers instead of 9 bands.
  accel::detect_stencil_zones(level.matrix, level.zones);
}

void LevelHierarchy::assemble_zone_form(int l, const MacroPairAssembler& assemble) {
  GlobalLevel& level = levels_[l];
  const int macros = level.matrix.macros;
  accel::StencilZones<double>& zones = level.zones;
  zones.macros = macros;
  zones.n = level.n;
  zones.zoned.assign(macros, 0);
  zones.zones.resize(macros);
  // Each macro alone into one macro's storage (reused: its pages stay warm), kept as its zones
  // while it is zoned; the first macro that is not gets the level its bands.
  bool zoned = true;
  {
    accel::BandedMatrix<double> one(1, level.n);
    accel::StencilZones<double> found;
    for (int m = 0; m < macros && zoned; ++m) {
      if (m > 0) one.fill(0.0);
      assemble(geometry_[l][m], one, nullptr, 0);
      accel::detect_stencil_zones(one, found);
      zoned = found.is_zoned(0);
      if (zoned) zones.zones[m] = found.zones[0];
    }
  }
  // One form on every rank: the local matrix's zones are made from every rank's type-0 zones.
  if (comm_->max(zoned ? 0.0 : 1.0) == 0.0) {
    zones.zoned.assign(macros, 1);
    level.matrix = accel::BandedMatrix<double>::shape_only(macros, level.n);
    return;
  }
  assemble_bands(l, assemble);
}

void LevelHierarchy::release_zoned_bands(int l) {
  GlobalLevel& level = levels_.at(l);
  if (level.matrix.has_bands() && level.zones.all())
    level.matrix = accel::BandedMatrix<double>::shape_only(level.matrix.macros, level.n);
}

void LevelHierarchy::restore_bands(int l) {
  GlobalLevel& level = levels_.at(l);
  if (level.matrix.has_bands()) return;
  level.matrix = accel::BandedMatrix<double>(level.matrix.macros, level.n);
  accel::expand_zones(level.zones, level.matrix);
  still_zero_[l] = 0;
}

bool LevelHierarchy::in_zone_form(int l) const {
  const GlobalLevel& level = levels_.at(l);
  const bool zone_form = !level.matrix.has_bands() && level.zones.all();
  return comm_->max(zone_form ? 0.0 : 1.0) == 0.0;
}

void LevelHierarchy::local_matrix_zones(int l, accel::StencilZones<double>& out) const {
  out = {};
  if (!in_zone_form(l)) return;
  // Level 3, n = 9: the smallest grid with a middle zone (accel::kMinZonedNodes).
  constexpr int kProxyLevel = 3;
  const GlobalLevel& level = levels_[l];
  const int n = accel::nodes_per_side(kProxyLevel);
  static_assert(accel::nodes_per_side(kProxyLevel) == accel::kMinZonedNodes);
  accel::StencilZones<double> type0 = level.zones;
  type0.n = n;
  accel::BandedMatrix<double> proxy(level.matrix.macros, n);
  accel::expand_zones(type0, proxy);
  SharedNodes(*dm_, *comm_, kProxyLevel).make_local_matrices(proxy);
  set_unit_rows(dirichlet_mask(n), proxy);
  accel::detect_stencil_zones(proxy, out);
  out.n = level.n;
}

void LevelHierarchy::release_geometry() {
  geometry_.clear();
  geometry_.shrink_to_fit();
}

void LevelHierarchy::geometry_released(const char* who) {
  throw std::logic_error("LevelHierarchy::" + std::string(who) +
                         ": the node coordinates were released (release_geometry)");
}

void LevelHierarchy::require_bands(int l, const char* who) const {
  if (!levels_.at(l).matrix.has_bands())
    throw std::logic_error("LevelHierarchy::" + std::string(who) + ": level " + std::to_string(l) +
                           " has no bands (released, or assembled in zone form; restore_bands)");
}

accel::BandedMatrix<double> LevelHierarchy::local_matrix(int l) const {
  require_bands(l, "local_matrix");
  accel::BandedMatrix<double> out = levels_.at(l).matrix;
  finish_local_matrix(l, out);
  return out;
}

LevelHierarchy::EdgeRows LevelHierarchy::save_edge_rows(const accel::BandedMatrix<double>& A) {
  EdgeRows saved;
  const int n = A.n;
  for (int m = 0; m < A.macros; ++m)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; i += (j == 0 || j == n - 1 || i == n - 1) ? 1 : n - 1)
        saved.rows.push_back(m * A.rows_per_macro() + static_cast<std::size_t>(j) * n + i);
  saved.values.resize(saved.rows.size() * accel::kBands);
  for (int k = 0; k < accel::kBands; ++k)
    for (std::size_t r = 0; r < saved.rows.size(); ++r)
      saved.values[k * saved.rows.size() + r] = A.band[k][saved.rows[r]];
  return saved;
}

void LevelHierarchy::restore_edge_rows(const EdgeRows& saved, accel::BandedMatrix<double>& A) {
  for (int k = 0; k < accel::kBands; ++k)
    for (std::size_t r = 0; r < saved.rows.size(); ++r)
      A.band[k][saved.rows[r]] = saved.values[k * saved.rows.size() + r];
}

void LevelHierarchy::finish_local_matrix(int l, accel::BandedMatrix<double>& A) const {
  const GlobalLevel& level = levels_[l];
  level.shared->make_local_matrices(A);
  set_unit_rows(level.dirichlet, A);
}

void LevelHierarchy::set_unit_rows(const std::vector<char>& dirichlet,
                                   accel::BandedMatrix<double>& A) {
  for (std::size_t r = 0; r < dirichlet.size(); ++r)
    if (dirichlet[r])
      for (int k = 0; k < accel::kBands; ++k) A.band[k][r] = k == accel::kCentre ? 1.0 : 0.0;
}

void LevelOperator::apply(const LevelVector& x, LevelVector& y) const {
  accel::cpu::spmv(level_->matrix, level_->zones, x.data(), y.data());
  level_->shared->sum(y.data());
  const auto& dirichlet = level_->dirichlet;
  for (std::size_t i = 0; i < y.size(); ++i)
    if (dirichlet[i]) y[i] = x[i];
}

double LevelOperator::apply_dot(const LevelVector& x, LevelVector& y) const {
  accel::cpu::spmv(level_->matrix, level_->zones, x.data(), y.data());
  level_->shared->sum(y.data());
  // apply() would set the Dirichlet rows to x, and filter() then to 0.
  return filter_dot(y, x);
}

double LevelOperator::update_dot(double alpha, const LevelVector& p, const LevelVector& q,
                                 LevelVector& x, LevelVector& r) const {
  const double* __restrict pp = p.data();
  const double* __restrict pq = q.data();
  double* __restrict px = x.data();
  double* __restrict pr = r.data();
  const double plain = sum4(r.size(), [&](std::size_t i) {
    px[i] += alpha * pp[i];
    pr[i] += -alpha * pq[i];
    return pr[i] * pr[i];
  });
  const SharedNodes& shared = *level_->shared;
  return shared.comm().sum(plain + shared.local_dot_correction(pr, pr));
}

double LevelOperator::filter_dot(LevelVector& z, const LevelVector& r) const {
  const char* __restrict dirichlet = level_->dirichlet.data();
  const double* __restrict pr = r.data();
  double* __restrict pz = z.data();
  const double plain = sum4(z.size(), [&](std::size_t i) {
    pz[i] = dirichlet[i] ? 0.0 : pz[i];
    return pr[i] * pz[i];
  });
  const SharedNodes& shared = *level_->shared;
  return shared.comm().sum(plain + shared.local_dot_correction(pr, pz));
}

namespace {

/// d = W (b - d) with d = A x summed, 0 on Dirichlet nodes (no weight: W = I). FromZero: x = 0,
/// so d = W b without reading d (A 0 sums to +0 in every row, and b - (+0) = b exactly). W is 1
/// off the shared nodes: the sweep is unweighted, the shared nodes scaled after it.
template <bool FromZero>
void finish_defect(const std::vector<char>& dirichlet_flags, const LevelVector& b,
                   const SharedWeights* weight, LevelVector& d) {
  const char* __restrict dirichlet = dirichlet_flags.data();
  const double* __restrict pb = b.data();
  double* __restrict pd = d.data();
  const std::size_t size = d.size();
  for (std::size_t i = 0; i < size; ++i)
    pd[i] = dirichlet[i] ? 0.0 : (FromZero ? pb[i] : pb[i] - pd[i]);
  if (weight) weight->scale(pd);
}

}  // namespace

void LevelOperator::weighted_defect(const LevelVector& b, const LevelVector& x,
                                    const SharedWeights* weight, LevelVector& d) const {
  accel::cpu::spmv(level_->matrix, level_->zones, x.data(), d.data());
  level_->shared->sum(d.data());
  finish_defect<false>(level_->dirichlet, b, weight, d);
}

void LevelOperator::weighted_defect_at_zero(const LevelVector& b, const SharedWeights* weight,
                                            LevelVector& d) const {
  finish_defect<true>(level_->dirichlet, b, weight, d);
}

void LevelOperator::weighted_defect_pair(const LevelVector& b0, const LevelVector& x0,
                                         const LevelVector& b1, const LevelVector& x1,
                                         const SharedWeights* weight, LevelVector& d0,
                                         LevelVector& d1) const {
  accel::cpu::spmv_pair(level_->matrix, &level_->zones, x0.data(), x1.data(), d0.data(), d1.data());
  level_->shared->sum_pair(d0.data(), d1.data());
  finish_defect<false>(level_->dirichlet, b0, weight, d0);
  finish_defect<false>(level_->dirichlet, b1, weight, d1);
}

}  // namespace quilt
