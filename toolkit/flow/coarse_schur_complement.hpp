#pragma once
// A coarse-space correction of the pressure Schur complement approximation (design.md §8).
//
// Why. PCD and the scaled mass approximate S = C - D A^{-1} B element by element; what they
// cannot see is the domain. For the Stokes operator the spectrum of M_p^{-1} S lies in
// [beta^2, d] with beta the inf-sup constant of the domain, and beta decays like the inverse
// aspect ratio of a channel (Horgan & Payne 1983; Chizhonkov & Olshanskii 2000): the pressure
// modes that vary slowly along the channel drive a Poiseuille flow whose divergence nearly
// vanishes. Measured with exact velocity solves (bench prototype in docs/design.md §8): GMRES
// iterations to 1e-8 on the Q1/Q1 PSPG Stokes system with S~ = M_p / nu grow from 20 (unit
// square) to 34 and 51 (channels 8 and 16 long), and the Quilt solver on the DFG channel needs
// 25 FGMRES iterations per digit in the Stokes limit, against 3 on the cavity.
//
// What. Those modes are smooth, so a coarse grid resolves them: the exact Schur complement
// S_H = C_H - D_H A_H^{-1} B_H of the same discretisation on a coarse level H, added as in a
// two-level additive Schwarz method,
//   S~^{-1} d = S_fine^{-1} d + P S_H^{-1} P^T d,
// with P the bilinear prolongation from H to the finest level. The prototype's counts become
// 17, 16 and 14. S_H is dense (n_H <= solver.schur.coarse_nodes nodes): A_H^{-1} B_H column by
// column with UMFPACK, then a dense LU. Rank 0 holds it; each application gathers P^T d there
// and broadcasts the correction.
//
// Set up once (the level, the gather plan, the sparsity pattern, the symbolic analysis of A_H),
// refreshed per linearisation by update(): the blocks of level H are re-assembled, S_H formed
// and factorised again.

#include <memory>
#include <optional>
#include <vector>

#include "accel/cpu/dense_lu.hpp"
#include "flow/navier_stokes_system.hpp"
#include "flow/pressure_schur.hpp"
#include "solvers/coarse_grid_solver.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

/// The finest level below `finest` with at most max_nodes global nodes; -1 when there is none
/// (finest = 0, max_nodes = 0, or level 0 already larger).
int choose_schur_coarse_level(const CoarseMesh& mesh, int finest, std::size_t max_nodes);

class CoarseSchurComplement {
 public:
  /// `velocity`: the velocity hierarchy (its level H matrix is A_H, its Dirichlet mask that of
  /// the velocity); `constant_kernel`: the velocity is prescribed on the whole boundary, so S_H
  /// annihilates the constant pressure, which is then pinned by a rank-one term.
  CoarseSchurComplement(const LevelHierarchy& velocity, int level, bool constant_kernel);
  ~CoarseSchurComplement();
  int level() const { return level_; }
  std::size_t global_size() const { return size_; }
  /// Level H's blocks, to be re-assembled in place before update() (NavierStokesAssembly::
  /// assemble_blocks).
  FlowBlocks& blocks() { return blocks_; }
  accel::BandedMatrix<double>& scratch_operator() { return scratch_A_; }
  /// Forms and factorises S_H = C_H - D_H A_H^{-1} B_H from blocks() and the current level-H
  /// matrix A_H of the hierarchy.
  void update();
  /// c += P S_H^{-1} P^T d for a type-1 pressure defect d of the finest level (c type-1).
  void add_correction(const double* d, double* c);

 private:
  /// Rank 0: the gathered band values of the six level-H matrices summed into CSR values.
  void sum_gathered();
  /// Rank 0: S_H from the CSR values, then its LU.
  void form_and_factorise();

  const LevelHierarchy* velocity_;
  int level_;
  bool constant_kernel_;
  std::size_t size_ = 0;
  FlowBlocks blocks_;
  accel::BandedMatrix<double> scratch_A_;
  std::vector<std::size_t> local_ids_;  ///< global id of every local level-H node (type-1 copy)
  std::vector<int> counts_, displs_;    ///< per rank: level-H values of its macros
  std::vector<int> entry_counts_, entry_displs_;      ///< per rank: its band entries x 6 matrices
  std::vector<std::pair<int, std::size_t>> entries_;  ///< (band, row) of every in-grid entry
  std::vector<double> sent_, received_;
  // Rank 0 only:
  std::vector<int> row_start_, column_, slot_, transpose_;
  std::vector<char> dirichlet_;                ///< global velocity Dirichlet mask
  std::array<std::vector<double>, 6> values_;  ///< A, B1, B2, D1, D2, C in CSR order
  std::vector<std::size_t> gathered_ids_;      ///< global id of every gathered node value
  std::optional<UmfpackFactorisation> A_;      ///< the coupled velocity operator of level H
  std::vector<double> S_;
  accel::cpu::BatchedDenseLU<double> lu_;
  // Work, sized once:
  std::vector<LevelVector> restricted_;  ///< per level H..L-1
  LevelVector scaled_, prolongated_;
  std::vector<double> gathered_, global_, solution_, b_, y1_, y2_;
};

/// S~^{-1} d = S_fine^{-1} d + P S_H^{-1} P^T d (header).
class CoarseCorrectedSchur final : public PressureSchurApproximation {
 public:
  CoarseCorrectedSchur(std::unique_ptr<PressureSchurApproximation> fine,
                       CoarseSchurComplement& coarse)
      : fine_(std::move(fine)), coarse_(&coarse) {}
  void apply(const double* d, double* c) override {
    fine_->apply(d, c);
    coarse_->add_correction(d, c);
  }

 private:
  std::unique_ptr<PressureSchurApproximation> fine_;
  CoarseSchurComplement* coarse_;
};

}  // namespace quilt
