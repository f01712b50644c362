#include "solvers/global_multigrid.hpp"

#include <chrono>
#include <cmath>
#include <sstream>

#include "accel/cpu/band_kernels.hpp"
#include "accel/cpu/grid_transfer.hpp"
#include "mesh/macro_nodes.hpp"

namespace quilt {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int choose_coarse_level(const CoarseMesh& mesh, int finest, std::size_t threshold) {
  int lc = 0;
  for (int l = 1; l < finest; ++l)
    if (GlobalNumbering(mesh, l).size() <= threshold) lc = l;
  return lc;
}

GlobalMultigrid::GlobalMultigrid(const LevelHierarchy& hierarchy,
                                 const GlobalMultigridParams& params)
    : hierarchy_(&hierarchy), params_(params) {
  const int finest = hierarchy.finest();
  params_.coarse_level = std::min(params_.coarse_level, finest);
  local_.resize(finest + 1);
  local_levels_.resize(finest + 1);
  work_.resize(finest + 1);
  inverse_sqrt_multiplicity_.resize(finest + 1);
  for (int l = 0; l <= finest; ++l) {
    const GlobalLevel& level = hierarchy.level(l);
    operators_.emplace_back(level);
    const std::size_t size = level.matrix.rows();
    work_[l] = {LevelVector(size), LevelVector(size), LevelVector(), LevelVector()};
    if (l > 0) {
      const std::size_t coarse_size = hierarchy.level(l - 1).matrix.rows();
      work_[l].coarse_rhs.resize(coarse_size);
      work_[l].coarse_x.resize(coarse_size);
    }
    auto& w = inverse_sqrt_multiplicity_[l];
    w = level.shared->inverse_multiplicity();
    for (double& v : w) v = std::sqrt(v);
    if (l <= params_.coarse_level) continue;
    local_levels_[l] =
        std::make_unique<LocalCoarseLevels>(hierarchy, l, params_.local_coarse_level);
    local_[l] = accel::make_local_solver(params_.local);
    local_[l]->setup(local_matrices(l));  // the solver keeps its own (converted) copies
    local_[l]->pin_io(work_[l].defect.data(), work_[l].correction.data(), size);
  }
  coarse_.emplace(hierarchy, params_.coarse_level);
}

std::vector<const accel::BandedMatrix<double>*> GlobalMultigrid::local_matrices(int l) const {
  std::vector<const accel::BandedMatrix<double>*> levels;
  for (const auto& A : local_levels_[l]->matrices()) levels.push_back(&A);
  levels.push_back(&hierarchy_->level(l).local_matrix);
  return levels;
}

void GlobalMultigrid::update() {
  for (int l = params_.coarse_level + 1; l <= hierarchy_->finest(); ++l) {
    local_levels_[l]->update();
    local_[l]->update(local_matrices(l));
  }
  coarse_->update();
}

GlobalMultigrid::~GlobalMultigrid() = default;

void GlobalMultigrid::smooth(int l, const LevelVector& b, LevelVector& x, int steps) {
  const GlobalLevel& level = hierarchy_->level(l);
  Work& w = work_[l];
  const bool symmetric = params_.combination == SchwarzCombination::symmetric;
  const auto& weight =
      symmetric ? inverse_sqrt_multiplicity_[l] : level.shared->inverse_multiplicity();
  for (int s = 0; s < steps; ++s) {
    operators_[l].weighted_defect(b, x, symmetric ? &weight : nullptr, w.defect);
    const auto start = std::chrono::steady_clock::now();
    local_[l]->solve(w.defect.data(), w.correction.data());
    timings_.local_solve += seconds_since(start);
    level.shared->sum(w.correction.data());
    // x += omega W c, c filtered: one sweep.
    const char* __restrict dirichlet = level.dirichlet.data();
    const double* __restrict pw = weight.data();
    const double* __restrict pc = w.correction.data();
    double* __restrict px = x.data();
    const double omega = params_.damping;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!dirichlet[i]) px[i] += omega * (pw[i] * pc[i]);
  }
}

void GlobalMultigrid::cycle(int l, const LevelVector& b, LevelVector& x) {
  const GlobalLevel& level = hierarchy_->level(l);
  Work& w = work_[l];
  if (l == params_.coarse_level) {
    // Defect correction rather than x = A^{-1} b, so that a nonzero guess (the finest level
    // solved directly) keeps its Dirichlet values.
    const auto start = std::chrono::steady_clock::now();
    operators_[l].weighted_defect(b, x, nullptr, w.defect);
    coarse_->solve(w.defect, w.correction);
    axpy(1.0, w.correction, x);
    timings_.coarse_solve += seconds_since(start);
    return;
  }
  const GlobalLevel& coarse = hierarchy_->level(l - 1);
  smooth(l, b, x, params_.pre_smooth);

  // Restriction of the type-1 defect: scaled to a type-0 representation (each copy carries
  // 1/multiplicity), restricted per macro with P^T, summed to type-1 on the coarse level.
  operators_[l].weighted_defect(b, x, &level.shared->inverse_multiplicity(), w.defect);
  accel::cpu::restrict_transpose(level.matrix.macros, coarse.n, w.defect.data(),
                                 w.coarse_rhs.data());
  coarse.shared->sum(w.coarse_rhs.data());
  filter(coarse.dirichlet, w.coarse_rhs);

  std::fill(w.coarse_x.begin(), w.coarse_x.end(), 0.0);
  cycle(l - 1, w.coarse_rhs, w.coarse_x);
  accel::cpu::prolongate(level.matrix.macros, coarse.n, w.coarse_x.data(), w.correction.data());
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!level.dirichlet[i]) x[i] += w.correction[i];

  smooth(l, b, x, params_.post_smooth);
}

void GlobalMultigrid::apply(const LevelVector& d, LevelVector& c) {
  c.assign(d.size(), 0.0);
  cycle(hierarchy_->finest(), d, c);
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
    cycle(finest, b, x);
    if (monitor.check(it, residual_norm())) return result;
  }
  monitor.finish();
  return result;
}

std::string GlobalMultigrid::description() const {
  std::ostringstream s;
  s << "ScaRC V(" << params_.pre_smooth << "," << params_.post_smooth << ") levels "
    << params_.coarse_level << ".." << hierarchy_->finest() << ", damping " << params_.damping
    << ", " << (params_.combination == SchwarzCombination::symmetric ? "symmetric" : "averaged")
    << " Schwarz; local: "
    << (local_.back() ? local_.back()->description() : std::string("none (direct)"));
  return s.str();
}

}  // namespace quilt
