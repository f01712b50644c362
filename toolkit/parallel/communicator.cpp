#include "parallel/communicator.hpp"

#include <string>

namespace quilt {

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw MpiError(std::string(call) + " failed: " + std::string(text, length));
}

MpiEnvironment::MpiEnvironment(int& argc, char**& argv) {
  check_mpi(MPI_Init(&argc, &argv), "MPI_Init");
  // Errors come back as codes and become MpiError exceptions instead of aborting silently.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiEnvironment::~MpiEnvironment() {
  MPI_Finalize();
}

RequestSet::~RequestSet() {
  if (!requests_.empty())
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

MPI_Request* RequestSet::add() {
  requests_.push_back(MPI_REQUEST_NULL);
  return &requests_.back();
}

void RequestSet::wait_all() {
  if (requests_.empty()) return;
  check_mpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  requests_.clear();
}

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  check_mpi(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

double Communicator::sum(double local) const {
  return sum(std::vector<double>{local})[0];
}

std::vector<double> Communicator::sum(const std::vector<double>& local) const {
  const int count = static_cast<int>(local.size());
  std::vector<double> all(static_cast<std::size_t>(count) * size_);
  check_mpi(MPI_Allgather(local.data(), count, MPI_DOUBLE, all.data(), count, MPI_DOUBLE, comm_),
            "MPI_Allgather");
  std::vector<double> total(local.size(), 0.0);
  for (int r = 0; r < size_; ++r)
    for (int i = 0; i < count; ++i) total[i] += all[static_cast<std::size_t>(r) * count + i];
  return total;
}

double Communicator::max(double local) const {
  double global = 0.0;
  check_mpi(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce(max)");
  return global;
}

long long Communicator::sum(long long local) const {
  long long global = 0;
  check_mpi(MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, MPI_SUM, comm_), "MPI_Allreduce(sum)");
  return global;
}

int Communicator::node_local_rank() const {
  MPI_Comm node;
  check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

void Communicator::abort(int code) const {
  MPI_Abort(comm_, code);
  std::abort();
}

}  // namespace quilt
