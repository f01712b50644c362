#include "flow/coarse_navier_stokes_system.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "accel/cpu/grid_transfer.hpp"
#include "mesh/macro_nodes.hpp"
#include "parallel/communicator.hpp"
#include "solvers/solver_error.hpp"

namespace quilt {
namespace {

// The level-H matrices gathered per update (the last six only in a Newton step).
enum Block { kA, kB1, kB2, kD1, kD2, kC, kN11, kN12, kN21, kN22, kE1, kE2, kBlocks };
constexpr int kFields = 3;  // u1, u2, p
// Block (i, j) of K_H: the sum of at most two gathered matrices (-1: none).
constexpr int kTerms[kFields][kFields][2] = {{{kA, kN11}, {kN12, -1}, {kB1, -1}},
                                             {{kN21, -1}, {kA, kN22}, {kB2, -1}},
                                             {{kD1, kE1}, {kD2, kE2}, {kC, -1}}};

}  // namespace

int choose_coarse_system_level(const CoarseMesh& mesh, int finest, std::size_t max_nodes) {
  int chosen = -1;
  for (int l = 0; l < finest; ++l) {
    const std::size_t nodes = GlobalNumbering(mesh, l).size();
    if (nodes <= max_nodes && (l <= finest - 2 || nodes <= kSmallCoarseSystem)) chosen = l;
  }
  return chosen;
}

CoarseNavierStokesSystem::CoarseNavierStokesSystem(const LevelHierarchy& velocity, int level,
                                                   bool constant_kernel, int root)
    : velocity_(&velocity),
      level_(level),
      constant_kernel_(constant_kernel),
      root_(root),
      blocks_(velocity.mesh().num_local(), velocity.level(level).n),
      newton_(velocity.mesh().num_local(), velocity.level(level).n),
      scratch_A_(velocity.mesh().num_local(), velocity.level(level).n) {
  const DistributedMesh& dm = velocity.mesh();
  const Communicator& comm = velocity.comm();
  if (root < 0 || root >= comm.size())
    throw SolverError("coarse Navier-Stokes system: root " + std::to_string(root) +
                      " is not a rank of the " + std::to_string(comm.size()) +
                      "-rank communicator");
  const GlobalNumbering numbering(dm.mesh, level);
  size_ = numbering.size();
  // Every in-grid band entry of this rank's macros, Dirichlet rows included (sum_gathered makes
  // them unit rows), and the velocity's Dirichlet nodes.
  LevelEntries own = level_entries(dm, velocity.level(level), numbering, false);
  entries_ = std::move(own.entries);
  for (int m = 0; m < dm.num_local(); ++m) {
    const auto ids = numbering.cell_nodes(dm.macros[m]);
    local_ids_.insert(local_ids_.end(), ids.begin(), ids.end());
  }
  std::vector<int> all_rows, all_cols, all_dirichlet, unused_counts, unused_displs;
  gather_to_root(comm, own.rows, all_rows, MPI_INT, entry_counts_, entry_displs_, root_);
  gather_to_root(comm, own.cols, all_cols, MPI_INT, unused_counts, unused_displs, root_);
  gather_to_root(comm, own.dirichlet_ids, all_dirichlet, MPI_INT, unused_counts, unused_displs,
                 root_);
  std::vector<std::size_t> all_ids;  // only for each rank's count of level-H values
  gather_to_root(comm, local_ids_, all_ids, MPI_UNSIGNED_LONG, counts_, displs_, root_);
  sent_.resize(kBlocks * entries_.size());
  if (comm.rank() == root_) {
    dirichlet_.assign(size_, 0);
    for (int id : all_dirichlet) dirichlet_[id] = 1;
    build_pattern(all_rows, all_cols);
    received_.resize(kBlocks * all_rows.size());
    gathered_ids_ = gathered_node_ids(dm, numbering, displs_);
    gathered_.resize(kFields * gathered_ids_.size());
    rhs_.assign(kFields * size_, 0.0);
  }
  solution_.resize(kFields * size_);
  restricted_.resize(kFields);
  for (auto& field : restricted_)
    for (int l = level; l < velocity.finest(); ++l)
      field.emplace_back(velocity.level(l).matrix.rows());
  scaled_.resize(velocity.level(velocity.finest()).matrix.rows());
}

CoarseNavierStokesSystem::~CoarseNavierStokesSystem() = default;

void CoarseNavierStokesSystem::build_pattern(const std::vector<int>& rows,
                                             const std::vector<int>& cols) {
  const int N = static_cast<int>(size_);
  // The node pattern (the Q1 couplings, diagonal included); duplicates share a slot.
  const std::vector<std::size_t> order = row_major_order(rows, cols);
  std::vector<int> column;
  row_start_.assign(N + 1, 0);
  slot_.assign(rows.size(), -1);
  for (std::size_t t = 0; t < order.size(); ++t) {
    const int r = rows[order[t]], c = cols[order[t]];
    if (t == 0 || rows[order[t - 1]] != r || column.back() != c) {
      column.push_back(c);
      slot_row_.push_back(r);
    }
    slot_[order[t]] = static_cast<int>(column.size()) - 1;
    row_start_[r + 1] = static_cast<int>(column.size());
  }
  for (int r = 0; r < N; ++r) row_start_[r + 1] = std::max(row_start_[r + 1], row_start_[r]);
  // K_H: all nine blocks on the node pattern, row i N + r holding columns j N + c for j = 0..2.
  system_row_start_.assign(kFields * N + 1, 0);
  for (int i = 0; i < kFields; ++i)
    for (int r = 0; r < N; ++r) {
      for (int j = 0; j < kFields; ++j)
        for (int s = row_start_[r]; s < row_start_[r + 1]; ++s)
          system_column_.push_back(j * N + column[s]);
      system_row_start_[i * N + r + 1] = static_cast<int>(system_column_.size());
    }
  K_.emplace(kFields * N, system_row_start_, system_column_);
}

void CoarseNavierStokesSystem::gather_numbers(bool newton) {
  const accel::BandedMatrix<double>* blocks[kBlocks] = {&velocity_->level(level_).matrix,
                                                        &blocks_.B1,
                                                        &blocks_.B2,
                                                        &blocks_.D1,
                                                        &blocks_.D2,
                                                        &blocks_.C,
                                                        &newton_.N11,
                                                        &newton_.N12,
                                                        &newton_.N21,
                                                        &newton_.N22,
                                                        &newton_.E1,
                                                        &newton_.E2};
  const int gathered = newton ? kBlocks : kN11;
  const std::size_t E = entries_.size();
  std::fill(sent_.begin(), sent_.end(), 0.0);
  for (int q = 0; q < gathered; ++q)
    for (std::size_t e = 0; e < E; ++e)
      sent_[q * E + e] = blocks[q]->band[entries_[e].first][entries_[e].second];
  const Communicator& comm = velocity_->comm();
  std::vector<int> counts(comm.size()), displs(comm.size());
  if (comm.rank() == root_)
    for (int r = 0; r < comm.size(); ++r) {
      counts[r] = kBlocks * entry_counts_[r];
      displs[r] = kBlocks * entry_displs_[r];
    }
  check_mpi(MPI_Gatherv(sent_.data(), static_cast<int>(sent_.size()), MPI_DOUBLE, received_.data(),
                        counts.data(), displs.data(), MPI_DOUBLE, root_, comm.handle()),
            "MPI_Gatherv (coarse Navier-Stokes system)");
  gathered_newton_ = newton;
  factorised_ = false;
}

void CoarseNavierStokesSystem::factorise() {
  if (factorised_) return;
  factorised_ = true;  // on every rank: correct() checks it before its collectives
  if (velocity_->comm().rank() != root_) return;
  sum_gathered(gathered_newton_);
  K_->factorise();
}

void CoarseNavierStokesSystem::sum_gathered(bool newton) {
  const int N = static_cast<int>(size_);
  const std::span<double> value = K_->values();
  std::fill(value.begin(), value.end(), 0.0);
  const Communicator& comm = velocity_->comm();
  const int terms = newton ? 2 : 1;
  for (int rank = 0; rank < comm.size(); ++rank) {  // rank order: deterministic sums
    const std::size_t E = entry_counts_[rank];
    const double* from = received_.data() + static_cast<std::size_t>(kBlocks) * entry_displs_[rank];
    for (std::size_t e = 0; e < E; ++e) {
      const int s = slot_[entry_displs_[rank] + e];
      const int r = slot_row_[s];
      const int offset = s - row_start_[r], length = row_start_[r + 1] - row_start_[r];
      for (int i = 0; i < kFields; ++i)
        for (int j = 0; j < kFields; ++j)
          for (int t = 0; t < terms; ++t)
            if (const int q = kTerms[i][j][t]; q >= 0)
              value[system_row_start_[i * N + r] + j * length + offset] += from[q * E + e];
    }
  }
  auto unit_row = [&](int row) {
    for (int t = system_row_start_[row]; t < system_row_start_[row + 1]; ++t)
      value[t] = system_column_[t] == row ? 1.0 : 0.0;
  };
  for (int r = 0; r < N; ++r)  // the correction vanishes on Dirichlet velocity nodes
    if (dirichlet_[r]) {
      unit_row(r);
      unit_row(N + r);
    }
  // The continuity rows then sum to zero (the test function 1): p = 0 at node 0 replaces one.
  if (constant_kernel_) unit_row(2 * N);
}

void CoarseNavierStokesSystem::restrict_field(const double* fine, int field) {
  const int macros = velocity_->mesh().num_local();
  // Each type-1 defect scaled to type-0, restricted and summed again on the coarser level (as
  // the global multigrid restricts).
  for (int l = velocity_->finest(); l > level_; --l) {
    // 1 * a = a: scaling the shared nodes alone gives the dense weight's bits.
    const SharedNodes& shared = *velocity_->level(l).shared;
    std::copy_n(fine, shared.size(), scaled_.data());
    shared.shared_inverse_multiplicity().scale(scaled_.data());
    LevelVector& coarse = restricted_[field][l - 1 - level_];
    accel::cpu::restrict_transpose(macros, velocity_->level(l - 1).n, scaled_.data(),
                                   coarse.data());
    velocity_->level(l - 1).shared->sum(coarse.data());
    fine = coarse.data();
  }
}

void CoarseNavierStokesSystem::prolongate_field(int field, double* c_field) {
  const int L = velocity_->finest();
  const int macros = velocity_->mesh().num_local();
  std::vector<LevelVector>& levels = restricted_[field];
  for (std::size_t i = 0; i < levels[0].size(); ++i)
    levels[0][i] = solution_[field * size_ + local_ids_[i]];
  for (int l = level_ + 1; l <= L; ++l) {
    const LevelVector& from = levels[l - 1 - level_];
    const int nc = velocity_->level(l - 1).n;
    if (l == L)
      accel::cpu::prolongate_add(macros, nc, from.data(), c_field);
    else
      accel::cpu::prolongate(macros, nc, from.data(), levels[l - level_].data());
  }
}

void CoarseNavierStokesSystem::add_correction(const LevelVector& r, LevelVector& c) {
  const std::size_t n = scaled_.size();
  correct({r.data(), r.data() + n, r.data() + 2 * n}, {c.data(), c.data() + n, c.data() + 2 * n});
}

void CoarseNavierStokesSystem::add_pressure_correction(const double* d_p, double* c_p) {
  correct({nullptr, nullptr, d_p}, {nullptr, nullptr, c_p});
}

void CoarseNavierStokesSystem::correct(const std::array<const double*, 3>& r,
                                       const std::array<double*, 3>& c) {
  const auto t_start = std::chrono::steady_clock::now();
  const Communicator& comm = velocity_->comm();
  const bool root = comm.rank() == root_;
  if (!factorised_)
    throw SolverError("coarse Navier-Stokes system: a correction before factorise()");
  const std::size_t G = gathered_ids_.size();
  for (int f = 0; f < kFields; ++f) {
    if (!r[f]) continue;  // the same fields on every rank
    restrict_field(r[f], f);
    const LevelVector& coarse = restricted_[f][0];
    check_mpi(MPI_Gatherv(coarse.data(), static_cast<int>(coarse.size()), MPI_DOUBLE,
                          root ? gathered_.data() + f * G : nullptr, counts_.data(), displs_.data(),
                          MPI_DOUBLE, root_, comm.handle()),
              "MPI_Gatherv (coarse Navier-Stokes system)");
  }
  if (root) {
    for (int f = 0; f < kFields; ++f)
      for (std::size_t t = 0; t < G; ++t)
        rhs_[f * size_ + gathered_ids_[t]] = r[f] ? gathered_[f * G + t] : 0.0;
    for (std::size_t i = 0; i < size_; ++i)  // the unit rows of K_H
      if (dirichlet_[i]) rhs_[i] = rhs_[size_ + i] = 0.0;
    if (constant_kernel_) rhs_[2 * size_] = 0.0;
    K_->solve(rhs_, solution_);
  }
  check_mpi(MPI_Bcast(solution_.data(), static_cast<int>(solution_.size()), MPI_DOUBLE, root_,
                      comm.handle()),
            "MPI_Bcast (coarse Navier-Stokes system)");
  for (int f = 0; f < kFields; ++f)
    if (c[f]) prolongate_field(f, c[f]);
  solve_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
}

}  // namespace quilt
