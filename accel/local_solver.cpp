#include "accel/local_solver.hpp"

#include <cmath>
#include <sstream>

#include "accel/cpu/local_multigrid.hpp"
#include "accel/cpu/smoothers/diagonal_check.hpp"
#ifdef QUILT_HAVE_CUDA
#include "accel/cuda/cuda_local_solver.hpp"
#endif

namespace quilt::accel {
namespace {

constexpr const char* kCudaSmoothers =
    "jacobi, ilu, and gs, sor, ssor, trigs-x, trigs-y, aditrigs with solver.local.ordering = "
    "colour";

#ifndef QUILT_HAVE_CUDA
constexpr const char* kNoCudaBuild =
    "this build has no CUDA support (nvcc was not found at configure time)";
#endif

}  // namespace

void check_local_solver_params(const LocalSolverParams& p) {
  if (p.pre_smooth < 0)
    throw AccelError("solver.local.pre_smooth must be >= 0, got " + std::to_string(p.pre_smooth));
  if (p.post_smooth < 0)
    throw AccelError("solver.local.post_smooth must be >= 0, got " + std::to_string(p.post_smooth));
  check_smoother(p.smoother, p.ordering, p.omega(), "solver.local");
  if (p.max_cycles < 1)
    throw AccelError("solver.local.cycles must be >= 1, got " + std::to_string(p.max_cycles));
  if (!(p.digits >= 0.0) || !std::isfinite(p.digits))
    throw AccelError("solver.local.digits must be a finite number >= 0, got " +
                     std::to_string(p.digits));
  if (p.device < -1)
    throw AccelError("solver.local.device must be -1 (first visible) or a device ordinal, got " +
                     std::to_string(p.device));
  if (p.target != Target::cuda) return;
  std::string problem;
  if (!cuda_has_smoother(p.smoother, p.ordering))
    problem = "solver.local.smoother = " + to_string(p.smoother) +
              " with solver.local.ordering = " + to_string(p.ordering) +
              " is not available on solver.local.target = cuda yet (it has " + kCudaSmoothers + ")";
#ifndef QUILT_HAVE_CUDA
  // Named first: in a build without the cuda target no smoother choice makes it available.
  problem = std::string("solver.local.target=cuda: ") + kNoCudaBuild +
            (problem.empty() ? "" : "; also " + problem);
#endif
  if (!problem.empty()) throw AccelError(problem);
}

bool cuda_has_smoother(SmootherType s, SweepOrder o) {
  if (s == SmootherType::jacobi) return true;
  // ILU(0) has one ordering, lexicographic: its substitutions run by wavefronts on the device,
  // which gives the lexicographic result.
  if (s == SmootherType::ilu) return o == SweepOrder::lexicographic;
  // The 4-colour point smoothers and the zebra line smoothers: their data-parallel forms.
  return o == SweepOrder::colour;
}

SweepOrder natural_order(SmootherType s, Target t) {
  return t == Target::cuda && has_colour_order(s) ? SweepOrder::colour : SweepOrder::lexicographic;
}

std::string describe_cycle(const LocalSolverParams& p) {
  std::ostringstream s;
  s << "V(" << p.pre_smooth << "," << p.post_smooth << ") " << to_string(p.smoother);
  if (p.ordering == SweepOrder::colour) s << "/colour";
  s << "(" << p.omega() << ")";
  return s.str();
}

Target parse_target(const std::string& s) {
  if (s == "cpu") return Target::cpu;
  if (s == "cuda") return Target::cuda;
  throw AccelError("unknown target '" + s + "' (expected cpu or cuda)");
}

Precision parse_precision(const std::string& s) {
  if (s == "double") return Precision::float64;
  if (s == "float") return Precision::float32;
  throw AccelError("unknown precision '" + s + "' (expected double or float)");
}

std::string to_string(Target t) {
  return t == Target::cuda ? "cuda" : "cpu";
}

std::string to_string(Precision p) {
  return p == Precision::float32 ? "float" : "double";
}

std::unique_ptr<LocalSolver> make_local_solver(const LocalSolverParams& params) {
  check_local_solver_params(params);
  if (params.target == Target::cuda) {
#ifdef QUILT_HAVE_CUDA
    return make_cuda_local_solver(params);
#else
    throw AccelError(std::string("solver.local.target=cuda: ") + kNoCudaBuild);
#endif
  }
  if (params.precision == Precision::float32)
    return std::make_unique<CpuLocalMultigrid<float>>(params);
  return std::make_unique<CpuLocalMultigrid<double>>(params);
}

int cuda_device_count() {
#ifdef QUILT_HAVE_CUDA
  return cuda_visible_devices();
#else
  return 0;
#endif
}

std::string cuda_unavailable_reason() {
#ifdef QUILT_HAVE_CUDA
  return cuda_device_problem();
#else
  return kNoCudaBuild;
#endif
}

void check_local_levels(const std::vector<const BandedMatrix<double>*>& levels,
                        std::string_view who, bool shape_only_allowed) {
  if (levels.empty()) throw AccelError(std::string(who) + ": no levels given");
  for (std::size_t k = 0; k < levels.size(); ++k) {
    const BandedMatrix<double>* A = levels[k];
    const auto where = [&] { return std::string(who) + ": level " + std::to_string(k); };
    if (A == nullptr) throw AccelError(where() + " is null");
    if (A->macros < 1 || A->n < 2) throw AccelError(where() + " has no macros or n < 2");
    const bool shape_only =
        std::all_of(A->band.begin(), A->band.end(), [](const auto& b) { return b.empty(); });
    if (shape_only && (!shape_only_allowed || k == 0))
      throw AccelError(
          where() + " has no bands (shape_only)" +
          (k == 0 ? ": the coarsest level is factorised from them" : ", which this solver reads"));
    if (!shape_only)
      for (const auto& band : A->band)
        if (band.size() != A->rows()) throw AccelError(where() + ": a band has the wrong length");
    if (A->macros != levels.front()->macros)
      throw AccelError(where() + " holds a different number of macros than level 0");
    if (k > 0 && A->n != 2 * levels[k - 1]->n - 1)
      throw AccelError(where() + ": n = " + std::to_string(A->n) +
                       " is not 2 n_coarse - 1 = " + std::to_string(2 * levels[k - 1]->n - 1));
  }
}

namespace {

bool is_unit_row(const BandedMatrix<double>& A, std::size_t r) {
  for (int b = 0; b < kBands; ++b)
    if (b != kCentre && A.band[b][r] != 0.0) return false;
  return true;
}

}  // namespace

std::vector<std::size_t> unit_rows(const StencilZones<double>& zones) {
  const int n = zones.n;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  std::vector<std::size_t> rows;
  for (int m = 0; m < zones.macros; ++m) {
    if (!zones.is_zoned(m))
      throw AccelError("unit_rows: macro " + std::to_string(m) + " is not zoned");
    for (int j = 0; j < n; ++j) {
      bool unit[kZonesPerAxis];
      for (int zx = 0; zx < kZonesPerAxis; ++zx) {
        const auto& s = zones.stencil(m, zx, zone_of(j, n));
        unit[zx] = true;
        for (int b = 0; b < kBands; ++b) unit[zx] = unit[zx] && (b == kCentre || s[b] == 0.0);
      }
      for (int i = 0; i < n; ++i) {
        if (i == 2 && !unit[kMiddleZone]) i = n - 2;  // no unit row in the middle of the line
        if (unit[zone_of(i, n)]) rows.push_back(m * nn + static_cast<std::size_t>(j) * n + i);
      }
    }
  }
  return rows;
}

void LocalSolver::setup_zoned(const std::vector<const BandedMatrix<double>*>& levels,
                              const std::vector<const StencilZones<double>*>& zones) {
  (void)zones;  // a target without constant-stencil kernels detects nothing
  check_local_levels(levels, "local solver setup");
  setup(levels);
}

std::vector<std::size_t> unit_rows(const BandedMatrix<double>& A) {
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < A.rows(); ++r)
    if (is_unit_row(A, r)) rows.push_back(r);
  return rows;
}

