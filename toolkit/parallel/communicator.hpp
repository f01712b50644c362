#pragma once
// The thin MPI wrapper (design.md §5): everything above this folder talks to MPI through it.

#include <mpi.h>

#include <numeric>
#include <stdexcept>
#include <vector>

namespace quilt {

/// A failed MPI call; the message names the call and the MPI error string.
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws MpiError naming `call` unless code == MPI_SUCCESS.
void check_mpi(int code, const char* call);

/// MPI_Init / MPI_Finalize for the lifetime of an application's main().
class MpiEnvironment {
 public:
  MpiEnvironment(int& argc, char**& argv);
  ~MpiEnvironment();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;
};

/// Nonblocking requests that are completed (waited for) at the latest when this goes out of
/// scope, so no exception path leaves a send buffer in flight.
class RequestSet {
 public:
  RequestSet() = default;
  ~RequestSet();
  RequestSet(const RequestSet&) = delete;
  RequestSet& operator=(const RequestSet&) = delete;
  MPI_Request* add();
  void wait_all();

 private:
  std::vector<MPI_Request> requests_;
};

class Communicator {
 public:
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD);
  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm handle() const { return comm_; }

  /// Global sums and maxima. sum() adds the ranks' partial values in rank order on every rank,
  /// so it is bitwise reproducible for a fixed rank count (MPI_Allreduce need not be).
  double sum(double local) const;
  std::vector<double> sum(const std::vector<double>& local) const;
  double max(double local) const;
  long long sum(long long local) const;

  /// Rank among the processes on the same node (for rank-to-GPU mapping).
  int node_local_rank() const;
  /// Ends every rank of the job (an error seen on one rank must not leave the others waiting).
  [[noreturn]] void abort(int code) const;

 private:
  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
};

/// Collective: `local` of every rank into `all` on rank `root`, with each rank's count and
/// displacement there (MPI_Gather of the counts, then MPI_Gatherv).
template <class T>
void gather_to_root(const Communicator& comm, const std::vector<T>& local, std::vector<T>& all,
                    MPI_Datatype type, std::vector<int>& counts, std::vector<int>& displs,
                    int root = 0) {
  int count = static_cast<int>(local.size());
  counts.assign(comm.size(), 0);
  displs.assign(comm.size(), 0);
  check_mpi(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, root, comm.handle()),
            "MPI_Gather (counts)");
  if (comm.rank() == root) {
    std::partial_sum(counts.begin(), counts.end() - 1, displs.begin() + 1);
    all.resize(std::accumulate(counts.begin(), counts.end(), std::size_t{0}));
  }
  check_mpi(MPI_Gatherv(local.data(), count, type, all.data(), counts.data(), displs.data(), type,
                        root, comm.handle()),
            "MPI_Gatherv");
}

}  // namespace quilt
