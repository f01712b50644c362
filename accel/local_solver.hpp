#pragma once
// The local layer's one interface (design.md §7): given the per-level banded matrices of all
// macros of a rank, approximately solve A_i c_i = d_i for every macro i at once.
//
// The matrices are the *local matrices* of design.md §2 (principal submatrices of the global
// assembled matrix on a macro's nodes, Dirichlet rows as unit rows), on the levels
// coarse..fine of the macro hierarchy. The solver owns converted copies (float or double, host
// or device) made in setup() and refreshed in place by update(); solve() moves the defect in and
// the correction out once.

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/smoother_type.hpp"
#include "accel/stencil_zones.hpp"

namespace quilt::accel {

enum class Target { cpu, cuda };
enum class Precision { float64, float32 };

Target parse_target(const std::string& s);        ///< "cpu" | "cuda", else AccelError
Precision parse_precision(const std::string& s);  ///< "double" | "float", else AccelError
std::string to_string(Target t);
std::string to_string(Precision p);

/// Failure of the local layer: bad parameters, no CUDA device, a failed CUDA call.
class AccelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parameters of the local multigrid V(pre_smooth, post_smooth) cycle.
struct LocalSolverParams {
  Target target = Target::cpu;
  Precision precision = Precision::float64;
  /// ADI-TRIGS: the smoother that stayed robust on every Laplacian measured, aspect ratios up to
  /// 1000 in either direction (bench/bench_smoothers.cpp); the velocity has its own default.
  SmootherType smoother = SmootherType::aditrigs;
  SweepOrder ordering = SweepOrder::lexicographic;
  int pre_smooth = 1;             ///< smoothing steps before restriction (forward sweeps)
  int post_smooth = 1;            ///< smoothing steps after prolongation (backward sweeps)
  std::optional<double> damping;  ///< omega of the smoother; empty: default_damping(smoother)
  int max_cycles = 1;             ///< V-cycles per solve (the cap, when digits > 0)
  double digits = 0.0;            ///< > 0: cycle until every macro's defect dropped 10^-digits
  int device = -1;                ///< cuda: device ordinal, -1 = first visible device

  double omega() const { return damping.value_or(default_damping(smoother)); }
};

/// What the last solve() did.
struct LocalSolveStats {
  int cycles = 0;                ///< V-cycles run
  double worst_reduction = 0.0;  ///< max over macros of |d_final| / |d_initial| (0 if not measured)
  /// cuda: the defect or the correction was copied through a host staging buffer, because
  /// pin_io() had not page-locked the vector solve() was given (false on the cpu target).
  bool staged = false;
};

class LocalSolver {
 public:
  virtual ~LocalSolver() = default;

  /// levels.front() is the coarsest local level (solved directly: a dense LU per macro,
  /// factorised here, once); levels.back() is the level solve() works on. Consecutive levels
  /// satisfy n_{k+1} = 2 n_k - 1 and hold the same macros.
  virtual void setup(const std::vector<const BandedMatrix<double>*>& levels) = 0;

  /// setup() with the stencil zones of the levels given, zones[k] those of *levels[k] as
  /// detect_stencil_zones finds them, or null where the solver is to detect them. Where
  /// sweeps_from_zones_alone() holds, a level whose every macro is zoned may be
  /// BandedMatrix::shape_only (all but the coarsest, which is factorised from its bands). This
  /// default refuses shape_only levels and calls setup(levels).
  virtual void setup_zoned(const std::vector<const BandedMatrix<double>*>& levels,
                           const std::vector<const StencilZones<double>*>& zones);
  /// Whether setup_zoned takes shape_only levels: the cpu target with Jacobi.
  virtual bool sweeps_from_zones_alone() const { return false; }

  /// Refreshes the numbers of the matrices that setup() was given, in place: the same number of
  /// levels, macros, n and Dirichlet (unit) rows, new entries. Smoothers and the coarsest LU are
  /// refactorised into the storage made by setup() (host and device: nothing is allocated), and
  /// the solver then computes bitwise what a fresh setup() with these levels would. Throws
  /// AccelError if the structure differs, leaving the solver as it was; numbers that setup()
  /// rejects (a zero pivot) throw as there and leave the solver without a hierarchy (solve()
  /// refuses) until the next setup(): the storage was already partly refreshed. This default
  /// makes a fresh setup() (it allocates).
  virtual void update(const std::vector<const BandedMatrix<double>*>& levels) { setup(levels); }

  /// defect and correction hold macros * n * n values (n of the finest level), macro-major.
  /// The correction is overwritten (zero initial guess).
  virtual void solve(const double* defect, double* correction) = 0;

