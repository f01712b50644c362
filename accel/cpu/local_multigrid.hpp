#pragma once
// The cpu target of the local layer (design.md §7): a V(pre, post) multigrid cycle with one of
// the smoothers of accel/cpu/smoothers, bilinear prolongation and its transpose, and a direct
// dense LU solve on the coarsest local level, run on all macros of a batch at once in precision T
// (float or double).
//
// The cycle is the reference the cuda target mirrors step by step:
//   vcycle(0): x = A_0^{-1} b.
//   vcycle(k): pre forward sweeps of the smoother on A_k x = b; d = b - A x, zeroed at Dirichlet
//              rows; b_c = P^T d, zeroed at the coarse Dirichlet rows; x_c = 0; vcycle(k-1);
//              x += P x_c; post backward sweeps (the adjoint: V(nu, nu) is symmetric for
//              symmetric A).
// Dirichlet rows (design.md §4: unit rows) are the rows whose 8 off-diagonal entries are 0; the
// coarse-grid correction never touches them, so a defect that is 0 there gives a correction that
// is exactly 0 there.

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "accel/banded_matrix.hpp"
#include "accel/cpu/dense_lu.hpp"
#include "accel/cpu/smoothers/smoother.hpp"
#include "accel/local_solver.hpp"
#include "accel/stencil_zones.hpp"

namespace quilt::accel {

template <class T>
class CpuLocalMultigrid final : public LocalSolver {
 public:
  /// params must be valid (make_local_solver checks them).
  explicit CpuLocalMultigrid(const LocalSolverParams& params);

  void setup(const std::vector<const BandedMatrix<double>*>& levels) override;
  void setup_zoned(const std::vector<const BandedMatrix<double>*>& levels,
                   const std::vector<const StencilZones<double>*>& zones) override;
  bool sweeps_from_zones_alone() const override { return cpu::sweeps_from_zones(params_.smoother); }
  bool solves_in_place() const override { return true; }
  /// Takes the lanes of `finer` (a CpuLocalMultigrid<T>) for its levels. Throws AccelError after
  /// setup(): its levels hold this solver's lanes by address.
  void share_work(LocalSolver& finer) override;
  void update(const std::vector<const BandedMatrix<double>*>& levels) override;
  void solve(const double* defect, double* correction) override;
  /// The two V-cycles side by side, one pass over each level's matrix and smoother factors for
  /// both (ILU(0) fuses its sweeps; other smoothers sweep one vector after the other). With
  /// digits > 0 every vector stops on its own: two solve() calls.
  void solve_pair(const double* d0, const double* d1, double* c0, double* c1) override;
  LocalSolveStats last_stats() const override { return stats_; }
  std::string description() const override;

  /// Dirichlet rows of level k (0 = coarsest), macro offsets included, as found by setup().
  const std::vector<std::size_t>& dirichlet_rows(int k) const { return levels_[k].dirichlet; }
  /// Whether level k (0 = coarsest) keeps its matrix in bands of T: false on the coarsest level
  /// and where the smoother sweeps every macro from its zones (Jacobi, all macros zoned).
  bool has_bands(int k) const { return levels_[k].A.has_bands(); }

 private:
  /// One right-hand side's vectors on a level: lane 0 serves solve(), lanes 0 and 1 solve_pair().
  /// Lane 1 is shaped at the first solve_pair(): a scalar operator that is never solved in pairs
  /// (Poisson, the pressure Laplacian) does not carry it.
  struct Lane {
    StaggeredVector<T> b;  ///< right-hand side of this level's cycle
    StaggeredVector<T> x;  ///< iterate
    StaggeredVector<T> d;  ///< defect; Jacobi's second iterate while it smooths (free then)
  };
  using LanePair = std::array<Lane, 2>;
  /// The lanes of every level, coarsest first, shared by the solvers of share_work: each level's
  /// made by the first solver that needs it, and held by address, so that it never moves.
  using LaneSet = std::vector<std::unique_ptr<LanePair>>;
  struct Level {
    /// shape_only on the coarsest level (it has the LU) and where the smoother sweeps every
    /// macro from its zones
    BandedMatrix<T> A;
    StencilZones<T> zones;                       ///< of A: its constant-stencil macros
    std::unique_ptr<cpu::Smoother<T>> smoother;  ///< null on the coarsest level
    std::vector<std::size_t> dirichlet;          ///< unit rows
    LanePair* lanes = nullptr;                   ///< in lanes_
    Lane& lane(int q) { return (*lanes)[q]; }
    int n = 0;
    std::size_t rows = 0;
  };

  /// Zeroed vectors of `rows` values for level k (no defect on the coarsest level, which has the
  /// LU).
  static void shape_lane(std::size_t rows, std::size_t k, Lane& v);
  /// The levels of setup() with their storage made (Dirichlet rows: from zones[k] where it is
  /// given and every macro is zoned; lane 0 in `lanes`, where missing), no numbers yet.
  static std::vector<Level> shaped_levels(const std::vector<const BandedMatrix<double>*>& levels,
                                          const std::vector<const StencilZones<double>*>& zones,
                                          LaneSet& lanes);
  /// The numbers of setup() and update(): the zones (zones[k], or detected where it is empty or
  /// null), the matrices converted into `into` where the smoother reads bands, the smoothers
  /// made or refreshed, the coarsest level factorised into lu. Messages start with `who`.
  void load_numbers(const std::vector<const BandedMatrix<double>*>& levels,
                    const std::vector<const StencilZones<double>*>& zones, std::vector<Level>& into,
                    cpu::BatchedDenseLU<T>& lu, const char* who);
  /// One V-cycle on level k for the first Lanes lanes (1 or 2), each lane with the operations
  /// and order of a cycle of its own.
  template <int Lanes>
  void vcycle(int k, bool x_is_zero);
  template <int Lanes>
  void smooth(Level& l, int steps, cpu::SweepDirection direction, bool x_is_zero);
  /// Per macro 2-norm of b - A x on the finest level, into norms_.
  void finest_defect_norms();

  LocalSolverParams params_;
  std::shared_ptr<LaneSet> lanes_ = std::make_shared<LaneSet>();
  std::vector<Level> levels_;
  cpu::BatchedDenseLU<T> coarse_lu_;
  /// load_numbers' zones of a level's double matrix, kept so that an update allocates nothing.
  StencilZones<double> source_zones_;
  int macros_ = 0;
  std::vector<double> initial_norms_;
  std::vector<double> norms_;
  LocalSolveStats stats_;
};

}  // namespace quilt::accel
