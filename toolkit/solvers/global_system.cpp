#include "solvers/global_system.hpp"

#include <algorithm>
#include <array>
#include <numeric>

#include "io/matrix_market.hpp"
#include "io/output.hpp"
#include "mesh/macro_nodes.hpp"

namespace quilt {
namespace {

/// Per-macro arrays of one level (n*n values per macro, each rank's macros ascending) gathered
/// to rank 0: where every macro's values lie in the gathered array.
class MacroGather {
 public:
  MacroGather(const DistributedMesh& dm, int level, const Communicator& comm)
      : comm_(&comm),
        nn_(static_cast<std::size_t>(accel::nodes_per_side(level)) * accel::nodes_per_side(level)) {
    counts_.assign(comm.size(), 0);
    displacements_.assign(comm.size(), 0);
    for (int c = 0; c < dm.mesh.num_cells(); ++c) counts_[dm.owner[c]] += static_cast<int>(nn_);
    std::partial_sum(counts_.begin(), counts_.end() - 1, displacements_.begin() + 1);
    offset_.resize(dm.mesh.num_cells());
    std::vector<std::size_t> filled(comm.size(), 0);
    for (int c = 0; c < dm.mesh.num_cells(); ++c) {  // ascending cells = each rank's macro order
      const int r = dm.owner[c];
      offset_[c] = static_cast<std::size_t>(displacements_[r]) + filled[r];
      filled[r] += nn_;
    }
  }
  /// This rank's values of all its macros (macro-major) -> every macro's values on rank 0.
  std::vector<double> gather(const double* local, std::size_t count) const {
    std::vector<double> all;
    if (comm_->rank() == 0)
      all.resize(static_cast<std::size_t>(displacements_.back()) + counts_.back());
    check_mpi(MPI_Gatherv(local, static_cast<int>(count), MPI_DOUBLE, all.data(), counts_.data(),
                          displacements_.data(), MPI_DOUBLE, 0, comm_->handle()),
              "MPI_Gatherv (global system)");
    return all;
  }
  /// Position of macro c's first value in a gathered array (rank 0).
  std::size_t offset(int c) const { return offset_[c]; }

