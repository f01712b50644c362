#pragma once
// The ScaRC global multigrid (design.md §6; Kilian & Turek 1998, Göddeke et al. 2008): a
// multigrid cycle over the global levels Lc..L whose smoother is an additive Schwarz step:
// every macro solves its local problem (its local matrix, the global defect restricted to it)
// with the local layer, and the corrections are combined at shared nodes and damped.

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accel/local_solver.hpp"
#include "solvers/coarse_grid_solver.hpp"
#include "solvers/krylov.hpp"
#include "solvers/level_hierarchy.hpp"
#include "solvers/local_levels.hpp"

namespace quilt {

/// How local corrections are combined at shared nodes. `average`: sum / multiplicity
/// (design.md §2). `symmetric`: the defect is scaled by multiplicity^{-1/2} before the local
/// solves and the summed correction again after, S = W^{1/2} (sum_i R_i^T A_i^{-1} R_i) W^{1/2},
/// which keeps the smoother (and a V(n,n) cycle) symmetric, as CG requires.
enum class SchwarzCombination { average, symmetric };

struct GlobalMultigridParams {
  int coarse_level = 0;  ///< Lc: solved directly (UMFPACK)
  int coarse_root = 0;   ///< the rank that factorises and solves Lc
  /// A second rank with the factors of Lc, which solves the second defect of apply_pair beside
  /// the first (the velocity components); < 0 or coarse_root: none.
  int coarse_pair_root = -1;
  int pre_smooth = 1;   ///< Schwarz steps before restriction
  int post_smooth = 1;  ///< Schwarz steps after prolongation
  /// omega of the Schwarz step x += omega c; empty: schwarz_damping() of each level's local
  /// smoother.
  std::optional<double> damping;
  SchwarzCombination combination = SchwarzCombination::average;
  int local_coarse_level = 1;  ///< coarsest level of the local multigrid (dense LU there)
  accel::LocalSolverParams local;
  /// solver.local.smoother = auto: a point smoother (default damping) on the global levels whose
  /// elements all have an aspect ratio of at most kJacobiAspectLimit (max_element_aspect), where
  /// it smooths well enough at a third of a line smoother's cost per cycle; local.smoother
  /// (aditrigs) on the others. Meant for isotropic operators (the Poisson problem, the pressure
  /// Laplacian): the elements' shape is then the operator's anisotropy. The point smoother is
  /// damped Jacobi where every macro of the level is zoned (constant stencil, accel/
  /// stencil_zones.hpp), whose sweep then reads 9 numbers instead of 9 bands, and lexicographic
  /// Gauss-Seidel where one is not: on variable bands both sweeps stream the same arrays, and
  /// Gauss-Seidel needs fewer cycles (unstructured square, rtol 1e-8: 8 CG iterations at L = 5..8
  /// against Jacobi's 9-11; at L = 8 the solve 0.65 against 0.88 s on 1 rank, 0.35 against 0.46 s
  /// on 2, docs/benchmarks.md 2026-12-02). On the cuda target, whose Gauss-Seidel is the colour
  /// form, Jacobi on every such level.
  bool auto_smoother = false;
  /// false: a multigrid for one operator (quilt-poisson). The local coarse levels, kept for
  /// update(), are dropped after the set-up (24 of ~360 bytes per node; the vectors made after
  /// them reuse the pages), and update() throws SolverError.
  bool updatable = true;
};

/// The aspect ratio up to which solver.local.smoother = auto takes a point smoother. Measured
/// with CG on the Poisson problem, strips of 4 macros at L = 8, Jacobi against aditrigs: aspect 2:
/// 8 against 5 iterations, set-up + solve 0.13 against 0.15 s; 3: 11 against 6, 0.14 against
/// 0.16 s; 4: 23 against 6, 0.23 against 0.16 s; 6: no convergence in 200. The unstructured
/// square (aspect up to 2.24) takes a point smoother (Jacobi: 9-11 iterations against aditrigs' 7
/// at L = 5..8, 20 % less time; Gauss-Seidel, since 2026-12-02: 8); the L-shape (3.3) keeps
/// aditrigs.
inline constexpr double kJacobiAspectLimit = 2.5;

/// The default omega of the Schwarz step for a level whose local solves use smoother `local`.
/// Additive Schwarz over macros that share their edge nodes overshoots there when the local
/// solves are accurate (a line smoother's or ILU's V-cycle): 0.7. One V-cycle with damped Jacobi
/// under-solves by itself and needs no damping: 1 (measured with CG on the Poisson problem: 2x2
/// square 5-6 iterations against 7-8 with 0.7 at L = 5..10 on 1, 2 and 4 ranks; unstructured
/// square, L-shape and 4x2 square within one iteration either way; aditrigs with 1: 18-21
/// iterations against 6-7).
double schwarz_damping(accel::SmootherType local);

/// Seconds spent inside the local layer and in the coarse-grid solve.
struct MultigridTimings {
  double local_solve = 0.0;
  double coarse_solve = 0.0;
};

/// When update() refactorises the coarse grid: at once, or at factorise_coarse().
enum class CoarseFactorisation { now, deferred };

/// Set up once per hierarchy (local coarse levels, local solvers with their buffers, the coarse
/// grid's gather plan and symbolic factorisation); update() refreshes the numbers after
/// LevelHierarchy::assemble (FEAT3's init_symbolic / init_numeric split).
class GlobalMultigrid final : public Preconditioner {
 public:
  GlobalMultigrid(const LevelHierarchy& hierarchy, const GlobalMultigridParams& params)
      : GlobalMultigrid(hierarchy, params, nullptr) {}
  /// For one operator, solved once: the set-up above with params.updatable = false, in which
  /// each level above the coarse grid releases its type-0 bands in `hierarchy` as soon as its
  /// local solver is set up, if its products read zones alone (release_zoned_bands): before the
  /// next level's local solver and the work vectors are made, so that the peak memory holds
  /// them no longer.
  static GlobalMultigrid for_one_operator(LevelHierarchy& hierarchy, GlobalMultigridParams params) {
    params.updatable = false;
    return GlobalMultigrid(hierarchy, params, &hierarchy);
  }
  ~GlobalMultigrid() override;

