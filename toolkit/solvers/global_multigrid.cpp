#include "solvers/global_multigrid.hpp"

#include <chrono>
#include <cmath>
#include <sstream>

#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/galerkin.hpp"
#include "accel/cpu/grid_transfer.hpp"
#include "mesh/macro_nodes.hpp"
#include "solvers/solver_error.hpp"

namespace quilt {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

double schwarz_damping(accel::SmootherType local) {
  return local == accel::SmootherType::jacobi ? 1.0 : 0.7;
}

int choose_coarse_level(const CoarseMesh& mesh, int finest, std::size_t threshold) {
  int lc = 0;
  for (int l = 1; l < finest; ++l)
    if (GlobalNumbering(mesh, l).size() <= threshold) lc = l;
  return lc;
}

GlobalMultigrid::GlobalMultigrid(const LevelHierarchy& hierarchy,
                                 const GlobalMultigridParams& params, LevelHierarchy* releasing)
    : hierarchy_(&hierarchy), params_(params) {
  const int finest = hierarchy.finest();
  params_.coarse_level = std::min(params_.coarse_level, finest);
  local_.resize(finest + 1);
  local_levels_.resize(finest + 1);
  work_.resize(finest + 1);
  inverse_sqrt_multiplicity_.resize(finest + 1);
  damping_.assign(finest + 1, 0.0);
  for (int l = 0; l <= finest; ++l) {
    const GlobalLevel& level = hierarchy.level(l);
    operators_.emplace_back(level);
    auto& w = inverse_sqrt_multiplicity_[l];
    w = level.shared->shared_inverse_multiplicity();
    for (double& v : w.values) v = std::sqrt(v);
  }
  // The local solvers finest first, then the work vectors.
  for (int l = finest; l > params_.coarse_level; --l) {
    const accel::LocalSolverParams local = local_params(l);
    damping_[l] = params_.damping.value_or(schwarz_damping(local.smoother));
    local_[l] = accel::make_local_solver(local);
    // The levels' local solves run one at a time: one set of work vectors serves them all.
    if (l < finest) local_[l]->share_work(*local_[finest]);
    set_up_local(l, releasing);
    // Their storage is for update(); dropped here, later allocations reuse its pages.
    if (!params_.updatable) local_levels_[l].reset();
    if (releasing) releasing->release_zoned_bands(l);
  }
  bool in_place = true;
  for (const auto& local : local_) in_place = in_place && (!local || local->solves_in_place());
  if (in_place) correction_ = &Work::defect;
  for (int l = 0; l <= finest; ++l) {
    const std::size_t size = hierarchy.level(l).matrix.rows();
    work_[l][0] = {LevelVector(size), LevelVector(in_place ? 0 : size), LevelVector(),
                   LevelVector()};
    if (l > 0) {
      const std::size_t coarse_size = hierarchy.level(l - 1).matrix.rows();
      work_[l][0].coarse_rhs.resize(coarse_size);
      work_[l][0].coarse_x.resize(coarse_size);
    }
    if (local_[l])
      local_[l]->pin_io(work_[l][0].defect.data(), (work_[l][0].*correction_).data(), size);
  }
  coarse_.emplace(hierarchy, params_.coarse_level, params_.coarse_root);
  if (params_.coarse_pair_root >= 0 && params_.coarse_pair_root != params_.coarse_root)
    coarse_pair_.emplace(hierarchy, params_.coarse_level, params_.coarse_pair_root);
}

void GlobalMultigrid::set_up_local(int l, LevelHierarchy* releasing) {
  if (set_up_local_from_zones(l)) return;
  if (releasing) releasing->restore_bands(l);
  const LevelHierarchy& hierarchy = *hierarchy_;
  // The local matrix for the set-up only (the local solver keeps its own converted copy), made
  // in the hierarchy's storage of level l: no copy of the bands.
  hierarchy.with_local_matrix(l, [&](const accel::BandedMatrix<double>& fine) {
    // The cpu target's zones of the local matrix, detected once here; a solver that sweeps
    // zoned levels from their zones alone gets its coarse levels in zone form (no bands).
    accel::StencilZones<double> fine_zones;
    if (params_.local.target == accel::Target::cpu) accel::detect_stencil_zones(fine, fine_zones);
    const bool zone_form = !params_.updatable && local_[l]->sweeps_from_zones_alone();
    local_levels_[l] = std::make_unique<LocalCoarseLevels>(hierarchy, l, params_.local_coarse_level,
                                                           fine, zone_form ? &fine_zones : nullptr);
    local_[l]->setup_zoned(local_matrices(l, fine), local_zones(l, fine_zones));
  });
}

bool GlobalMultigrid::set_up_local_from_zones(int l) {
  // The same on every rank (the parameters are), as the collective calls below need.
  if (params_.updatable || !local_[l]->sweeps_from_zones_alone()) return false;
  accel::StencilZones<double> fine_zones;
  hierarchy_->local_matrix_zones(l, fine_zones);
  if (hierarchy_->comm().max(fine_zones.all() ? 0.0 : 1.0) != 0.0) return false;
  const GlobalLevel& level = hierarchy_->level(l);
  auto fine = accel::BandedMatrix<double>::shape_only(level.matrix.macros, level.n);
  // Below kZonedGalerkinMinNodes LocalCoarseLevels coarsens the bands: expanded from the zones
  // (exact, every row is its zone's), on a grid of fewer than 17 x 17 nodes per macro.
  if (level.n < accel::cpu::kZonedGalerkinMinNodes) {
    fine = accel::BandedMatrix<double>(level.matrix.macros, level.n);
    accel::expand_zones(fine_zones, fine);
  }
  local_levels_[l] = std::make_unique<LocalCoarseLevels>(*hierarchy_, l, params_.local_coarse_level,
                                                         fine, &fine_zones);
  local_[l]->setup_zoned(local_matrices(l, fine), local_zones(l, fine_zones));
  return true;
}

accel::LocalSolverParams GlobalMultigrid::local_params(int l) const {
  accel::LocalSolverParams local = params_.local;
  if (!params_.auto_smoother) return local;
  bool shape_regular = true;
  for (int m = 0; shape_regular && m < hierarchy_->mesh().num_local(); ++m)
    shape_regular = max_element_aspect(hierarchy_->geometry(l, m)) <= kJacobiAspectLimit;
  // One choice on every rank: the solver does not depend on the partition.
  const Communicator& comm = hierarchy_->comm();
  if (comm.max(shape_regular ? 0.0 : 1.0) != 0.0) return local;
  // Jacobi sweeps a zoned macro from its 9 stencil values; on variable bands it streams them as
  // Gauss-Seidel does, which smooths better there (GlobalMultigridParams::auto_smoother).
  const bool zoned = hierarchy_->level(l).zones.all();
  const bool lexicographic = accel::natural_order(accel::SmootherType::gs, local.target) ==
                             accel::SweepOrder::lexicographic;
  local.smoother = lexicographic && comm.max(zoned ? 0.0 : 1.0) != 0.0
                       ? accel::SmootherType::gs
                       : accel::SmootherType::jacobi;
  local.ordering = accel::natural_order(local.smoother, local.target);
  local.damping.reset();
  return local;
}

std::vector<const accel::StencilZones<double>*> GlobalMultigrid::local_zones(
    int l, const accel::StencilZones<double>& fine_zones) const {
  std::vector<const accel::StencilZones<double>*> zones;
  const auto& coarse = local_levels_[l]->zones();  // empty unless in zone form
  for (std::size_t k = 0; k < local_levels_[l]->matrices().size(); ++k)
    zones.push_back(coarse.empty() ? nullptr : &coarse[k]);
  zones.push_back(fine_zones.macros > 0 ? &fine_zones : nullptr);
  return zones;
}

std::vector<const accel::BandedMatrix<double>*> GlobalMultigrid::local_matrices(
    int l, const accel::BandedMatrix<double>& fine) const {
  std::vector<const accel::BandedMatrix<double>*> levels;
  for (const auto& A : local_levels_[l]->matrices()) levels.push_back(&A);
  levels.push_back(&fine);
  return levels;
}

void GlobalMultigrid::update(CoarseFactorisation when) {
  if (!params_.updatable)
    throw SolverError(
        "GlobalMultigrid::update: set up with updatable = false, its local coarse levels were "
        "dropped after the set-up");
  for (int l = params_.coarse_level + 1; l <= hierarchy_->finest(); ++l) {
    hierarchy_->with_local_matrix(l, [&](const accel::BandedMatrix<double>& fine) {
      local_levels_[l]->update(fine);
      local_[l]->update(local_matrices(l, fine));
    });
  }
  coarse_->gather_numbers();
  if (coarse_pair_) coarse_pair_->gather_numbers();
  if (when == CoarseFactorisation::now) factorise_coarse();
}

void GlobalMultigrid::factorise_coarse() {
  // Each on its own root, side by side; the same numbers summed in the same order give both
  // roots bitwise the same factors.
  coarse_->factorise();
  if (coarse_pair_) coarse_pair_->factorise();
}

GlobalMultigrid::~GlobalMultigrid() = default;

void GlobalMultigrid::make_second_lane() {
  for (auto& lanes : work_) {
    const Work& first = lanes[0];
    Work& second = lanes[1];
    if (second.defect.size() == first.defect.size()) continue;
    second = {LevelVector(first.defect.size()), LevelVector(first.correction.size()),
              LevelVector(first.coarse_rhs.size()), LevelVector(first.coarse_x.size())};
  }
}

template <int Lanes>
void GlobalMultigrid::defects(int l, const Rhs<Lanes>& b, const Iterates<Lanes>& x,
                              const SharedWeights* weight, bool x_is_zero) {
  auto& w = work_[l];
  if (x_is_zero) {
    for (int q = 0; q < Lanes; ++q)
      operators_[l].weighted_defect_at_zero(*b[q], weight, w[q].defect);
    return;
  }
  if constexpr (Lanes == 1)
    operators_[l].weighted_defect(*b[0], *x[0], weight, w[0].defect);
  else
    operators_[l].weighted_defect_pair(*b[0], *x[0], *b[1], *x[1], weight, w[0].defect,
                                       w[1].defect);
}

template <int Lanes>
void GlobalMultigrid::sum(const SharedNodes& shared, int l, LevelVector Work::*field) {
  auto& w = work_[l];
  if constexpr (Lanes == 1)
    shared.sum((w[0].*field).data());
  else
    shared.sum_pair((w[0].*field).data(), (w[1].*field).data());
}

template <int Lanes>
void GlobalMultigrid::smooth(int l, const Rhs<Lanes>& b, const Iterates<Lanes>& x, int steps,
                             bool x_is_zero) {
  const GlobalLevel& level = hierarchy_->level(l);
  auto& w = work_[l];
  const bool symmetric = params_.combination == SchwarzCombination::symmetric;
  const SharedWeights& weight =
      symmetric ? inverse_sqrt_multiplicity_[l] : level.shared->shared_inverse_multiplicity();
  for (int s = 0; s < steps; ++s) {
    defects<Lanes>(l, b, x, symmetric ? &weight : nullptr, x_is_zero && s == 0);
    const auto start = std::chrono::steady_clock::now();
    if constexpr (Lanes == 1)
      local_[l]->solve(w[0].defect.data(), (w[0].*correction_).data());
    else
      local_[l]->solve_pair(w[0].defect.data(), w[1].defect.data(), (w[0].*correction_).data(),
                            (w[1].*correction_).data());
    timings_.local_solve += seconds_since(start);
    sum<Lanes>(*level.shared, l, correction_);
    // x += omega W c, c filtered: W c at the shared nodes, then one sweep (which writes x
    // without reading it where x is still 0).
    const bool overwrite = x_is_zero && s == 0;
    for (int q = 0; q < Lanes; ++q) {
      weight.scale((w[q].*correction_).data());
      const char* __restrict dirichlet = level.dirichlet.data();
      const double* __restrict pc = (w[q].*correction_).data();
      double* __restrict px = x[q]->data();
      const double omega = damping_[l];
      const std::size_t size = x[q]->size();
      if (overwrite) {
        for (std::size_t i = 0; i < size; ++i) px[i] = dirichlet[i] ? 0.0 : omega * pc[i];
      } else {
        for (std::size_t i = 0; i < size; ++i)
          if (!dirichlet[i]) px[i] += omega * pc[i];
      }
    }
  }
}

template <int Lanes>
void GlobalMultigrid::cycle(int l, const Rhs<Lanes>& b, const Iterates<Lanes>& x, bool x_is_zero) {
  const GlobalLevel& level = hierarchy_->level(l);
  auto& w = work_[l];
  if (l == params_.coarse_level) {
    // Defect correction rather than x = A^{-1} b, so that a nonzero guess (the finest level
    // solved directly) keeps its Dirichlet values.
    const auto start = std::chrono::steady_clock::now();
    defects<Lanes>(l, b, x, nullptr, x_is_zero);
    const auto scatter = [&](const CoarseGridSolver& solver, int q) {
      solver.scatter_correction(x_is_zero ? *x[q] : w[q].*correction_);
      if (!x_is_zero) axpy(1.0, w[q].*correction_, *x[q]);
    };
    bool paired = false;
    if constexpr (Lanes == 2) {
      if (coarse_pair_) {
        // Both defects gathered, each solved on its own root side by side, both scattered.
        coarse_->gather_defect(w[0].defect);
        coarse_pair_->gather_defect(w[1].defect);
        coarse_->solve_on_root();
        coarse_pair_->solve_on_root();
        scatter(*coarse_, 0);
        scatter(*coarse_pair_, 1);
        paired = true;
      }
    }
    for (int q = 0; q < Lanes && !paired; ++q) {
      coarse_->gather_defect(w[q].defect);
      coarse_->solve_on_root();
      scatter(*coarse_, q);
    }
    timings_.coarse_solve += seconds_since(start);
    return;
  }
  const GlobalLevel& coarse = hierarchy_->level(l - 1);
  smooth<Lanes>(l, b, x, params_.pre_smooth, x_is_zero);

  // Restriction of the type-1 defect: scaled to a type-0 representation (each copy carries
  // 1/multiplicity), restricted per macro with P^T, summed to type-1 on the coarse level.
  const bool still_zero = x_is_zero && params_.pre_smooth == 0;
  defects<Lanes>(l, b, x, &level.shared->shared_inverse_multiplicity(), still_zero);
  for (int q = 0; q < Lanes; ++q)
    accel::cpu::restrict_transpose(level.matrix.macros, coarse.n, w[q].defect.data(),
                                   w[q].coarse_rhs.data());
  sum<Lanes>(*coarse.shared, l, &Work::coarse_rhs);
  Rhs<Lanes> coarse_b;
  Iterates<Lanes> coarse_x;
  for (int q = 0; q < Lanes; ++q) {
    filter(coarse.dirichlet, w[q].coarse_rhs);
    coarse_b[q] = &w[q].coarse_rhs;
    coarse_x[q] = &w[q].coarse_x;
  }
  cycle<Lanes>(l - 1, coarse_b, coarse_x, true);  // coarse_x is written before it is read
  for (int q = 0; q < Lanes; ++q) {
    if (still_zero) std::fill(x[q]->begin(), x[q]->end(), 0.0);
    accel::cpu::prolongate_add(level.matrix.macros, coarse.n, w[q].coarse_x.data(), x[q]->data(),
                               level.dirichlet.data());
  }

  smooth<Lanes>(l, b, x, params_.post_smooth, false);
}

void GlobalMultigrid::apply(const LevelVector& d, LevelVector& c) {
  c.resize(d.size());  // not zeroed: a cycle from x = 0 writes its x before reading it
  cycle<1>(hierarchy_->finest(), {&d}, {&c}, true);
}

void GlobalMultigrid::apply_pair(const LevelVector& d0, const LevelVector& d1, LevelVector& c0,
                                 LevelVector& c1) {
  if (params_.local.target != accel::Target::cpu) {
    // The cuda target has no fused pair solve, and only the first lane's vectors are
    // page-locked (pin_io): two cycles keep both components on the direct DMA path.
    apply(d0, c0);
    apply(d1, c1);
    return;
  }
  make_second_lane();
  c0.resize(d0.size());
  c1.resize(d1.size());
  cycle<2>(hierarchy_->finest(), {&d0, &d1}, {&c0, &c1}, true);
}

KrylovResult GlobalMultigrid::solve(const LevelVector& b, LevelVector& x,
                                    const KrylovParams& params) {
  KrylovResult result;
  ConvergenceMonitor monitor("global multigrid", params, result);
  const int finest = hierarchy_->finest();
  const LinearOperator& A = operators_[finest];
  LevelVector r(b.size());
  auto residual_norm = [&] {
    A.apply(x, r);
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = b[i] - r[i];
    A.filter(r);
    return std::sqrt(A.dot(r, r));
  };
  if (monitor.check(0, residual_norm())) return result;
  for (int it = 1; it <= params.max_iter; ++it) {
    cycle<1>(finest, {&b}, {&x}, false);
    if (monitor.check(it, residual_norm())) return result;
  }
  monitor.finish();
  return result;
}

std::string GlobalMultigrid::description() const {
  std::ostringstream s;
  s << "ScaRC V(" << params_.pre_smooth << "," << params_.post_smooth << ") levels "
    << params_.coarse_level << ".." << hierarchy_->finest();
  // The finest level's Schwarz damping (none where that level is solved directly).
  if (local_.back()) s << ", damping " << damping_.back();
  s << ", " << (params_.combination == SchwarzCombination::symmetric ? "symmetric" : "averaged")
    << " Schwarz; local" << (params_.auto_smoother ? " (auto)" : "") << ": "
    << (local_.back() ? local_.back()->description() : std::string("none (direct)"));
  return s.str();
}

}  // namespace quilt