 private:
  const Communicator* comm_;
  std::size_t nn_;
  std::vector<int> counts_, displacements_;
  std::vector<std::size_t> offset_;
};

std::vector<double> to_global(const DistributedMesh& dm, const GlobalNumbering& numbering,
                              const MacroGather& gather, const std::vector<double>& all) {
  std::vector<double> global(numbering.size(), 0.0);
  for (int c = dm.mesh.num_cells() - 1; c >= 0; --c) {  // the lowest macro's copy written last
    const auto ids = numbering.cell_nodes(c);
    const double* values = all.data() + gather.offset(c);
    for (std::size_t q = 0; q < ids.size(); ++q) global[ids[q]] = values[q];
  }
  return global;
}

}  // namespace

std::vector<double> gather_global_vector(const DistributedMesh& dm, int level, const LevelVector& v,
                                         const Communicator& comm) {
  const MacroGather gather(dm, level, comm);
  const std::vector<double> all = gather.gather(v.data(), v.size());
  if (comm.rank() != 0) return {};
  return to_global(dm, GlobalNumbering(dm.mesh, level), gather, all);
}

GlobalSystem gather_global_system(const LevelHierarchy& hierarchy, int level,
                                  const LevelVector& b) {
  const DistributedMesh& dm = hierarchy.mesh();
  const Communicator& comm = hierarchy.comm();
  const GlobalLevel& lev = hierarchy.level(level);
  const MacroGather gather(dm, level, comm);
  const LevelVector mask(lev.dirichlet.begin(), lev.dirichlet.end());
  const std::vector<double> all_b = gather.gather(b.data(), b.size());
  const std::vector<double> all_mask = gather.gather(mask.data(), mask.size());
  std::array<std::vector<double>, accel::kBands> bands;
  for (int k = 0; k < accel::kBands; ++k)
    bands[k] = gather.gather(lev.matrix.band[k].data(), lev.matrix.band[k].size());

  GlobalSystem system;
  if (comm.rank() != 0) return system;
  const GlobalNumbering numbering(dm.mesh, level);
  const std::size_t N = numbering.size();
  system.rhs = to_global(dm, numbering, gather, all_b);
  const std::vector<double> dirichlet = to_global(dm, numbering, gather, all_mask);
  const int n = lev.n;

  // Every in-grid band entry of every macro (type-0 parts) between two free nodes, visited in
  // ascending macro id: counted per row first, then placed, then summed per column.
  const auto visit = [&](auto&& entry) {
    for (int c = 0; c < dm.mesh.num_cells(); ++c) {
      const auto ids = numbering.cell_nodes(c);
      const std::size_t base = gather.offset(c);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const std::size_t r = i + static_cast<std::size_t>(j) * n;
          if (dirichlet[ids[r]] != 0.0) continue;
          for (int k = 0; k < accel::kBands; ++k) {
            const int di = k % 3 - 1, dj = k / 3 - 1;
            if (i + di < 0 || i + di >= n || j + dj < 0 || j + dj >= n) continue;
            entry(ids[r], ids[(i + di) + static_cast<std::size_t>(j + dj) * n], bands[k][base + r]);
          }
        }
    }
  };
  std::vector<std::size_t> count(N, 0);
  for (std::size_t r = 0; r < N; ++r)
    if (dirichlet[r] != 0.0) count[r] = 1;
  visit([&](std::size_t row, std::size_t col, double) {
    if (dirichlet[col] == 0.0) ++count[row];
  });
  std::vector<std::size_t> start(N + 1, 0);
  std::partial_sum(count.begin(), count.end(), start.begin() + 1);
  std::vector<std::size_t> column(start[N]);
  std::vector<double> value(start[N]);
  std::vector<std::size_t> next(start.begin(), start.end() - 1);
  for (std::size_t r = 0; r < N; ++r)
    if (dirichlet[r] != 0.0) {
      column[next[r]] = r;
      value[next[r]++] = 1.0;
    }
  visit([&](std::size_t row, std::size_t col, double v) {
    if (dirichlet[col] != 0.0) {
      system.rhs[row] -= v * system.rhs[col];  // rhs[col] is the Dirichlet value
      return;
    }
    column[next[row]] = col;
    value[next[row]++] = v;
  });

  SparseMatrix& A = system.matrix;
  A.size = N;
  A.row_start.assign(N + 1, 0);
  A.column.reserve(start[N]);
  A.value.reserve(start[N]);
  std::vector<std::size_t> order;
  for (std::size_t r = 0; r < N; ++r) {
    order.resize(start[r + 1] - start[r]);
    std::iota(order.begin(), order.end(), start[r]);
    // Stable: copies of one position stay in ascending macro id, and are added in that order.
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return column[a] < column[b]; });
    for (std::size_t t = 0; t < order.size(); ++t) {
      if (t > 0 && column[order[t]] == column[order[t - 1]])
        A.value.back() += value[order[t]];
      else {
        A.column.push_back(column[order[t]]);
        A.value.push_back(value[order[t]]);
      }
    }
    A.row_start[r + 1] = A.column.size();
  }
  return system;
}

std::string global_system_rhs_path(const std::string& path) {
  return path + ".rhs";
}

void check_global_system_export(const std::string& path, const Communicator& comm) {
  collective_output_step(
      comm.rank() == 0,
      [&path] {
        for (const std::string& file : {path, global_system_rhs_path(path)})
          if (const std::string problem = output_file_problem(file); !problem.empty())
            throw IoError("cannot write '" + file + "': " + problem);
      },
      comm, [&path](int) { return "rank 0 cannot write '" + path + "'"; });
}

void write_global_system(const std::string& path, const GlobalSystem& system,
                         const Communicator& comm) {
  collective_output_step(
      comm.rank() == 0,
      [&] {
        write_matrix_market(path, system.matrix);
        write_matrix_market(global_system_rhs_path(path), system.rhs);
      },
      comm, [&path](int) { return "rank 0 could not write --export-matrix '" + path + "'"; });
}

}  // namespace quilt
