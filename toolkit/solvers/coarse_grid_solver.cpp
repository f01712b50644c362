#include "solvers/coarse_grid_solver.hpp"

#include <umfpack.h>

#include <algorithm>
#include <numeric>
#include <string>

#include "mesh/macro_nodes.hpp"
#include "solvers/solver_error.hpp"

namespace quilt {

UmfpackFactorisation::UmfpackFactorisation(int n, std::vector<int> row_start,
                                           std::vector<int> column)
    : n_(n),
      row_start_(std::move(row_start)),
      column_(std::move(column)),
      value_(column_.size(), 0.0),
      control_(UMFPACK_CONTROL),
      work_index_(n),
      work_(n) {
  // No iterative refinement (UMFPACK's default does up to two steps, each a residual and a
  // further solve): the coarse solve is part of a preconditioner, whose outer iteration corrects
  // the round-off. Without refinement umfpack_di_wsolve's W needs n entries.
  umfpack_di_defaults(control_.data());
  control_[UMFPACK_IRSTEP] = 0;
}

void UmfpackFactorisation::factorise() {
  // UMFPACK reads compressed columns: handed our rows it sees A^T, so solve() asks for the
  // transposed system (UMFPACK_At) to get A x = b.
  if (!symbolic_) {
    const int status = umfpack_di_symbolic(n_, n_, row_start_.data(), column_.data(), value_.data(),
                                           &symbolic_, nullptr, nullptr);
    if (status != UMFPACK_OK) {
      symbolic_ = nullptr;
      throw SolverError("coarse grid: umfpack_di_symbolic failed with status " +
                        std::to_string(status) + " (matrix of order " + std::to_string(n_) + ")");
    }
  }
  if (numeric_) umfpack_di_free_numeric(&numeric_);
  const int status = umfpack_di_numeric(row_start_.data(), column_.data(), value_.data(), symbolic_,
                                        &numeric_, nullptr, nullptr);
  if (status != UMFPACK_OK) {
    if (numeric_) umfpack_di_free_numeric(&numeric_);
    throw SolverError("coarse grid: umfpack_di_numeric failed with status " +
                      std::to_string(status) +
                      (status == UMFPACK_WARNING_singular_matrix ? " (singular matrix)" : ""));
  }
}

UmfpackFactorisation::~UmfpackFactorisation() {
  if (numeric_) umfpack_di_free_numeric(&numeric_);
  if (symbolic_) umfpack_di_free_symbolic(&symbolic_);
}

void UmfpackFactorisation::solve(const std::vector<double>& b, std::vector<double>& x) const {
  x.resize(n_);
  // umfpack_di_wsolve with this object's workspace: umfpack_di_solve allocates it on every call.
  const int status = umfpack_di_wsolve(UMFPACK_At, row_start_.data(), column_.data(), value_.data(),
                                       x.data(), b.data(), numeric_, control_.data(), nullptr,
                                       work_index_.data(), work_.data());
  if (status != UMFPACK_OK)
    throw SolverError("coarse grid: umfpack_di_solve failed with status " + std::to_string(status));
}

LevelEntries level_entries(const DistributedMesh& dm, const GlobalLevel& level,
                           const GlobalNumbering& numbering, bool skip_dirichlet_rows) {
  const int n = level.n;
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  LevelEntries e;
  for (int m = 0; m < dm.num_local(); ++m) {
    const auto ids = numbering.cell_nodes(dm.macros[m]);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const std::size_t r = i + static_cast<std::size_t>(j) * n;
        if (level.dirichlet[m * nn + r]) {
          e.dirichlet_ids.push_back(static_cast<int>(ids[r]));
          if (skip_dirichlet_rows) continue;
        }
        for (int k = 0; k < accel::kBands; ++k) {
          const int di = k % 3 - 1, dj = k / 3 - 1;
          if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n) continue;
          e.entries.emplace_back(k, m * nn + r);
          e.rows.push_back(static_cast<int>(ids[r]));
          e.cols.push_back(static_cast<int>(ids[(i + di) + static_cast<std::size_t>(j + dj) * n]));
        }
      }
  }
  return e;
}

std::vector<std::size_t> row_major_order(const std::vector<int>& rows,
                                         const std::vector<int>& cols) {
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return rows[a] != rows[b] ? rows[a] < rows[b] : cols[a] < cols[b];
  });
  return order;
}

std::vector<std::size_t> gathered_node_ids(const DistributedMesh& dm,
                                           const GlobalNumbering& numbering,
                                           const std::vector<int>& displacements) {
  const std::size_t nn = static_cast<std::size_t>(numbering.n()) * numbering.n();
  std::vector<std::size_t> ids_of(nn * dm.mesh.num_cells());
  std::vector<std::size_t> filled(displacements.size(), 0);
  for (int c = 0; c < dm.mesh.num_cells(); ++c) {  // ascending cells = each rank's macro order
    const int r = dm.owner[c];
    const auto ids = numbering.cell_nodes(c);
    std::copy(ids.begin(), ids.end(), ids_of.begin() + displacements[r] + filled[r]);
    filled[r] += nn;
  }
  return ids_of;
}