  /// Takes the hierarchy's current numbers: the local coarse levels recomputed, the local
  /// solvers updated in place, the coarse grid refactorised. Timers keep running. `deferred`:
  /// the coarse grid's numbers are gathered, and factorise_coarse() must follow before apply()
  /// (CoarseGridSolver: several roots factorising side by side).
  void update(CoarseFactorisation when = CoarseFactorisation::now);
  /// The coarse grid's factorisation that update(deferred) left to do (on its roots).
  void factorise_coarse();

  /// One cycle on the finest level from a zero initial guess: c ~ A^{-1} d.
  void apply(const LevelVector& d, LevelVector& c) override;

  /// apply() to two defects with the same operators (the velocity components): c0 and c1
  /// bitwise what apply(d0, c0) and apply(d1, c1) give, for half the passes over the matrices
  /// (global and local) and one shared-node exchange for both. No argument may alias another.
  /// The cuda target runs two apply() calls.
  void apply_pair(const LevelVector& d0, const LevelVector& d1, LevelVector& c0, LevelVector& c1);

  /// The multigrid as a stand-alone iteration on the finest level, from the guess in x.
  KrylovResult solve(const LevelVector& b, LevelVector& x, const KrylovParams& params);

  const MultigridTimings& timings() const { return timings_; }
  const LinearOperator& finest_operator() const { return operators_.back(); }
  std::string description() const;

 private:
  struct Work {
    /// correction is empty where the local solvers solve in place (correction_ is then defect).
    LevelVector defect, correction, coarse_rhs, coarse_x;
  };

  /// releasing: the hierarchy, given mutable, whose levels' bands the set-up releases (or null).
  GlobalMultigrid(const LevelHierarchy& hierarchy, const GlobalMultigridParams& params,
                  LevelHierarchy* releasing);

  /// Lanes right-hand sides (1, or 2 for apply_pair) and their iterates: every step runs on
  /// all lanes before the next, each lane with the operations of a cycle of its own.
  template <int Lanes>
  using Rhs = std::array<const LevelVector*, Lanes>;
  template <int Lanes>
  using Iterates = std::array<LevelVector*, Lanes>;

