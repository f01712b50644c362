#include "accel/cpu/local_multigrid.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/grid_transfer.hpp"

namespace quilt::accel {
namespace {

/// 2-norm of each macro's block of v, accumulated in double.
template <class T>
void macro_norms(const T* v, std::size_t per_macro, std::vector<double>& norms) {
  for (std::size_t m = 0; m < norms.size(); ++m) {
    const T* vm = v + m * per_macro;
    double s = 0.0;
    for (std::size_t r = 0; r < per_macro; ++r) s += static_cast<double>(vm[r]) * vm[r];
    norms[m] = std::sqrt(s);
  }
}

constexpr const char* kSetup = "local multigrid setup";
constexpr const char* kUpdate = "local multigrid update";

/// The finest level's right-hand side from the caller's double defect, rounded to T.
template <class T, class Lane>
void load_defect(const double* defect, Lane& v) {
  std::transform(defect, defect + v.b.size(), v.b.begin(),
                 [](double d) { return static_cast<T>(d); });
}

template <class Lane>
void store_correction(const Lane& v, double* correction) {
  std::transform(v.x.begin(), v.x.end(), correction, [](auto x) { return static_cast<double>(x); });
}

}  // namespace

template <class T>
CpuLocalMultigrid<T>::CpuLocalMultigrid(const LocalSolverParams& params) : params_(params) {}

template <class T>
void CpuLocalMultigrid<T>::setup(const std::vector<const BandedMatrix<double>*>& levels) {
  setup_zoned(levels, {});
}

template <class T>
void CpuLocalMultigrid<T>::setup_zoned(const std::vector<const BandedMatrix<double>*>& levels,
                                       const std::vector<const StencilZones<double>*>& zones) {
  check_local_levels(levels, kSetup, true);
  if (!zones.empty() && zones.size() != levels.size())
    throw AccelError(std::string(kSetup) + ": " + std::to_string(zones.size()) + " zone sets for " +
                     std::to_string(levels.size()) + " levels");
  // Built aside and moved in at the end, so a setup that throws leaves the solver as it was: in
  // lanes of its own, or in the shared ones, where it adds only the levels missing there.
  std::shared_ptr<LaneSet> lanes = lanes_.use_count() > 1 ? lanes_ : std::make_shared<LaneSet>();
  std::vector<Level> built = shaped_levels(levels, zones, *lanes);
  cpu::BatchedDenseLU<T> lu;
  load_numbers(levels, zones, built, lu, kSetup);
  macros_ = levels.front()->macros;
  levels_ = std::move(built);
  lanes_ = std::move(lanes);
  coarse_lu_ = std::move(lu);
  initial_norms_.assign(macros_, 0.0);
  norms_.assign(macros_, 0.0);
  stats_ = {};
}

template <class T>
void CpuLocalMultigrid<T>::update(const std::vector<const BandedMatrix<double>*>& levels) {
  check_update_levels(levels, levels_.size(), kUpdate);
  for (std::size_t k = 0; k < levels.size(); ++k)
    check_level_structure(*levels[k], k, macros_, levels_[k].n, levels_[k].dirichlet, kUpdate);
  try {
    load_numbers(levels, {}, levels_, coarse_lu_, kUpdate);
  } catch (const AccelError&) {
    // Partly refreshed numbers would solve with a mix of two operators.
    levels_.clear();
    throw;
  }
  stats_ = {};
}

template <class T>
void CpuLocalMultigrid<T>::share_work(LocalSolver& finer) {
  if (!levels_.empty())
    throw AccelError(
        "local multigrid: share_work() after setup(), whose levels use their own lanes");
  if (auto* f = dynamic_cast<CpuLocalMultigrid<T>*>(&finer)) lanes_ = f->lanes_;
}

template <class T>
void CpuLocalMultigrid<T>::shape_lane(std::size_t rows, std::size_t k, Lane& v) {
  v.b.assign(rows, T(0));
  v.x.assign(rows, T(0));
  if (k > 0) v.d.assign(rows, T(0));
}

template <class T>
auto CpuLocalMultigrid<T>::shaped_levels(const std::vector<const BandedMatrix<double>*>& levels,
                                         const std::vector<const StencilZones<double>*>& zones,
                                         LaneSet& lanes) -> std::vector<Level> {
  std::vector<Level> built(levels.size());
  if (lanes.size() < levels.size()) lanes.resize(levels.size());
  for (std::size_t k = 0; k < levels.size(); ++k) {
    const BandedMatrix<double>& src = *levels[k];
    const StencilZones<double>* z = zones.empty() ? nullptr : zones[k];
    Level& l = built[k];
    l.n = src.n;
    l.rows = src.rows();
    if (!lanes[k]) {
      lanes[k] = std::make_unique<LanePair>();
      shape_lane(l.rows, k, (*lanes[k])[0]);  // lane 1 waits for the first solve_pair
    } else if ((*lanes[k])[0].x.size() != l.rows) {
      throw AccelError(std::string(kSetup) + ": level " + std::to_string(k) + " has " +
                       std::to_string(l.rows) + " rows, but the work vectors shared with a " +
                       "finer solver (share_work) have " + std::to_string((*lanes[k])[0].x.size()));
    }
    l.lanes = lanes[k].get();
    // Every row of a zoned macro is its zone's row: the zones say which are unit rows.
    l.dirichlet = z != nullptr && z->all() ? unit_rows(*z) : unit_rows(src);
    l.A = BandedMatrix<T>::shape_only(src.macros, src.n);  // bands where load_numbers needs them
  }
  return built;
}

template <class T>
void CpuLocalMultigrid<T>::load_numbers(const std::vector<const BandedMatrix<double>*>& levels,
                                        const std::vector<const StencilZones<double>*>& zones,
                                        std::vector<Level>& into, cpu::BatchedDenseLU<T>& lu,
                                        const char* who) {
  for (std::size_t k = 1; k < levels.size(); ++k) {
    Level& l = into[k];
    const BandedMatrix<double>& src = *levels[k];
    // The zones of src are zones of its conversion (equal doubles round to equal T). A level
    // whose every macro is zoned is swept from the zones alone where the smoother can: no bands
    // in T are made, converted or read (FEAST's constant-stencil macros).
    const StencilZones<double>* given = zones.empty() ? nullptr : zones[k];
    if (given == nullptr) detect_stencil_zones(src, source_zones_);
    l.zones.assign(given != nullptr ? *given : source_zones_);
    const bool from_zones = cpu::sweeps_from_zones(params_.smoother) && l.zones.all();
    if (!src.has_bands() && !from_zones)
      throw AccelError(std::string(who) + ": level " + std::to_string(k) +
                       " has no bands, and the " + to_string(params_.smoother) +
                       " smoother needs them" + (l.zones.all() ? "" : " (not every macro zoned)"));
    if (!from_zones) {
      if (!l.A.has_bands()) l.A = BandedMatrix<T>(src.macros, src.n);
      l.A.assign(src);
    } else if (l.A.has_bands()) {
      l.A = BandedMatrix<T>::shape_only(src.macros, src.n);
    }
    try {
      if (l.smoother)
        l.smoother->update(l.A, l.zones);
      else
        l.smoother =
            cpu::make_smoother(l.A, l.zones, {params_.smoother, params_.ordering, params_.omega()},
                               l.lane(0).d.data());
    } catch (const AccelError& e) {
      throw AccelError(std::string(who) + ": level " + std::to_string(k) + ", " + e.what());
    }
  }
  lu.factorise(*levels.front());
}

template <class T>
template <int Lanes>
void CpuLocalMultigrid<T>::smooth(Level& l, int steps, cpu::SweepDirection direction,
                                  bool x_is_zero) {
  Lane& v = l.lane(0);
  if constexpr (Lanes == 1) {
    l.smoother->smooth(l.A, v.b.data(), v.x.data(), steps, direction, x_is_zero);
  } else {
    Lane& w = l.lane(1);
    l.smoother->smooth_pair(l.A, v.b.data(), v.x.data(), w.b.data(), w.x.data(), steps, direction,
                            x_is_zero);
  }
}

template <class T>
template <int Lanes>
void CpuLocalMultigrid<T>::vcycle(int k, bool x_is_zero) {
  static_assert(Lanes == 1 || Lanes == 2);
  Level& l = levels_[k];
  LanePair& v = *l.lanes;
  if (k == 0) {
    if constexpr (Lanes == 1)
      coarse_lu_.solve(v[0].b.data(), v[0].x.data());
    else
      coarse_lu_.solve_pair(v[0].b.data(), v[0].x.data(), v[1].b.data(), v[1].x.data());
    // Below the finest level b is 0 at these rows (the caller zeroed it), so the exact solution
    // is 0 there; pivoting may leave round-off instead, which P would carry into the Dirichlet
    // nodes of the finer levels.
    if (levels_.size() > 1)
      for (int q = 0; q < Lanes; ++q)
        for (std::size_t r : l.dirichlet) v[q].x[r] = T(0);
    return;
  }
  smooth<Lanes>(l, params_.pre_smooth, cpu::SweepDirection::forward, x_is_zero);
  if constexpr (Lanes == 1)
    cpu::defect(l.A, l.zones, v[0].b.data(), v[0].x.data(), v[0].d.data());
  else
    cpu::defect_pair(l.A, &l.zones, v[0].b.data(), v[0].x.data(), v[0].d.data(), v[1].b.data(),
                     v[1].x.data(), v[1].d.data());
  Level& c = levels_[k - 1];
  for (int q = 0; q < Lanes; ++q) {
    for (std::size_t r : l.dirichlet) v[q].d[r] = T(0);
    cpu::restrict_transpose(macros_, c.n, v[q].d.data(), c.lane(q).b.data());
    for (std::size_t r : c.dirichlet) c.lane(q).b[r] = T(0);
  }
  vcycle<Lanes>(k - 1, true);
  for (int q = 0; q < Lanes; ++q)
    cpu::prolongate_add(macros_, c.n, c.lane(q).x.data(), v[q].x.data());
  smooth<Lanes>(l, params_.post_smooth, cpu::SweepDirection::backward, false);
}

template <class T>
void CpuLocalMultigrid<T>::finest_defect_norms() {
  Level& f = levels_.back();
  if (levels_.size() == 1) {
    // One level is a direct solve: the defect is round-off, not worth a product with A.
    std::fill(norms_.begin(), norms_.end(), 0.0);
    return;
  }
  Lane& v = f.lane(0);
  cpu::defect(f.A, f.zones, v.b.data(), v.x.data(), v.d.data());
  macro_norms(v.d.data(), f.rows / macros_, norms_);
}

template <class T>
void CpuLocalMultigrid<T>::solve(const double* defect, double* correction) {
  if (levels_.empty()) throw AccelError("local multigrid: solve() called before setup()");
  Level& f = levels_.back();
  load_defect<T>(defect, f.lane(0));
  const int finest = static_cast<int>(levels_.size()) - 1;
  const bool measure = params_.digits > 0.0;
  const double target = std::pow(10.0, -params_.digits);
  if (measure) macro_norms(f.lane(0).b.data(), f.rows / macros_, initial_norms_);
  stats_ = {};
  for (int cycle = 1; cycle <= params_.max_cycles; ++cycle) {
    vcycle<1>(finest, cycle == 1);
    stats_.cycles = cycle;
    if (!measure) continue;
    finest_defect_norms();
    bool done = true;
    double worst = 0.0;
    for (int m = 0; m < macros_; ++m) {
      if (!(norms_[m] <= target * initial_norms_[m])) done = false;
      // Written so that a NaN defect shows up in the stats instead of being skipped by max().
      const double ratio = initial_norms_[m] > 0.0 ? norms_[m] / initial_norms_[m] : 0.0;
      if (!(ratio <= worst)) worst = ratio;
    }
    stats_.worst_reduction = worst;
    if (done) break;
  }
  store_correction(f.lane(0), correction);
}

template <class T>
void CpuLocalMultigrid<T>::solve_pair(const double* d0, const double* d1, double* c0, double* c1) {
  if (params_.digits > 0.0) {
    solve(d0, c0);
    solve(d1, c1);
    return;
  }
  if (levels_.empty()) throw AccelError("local multigrid: solve() called before setup()");
  Level& f = levels_.back();
  for (std::size_t k = 0; k < levels_.size(); ++k)
    if (levels_[k].lane(1).b.empty()) shape_lane(levels_[k].rows, k, levels_[k].lane(1));
  load_defect<T>(d0, f.lane(0));
  load_defect<T>(d1, f.lane(1));
  const int finest = static_cast<int>(levels_.size()) - 1;
  for (int cycle = 1; cycle <= params_.max_cycles; ++cycle) vcycle<2>(finest, cycle == 1);
  stats_ = {};
  stats_.cycles = params_.max_cycles;
  store_correction(f.lane(0), c0);
  store_correction(f.lane(1), c1);
}

template <class T>
std::string CpuLocalMultigrid<T>::description() const {
  std::ostringstream s;
  s << "cpu/" << to_string(std::is_same_v<T, float> ? Precision::float32 : Precision::float64)
    << " " << describe_cycle(params_);
  return s.str();
}

template class CpuLocalMultigrid<float>;
template class CpuLocalMultigrid<double>;

}  // namespace quilt::accel