CoarseGridSolver::CoarseGridSolver(const LevelHierarchy& hierarchy, int level, int root)
    : hierarchy_(&hierarchy), level_(level), root_(root) {
  const DistributedMesh& dm = hierarchy.mesh();
  const Communicator& comm = hierarchy.comm();
  if (root < 0 || root >= comm.size())
    throw SolverError("coarse grid: root " + std::to_string(root) + " is not a rank of the " +
                      std::to_string(comm.size()) + "-rank communicator");
  const GlobalLevel& lev = hierarchy.level(level);
  const GlobalNumbering numbering(dm.mesh, level);
  global_size_ = numbering.size();
  const int n = lev.n;
  const std::size_t nn = static_cast<std::size_t>(n) * n;

  // The pattern: the entries of the non-Dirichlet rows; the Dirichlet nodes become unit rows.
  LevelEntries own = level_entries(dm, lev, numbering, true);
  entries_ = std::move(own.entries);
  std::vector<int> all_rows, all_cols, all_dirichlet, unused_counts, unused_displs;
  gather_to_root(comm, own.rows, all_rows, MPI_INT, entry_counts_, entry_displacements_, root);
  gather_to_root(comm, own.cols, all_cols, MPI_INT, unused_counts, unused_displs, root);
  gather_to_root(comm, own.dirichlet_ids, all_dirichlet, MPI_INT, unused_counts, unused_displs,
                 root);

  if (comm.rank() == root) {
    const int N = static_cast<int>(global_size_);
    std::vector<char> is_dirichlet(N, 0);
    for (int id : all_dirichlet) is_dirichlet[id] = 1;
    const std::vector<std::size_t> order = row_major_order(all_rows, all_cols);
    // CSR pattern; duplicates share a slot, summed in gathered order (rank order, then macro
    // order) by update(): deterministic for a given rank count.
    std::vector<int> row_start(N + 1, 0), column;
    slot_.assign(all_rows.size(), -1);
    for (int r = 0, t = 0; r < N; ++r) {
      if (is_dirichlet[r]) {
        column.push_back(r);
        unit_rows_.resize(column.size(), 0.0);
        unit_rows_.back() = 1.0;
      }
      for (; t < static_cast<int>(order.size()) && all_rows[order[t]] == r; ++t) {
        if (is_dirichlet[r]) continue;  // a Dirichlet row in another macro's copy
        const int c = all_cols[order[t]];
        if (static_cast<int>(column.size()) == row_start[r] || column.back() != c)
          column.push_back(c);
        slot_[order[t]] = static_cast<int>(column.size()) - 1;
      }
      row_start[r + 1] = static_cast<int>(column.size());
    }
    unit_rows_.resize(column.size(), 0.0);
    factorisation_.emplace(N, std::move(row_start), std::move(column));
  }

  counts_.assign(comm.size(), 0);
  displacements_.assign(comm.size(), 0);
  for (int c = 0; c < dm.mesh.num_cells(); ++c) counts_[dm.owner[c]] += static_cast<int>(nn);
  std::partial_sum(counts_.begin(), counts_.end() - 1, displacements_.begin() + 1);
  if (comm.rank() == root) gathered_ids_ = gathered_node_ids(dm, numbering, displacements_);
  sent_.resize(entries_.size());
  if (comm.rank() == root) received_.resize(all_rows.size());
  update();
}

void CoarseGridSolver::gather_numbers() {
  const accel::BandedMatrix<double>& A = hierarchy_->level(level_).matrix;
  for (std::size_t e = 0; e < entries_.size(); ++e)
    sent_[e] = A.band[entries_[e].first][entries_[e].second];
  check_mpi(MPI_Gatherv(sent_.data(), static_cast<int>(sent_.size()), MPI_DOUBLE, received_.data(),
                        entry_counts_.data(), entry_displacements_.data(), MPI_DOUBLE, root_,
                        hierarchy_->comm().handle()),
            "MPI_Gatherv (coarse matrix)");
  factorised_ = false;
}

void CoarseGridSolver::factorise() {
  if (factorised_) return;
  factorised_ = true;  // on every rank: solve() checks it before its collectives
  if (hierarchy_->comm().rank() != root_) return;
  const std::span<double> value = factorisation_->values();
  std::copy(unit_rows_.begin(), unit_rows_.end(), value.begin());
  for (std::size_t t = 0; t < received_.size(); ++t)
    if (slot_[t] >= 0) value[slot_[t]] += received_[t];
  factorisation_->factorise();
}

CoarseGridSolver::~CoarseGridSolver() = default;

void CoarseGridSolver::gather_defect(const LevelVector& b) const {
  const Communicator& comm = hierarchy_->comm();
  if (!factorised_) throw SolverError("coarse grid: solve() before factorise()");
  if (comm.rank() == root_) {
    gathered_.resize(gathered_ids_.size());
    scattered_.resize(gathered_ids_.size());
    rhs_.resize(global_size_);
  }
  check_mpi(MPI_Gatherv(b.data(), static_cast<int>(b.size()), MPI_DOUBLE, gathered_.data(),
                        counts_.data(), displacements_.data(), MPI_DOUBLE, root_, comm.handle()),
            "MPI_Gatherv (coarse defect)");
}

void CoarseGridSolver::solve_on_root() const {
  if (hierarchy_->comm().rank() != root_) return;
  std::fill(rhs_.begin(), rhs_.end(), 0.0);
  for (std::size_t i = 0; i < gathered_.size(); ++i) rhs_[gathered_ids_[i]] = gathered_[i];
  factorisation_->solve(rhs_, solution_);
  for (std::size_t i = 0; i < scattered_.size(); ++i) scattered_[i] = solution_[gathered_ids_[i]];
}

void CoarseGridSolver::scatter_correction(LevelVector& x) const {
  const Communicator& comm = hierarchy_->comm();
  const int size = counts_[comm.rank()];
  x.resize(static_cast<std::size_t>(size));
  check_mpi(MPI_Scatterv(scattered_.data(), counts_.data(), displacements_.data(), MPI_DOUBLE,
                         x.data(), size, MPI_DOUBLE, root_, comm.handle()),
            "MPI_Scatterv (coarse correction)");
  filter(hierarchy_->level(level_).dirichlet, x);
}

}  // namespace quilt