  /// One cycle on level l for A_l x = b, improving x in place; x_is_zero: every lane's x is 0
  /// on entry (the first defect is then W b, without the product).
  template <int Lanes>
  void cycle(int l, const Rhs<Lanes>& b, const Iterates<Lanes>& x, bool x_is_zero);
  /// The local solver's parameters on global level l (params.auto_smoother decides there).
  accel::LocalSolverParams local_params(int l) const;
  /// The set-up of level l's local solver (made, not yet set up) and of its coarse levels.
  /// `releasing`: the hierarchy's, to give a level in zone form its bands when they are needed.
  void set_up_local(int l, LevelHierarchy* releasing);
  /// The same from the zones of level l's local matrix alone (no bands anywhere), where the
  /// level is in zone form and the local solver sweeps from zones; false (nothing done) where
  /// not. Collective.
  bool set_up_local_from_zones(int l);
  /// The local solver's levels for global level l, coarsest first; `fine`: level l's local
  /// matrix.
  std::vector<const accel::BandedMatrix<double>*> local_matrices(
      int l, const accel::BandedMatrix<double>& fine) const;
  /// The zones of those levels for LocalSolver::setup_zoned: the coarse levels' where they were
  /// made in zone form (else null), then fine_zones (null if it was not detected).
  std::vector<const accel::StencilZones<double>*> local_zones(
      int l, const accel::StencilZones<double>& fine_zones) const;
  /// `steps` additive Schwarz steps on level l (x_is_zero: as for cycle).
  template <int Lanes>
  void smooth(int l, const Rhs<Lanes>& b, const Iterates<Lanes>& x, int steps, bool x_is_zero);
  /// W (b - A x) of every lane into its work defect on level l; x_is_zero: x = 0 on entry.
  template <int Lanes>
  void defects(int l, const Rhs<Lanes>& b, const Iterates<Lanes>& x, const SharedWeights* weight,
               bool x_is_zero = false);
  /// Type-0 -> type-1 sum by `shared` of `field` of every lane's work on level l.
  template <int Lanes>
  void sum(const SharedNodes& shared, int l, LevelVector Work::*field);
  /// The second lane's work vectors, made at the first apply_pair (Poisson never needs them).
  void make_second_lane();

  const LevelHierarchy* hierarchy_;
  GlobalMultigridParams params_;
  std::vector<LevelOperator> operators_;                  ///< levels 0..L
  std::vector<SharedWeights> inverse_sqrt_multiplicity_;  ///< levels 0..L
  std::vector<double> damping_;                           ///< levels 0..L (Schwarz omega)
  /// Where a level's local correction goes: Work::defect when every local solver solves in
  /// place (LocalSolver::solves_in_place, as does the coarse grid's gather and scatter), else
  /// Work::correction.
  LevelVector Work::*correction_ = &Work::correction;
  /// Levels 0..L. Declared before local_, so destroyed after it: the local solvers hold the pages
  /// of defect and correction locked (LocalSolver::pin_io) until they are gone.
  std::vector<std::array<Work, 2>> work_;
  std::vector<std::unique_ptr<LocalCoarseLevels>> local_levels_;  ///< levels 0..L (null <= Lc)
  std::vector<std::unique_ptr<accel::LocalSolver>> local_;        ///< levels 0..L (null <= Lc)
  std::optional<CoarseGridSolver> coarse_;
  std::optional<CoarseGridSolver> coarse_pair_;  ///< on coarse_pair_root (or none)
  MultigridTimings timings_;
};

/// The default of solver.coarse.threshold: at most this many global unknowns on the level that
/// UMFPACK solves directly. The flow solver's FGMRES applies three multigrids per iteration, so
/// the direct solve's cost counts: measured (1 rank), 20000 against 4000 puts 33% of DFG 2D-1's
/// L = 5 solve into the coarse solves (10.1 of 30.0 s; 301 against 297 iterations) and 25% of
/// the cavity's L = 6 (2.5 of 10.2 s), against 8% and 5% with 4000; the Poisson iterations are
/// the same (7 at L = 8).
inline constexpr std::size_t kDefaultCoarseThreshold = 4000;

/// Lc for a hierarchy: the highest level below `finest` whose global number of unknowns is at
/// most `threshold` (level 0 if none; `finest` itself only when finest == 0).
int choose_coarse_level(const CoarseMesh& mesh, int finest, std::size_t threshold);

}  // namespace quilt