  /// Two solves with the same matrices (the velocity components' right-hand sides): c0 for d0 and
  /// c1 for d1, each bitwise what solve() gives it; last_stats() is then that of the second. A
  /// target that reads its matrices once for both overrides this (the cpu multigrid); the
  /// default runs solve() twice.
  virtual void solve_pair(const double* d0, const double* d1, double* c0, double* c1) {
    solve(d0, c0);
    solve(d1, c1);
  }
  /// Lets this solver work in the vectors of `finer`, a solver of the same target and precision
  /// for the same macros from the same coarsest level up to a finer level than this one's
  /// finest: the local solvers of a global multigrid's levels, which run one at a time and carry
  /// no values in their vectors from one solve to the next. One set of work vectors then serves
  /// them all, for every global level but the finest (on each local level the cpu target's b, x
  /// and d, 12 bytes per node of float; the cuda target's b and two iterates, and b and x
  /// grid-transposed for the y-line smoothers, in device memory). Before setup(); setup() then
  /// throws AccelError where a level's size differs from the shared vectors'. A solver of another
  /// target, precision or device shares nothing, nor does this default.
  virtual void share_work(LocalSolver& finer) { (void)finer; }

  /// Whether solve() and solve_pair() take each correction in the array of its own defect
  /// (correction == defect, c0 == d0, c1 == d1): the cpu target reads every defect before it
  /// writes a correction. The caller then needs no correction vector (8 bytes per node).
  virtual bool solves_in_place() const { return false; }

  /// Names the caller's long-lived defect and correction vectors (size values each: macros * n *
  /// n of the finest level), which solve() will mostly be given. The cuda target page-locks them
  /// (cudaHostRegister), so such a solve moves each vector in one DMA transfer with no host-side
  /// copy into a staging buffer (review finding F1); other vectors still work, through the
  /// staging buffer. The vectors must stay where they are until the solver is destroyed or
  /// pin_io() is called again. Optional: the cpu target has nothing to do, and a range that the
  /// driver refuses to lock (already registered elsewhere) leaves the staging path in use.
  /// Pointers rather than spans: the .cu files that include this header are C++17.
  virtual void pin_io(const double* defect, double* correction, std::size_t size) {
    (void)defect;
    (void)correction;
    (void)size;
  }

  virtual LocalSolveStats last_stats() const = 0;
  virtual std::string description() const = 0;  ///< e.g. "cpu/float V(4,4)"
};

/// Checks a level list for LocalSolver::setup: non-empty, no null, consistent band lengths and
/// macro counts, n_{k+1} = 2 n_k - 1; a level without bands (shape_only) only above the coarsest
/// and where shape_only_allowed. Throws AccelError prefixed with `who`; allocates nothing unless
/// it throws (update() runs it every nonlinear step).
void check_local_levels(const std::vector<const BandedMatrix<double>*>& levels,
                        std::string_view who, bool shape_only_allowed = false);

/// The Dirichlet rows of A (design.md §4: the unit rows, whose 8 off-diagonal entries are 0),
/// macro offsets included, in increasing order.
std::vector<std::size_t> unit_rows(const BandedMatrix<double>& A);
/// unit_rows of a matrix whose every macro is zoned, from its zones (the rows of the zones whose
/// 8 off-diagonal entries are 0).
std::vector<std::size_t> unit_rows(const StencilZones<double>& zones);

/// The checks of LocalSolver::update before it touches anything: check_local_levels, a solver
/// that was set up (set_up_levels > 0), and as many levels as it was set up with.
void check_update_levels(const std::vector<const BandedMatrix<double>*>& levels,
                         std::size_t set_up_levels, std::string_view who);

/// Throws AccelError naming level k and what differs unless A has the macros, n and unit rows
/// (as unit_rows() found them) of the matrix setup() was given on that level. No allocation
/// unless it throws.
void check_level_structure(const BandedMatrix<double>& A, std::size_t k, int macros, int n,
                           const std::vector<std::size_t>& unit_rows, std::string_view who);

/// The cycle and smoother of params as descriptions show them, e.g. "V(2,3) gs/colour(1)".
std::string describe_cycle(const LocalSolverParams& params);

/// Whether the cuda target has smoother s in ordering o: jacobi, ilu (lexicographic, its only
/// ordering, run by wavefronts), the 4-colour gs, sor, ssor and the zebra trigs-x, trigs-y,
/// aditrigs.
bool cuda_has_smoother(SmootherType s, SweepOrder o);

/// The ordering a user who names none gets on target t: on cuda the data-parallel colour form
/// where s has one (cuda_has_smoother holds for the result, for every s); otherwise
/// lexicographic, whose sweeps carry information across the whole macro and so smooth better
/// per sweep (the cpu target's faster form; jacobi and ilu have no other).
SweepOrder natural_order(SmootherType s, Target t);

/// Throws AccelError naming the key (solver.local.*) of the first invalid parameter, and for a
/// smoother the target does not have; make_local_solver checks the same.
void check_local_solver_params(const LocalSolverParams& params);

/// The implementation for params.target / params.precision. Throws AccelError if the cuda target
/// is asked for without a CUDA build or without a device, before any work is done.
std::unique_ptr<LocalSolver> make_local_solver(const LocalSolverParams& params);

/// Number of CUDA devices visible to this process; 0 without a CUDA build.
int cuda_device_count();

/// Why the cuda target cannot run here, "" when it can: no CUDA build, no device, or a CUDA driver
/// that does not match the runtime. Tests print it when they skip (or fail, QUILT_REQUIRE_CUDA=1).
std::string cuda_unavailable_reason();

}  // namespace quilt::accel
