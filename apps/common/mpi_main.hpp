#pragma once
// The main() every application shares: MPI for the program's lifetime, every exception caught
// at the top, printed with the rank, and the whole job ended (design: an error on one rank
// must not leave the others waiting in a collective).

#include "parallel/communicator.hpp"

namespace quilt {

using ApplicationBody = int (*)(int argc, char** argv, const Communicator& comm);

/// Runs body under MPI; returns its status, or 1 after an exception (aborting all ranks).
int mpi_main(const char* program, int argc, char** argv, ApplicationBody body);

}  // namespace quilt
