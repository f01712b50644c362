#include "mpi_main.hpp"

#include <cstdio>
#include <exception>

namespace quilt {

int mpi_main(const char* program, int argc, char** argv, ApplicationBody body) {
  MpiEnvironment mpi(argc, argv);
  const Communicator comm;
  try {
    return body(argc, argv, comm);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error on rank %d: %s\n", program, comm.rank(), e.what());
    std::fflush(stderr);
    if (comm.size() > 1) comm.abort(1);  // the other ranks may be waiting in a collective
    return 1;
  }
}

}  // namespace quilt
