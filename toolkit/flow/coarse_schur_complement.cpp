#include "flow/coarse_schur_complement.hpp"

#include <algorithm>
#include <numeric>

#include "accel/cpu/grid_transfer.hpp"
#include "mesh/macro_nodes.hpp"
#include "parallel/communicator.hpp"

namespace quilt {
namespace {

enum Block { kA, kB1, kB2, kD1, kD2, kC, kBlocks };

}  // namespace

int choose_schur_coarse_level(const CoarseMesh& mesh, int finest, std::size_t max_nodes) {
  int chosen = -1;
  for (int l = 0; l < finest; ++l)
    if (GlobalNumbering(mesh, l).size() <= max_nodes) chosen = l;
  return chosen;
}

CoarseSchurComplement::CoarseSchurComplement(const LevelHierarchy& velocity, int level,
                                             bool constant_kernel)
    : velocity_(&velocity), level_(level), constant_kernel_(constant_kernel) {
  const DistributedMesh& dm = velocity.mesh();
  const Communicator& comm = velocity.comm();
  const GlobalLevel& lev = velocity.level(level);
  const int n = lev.n, macros = dm.num_local();
  blocks_ = FlowBlocks(macros, n);
  scratch_A_ = accel::BandedMatrix<double>(macros, n);
  const GlobalNumbering numbering(dm.mesh, level);
  size_ = numbering.size();

  // Every in-grid band entry of this rank's macros, Dirichlet rows included (B_H and A_H treat
  // them below), and the velocity's Dirichlet nodes.
  LevelEntries own = level_entries(dm, lev, numbering, false);
  entries_ = std::move(own.entries);
  for (int m = 0; m < macros; ++m) {
    const auto ids = numbering.cell_nodes(dm.macros[m]);
    local_ids_.insert(local_ids_.end(), ids.begin(), ids.end());
  }
  std::vector<int> all_rows, all_cols, all_dirichlet, unused_counts, unused_displs;
  gather_to_root(comm, own.rows, all_rows, MPI_INT, entry_counts_, entry_displs_);
  gather_to_root(comm, own.cols, all_cols, MPI_INT, unused_counts, unused_displs);
  gather_to_root(comm, own.dirichlet_ids, all_dirichlet, MPI_INT, unused_counts, unused_displs);
  std::vector<std::size_t> all_ids;  // only for each rank's count of level-H values
  gather_to_root(comm, local_ids_, all_ids, MPI_UNSIGNED_LONG, counts_, displs_);
  sent_.resize(kBlocks * entries_.size());

  if (comm.rank() == 0) {
    const int N = static_cast<int>(size_);
    dirichlet_.assign(N, 0);
    for (int id : all_dirichlet) dirichlet_[id] = 1;
    // The CSR pattern of all six blocks (the Q1 couplings: symmetric, diagonal included).
    const std::vector<std::size_t> order = row_major_order(all_rows, all_cols);
    row_start_.assign(N + 1, 0);
    slot_.assign(all_rows.size(), -1);
    for (std::size_t t = 0; t < order.size(); ++t) {
      const int r = all_rows[order[t]], c = all_cols[order[t]];
      const bool fresh =
          column_.empty() || t == 0 || all_rows[order[t - 1]] != r || column_.back() != c;
      if (fresh) column_.push_back(c);
      slot_[order[t]] = static_cast<int>(column_.size()) - 1;
      row_start_[r + 1] = static_cast<int>(column_.size());
    }
    for (int r = 0; r < N; ++r) row_start_[r + 1] = std::max(row_start_[r + 1], row_start_[r]);
    transpose_.resize(column_.size());
    for (int r = 0; r < N; ++r)
      for (int s = row_start_[r]; s < row_start_[r + 1]; ++s) {
        const int c = column_[s];
        const auto first = column_.begin() + row_start_[c],
                   last = column_.begin() + row_start_[c + 1];
        transpose_[s] = static_cast<int>(std::lower_bound(first, last, r) - column_.begin());
      }
    for (auto& v : values_) v.resize(column_.size());
    A_.emplace(N, row_start_, column_);
    received_.resize(kBlocks * all_rows.size());
    gathered_ids_ = gathered_node_ids(dm, numbering, displs_);
    S_.resize(static_cast<std::size_t>(N) * N);
    b_.assign(N, 0.0);
    y1_.resize(N);
    y2_.resize(N);
    global_.resize(N);
    gathered_.resize(gathered_ids_.size());
  }
  solution_.resize(size_);
  for (int l = level; l < velocity.finest(); ++l)
    restricted_.emplace_back(velocity.level(l).matrix.rows());
  scaled_.resize(velocity.level(velocity.finest()).matrix.rows());
}

CoarseSchurComplement::~CoarseSchurComplement() = default;

void CoarseSchurComplement::update() {
  const accel::BandedMatrix<double>* blocks[kBlocks] = {&velocity_->level(level_).matrix,
                                                        &blocks_.B1,
                                                        &blocks_.B2,
                                                        &blocks_.D1,
                                                        &blocks_.D2,
                                                        &blocks_.C};
  const std::size_t E = entries_.size();
  for (int q = 0; q < kBlocks; ++q)
    for (std::size_t e = 0; e < E; ++e)
      sent_[q * E + e] = blocks[q]->band[entries_[e].first][entries_[e].second];
  const Communicator& comm = velocity_->comm();
  std::vector<int> counts(comm.size()), displs(comm.size());
  if (comm.rank() == 0)
    for (int r = 0; r < comm.size(); ++r) {
      counts[r] = kBlocks * entry_counts_[r];
      displs[r] = kBlocks * entry_displs_[r];
    }
  check_mpi(MPI_Gatherv(sent_.data(), static_cast<int>(sent_.size()), MPI_DOUBLE, received_.data(),
                        counts.data(), displs.data(), MPI_DOUBLE, 0, comm.handle()),
            "MPI_Gatherv (coarse Schur complement)");
  if (comm.rank() != 0) return;
  sum_gathered();
  form_and_factorise();
}

void CoarseSchurComplement::sum_gathered() {
  for (auto& v : values_) std::fill(v.begin(), v.end(), 0.0);
  const Communicator& comm = velocity_->comm();
  for (int r = 0; r < comm.size(); ++r) {
    const std::size_t E = entry_counts_[r];
    const double* from = received_.data() + static_cast<std::size_t>(kBlocks) * entry_displs_[r];
    for (std::size_t e = 0; e < E; ++e) {
      const std::size_t t = entry_displs_[r] + e;
      const int s = slot_[t];
      for (int q = 0; q < kBlocks; ++q) values_[q][s] += from[q * E + e];
    }
  }
  // Dirichlet velocity rows: unit rows of A_H, zero rows of B_H (the velocity stays zero there).
  const int N = static_cast<int>(size_);
  for (int r = 0; r < N; ++r) {
    if (!dirichlet_[r]) continue;
    for (int s = row_start_[r]; s < row_start_[r + 1]; ++s) {
      values_[kA][s] = column_[s] == r ? 1.0 : 0.0;
      values_[kB1][s] = values_[kB2][s] = 0.0;
    }
  }
}

void CoarseSchurComplement::form_and_factorise() {
  const int N = static_cast<int>(size_);
  std::copy(values_[kA].begin(), values_[kA].end(), A_->values().begin());
  A_->factorise();
  std::fill(S_.begin(), S_.end(), 0.0);
  for (int r = 0; r < N; ++r)
    for (int s = row_start_[r]; s < row_start_[r + 1]; ++s)
      S_[static_cast<std::size_t>(r) * N + column_[s]] = values_[kC][s];
  // Column j of S_H = C_H - D_H A_H^{-1} B_H: the column of B_k is read through the symmetric
  // pattern (entry (i, j) at the transpose of slot (j, i)).
  for (int j = 0; j < N; ++j) {
    for (int k = 0; k < 2; ++k) {
      const std::vector<double>& B = values_[k == 0 ? kB1 : kB2];
      for (int s = row_start_[j]; s < row_start_[j + 1]; ++s) b_[column_[s]] = B[transpose_[s]];
      A_->solve(b_, k == 0 ? y1_ : y2_);
      for (int s = row_start_[j]; s < row_start_[j + 1]; ++s) b_[column_[s]] = 0.0;
    }
    for (int r = 0; r < N; ++r) {
      double sum = 0.0;
      for (int s = row_start_[r]; s < row_start_[r + 1]; ++s)
        sum += values_[kD1][s] * y1_[column_[s]] + values_[kD2][s] * y2_[column_[s]];
      S_[static_cast<std::size_t>(r) * N + j] -= sum;
    }
  }
  if (constant_kernel_) {  // S_H 1 = 0 and 1^T S_H = 0: pin the constant with rho 1 1^T
    double rho = 0.0;
    for (int r = 0; r < N; ++r) rho += S_[static_cast<std::size_t>(r) * N + r];
    rho /= static_cast<double>(N) * N;
    for (double& s : S_) s += rho;
  }
  lu_.factorise(1, N, S_.data());
}

void CoarseSchurComplement::add_correction(const double* d, double* c) {
  const int L = velocity_->finest();
  const int macros = velocity_->mesh().num_local();
  // P^T d: level by level, each type-1 defect scaled to type-0 and summed again on the coarser
  // level (as the global multigrid restricts).
  const double* fine = d;
  for (int l = L; l > level_; --l) {
    const GlobalLevel& lev = velocity_->level(l);
    const std::vector<double>& w = lev.shared->inverse_multiplicity();
    for (std::size_t i = 0; i < w.size(); ++i) scaled_[i] = fine[i] * w[i];
    LevelVector& coarse = restricted_[l - 1 - level_];
    accel::cpu::restrict_transpose(macros, velocity_->level(l - 1).n, scaled_.data(),
                                   coarse.data());
    velocity_->level(l - 1).shared->sum(coarse.data());
    fine = coarse.data();
  }
  const Communicator& comm = velocity_->comm();
  LevelVector& coarse = restricted_[0];
  check_mpi(
      MPI_Gatherv(coarse.data(), static_cast<int>(coarse.size()), MPI_DOUBLE, gathered_.data(),
                  counts_.data(), displs_.data(), MPI_DOUBLE, 0, comm.handle()),
      "MPI_Gatherv (coarse Schur complement)");
  if (comm.rank() == 0) {
    for (std::size_t t = 0; t < gathered_.size(); ++t) global_[gathered_ids_[t]] = gathered_[t];
    lu_.solve(global_.data(), solution_.data());
  }
  check_mpi(MPI_Bcast(solution_.data(), static_cast<int>(size_), MPI_DOUBLE, 0, comm.handle()),
            "MPI_Bcast (coarse Schur complement)");
  for (std::size_t i = 0; i < coarse.size(); ++i) coarse[i] = solution_[local_ids_[i]];
  // P x_H, level by level; the last step adds into c.
  for (int l = level_ + 1; l <= L; ++l) {
    const LevelVector& from = restricted_[l - 1 - level_];
    const int nc = velocity_->level(l - 1).n;
    if (l == L)
      accel::cpu::prolongate_add(macros, nc, from.data(), c);
    else
      accel::cpu::prolongate(macros, nc, from.data(), restricted_[l - level_].data());
  }
}

}  // namespace quilt
