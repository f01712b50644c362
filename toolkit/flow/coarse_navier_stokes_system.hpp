#pragma once
// The linearised Navier-Stokes system of a coarse level H, solved directly: the coarse space of
// the two-level preconditioner (flow/two_level_flow_preconditioner.hpp, design.md §8).
//
// Why. The block-triangular preconditioner treats velocity and pressure apart, with element-wise
// Schur approximations and the Oseen velocity operator. What it misses acts on smooth modes:
// the inf-sup constant of the domain (it decays like the inverse aspect ratio of a channel:
// Horgan & Payne 1983), and in a Newton step the Galerkin reaction ((du.grad) u_k, v) that
// couples the velocity components. The reaction is of lower order: on smooth modes as large as
// the rest of the operator, on oscillating ones negligible, so a coarse grid carries it where it
// matters: two-level methods for nonsymmetric and indefinite problems converge once the coarse
// mesh resolves the lower-order part (Bank, SIAM J. Numer. Anal. 18, 1981; Cai & Lai, Numer.
// Linear Algebra Appl. 3, 1996).
//
// What. The same discretisation rediscretised on H,
//   K_H = [A_H + N11, N12, B1; N21, A_H + N22, B2; D1 + E1, D2 + E2, C]
// (the Newton blocks in a Newton step, at the velocity and pressure injected into H), gathered
// to one rank, its root, and factorised there by UMFPACK. add_correction(r, c) adds
// P K_H^{-1} P^T r, P the bilinear prolongation H -> L applied to each field (velocity and
// pressure are both Q1).
//
// Set up once (the gather plan, the 3N x 3N pattern, UMFPACK's symbolic analysis); update()
// refreshes the numbers per linearisation, in two halves as CoarseGridSolver's.

#include <array>
#include <optional>
#include <vector>

#include "flow/navier_stokes_system.hpp"
#include "mesh/coarse_mesh.hpp"
#include "solvers/coarse_grid_solver.hpp"
#include "solvers/level_hierarchy.hpp"

namespace quilt {

/// Nodes up to which the level below the finest may be H: its factorisation (3000 unknowns) then
/// costs about as much as the iterations it saves.
inline constexpr std::size_t kSmallCoarseSystem = 1000;

/// The finest level H with at most max_nodes global nodes, at most finest - 2 (the coarse system
/// then has about 1/16 of the fine one's unknowns) unless it has at most kSmallCoarseSystem
/// nodes; -1 when there is none. Measured: H = L - 1 at 2664 nodes (DFG Stokes, L = 4) costs
/// 2.0x the time of H = L - 2 (0.92 s against 0.47 s); at 194 and 684 nodes (DFG 2D-1,
/// L = 2, 3) it saves 13-31 % of the iterations at -16 % and +18 % of the time.
int choose_coarse_system_level(const CoarseMesh& mesh, int finest, std::size_t max_nodes);

class CoarseNavierStokesSystem {
 public:
  /// `velocity`: the velocity hierarchy (its level-H matrix is A_H, its Dirichlet mask that of
  /// the velocity); `constant_kernel`: the velocity is prescribed on the whole boundary, so the
  /// pressure is determined up to a constant, which K_H fixes at one node; `root`: the rank that
  /// factorises and solves.
  CoarseNavierStokesSystem(const LevelHierarchy& velocity, int level, bool constant_kernel,
                           int root = 0);
  ~CoarseNavierStokesSystem();
  CoarseNavierStokesSystem(const CoarseNavierStokesSystem&) = delete;
  CoarseNavierStokesSystem& operator=(const CoarseNavierStokesSystem&) = delete;

  int level() const { return level_; }
  /// Level H's B, D, C (and a scratch A) and Newton blocks, assembled in place before update()
  /// (NavierStokesAssembly::assemble_blocks, assemble_newton_blocks).
  FlowBlocks& blocks() { return blocks_; }
  accel::BandedMatrix<double>& scratch_operator() { return scratch_A_; }
  NewtonCoupling& newton() { return newton_; }
  /// K_H from blocks(), the hierarchy's current A_H and, with `newton`, newton(); factorised.
  void update(bool newton) {
    gather_numbers(newton);
    factorise();
  }
  /// Collective: K_H's numbers to the root; factorise() must follow before a correction.
  void gather_numbers(bool newton);
  /// The LU of the numbers gathered last, on the root (once per gather; not collective).
  void factorise();

  /// c += P K_H^{-1} P^T r for a type-1 defect r = [r1 | r2 | rp] of the finest level (c type-1).
  void add_correction(const LevelVector& r, LevelVector& c);
  /// c_p += P S_H^{-1} P^T d_p, S_H = C_H - D_H A_H^{-1} B_H the Schur complement of K_H: the
  /// pressure part of K_H^{-1} [0; 0; P^T d_p] (block elimination). The additive coarse
  /// correction of a Schur approximation, for the time steps the two-level step does not pay in.
  void add_pressure_correction(const double* d_p, double* c_p);
  /// Seconds spent in add_correction (all ranks: restriction, gather, solve, prolongation).
  double solve_seconds() const { return solve_seconds_; }

 private:
  /// Root: the CSR pattern of the nodes and of K_H from the gathered entries.
  void build_pattern(const std::vector<int>& rows, const std::vector<int>& cols);
  /// Root: K_H's values from the gathered band entries, Dirichlet and pinned rows included.
  void sum_gathered(bool newton);
  /// P^T of one field of the finest level, level by level, into restricted_[field][0] (level H).
  void restrict_field(const double* fine, int field);
  /// The level-H part of solution_ for `field`, prolongated and added into c_field.
  void prolongate_field(int field, double* c_field);
  /// c_f += (P K_H^{-1} P^T r)_f for the fields f with a correction; a null defect field is zero.
  void correct(const std::array<const double*, 3>& r, const std::array<double*, 3>& c);

  const LevelHierarchy* velocity_;
  int level_;
  bool constant_kernel_;
  int root_;
  bool gathered_newton_ = false;  ///< the numbers gathered last hold the Newton blocks
  bool factorised_ = false;       ///< factorise() has seen the numbers gathered last (every rank)
  std::size_t size_ = 0;          ///< global nodes of level H
  FlowBlocks blocks_;
  NewtonCoupling newton_;
  accel::BandedMatrix<double> scratch_A_;
  std::vector<std::size_t> local_ids_;  ///< global id of every local level-H node (type-1 copy)
  std::vector<int> counts_, displs_;    ///< per rank: level-H values of its macros
  std::vector<int> entry_counts_, entry_displs_;      ///< per rank: its band entries
  std::vector<std::pair<int, std::size_t>> entries_;  ///< (band, row) of every in-grid entry
  std::vector<double> sent_, received_;
  // The root only:
  std::vector<int> row_start_, slot_, slot_row_;       ///< node pattern; slot and row of each entry
  std::vector<int> system_row_start_, system_column_;  ///< K_H's pattern (3N x 3N)
  std::vector<char> dirichlet_;                        ///< global velocity Dirichlet mask
  std::vector<std::size_t> gathered_ids_;              ///< global id of every gathered node value
  std::optional<UmfpackFactorisation> K_;
  // Work, sized once:
  std::vector<std::vector<LevelVector>> restricted_;  ///< [field][level H..L-1]
  LevelVector scaled_;
  std::vector<double> gathered_, rhs_, solution_;
  double solve_seconds_ = 0;
};

}  // namespace quilt