void check_update_levels(const std::vector<const BandedMatrix<double>*>& levels,
                         std::size_t set_up_levels, std::string_view who) {
  if (set_up_levels == 0)
    throw AccelError(std::string(who) +
                     ": no hierarchy to update (setup() was not called, or a later update failed)");
  check_local_levels(levels, who);
  if (levels.size() != set_up_levels)
    throw AccelError(std::string(who) + ": " + std::to_string(levels.size()) +
                     " levels given, set up with " + std::to_string(set_up_levels));
}

void check_level_structure(const BandedMatrix<double>& A, std::size_t k, int macros, int n,
                           const std::vector<std::size_t>& unit_rows, std::string_view who) {
  const auto where = [&] { return std::string(who) + ": level " + std::to_string(k); };
  if (A.macros != macros)
    throw AccelError(where() + " holds " + std::to_string(A.macros) + " macros, set up with " +
                     std::to_string(macros));
  if (A.n != n)
    throw AccelError(where() + ": n = " + std::to_string(A.n) +
                     ", set up with n = " + std::to_string(n));
  std::size_t next = 0;  // the first unit row of setup's not yet passed
  for (std::size_t r = 0; r < A.rows(); ++r) {
    const bool was_unit = next < unit_rows.size() && unit_rows[next] == r;
    if (was_unit) ++next;
    if (is_unit_row(A, r) != was_unit)
      throw AccelError(where() + ": the Dirichlet (unit) rows differ from setup's: " +
                       cpu::describe_row(A.n, r) + (was_unit ? " was" : " was not") +
                       " a unit row");
  }
}

}  // namespace quilt::accel
